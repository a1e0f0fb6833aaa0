// Compiled by `npm run typecheck` only (never run): the public types as a
// Node user meets them.
import http from 'node:http';
import {
  Client, HostgateError, controls, isHostOffline, verifyWebhook, webhookNewSecret,
  type HostListItem, type Job, type JobResult, type ProvisioningPayload, type ShellResult, type WebhookEvent,
} from '../src/index.js';

export async function usage(c: Client, req: http.IncomingMessage, body: Buffer): Promise<void> {
  const hosts: HostListItem[] = await c.listHosts({ signal: AbortSignal.timeout(1000) });
  const r: ShellResult = await c.shell(hosts[0]!.id, '/bin/sh', '-c true', 30);
  const code: number = r.exit_code;
  const n: 8192 = controls.CtlExecShell;
  // @ts-expect-error controls are read-only
  controls.CtlExecShell = 1;
  const ev: WebhookEvent = await verifyWebhook(req.headers, body, 'secret', { toleranceS: 60 });
  const s: string = webhookNewSecret(ev);
  if (ev.event === 'host.l1_config.updated') ev.after.report_url.toUpperCase();
  try { await c.ping('x'); } catch (e) { if (isHostOffline(e) && e instanceof HostgateError) e.status.toFixed(); }
  const p: ProvisioningPayload = await c.provisioningPayload(hosts[0]!.id, { password: 'x'.repeat(16) });
  const raw: string = p.raw + p.hub.secret_key + (p.autologon?.password ?? '');
  // @ts-expect-error raw is read-only
  p.raw = '';
  void code; void n; void s; void raw;
}

export async function jobs(c: Client, req: http.IncomingMessage, body: Buffer): Promise<void> {
  const { Client: _C, shellOperation, jobFinal, isUserEvent } = await import('../src/index.js');
  void _C;
  const job: Job = await c.createJob({ target: { tags: ['env=prod'] }, operation: shellOperation('uptime', '', 30), offline: 'queue' });
  const done: Job = await c.waitJob(job.id, 600);
  for await (const r of c.jobResults(done.id)) {
    const res: JobResult = r;
    void res.exit_code;
  }
  void jobFinal(done);
  const ev = await verifyWebhook(req.headers, body, 'whsec_x');
  if (isUserEvent(ev) && ev.type === 'job.finished') {
    const j = ev.data as Job;
    void j.totals.succeeded;
  }
}
