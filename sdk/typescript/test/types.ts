// Compiled by `npm run typecheck` only (never run): the public types as a
// Node user meets them.
import http from 'node:http';
import {
  Client, HostgateError, controls, isHostOffline, verifyWebhook, webhookNewSecret,
  type HostListItem, type ProvisioningPayload, type ShellResult, type WebhookEvent,
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
