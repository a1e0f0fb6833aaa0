// The cross-language scenario through the TypeScript SDK
// (e2e/crosslang_test.go); the same phases, environment and output as
// scenario.py. Needs the SDK built: sdk/typescript/dist/index.js.
//
//   node scenario.mjs create   creates $XL_NAME with credentials and $XL_NAME-offline
//   node scenario.mjs run      runs the steps and prints the normalized result
import { readFileSync } from 'node:fs';
import {
  Client, HostgateError, isHostOffline, isInsufficientBalance, isUserEvent, shellOperation, verifyWebhook,
  webhookNewSecret, WebhookVerificationError,
} from '../../sdk/typescript/dist/index.js';

const e = process.env;
const client = (key) => new Client(e.HOSTGATE_URL, key ?? e.HOSTGATE_API_KEY, { timeoutMs: 30000 });

async function create() {
  const c = client();
  const { host, credentials } = await c.createHost(e.XL_NAME, 0, true);
  const { host: offline } = await c.createHost(`${e.XL_NAME}-offline`, 0, false);
  return { host, credentials, offline_host: offline };
}

async function refusal(call) {
  try {
    await call();
  } catch (err) {
    if (!(err instanceof HostgateError)) throw err;
    return {
      status: err.status, error: err.error,
      is_insufficient_balance: isInsufficientBalance(err), is_host_offline: isHostOffline(err),
    };
  }
  return { status: 200, error: '', is_insufficient_balance: false, is_host_offline: false };
}

async function run() {
  const c = client();
  const sh = await c.shell(e.XL_HOST_ID, e.XL_SHELL_PROGRAM, e.XL_SHELL_ARGS, 30);
  const rd = await c.readString(e.XL_HOST_ID, e.XL_FILE);
  const out = {
    shell: { stdout: sh.stdout, stderr: sh.stderr, exit_code: sh.exit_code, timed_out: sh.timed_out },
    read: { path: rd.path, content: rd.content, encoding: rd.encoding, bytes: rd.bytes },
    insufficient_balance: await refusal(() => client(e.XL_EMPTY_KEY).shell(e.XL_EMPTY_HOST_ID, e.XL_SHELL_PROGRAM, e.XL_SHELL_ARGS, 30)),
    host_offline: await refusal(() => c.shell(e.XL_OFFLINE_HOST_ID, e.XL_SHELL_PROGRAM, e.XL_SHELL_ARGS, 30)),
    webhooks: [],
    webhooks_tampered: [],
  };
  for (const d of JSON.parse(readFileSync(e.XL_DELIVERIES, 'utf8'))) {
    const body = Buffer.from(d.body_b64, 'base64');
    const ev = await verifyWebhook(d.headers, body, d.secret);
    if (isUserEvent(ev)) {
      out.webhooks.push({ format: 'A', event: ev.type, delivery_id: ev.id, host_id: '', new_secret_key: '', bid: 0, url: '' });
    } else {
      const cfg = ev.event === 'host.l1_config_updated'
        ? { format: 'A', bid: ev.data.bid, url: ev.data.url }
        : { format: 'B', bid: ev.after.bid, url: ev.after.report_url };
      out.webhooks.push({
        format: cfg.format, event: ev.event, delivery_id: ev.delivery_id, host_id: ev.host_id,
        new_secret_key: webhookNewSecret(ev), bid: cfg.bid, url: cfg.url,
      });
    }
    try {
      await verifyWebhook(d.headers, Buffer.concat([body, Buffer.from(' ')]), d.secret);
      out.webhooks_tampered.push('accepted');
    } catch (err) {
      if (!(err instanceof WebhookVerificationError)) throw err;
      out.webhooks_tampered.push(err.reason);
    }
  }
  out.job = await job(c);
  return out;
}

// job tags the two hosts, runs the job on the tag and reads every result.
async function job(c) {
  const [key, value] = [e.XL_TAG.split('=')[0], e.XL_TAG.split('=').slice(1).join('=')];
  for (const id of [e.XL_HOST_ID, e.XL_OFFLINE_HOST_ID]) await c.setTags(id, { [key]: value });
  let j = await c.createJob({ target: { tags: [e.XL_TAG] }, operation: shellOperation(e.XL_JOB_PROGRAM, e.XL_JOB_ARGS, 30) });
  j = await c.waitJob(j.id, 60);
  const results = [];
  for await (const r of c.jobResults(j.id)) {
    results.push({ host: r.host_id === e.XL_HOST_ID ? 'online' : 'offline', state: r.state, exit_code: r.exit_code, stdout: r.stdout, error: r.error });
  }
  results.sort((a, b) => (a.host < b.host ? -1 : 1));
  const t = j.totals;
  return {
    state: j.state, host_count: j.host_count, results,
    totals: { queued: t.queued, running: t.running, succeeded: t.succeeded, failed: t.failed, skipped: t.skipped, expired: t.expired, canceled: t.canceled },
  };
}

const phase = process.argv[2];
if (phase !== 'create' && phase !== 'run') {
  console.error('usage: node scenario.mjs create|run');
  process.exit(2);
}
console.log(JSON.stringify(phase === 'create' ? await create() : await run()));
