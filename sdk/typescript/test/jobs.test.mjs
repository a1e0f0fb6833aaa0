import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { readFileSync, existsSync } from 'node:fs';
import {
  Client, JobWaitTimeoutError, WebhookVerificationError, controls, isNotFound, isUserEvent, jobFinal, jobPollIntervalMs,
  jobSucceeded, shellOperation, verifyWebhook, webhookNewSecret,
} from '../dist/index.js';
import { fakeHub } from './fakehub.mjs';

const KEY = 'ak_test.secret';

// Each row: the call, then the request it must send (sdk/go/jobs_test.go TestJobRequests).
const rows = [
  [(c) => c.createJob({ target: { tags: ['env=prod'] }, operation: shellOperation('/bin/sh', '-c uptime', 30), offline: 'queue', expires_in_s: 600, concurrency: 5, waves: { size: 10, pause_s: 30, stop_if_failed_pct: 20 } }),
    'POST', '/v1/api/jobs', { target: { tags: ['env=prod'] }, operation: { controls: 8192, path: '/bin/sh', data: { args: '-c uptime', timeout_s: 30 } }, offline: 'queue', expires_in_s: 600, concurrency: 5, waves: { size: 10, pause_s: 30, stop_if_failed_pct: 20 } }],
  [(c) => c.dryRunJob({ target: { host_ids: ['h1'] }, operation: { controls: controls.CtlSystemInfo } }),
    'POST', '/v1/api/jobs', { target: { host_ids: ['h1'] }, operation: { controls: 16777216 }, dry_run: true }],
  [(c) => c.getJob('j/1'), 'GET', '/v1/api/jobs/j%2F1'],
  [(c) => c.listJobs('running', 10, 20), 'GET', '/v1/api/jobs?limit=10&offset=20&state=running'],
  [(c) => c.listJobs(), 'GET', '/v1/api/jobs'],
  [(c) => c.listJobs('running', 10, 0, { cursor: 'AQx' }), 'GET', '/v1/api/jobs?cursor=AQx&limit=10&state=running'],
  [(c) => c.listJobResults('j1', '', 5, 0, { cursor: 'AQy' }), 'GET', '/v1/api/jobs/j1/results?cursor=AQy&limit=5'],
  [(c) => c.scheduleRuns('s1', 3, 0, { cursor: 'AQz' }), 'GET', '/v1/api/schedules/s1/runs?cursor=AQz&limit=3'],
  [(c) => c.listUserWebhookDeliveries(5, 0, { cursor: 'AQw' }), 'GET', '/v1/api/webhook-deliveries?cursor=AQw&limit=5'],
  [(c) => c.searchHosts({ status: 'online' }, '', 2, 0, { cursor: 'AQv' }), 'GET', '/v1/api/hosts?cursor=AQv&limit=2&status=online'],
  [(c) => c.cancelJob('j1'), 'POST', '/v1/api/jobs/j1/cancel'],
  [(c) => c.retryJob('j1'), 'POST', '/v1/api/jobs/j1/retry'],
  [(c) => c.retryJob('j1', ['failed', 'expired']), 'POST', '/v1/api/jobs/j1/retry', { states: ['failed', 'expired'] }],
  [(c) => c.listJobResults('j1', 'failed', 5), 'GET', '/v1/api/jobs/j1/results?limit=5&state=failed'],
  [(c) => c.jobOutput('j1', 'h1'), 'GET', '/v1/api/jobs/j1/results/h1/output'],
  [(c) => c.setTags('h1', { env: 'prod', role: '' }), 'PUT', '/v1/api/hosts/h1/tags', { tags: { env: 'prod', role: '' } }],
  [(c) => c.updateTags(['h1', 'h2'], { env: 'prod' }, ['old']), 'POST', '/v1/api/hosts/tags', { host_ids: ['h1', 'h2'], add: { env: 'prod' }, remove: ['old'] }],
  [(c) => c.searchHosts({ tags: ['env=prod', 'role'], online: true, os: 'linux' }, 'f1', 0, 10), 'GET', '/v1/api/hosts?filter_id=f1&limit=50&offset=10&online=true&os=linux&tag=env%3Dprod&tag=role'],
  [(c) => c.getFilter('f1'), 'GET', '/v1/api/filters/f1'],
  [(c) => c.createFilter('prod', { tags: ['env=prod'], status: 'active' }), 'POST', '/v1/api/filters', { name: 'prod', query: { tags: ['env=prod'], status: 'active' } }],
  [(c) => c.updateFilter('f1', 'renamed'), 'PATCH', '/v1/api/filters/f1', { name: 'renamed' }],
  [(c) => c.deleteFilter('f1'), 'DELETE', '/v1/api/filters/f1'],
  [(c) => c.createSchedule({ name: 'nightly', cron: '0 3 * * *', timezone: 'Europe/Berlin', job: { target: { filter_id: 'f1' }, operation: shellOperation('/bin/sh', '-c true') } }),
    'POST', '/v1/api/schedules', { name: 'nightly', cron: '0 3 * * *', timezone: 'Europe/Berlin', job: { target: { filter_id: 'f1' }, operation: { controls: 8192, path: '/bin/sh', data: { args: '-c true' } } } }],
  [(c) => c.getSchedule('s1'), 'GET', '/v1/api/schedules/s1'],
  [(c) => c.updateSchedule('s1', { cron: '*/5 * * * *', timezone: 'UTC' }), 'PATCH', '/v1/api/schedules/s1', { cron: '*/5 * * * *', timezone: 'UTC' }],
  [(c) => c.pauseSchedule('s1'), 'POST', '/v1/api/schedules/s1/pause'],
  [(c) => c.resumeSchedule('s1'), 'POST', '/v1/api/schedules/s1/resume'],
  [(c) => c.deleteSchedule('s1'), 'DELETE', '/v1/api/schedules/s1'],
  [(c) => c.scheduleRuns('s1', 3), 'GET', '/v1/api/schedules/s1/runs?limit=3'],
  [(c) => c.getWebhookSecret(), 'GET', '/v1/api/webhook-secret'],
  [(c) => c.rotateWebhookSecret(), 'POST', '/v1/api/webhook-secret/rotate'],
  [(c) => c.listUserWebhookDeliveries(5, 10), 'GET', '/v1/api/webhook-deliveries?limit=5&offset=10'],
  [(c) => c.listUserWebhookDeliveries(), 'GET', '/v1/api/webhook-deliveries'],
  [(c) => c.retryUserWebhookDelivery('d/1'), 'POST', '/v1/api/webhook-deliveries/d%2F1/retry'],
];

test('job, tag, filter and schedule calls send their method, path and body', async (t) => {
  const hub = await fakeHub(() => ({ status: 200, body: {} }));
  t.after(hub.close);
  const c = new Client(hub.url, KEY);
  for (const [call, method, path, body] of rows) {
    await call(c);
    const r = hub.requests.at(-1);
    assert.equal(`${r.method} ${r.url}`, `${method} ${path}`);
    assert.deepEqual(r.body, body, path);
    assert.equal(r.headers.authorization, `Bearer ${KEY}`);
  }
});

function paged(n) {
  return (r) => {
    const u = new URL(r.url, 'http://x');
    const limit = Number(u.searchParams.get('limit') ?? 50);
    const offset = Number(u.searchParams.get('offset') ?? 0);
    const items = [];
    for (let i = offset; i < Math.min(n, offset + limit); i++) items.push({ host_id: `h${i}`, key: `k${i}` });
    return { status: 200, body: { items, total: n, limit, offset } };
  };
}

test('jobResults iterates over pages of 200', async (t) => {
  const hub = await fakeHub(paged(450));
  t.after(hub.close);
  const c = new Client(hub.url, KEY);
  const it = c.jobResults('j1', 'failed');
  assert.equal(hub.requests.length, 0, 'nothing fetched before iterating');
  const ids = [];
  for await (const r of it) ids.push(r.host_id);
  assert.deepEqual([ids.length, ids[0], ids.at(-1)], [450, 'h0', 'h449']);
  assert.deepEqual(hub.requests.map((r) => r.url), [
    '/v1/api/jobs/j1/results?limit=200&state=failed',
    '/v1/api/jobs/j1/results?limit=200&offset=200&state=failed',
    '/v1/api/jobs/j1/results?limit=200&offset=400&state=failed',
  ]);
  const tagsHub = await fakeHub(paged(3));
  t.after(tagsHub.close);
  assert.deepEqual((await new Client(tagsHub.url, KEY).listTags()).map((x) => x.key), ['k0', 'k1', 'k2']);

  const missing = await fakeHub(() => ({ status: 404, body: { error: 'not_found', message: 'job not found' } }));
  t.after(missing.close);
  await assert.rejects(async () => { for await (const _ of new Client(missing.url, KEY).jobResults('nope')) void _; }, (e) => isNotFound(e));
});

// byCursor answers n items in pages by cursor as the hub does: next_cursor
// while items follow, none on the last page.
function byCursor(n) {
  return (r) => {
    const u = new URL(r.url, 'http://x');
    const limit = Number(u.searchParams.get('limit') ?? 50);
    const c = u.searchParams.get('cursor');
    const start = c ? Number(c.replace('after-', '')) + 1 : 0;
    const items = [];
    for (let i = start; i < Math.min(n, start + limit); i++) items.push({ id: `h${i}`, host_id: `h${i}` });
    const body = { items, total: n, limit, offset: 0 };
    if (start + limit < n) body.next_cursor = `after-${start + limit - 1}`;
    return { status: 200, body };
  };
}

test('allHosts and jobResults follow next_cursor', async (t) => {
  const hub = await fakeHub(byCursor(401));
  t.after(hub.close);
  const c = new Client(hub.url, KEY);
  const ids = [];
  for await (const h of c.allHosts({ status: 'online' })) ids.push(h.id);
  assert.deepEqual([ids.length, new Set(ids).size, ids[0], ids[200], ids.at(-1)], [401, 401, 'h0', 'h200', 'h400']);
  assert.deepEqual(hub.requests.map((r) => r.url), [
    '/v1/api/hosts?limit=200&status=online',
    '/v1/api/hosts?cursor=after-199&limit=200&status=online',
    '/v1/api/hosts?cursor=after-399&limit=200&status=online',
  ]);
  assert.equal((await c.searchHosts({}, '', 2)).next_cursor, 'after-1');
  const runs = await fakeHub(byCursor(400));
  t.after(runs.close);
  let n = 0;
  for await (const _ of new Client(runs.url, KEY).jobResults('j1')) { void _; n++; }
  assert.equal(n, 400);
});

const job = (state, succeeded, finished) => ({
  id: 'j1', state, host_count: 2, totals: { succeeded, running: 2 - succeeded, queued: 0, failed: 0, skipped: 0, expired: 0, canceled: 0 },
  finished_at: finished ? '2026-01-01T00:01:00Z' : null,
});

test('waitJob polls until the job is final, or times out with the last job', async (t) => {
  const old = { ...jobPollIntervalMs };
  t.after(() => Object.assign(jobPollIntervalMs, old));
  Object.assign(jobPollIntervalMs, { first: 1, max: 5 });
  const answers = [job('running', 0, false), job('running', 1, false), job('finished', 2, true)];
  const hub = await fakeHub(() => ({ status: 200, body: answers.length > 1 ? answers.shift() : answers[0] }));
  t.after(hub.close);
  const j = await new Client(hub.url, KEY).waitJob('j1', 60);
  assert.ok(jobFinal(j) && jobSucceeded(j));
  assert.equal(hub.requests.length, 3);

  const slow = await fakeHub(() => ({ status: 200, body: job('running', 0, false) }));
  t.after(slow.close);
  await assert.rejects(new Client(slow.url, KEY).waitJob('j1', 0.05), (e) => e instanceof JobWaitTimeoutError && e.job.state === 'running');
  assert.equal(jobFinal({ ...job('canceled', 0, false) }), false, 'canceled with runs still running is not final');

  Object.assign(jobPollIntervalMs, { first: 10000, max: 10000 });
  const ac = new AbortController();
  const waiting = new Client(slow.url, KEY).waitJob('j1', 0, { signal: ac.signal });
  setTimeout(() => ac.abort(new Error('stop')), 20);
  await assert.rejects(waiting, /stop/);
});

// The job.finished vector, shared with sdk/go/jobs_test.go and the Python SDK's tests.
const JOB_SECRET = 'whsec_3f9a1c7e5b2d4086a1e3c5b7d9f02468';
const JOB_DELIVERY = '5b0e4c2a-9f1d-4e8b-a3c7-6d2f1e0b9a84';
const JOB_BODY = '{"id":"5b0e4c2a-9f1d-4e8b-a3c7-6d2f1e0b9a84","type":"job.finished","created_at":"2026-01-01T12:00:00Z","data":{"id":"7c1d2e3f-4a5b-4c6d-8e9f-0a1b2c3d4e5f","name":"uptime","state":"finished","host_count":2,"totals":{"queued":0,"running":0,"succeeded":1,"failed":1,"skipped":0,"expired":0,"canceled":0},"charged":2,"created_at":"2026-01-01T11:59:00Z","finished_at":"2026-01-01T12:00:00Z"}}';
const JOB_SIG = 't=1767268830,v1=c98b0d6706720d2a6d997373df9c233dbcc8b765c9f261a5447f0522ffde09ac';
const T = 1767268830;
const jobHeaders = (over = {}) => ({ 'content-type': 'application/json', 'x-gateway-event': 'job.finished', 'x-gateway-delivery': JOB_DELIVERY, 'x-gateway-signature': JOB_SIG, ...over });

test('the job.finished vector is the Go SDK\'s', () => {
  const goFile = new URL('../../go/jobs_test.go', import.meta.url);
  if (!existsSync(goFile)) return;
  const src = readFileSync(goFile, 'utf8');
  assert.ok(src.includes('jobFinishedBody     = `' + JOB_BODY + '`'));
  assert.ok(src.includes(`jobFinishedSig      = "${JOB_SIG}"`));
  assert.equal(`t=${T},v1=` + createHmac('sha256', JOB_SECRET).update(`${T}.${JOB_BODY}`).digest('hex'), JOB_SIG);
});

test('verifyWebhook accepts job.finished and refuses it changed', async () => {
  const ev = await verifyWebhook(jobHeaders(), JOB_BODY, JOB_SECRET, { nowS: T + 10 });
  assert.ok(isUserEvent(ev));
  assert.equal(ev.type, 'job.finished');
  assert.equal(ev.id, JOB_DELIVERY);
  assert.equal(ev.data.totals.failed, 1);
  assert.equal(webhookNewSecret(ev), '');
  assert.ok(jobFinal(ev.data) && !jobSucceeded(ev.data));
  for (const [name, h, body, secret, reason] of [
    ['tampered', jobHeaders(), JOB_BODY + ' ', JOB_SECRET, 'signature'],
    ['wrong secret', jobHeaders(), JOB_BODY, 'whsec_other', 'signature'],
    ['event mismatch', jobHeaders({ 'x-gateway-event': 'job.started' }), JOB_BODY, JOB_SECRET, 'malformed'],
    ['delivery mismatch', jobHeaders({ 'x-gateway-delivery': 'other' }), JOB_BODY, JOB_SECRET, 'malformed'],
  ]) {
    await assert.rejects(verifyWebhook(h, body, secret, { nowS: T }), (e) => e instanceof WebhookVerificationError && e.reason === reason, name);
  }
  await assert.rejects(verifyWebhook(jobHeaders(), JOB_BODY, JOB_SECRET, { nowS: T + 301 }), (e) => e.reason === 'stale');
});
