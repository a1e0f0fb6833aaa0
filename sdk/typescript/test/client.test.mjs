import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { Client, HostgateError, controls, errorCode, isAgentTimeout, isHostOffline, isInsufficientBalance, isNotFound } from '../dist/index.js';
import { fakeHub, freePort } from './fakehub.mjs';

const KEY = 'ak_test.secret';
const H = 'h-1';
const hp = `/v1/api/hosts/${H}`;

// Each row: the call, then the request it must send.
const ops = [
  ['listHosts', (c) => c.listHosts(), 'GET', '/v1/api/hosts', undefined, { items: [] }],
  ['getHost', (c) => c.getHost(H), 'GET', hp, undefined],
  ['createHost', (c) => c.createHost('web-1'), 'POST', '/v1/api/hosts', { name: 'web-1', with_credentials: false }],
  ['createHost port+creds', (c) => c.createHost('web-1', 4000, true), 'POST', '/v1/api/hosts', { name: 'web-1', with_credentials: true, listen_port: 4000 }],
  ['deleteHost', (c) => c.deleteHost(H), 'DELETE', hp, undefined],
  ['installToken', (c) => c.installToken(H), 'POST', `${hp}/install-token`, undefined],
  ['rotateSecret', (c) => c.rotateSecret(H), 'POST', `${hp}/rotate-secret`, undefined],
  ['ping', (c) => c.ping(H), 'POST', `${hp}/ping`, undefined],
  ['putL1Config', (c) => c.putL1Config(H, { bid: 7, secret_key: 's', url: 'https://x/l1', webhook_format: 'B' }), 'PUT', `${hp}/l1-config`, { bid: 7, secret_key: 's', url: 'https://x/l1', webhook_format: 'B' }],
  ['webhookDeliveries', (c) => c.webhookDeliveries(H, 10), 'GET', `/v1/user/hosts/${H}/webhook-deliveries?limit=10`, undefined, { items: [] }],
  ['retryWebhookDelivery', (c) => c.retryWebhookDelivery(H, 'd1'), 'POST', `/v1/user/hosts/${H}/webhook-deliveries/d1/retry`, undefined],
  ['makeDir', (c) => c.makeDir(H, 'C:/a'), 'POST', `${hp}/files/dir`, { controls: 1, path: 'C:/a' }],
  ['removeDir', (c) => c.removeDir(H, 'C:/a'), 'POST', `${hp}/files/dir`, { controls: 2, path: 'C:/a' }],
  ['createFile', (c) => c.createFile(H, 'a.txt', 'hi'), 'POST', `${hp}/files/text`, { controls: 4, path: 'a.txt', data: 'hi' }],
  ['removeFile', (c) => c.removeFile(H, 'a.txt'), 'POST', `${hp}/files/text`, { controls: 8, path: 'a.txt' }],
  ['appendString', (c) => c.appendString(H, 'a.txt', 'x'), 'POST', `${hp}/files/text`, { controls: 16, path: 'a.txt', data: 'x' }],
  ['readString', (c) => c.readString(H, 'a.txt'), 'POST', `${hp}/files/text`, { controls: 32, path: 'a.txt' }],
  ['removeString', (c) => c.removeString(H, 'a.txt', 'x'), 'POST', `${hp}/files/text`, { controls: 64, path: 'a.txt', data: 'x' }],
  ['unzip', (c) => c.unzip(H, 'a.zip', 'out'), 'POST', `${hp}/files/zip`, { controls: 128, path: 'a.zip', data: 'out' }],
  ['download', (c) => c.download(H, 'f.bin', { url: 'https://x/f', max_bytes: 10 }), 'POST', `${hp}/files/download`, { controls: 256, path: 'f.bin', data: { url: 'https://x/f', max_bytes: 10 } }],
  ['exec', (c) => c.exec(H, 'notepad.exe', 'a.txt'), 'POST', `${hp}/process/exec`, { controls: 1024, path: 'notepad.exe', data: 'a.txt' }, { pid: 42 }],
  ['exec no args', (c) => c.exec(H, 'notepad.exe'), 'POST', `${hp}/process/exec`, { controls: 1024, path: 'notepad.exe' }, { pid: 42 }],
  ['shell', (c) => c.shell(H, '/bin/sh', "-c 'uname'", 30), 'POST', `${hp}/process/shell`, { controls: 8192, path: '/bin/sh', data: { args: "-c 'uname'", timeout_s: 30 } }],
  ['shell default timeout', (c) => c.shell(H, '/bin/sh', '-c true', 0), 'POST', `${hp}/process/shell`, { controls: 8192, path: '/bin/sh', data: { args: '-c true' } }],
  ['kill', (c) => c.kill(H, 'game.exe', 5), 'POST', `${hp}/process/kill`, { controls: 4096, path: 'game.exe', data: { timeout_s: 5 } }],
  ['listProcesses', (c) => c.listProcesses(H, 'game.exe'), 'POST', `${hp}/process/list`, { controls: 1 << 21, path: 'game.exe' }, { processes: [] }],
  ['systemInfo', (c) => c.systemInfo(H), 'POST', `${hp}/system/info`, { controls: 1 << 24 }],
  ['metrics', (c) => c.metrics(H), 'POST', `${hp}/system/metrics`, { controls: 1 << 25 }],
  ['serviceCtl', (c) => c.serviceCtl(H, 'svc', { action: 'start' }), 'POST', `${hp}/service/ctl`, { controls: 1 << 26, path: 'svc', data: { action: 'start' } }],
  ['registry', (c) => c.registry(H, 'HKLM\\Software\\X', { action: 'get', name: 'v' }), 'POST', `${hp}/registry/rw`, { controls: 1 << 27, path: 'HKLM\\Software\\X', data: { action: 'get', name: 'v' } }],
  ['scheduledTask', (c) => c.scheduledTask(H, '', { action: 'list' }), 'POST', `${hp}/scheduled-task/ctl`, { controls: 1 << 28, data: { action: 'list' } }],
  ['raw', (c) => c.raw(H, controls.CtlStrRd, 'a.txt'), 'POST', `${hp}/controls/raw`, { controls: 32, path: 'a.txt' }],
  ['orchestrateStart', (c) => c.orchestrateStart(H, 'D:/Game Dir', { spawn_subprocesses: true, run_gate_count: 2 }), 'POST', `${hp}/orchestrate/start?base_path=D%3A%2FGame%20Dir`, { spawn_subprocesses: true, run_gate_count: 2 }],
  ['orchestrateShutdown', (c) => c.orchestrateShutdown(H, 'D:/g', { timeout_override_s: 5 }), 'POST', `${hp}/orchestrate/shutdown?base_path=D%3A%2Fg`, { timeout_override_s: 5 }],
  ['openShell', (c) => c.openShell(H, 120, 40), 'POST', `${hp}/shell/session/open`, { cols: 120, rows: 40 }, { stream_id: 's1' }],
];

test('every operation sends its method, path, body and key', async (t) => {
  let answer;
  const hub = await fakeHub(() => ({ status: 200, body: answer }));
  t.after(hub.close);
  const c = new Client(hub.url + '/', KEY);
  for (const [name, call, method, path, body, ans = {}] of ops) {
    answer = ans;
    const before = hub.requests.length;
    await call(c);
    assert.equal(hub.requests.length, before + 1, name);
    const r = hub.requests.at(-1);
    assert.equal(r.method, method, name);
    assert.equal(r.url, path, name);
    assert.deepEqual(r.body, body, name);
    assert.equal(r.headers.authorization, `Bearer ${KEY}`, name);
    assert.equal(r.headers['content-type'], body === undefined ? undefined : 'application/json', name);
  }
});

test('results are decoded', async (t) => {
  const hub = await fakeHub((r) => {
    if (r.url.endsWith('/ping')) return { body: { ok: true, rtt_ms: 12, agent_version: '1.2.3' } };
    if (r.url.endsWith('/process/exec')) return { body: { pid: 99 } };
    if (r.url === '/v1/api/hosts') return { body: { items: null } };
    return { body: { stdout: 'Linux\n', stderr: '', exit_code: 0, duration_ms: 5, timed_out: false, truncated: false } };
  });
  t.after(hub.close);
  const c = new Client(hub.url, KEY);
  assert.deepEqual(await c.ping(H), { rttMs: 12, agentVersion: '1.2.3' });
  assert.equal(await c.exec(H, 'x'), 99);
  assert.deepEqual(await c.listHosts(), []);
  const r = await c.shell(H, '/bin/sh', '-c uname', 10);
  assert.equal(r.stdout, 'Linux\n');
  assert.equal(r.exit_code, 0);
});

test('installer returns bytes and file name, and is not retried', async (t) => {
  const hub = await fakeHub((r, n) => n === 1
    ? { status: 503, body: { error: 'unavailable', message: 'x' } }
    : { raw: 'MZ\x00\x01', contentType: 'application/octet-stream', headers: { 'Content-Disposition': 'attachment; filename="hostgate-agent.exe"' } });
  t.after(hub.close);
  const c = new Client(hub.url, KEY, { retryBaseMs: 1 });
  await assert.rejects(c.installer(H, 'exe'), (e) => e instanceof HostgateError && e.status === 503);
  assert.equal(hub.requests.length, 1);
  const inst = await c.installer(H, 'ps1');
  assert.equal(hub.requests[1].url, `${hp}/installer?format=ps1`);
  assert.equal(inst.filename, 'hostgate-agent.exe');
  assert.deepEqual([...inst.data], [0x4d, 0x5a, 0, 1]);
});

test('errors map to HostgateError and the predicates', async (t) => {
  const answers = {
    '/402': { status: 402, body: { error: 'insufficient_balance', message: 'balance 0' } },
    '/409': { status: 409, body: { error: 'host_offline', message: 'agent not connected' } },
    '/404': { status: 404, body: { error: 'not_found', message: 'no such host' } },
    '/504': { status: 504, body: { error: 'agent_timeout', message: 'slow' } },
    '/500': { status: 500, raw: 'boom\n', contentType: 'text/plain' },
  };
  // The host id picks the answer: /v1/api/hosts/402/process/shell → answers['/402'].
  const hub = await fakeHub((r) => answers[`/${r.url.split('/')[4]}`]);
  t.after(hub.close);
  const c = new Client(hub.url, KEY, { retries: 0 });
  const err = async (id) => { try { await c.shell(id, 'x', '', 0); } catch (e) { return e; } assert.fail('no error'); };
  const e402 = await err('402');
  assert.ok(e402 instanceof HostgateError);
  assert.equal(e402.status, 402);
  assert.equal(e402.error, 'insufficient_balance');
  assert.equal(e402.message, 'balance 0');
  assert.ok(isInsufficientBalance(e402) && !isHostOffline(e402));
  const e409 = await err('409');
  assert.ok(isHostOffline(e409) && !isInsufficientBalance(e409));
  assert.ok(isNotFound(await err('404')));
  assert.ok(isAgentTimeout(await err('504')));
  const e500 = await err('500');
  assert.equal(e500.error, 'http_500');
  assert.equal(e500.message, 'boom');
  assert.equal(errorCode(new Error('x')), '');
  assert.equal(isHostOffline(undefined), false);
});

test('charged POSTs are never retried', async (t) => {
  const hub = await fakeHub(() => ({ status: 503, body: { error: 'unavailable', message: 'busy' } }));
  t.after(hub.close);
  const c = new Client(hub.url, KEY, { retries: 3, retryBaseMs: 1 });
  await assert.rejects(c.shell(H, '/bin/sh', '-c true', 0), (e) => e.status === 503);
  await assert.rejects(c.createFile(H, 'a', 'b'), (e) => e.status === 503);
  await assert.rejects(c.putL1Config(H, { bid: 1, secret_key: 's', url: '' }), (e) => e.status === 503);
  assert.equal(hub.requests.length, 3);
});

test('a POST whose answer is lost is not retried', async (t) => {
  let n = 0;
  const server = http.createServer((req) => { n++; req.socket.destroy(); });
  await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
  t.after(() => server.close());
  const c = new Client(`http://127.0.0.1:${server.address().port}`, KEY, { retries: 3, retryBaseMs: 1 });
  await assert.rejects(c.shell(H, 'x', '', 0));
  assert.equal(n, 1);
});

test('GET is retried on 503 with backoff', async (t) => {
  const hub = await fakeHub((r, n) => n < 3 ? { status: 503, body: { error: 'unavailable', message: '' } } : { body: { items: [{ id: 'a' }] } });
  t.after(hub.close);
  const c = new Client(hub.url, KEY, { retries: 3, retryBaseMs: 5 });
  const hosts = await c.listHosts();
  assert.equal(hosts[0].id, 'a');
  assert.equal(hub.requests.length, 3);
});

test('GET gives up after the retries', async (t) => {
  const hub = await fakeHub(() => ({ status: 502, body: { error: 'bad_gateway', message: '' } }));
  t.after(hub.close);
  const c = new Client(hub.url, KEY, { retries: 2, retryBaseMs: 1 });
  await assert.rejects(c.getHost(H), (e) => e.status === 502);
  assert.equal(hub.requests.length, 3);
});

test('connection refused is retried until the hub listens', async (t) => {
  const port = await freePort();
  let n = 0;
  const server = http.createServer((req, res) => { n++; res.setHeader('Content-Type', 'application/json'); res.end('{"pid":7}'); });
  const tries = [];
  const c = new Client(`http://127.0.0.1:${port}`, KEY, {
    retries: 5,
    retryBaseMs: 40,
    fetch: async (u, init) => {
      tries.push(Date.now());
      if (tries.length === 2) await new Promise((ok) => server.listen(port, '127.0.0.1', ok));
      return fetch(u, init);
    },
  });
  t.after(() => server.close());
  // A POST too: a refused connection never reached the hub, so nothing was charged.
  assert.equal(await c.exec(H, 'x'), 7);
  assert.equal(tries.length, 2);
  assert.equal(n, 1);
});

test('connection refused gives up after the retries', async () => {
  const c = new Client(`http://127.0.0.1:${await freePort()}`, KEY, { retries: 2, retryBaseMs: 1 });
  await assert.rejects(c.listHosts(), (e) => e instanceof TypeError && e.cause?.code === 'ECONNREFUSED');
});

test('timeoutMs bounds a call', async (t) => {
  const hub = await fakeHub(() => ({ hang: true }));
  t.after(hub.close);
  const c = new Client(hub.url, KEY, { timeoutMs: 100, retries: 3 });
  const t0 = Date.now();
  await assert.rejects(c.getHost(H), (e) => e.name === 'TimeoutError');
  assert.ok(Date.now() - t0 < 2000);
  assert.equal(hub.requests.length, 1, 'a timeout is not retried');
});

test('the caller signal cancels a call', async (t) => {
  const hub = await fakeHub(() => ({ hang: true }));
  t.after(hub.close);
  const c = new Client(hub.url, KEY);
  const ac = new AbortController();
  setTimeout(() => ac.abort(), 50);
  await assert.rejects(c.shell(H, 'x', '', 600, { signal: ac.signal }), (e) => e.name === 'AbortError');
  await assert.rejects(c.listHosts({ signal: AbortSignal.abort() }), (e) => e.name === 'AbortError');
});

test('shell session helper', async (t) => {
  let reads = 0;
  const hub = await fakeHub((r) => {
    if (r.url.endsWith('/open')) return { body: { stream_id: 'st 1' } };
    if (r.url.endsWith('/read')) {
      reads++;
      return { body: reads === 1 ? { data: Buffer.from('hello ').toString('base64'), eof: false } : { data: Buffer.from('world').toString('base64'), eof: true, exit_code: 3 } };
    }
    return { body: {} };
  });
  t.after(hub.close);
  const c = new Client(hub.url, KEY);
  const s = await c.openShell(H);
  assert.equal(s.id, 'st 1');
  assert.deepEqual(hub.requests[0].body, { cols: 0, rows: 0 });
  await s.write('ls\n');
  await s.resize(100, 30);
  let text = '';
  const last = await s.pump((d) => { text += new TextDecoder().decode(d); }, 1000);
  await s.close();
  assert.equal(text, 'hello world');
  assert.equal(last.exitCode, 3);
  const sp = `${hp}/shell/session/st%201`;
  assert.deepEqual(hub.requests.slice(1).map((r) => [r.url, r.body]), [
    [`${sp}/write`, { input: 'ls\n' }],
    [`${sp}/resize`, { cols: 100, rows: 30 }],
    [`${sp}/read`, { max: 0, wait_ms: 1000 }],
    [`${sp}/read`, { max: 0, wait_ms: 1000 }],
    [`${sp}/close`, undefined],
  ]);
});

test('onCharge and HostgateError.charge carry what each call cost', async (t) => {
  const hub = await fakeHub((r, n) => {
    if (n === 1) return { body: { items: [] }, headers: { 'X-Hostgate-Charged': '0.5', 'X-Hostgate-Balance': '99.5' } };
    if (n === 2) return { status: 504, body: { error: 'agent_timeout', message: 'late' }, headers: { 'X-Hostgate-Charged': '5', 'X-Hostgate-Balance': '94.5' } };
    if (n === 3) return { body: { items: [] }, headers: { 'X-Hostgate-Charged': '0' } };
    return { body: { items: [] } };
  });
  t.after(hub.close);
  const seen = [];
  const c = new Client(hub.url, KEY, { retries: 0, onCharge: (ch) => seen.push(ch) });
  await c.listHosts();
  await assert.rejects(c.shell(H, '/bin/sh', '-c true', 5), (e) =>
    isAgentTimeout(e) && e.charge?.tokens === 5 && e.charge?.balance === 94.5 && e.charge?.balanceText === '94.5');
  await c.listHosts(); // free mode: charged 0, no balance
  await c.listHosts(); // a free route: nothing
  assert.deepEqual(seen, [
    { tokens: 0.5, chargedText: '0.5', balance: 99.5, balanceText: '99.5' },
    { tokens: 5, chargedText: '5', balance: 94.5, balanceText: '94.5' },
    { tokens: 0, chargedText: '0' },
  ]);
});
