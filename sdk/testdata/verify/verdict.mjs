// The TypeScript SDK's verdict on one request {headers: [[name, value], ...],
// body_b64, secret, now}, for driver.mjs and the SDK's corpus test, against
// the built SDK (npm --prefix sdk/typescript run build): an error other than
// WebhookVerificationError is a verdict of its own, never a crash.
import { WebhookVerificationError, isUserEvent, verifyWebhook, webhookNewSecret } from '../../typescript/dist/index.js';

export async function verdict(req) {
  const headers = {};
  for (const [k, v] of req.headers) if (!Object.hasOwn(headers, k)) headers[k] = v;
  try {
    const ev = await verifyWebhook(headers, Buffer.from(req.body_b64, 'base64'), req.secret, { nowS: req.now });
    return isUserEvent(ev)
      ? { verdict: 'accept', event: ev.type, delivery_id: ev.id, new_secret_key: '' }
      : { verdict: 'accept', event: ev.event, delivery_id: ev.delivery_id, new_secret_key: webhookNewSecret(ev) };
  } catch (e) {
    if (e instanceof WebhookVerificationError) return { verdict: e.reason };
    return { verdict: `exception ${e?.name}`, error: String(e) }; // the bug this driver is here to find
  }
}

