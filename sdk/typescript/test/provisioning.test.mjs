import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Client, HostgateError, isNotFound } from '../dist/index.js';
import { fakeHub } from './fakehub.mjs';

const KEY = 'ak_test.secret';
const ANSWER =
  '{"schema_version":1,"hub":{"host_id":"h1","bid":7,"secret_key":"s","install_token":"t",' +
  '"agent_privkey_seed":"c2VlZA==","agent_pubkey":"cHVi","ws_url":"wss://x/ws","api_endpoint":"https://x","listen_port":23456},' +
  '"autologon":{"username":"Administrator","password":"0123456789abcdefGH"},"extra":{"kept":true}}';

test('provisioningPayload sends its route and autologon, and keeps the raw payload', async (t) => {
  const hub = await fakeHub(() => ({ raw: ANSWER + '\n' }));
  t.after(hub.close);
  const c = new Client(hub.url, KEY);

  const p = await c.provisioningPayload('h/1');
  const r = hub.requests.at(-1);
  assert.equal(r.method, 'POST');
  assert.equal(r.url, '/v1/api/hosts/h%2F1/provisioning-payload');
  assert.equal(r.text, '');
  assert.equal(r.headers['content-type'], undefined);
  assert.equal(r.headers.authorization, `Bearer ${KEY}`);
  assert.equal(p.schema_version, 1);
  assert.equal(p.hub.host_id, 'h1');
  assert.equal(p.hub.agent_pubkey, 'cHVi');
  assert.deepEqual(p.autologon, { username: 'Administrator', password: '0123456789abcdefGH' });
  assert.equal(p.raw, ANSWER);
  assert.deepEqual(JSON.parse(JSON.stringify(p)), JSON.parse(ANSWER), 'raw is not part of the payload as JSON');

  for (const [autologon, body] of [
    [{}, { autologon: {} }],
    [{ username: 'ops' }, { autologon: { username: 'ops' } }],
    [{ username: 'ops', password: '0123456789abcdef' }, { autologon: { username: 'ops', password: '0123456789abcdef' } }],
  ]) {
    await c.provisioningPayload('h1', autologon);
    const r = hub.requests.at(-1);
    assert.deepEqual(r.body, body);
    assert.equal(r.headers['content-type'], 'application/json');
  }
});

test('provisioningPayload refusals are HostgateErrors, never retried', async (t) => {
  let answer;
  const hub = await fakeHub(() => answer);
  t.after(hub.close);
  const c = new Client(hub.url, KEY, { retries: 3, retryBaseMs: 1 });
  answer = { status: 400, body: { error: 'invalid_body', message: 'autologon.password must be 16 to 128 characters' } };
  await assert.rejects(c.provisioningPayload('h1', { password: 'short' }), (e) => e instanceof HostgateError && e.status === 400 && e.error === 'invalid_body');
  answer = { status: 503, body: { error: 'unavailable', message: 'later' } };
  await assert.rejects(c.provisioningPayload('h1'), (e) => e.status === 503);
  assert.equal(hub.requests.length, 2, 'a call that issues credentials is sent once');
  answer = { status: 404, body: { error: 'not_found', message: 'host not found' } };
  await assert.rejects(c.provisioningPayload('h1'), (e) => isNotFound(e));
});
