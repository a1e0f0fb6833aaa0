// Against a real hub: set HOSTGATE_SDK_HUB (base URL) and HOSTGATE_SDK_KEY
// (an API key). Skipped otherwise. Creates one host and deletes it again.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Client, HostgateError, isHostOffline, isInsufficientBalance, isNotFound } from '../dist/index.js';

const hub = process.env.HOSTGATE_SDK_HUB;
const key = process.env.HOSTGATE_SDK_KEY;
const skip = !hub || !key ? 'HOSTGATE_SDK_HUB and HOSTGATE_SDK_KEY not set' : false;

test('real hub: host lifecycle and errors', { skip }, async () => {
  const c = new Client(hub, key, { timeoutMs: 15000 });
  const { host, credentials } = await c.createHost(`sdk-ts-${Date.now()}`, 0, true);
  try {
    assert.ok(host.id);
    assert.ok(credentials?.install_token);
    assert.ok((await c.listHosts()).some((h) => h.id === host.id));
    const got = await c.getHost(host.id);
    assert.equal(got.online, false);
    // No agent runs for this host: a charged operation answers 409 host_offline,
    // or 402 when the key holder's balance is empty.
    try {
      await c.shell(host.id, '/bin/sh', '-c true', 5);
      assert.fail('shell on an offline host succeeded');
    } catch (e) {
      assert.ok(e instanceof HostgateError, String(e));
      assert.ok(isHostOffline(e) || isInsufficientBalance(e), `${e.status} ${e.error}`);
    }
    assert.ok(Array.isArray(await c.webhookDeliveries(host.id, 5)));
    const userDeliveries = await c.listUserWebhookDeliveries(5);
    assert.ok(Array.isArray(userDeliveries.items) && userDeliveries.limit === 5, JSON.stringify(userDeliveries));
    await assert.rejects(c.retryUserWebhookDelivery('6f1c2a9e-8d4b-4e3a-9c51-2b7f0d8e4a13'), (e) => isNotFound(e));
    // A hub without an agent executable answers 503 exe_not_configured.
    try {
      const ps1 = await c.installer(host.id, 'ps1');
      assert.ok(ps1.data.length > 0);
    } catch (e) {
      assert.equal(e.error, 'exe_not_configured', String(e));
    }
    assert.ok((await c.installToken(host.id)).install_token);
    const prov = await c.provisioningPayload(host.id, {});
    assert.equal(prov.hub.host_id, host.id);
    assert.equal(prov.hub.secret_key, credentials.secret_key);
    assert.equal(prov.autologon?.username, 'Administrator');
    assert.ok(prov.autologon.password.length >= 16 && prov.raw.length < 1024);
  } finally {
    await c.deleteHost(host.id);
  }
  await assert.rejects(c.getHost(host.id), (e) => isNotFound(e));
});

// Webhooks end to end: the hub must reach this process at
// HOSTGATE_SDK_RECEIVER_HOST (e.g. 127.0.0.1, with HOSTGATE_WEBHOOK_ALLOW_PRIVATE=1
// on the hub), and the key holder needs a balance for two L1 writes.
const receiverHost = process.env.HOSTGATE_SDK_RECEIVER_HOST;
test('real hub: Format A then Format B delivery verify, with the secret replaced in between', { skip: skip || (!receiverHost && 'HOSTGATE_SDK_RECEIVER_HOST not set') }, async (t) => {
  const { default: http } = await import('node:http');
  const { randomBytes } = await import('node:crypto');
  const { verifyWebhook, webhookNewSecret, DeliveryDeduper } = await import('../dist/index.js');
  const c = new Client(hub, key, { timeoutMs: 15000 });
  const { host, credentials } = await c.createHost(`sdk-ts-wh-${Date.now()}`, 0, true);
  t.after(() => c.deleteHost(host.id));
  let secret = credentials.secret_key;
  const seen = new DeliveryDeduper();
  const events = [];
  let wake = () => {};
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (d) => chunks.push(d));
    req.on('end', async () => {
      if (seen.seen(req.headers['x-gateway-delivery'] ?? '')) return res.writeHead(200).end();
      try {
        const ev = await verifyWebhook(req.headers, Buffer.concat(chunks), secret);
        seen.record(ev.delivery_id);
        secret = webhookNewSecret(ev);
        events.push(ev);
        res.writeHead(200).end();
      } catch (e) {
        events.push(e);
        res.writeHead(401).end();
      }
      wake();
    });
  });
  await new Promise((ok) => server.listen(0, receiverHost, ok));
  t.after(() => server.close());
  const url = `http://${receiverHost}:${server.address().port}/l1`;
  const next = (n) => new Promise((ok, fail) => {
    const timer = setTimeout(() => fail(new Error(`no delivery ${n} within 20 s`)), 20000);
    const check = () => { if (events.length >= n) { clearTimeout(timer); ok(events[n - 1]); } };
    wake = check;
    check();
  });
  const s1 = randomBytes(16).toString('hex');
  try {
    await c.putL1Config(host.id, { bid: credentials.bid, secret_key: s1, url, webhook_format: 'A' });
  } catch (e) {
    if (isInsufficientBalance(e)) return t.skip('no balance for control.update_l1');
    throw e;
  }
  const a = await next(1);
  assert.equal(a.event, 'host.l1_config_updated', String(a));
  assert.equal(secret, s1);
  const s2 = randomBytes(16).toString('hex');
  await c.putL1Config(host.id, { bid: credentials.bid, secret_key: s2, url, webhook_format: 'B' });
  const b = await next(2);
  assert.equal(b.event, 'host.l1_config.updated', String(b));
  assert.equal(b.after.report_url, url);
  assert.equal(secret, s2);
  const rows = await c.webhookDeliveries(host.id, 10);
  assert.ok(rows.length >= 2);
});
