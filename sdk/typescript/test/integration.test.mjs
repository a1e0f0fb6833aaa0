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
  } finally {
    await c.deleteHost(host.id);
  }
  await assert.rejects(c.getHost(host.id), (e) => isNotFound(e));
});
