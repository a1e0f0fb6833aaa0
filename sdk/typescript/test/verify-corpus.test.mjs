// The shared verifier corpus (sdk/testdata/verify/*.json): verifyWebhook
// gives each case's expected verdict, as the Go and Python SDKs must (their
// tests run the same files), and never throws anything but
// WebhookVerificationError.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';
import { verdict } from '../../testdata/verify/verdict.mjs';

const dir = new URL('../../testdata/verify/', import.meta.url);

/** The corpus's placeholders: {mac}, {MAC}, {mac63}, {macspaced}. */
function expandMac(v, key, t, body) {
  const mac = createHmac('sha256', key).update(Buffer.concat([Buffer.from(`${t}.`), body])).digest('hex');
  const spaced = mac.match(/../g).join(' ');
  return v.replaceAll('{mac}', mac).replaceAll('{MAC}', mac.toUpperCase()).replaceAll('{mac63}', mac.slice(0, 63)).replaceAll('{macspaced}', spaced);
}

const cases = readdirSync(dir).filter((f) => f.endsWith('.json')).sort().flatMap((f) =>
  JSON.parse(readFileSync(new URL(f, dir), 'utf8')).map((c) => ({ ...c, name: `${f}: ${c.name}` })));

test('the shared verifier corpus', async () => {
  assert.ok(cases.length > 100, 'the corpus is missing');
  for (const c of cases) {
    const body = 'body' in c ? Buffer.from(c.body, 'utf8') : Buffer.from(c.body_b64, 'base64');
    const headers = c.headers.map(([k, v]) => [k, c.mac ? expandMac(v, c.mac.key, c.mac.t, body) : v]);
    const got = await verdict({ headers, body_b64: body.toString('base64'), secret: c.secret, now: c.now });
    assert.deepEqual(got, c.want, c.name);
  }
});
