import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { DeliveryDeduper, WebhookVerificationError, verifyWebhook, webhookDeliveryId, webhookNewSecret } from '../dist/index.js';

// Golden vectors from the hub's own tests (internal/webhooks/request_test.go,
// TestGoldenRequests; also docs/webhooks.md §2–3). The Go SDK (sdk/go) has no
// webhook verification and no vectors of its own.
const OLD = '3f9a1c7e5b2d4086a1e3c5b7d9f02468';
const NEW = '8c2e4a6b0d1f3e5a7c9b2d4f6a8e0c1b';
const T = 1767268830;
const bodyA = '{"event":"host.l1_config_updated","delivery_id":"6f1c2a9e-8d4b-4e3a-9c51-2b7f0d8e4a13","user_id":"0b8e5c3a-1f2d-4a6b-8c9e-7d3f1a2b4c5d","host_id":"9a7b3c1d-2e4f-4a5b-8c6d-1e2f3a4b5c6d","source":"web","occurred_at":"2026-01-01T12:00:00Z","data":{"bid":4821936602771,"secret_key":"8c2e4a6b0d1f3e5a7c9b2d4f6a8e0c1b","url":"https://hooks.example.com/l1"}}';
const sigA = 't=1767268830,v1=8bf413fc057d2efee63d86bfabd4cea8fcd421bdd496402b4dad829bb928ace5';
const bodyB = '{"event":"host.l1_config.updated","delivery_id":"wd_6f1c2a9e-8d4b-4e3a-9c51-2b7f0d8e4a13","timestamp":"2026-01-01T12:00:00Z","host_id":"9a7b3c1d-2e4f-4a5b-8c6d-1e2f3a4b5c6d","host_name":"web-1","changed_by":{"kind":"user","id":"0b8e5c3a-1f2d-4a6b-8c9e-7d3f1a2b4c5d","ip":"203.0.113.7"},"before":{"bid":4821936602771,"report_url":"https://old.example.com/l1"},"after":{"bid":4821936602771,"secret_key":"8c2e4a6b0d1f3e5a7c9b2d4f6a8e0c1b","report_url":"https://hooks.example.com/l1"}}';
const sigB = 'sha256=f8245af2a924668a83831d3dfab3a591468fb1ee83cbb10afafca23a3fac1bbf';

const headersA = {
  'content-type': 'application/json',
  'x-gateway-event': 'host.l1_config_updated',
  'x-gateway-delivery': '6f1c2a9e-8d4b-4e3a-9c51-2b7f0d8e4a13',
  'x-gateway-signature': sigA,
};
const headersB = new Headers({
  'Content-Type': 'application/json',
  'X-Gateway-Event': 'host.l1_config.updated',
  'X-Gateway-Delivery': 'wd_6f1c2a9e-8d4b-4e3a-9c51-2b7f0d8e4a13',
  'X-Gateway-Timestamp': '1767268830',
  'X-Gateway-Signature': sigB,
});
const at = { nowS: T + 70 };

// Independent signer: node:crypto, not the SDK's Web Crypto path.
const mac = (secret, t, body) => createHmac('sha256', secret).update(`${t}.`).update(body).digest('hex');

async function refused(p, reason) {
  await assert.rejects(p, (e) => e instanceof WebhookVerificationError && e.reason === reason);
}

test('golden Format A from the hub verifies', async () => {
  const ev = await verifyWebhook(headersA, Buffer.from(bodyA), OLD, at);
  assert.equal(ev.event, 'host.l1_config_updated');
  assert.equal(ev.data.bid, 4821936602771);
  assert.equal(webhookNewSecret(ev), NEW);
  assert.equal(webhookDeliveryId(headersA), ev.delivery_id);
});

test('golden Format B from the hub verifies (Headers, string body)', async () => {
  const ev = await verifyWebhook(headersB, bodyB, OLD, at);
  assert.equal(ev.event, 'host.l1_config.updated');
  assert.equal(ev.before.report_url, 'https://old.example.com/l1');
  assert.equal(webhookNewSecret(ev), NEW);
});

test('independently signed vectors verify', async () => {
  const now = Math.floor(Date.now() / 1000);
  const secret = 'a'.repeat(32);
  const body = JSON.stringify({ event: 'host.l1_config.updated', delivery_id: 'wd_x', after: { bid: 1, secret_key: 'n', report_url: '' } });
  const ev = await verifyWebhook({ 'X-Gateway-Event': 'host.l1_config.updated', 'X-Gateway-Delivery': 'wd_x', 'X-Gateway-Timestamp': String(now), 'X-Gateway-Signature': `sha256=${mac(secret, now, body)}` }, body, secret);
  assert.equal(webhookNewSecret(ev), 'n');
  const bodyA2 = JSON.stringify({ event: 'host.l1_config_updated', delivery_id: 'u1', data: { bid: 1, secret_key: 'n2', url: '' } });
  // Parts in either order, unknown parts ignored, any v1 matching accepted; array header values (Node).
  const h = { 'x-gateway-event': 'host.l1_config_updated', 'x-gateway-delivery': ['u1'], 'x-gateway-signature': `v1=${'0'.repeat(64)}, x=1, v1=${mac(secret, now, bodyA2)}, t=${now}` };
  assert.equal(webhookNewSecret(await verifyWebhook(h, bodyA2, secret)), 'n2');
});

test('a tampered body is refused', async () => {
  await refused(verifyWebhook(headersA, bodyA.replace('4821936602771', '4821936602772'), OLD, at), 'signature');
  await refused(verifyWebhook(headersB, bodyB + ' ', OLD, at), 'signature');
});

test('the wrong secret is refused (the new one, too)', async () => {
  await refused(verifyWebhook(headersA, bodyA, NEW, at), 'signature');
  await refused(verifyWebhook(headersB, bodyB, 'x', at), 'signature');
});

test('an old or future timestamp is refused', async () => {
  await refused(verifyWebhook(headersA, bodyA, OLD, { nowS: T + 301 }), 'stale');
  await refused(verifyWebhook(headersB, bodyB, OLD, { nowS: T - 301 }), 'stale');
  await refused(verifyWebhook(headersA, bodyA, OLD), 'stale'); // real clock: 2026-01-01 is long gone
  assert.ok(await verifyWebhook(headersB, bodyB, OLD, { nowS: T + 1000, toleranceS: 1000 }));
});

test('missing or malformed headers are refused', async () => {
  const without = (name) => Object.fromEntries(Object.entries(headersA).filter(([k]) => k !== name));
  await refused(verifyWebhook(without('x-gateway-signature'), bodyA, OLD, at), 'malformed');
  await refused(verifyWebhook(without('x-gateway-delivery'), bodyA, OLD, at), 'malformed');
  const b = new Headers(headersB);
  b.delete('X-Gateway-Timestamp');
  await refused(verifyWebhook(b, bodyB, OLD, at), 'malformed');
  await refused(verifyWebhook({ ...headersA, 'x-gateway-signature': 'v1=abc' }, bodyA, OLD, at), 'malformed');
  await refused(verifyWebhook({ ...headersA, 'x-gateway-signature': 't=1767268830,v1=zz' }, bodyA, OLD, at), 'signature');
  // A delivery id that is not the body's.
  await refused(verifyWebhook({ ...headersA, 'x-gateway-delivery': 'other' }, bodyA, OLD, at), 'malformed');
  // Format A body under Format B headers (signed correctly) is refused.
  const hb = { 'X-Gateway-Delivery': headersA['x-gateway-delivery'], 'X-Gateway-Timestamp': String(T), 'X-Gateway-Signature': `sha256=${mac(OLD, T, bodyA)}` };
  await refused(verifyWebhook(hb, bodyA, OLD, at), 'malformed');
});

test('DeliveryDeduper remembers ids, newest max', () => {
  const d = new DeliveryDeduper(2);
  assert.equal(d.seen('a'), false);
  d.record('a');
  d.record('b');
  assert.ok(d.seen('a') && d.seen('b'));
  d.record('c');
  assert.equal(d.seen('a'), false);
  assert.ok(d.seen('c'));
});
