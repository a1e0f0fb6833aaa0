// Webhook receivers (docs/webhooks.md): verify a Format A or B delivery and
// remember delivery ids. Verification uses Web Crypto (globalThis.crypto.subtle),
// present in Node ≥ 20 and in browsers, whose HMAC verify compares in constant
// time; Web Crypto has no synchronous API, so verifyWebhook is async.

/** Event of Format A (spec 6.2): an envelope with data. */
export interface WebhookEventA {
  event: 'host.l1_config_updated';
  delivery_id: string;
  user_id: string;
  host_id: string;
  source: 'web' | 'agent' | 'client_api';
  occurred_at: string;
  /** The new configuration; secret_key is the secret to hold from now on. */
  data: { bid: number; secret_key: string; url: string };
}

/** Event of Format B (spec 6.3): before and after. */
export interface WebhookEventB {
  event: 'host.l1_config.updated';
  delivery_id: string;
  timestamp: string;
  host_id: string;
  host_name: string;
  changed_by: { kind: 'user' | 'api_key' | 'agent'; id: string; ip: string };
  before: { bid: number; report_url: string };
  /** The new configuration; secret_key is the secret to hold from now on. */
  after: { bid: number; secret_key: string; report_url: string };
}

/**
 * A user-level event (job.finished: sent to a job's notify_url when it ends),
 * signed in Format A with the user's webhook secret (rotateWebhookSecret): an
 * envelope whose id is X-Gateway-Delivery and whose type is X-Gateway-Event.
 */
export interface WebhookUserEvent<D = unknown> {
  id: string;
  type: string;
  created_at: string;
  /** The event's object; for job.finished, the Job. */
  data: D;
  /** Never set: `ev.event === …` still tells the host events apart. */
  event?: never;
}

/** The event type of a job's notify_url delivery. */
export const webhookEventJobFinished = 'job.finished';

export type WebhookEvent = WebhookEventA | WebhookEventB | WebhookUserEvent;

/** isUserEvent tells a user-level event (job.finished) from the host events. */
export function isUserEvent(ev: WebhookEvent): ev is WebhookUserEvent {
  return ev.event === undefined;
}

/** Headers as a fetch Headers, or a plain object such as Node's req.headers. */
export type HeadersLike = Headers | Record<string, string | string[] | undefined>;

/** WebhookVerificationError: a delivery that must not be trusted (answer 401). */
export class WebhookVerificationError extends Error {
  /** "malformed", "signature" or "stale". */
  readonly reason: 'malformed' | 'signature' | 'stale';
  constructor(reason: 'malformed' | 'signature' | 'stale', message: string) {
    super(message);
    this.name = 'WebhookVerificationError';
    this.reason = reason;
  }
}

/** The hub's replay window in seconds (docs/webhooks.md §4). */
export const webhookToleranceS = 300;

export interface VerifyOptions {
  /** Largest allowed distance between the signed time and now, in seconds (default 300). */
  toleranceS?: number;
  /** The receiver's clock in Unix seconds (default Date.now()/1000); for tests. */
  nowS?: number;
}

export const headerEvent = 'X-Gateway-Event';
export const headerDelivery = 'X-Gateway-Delivery';
export const headerSignature = 'X-Gateway-Signature';
export const headerTimestamp = 'X-Gateway-Timestamp';

/** header reads one header case-insensitively ("" when missing). */
export function header(headers: HeadersLike, name: string): string {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? '';
  const want = name.toLowerCase();
  for (const [k, v] of Object.entries(headers)) {
    if (k.toLowerCase() === want && v !== undefined) return Array.isArray(v) ? (v[0] ?? '') : v;
  }
  return '';
}

/** webhookDeliveryId is the X-Gateway-Delivery header: check it for repeats before verifying. */
export function webhookDeliveryId(headers: HeadersLike): string {
  return header(headers, headerDelivery);
}

/** webhookNewSecret is the secret_key a verified event carries (Format A data, Format B after). */
export function webhookNewSecret(ev: WebhookEvent): string {
  if (isUserEvent(ev)) return '';
  return ev.event === 'host.l1_config_updated' ? ev.data.secret_key : ev.after.secret_key;
}

const enc = new TextEncoder();

function hexBytes(hex: string): Uint8Array<ArrayBuffer> | null {
  if (!/^[0-9a-fA-F]{64}$/.test(hex)) return null;
  const out = new Uint8Array(32);
  for (let i = 0; i < 32; i++) out[i] = parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return out;
}

function signedMessage(t: string, body: Uint8Array): Uint8Array<ArrayBuffer> {
  const prefix = enc.encode(`${t}.`);
  const msg = new Uint8Array(prefix.length + body.length);
  msg.set(prefix);
  msg.set(body, prefix.length);
  return msg;
}

/**
 * verifyWebhook checks a delivery with the secret held now and resolves with
 * its parsed event, or rejects with WebhookVerificationError. The format comes
 * from the headers: X-Gateway-Timestamp with `sha256=` is Format B,
 * `t=…,v1=…` is Format A. body must be the raw bytes as received.
 *
 * After it resolves, record ev.delivery_id and replace the stored secret with
 * webhookNewSecret(ev), together.
 */
export async function verifyWebhook(
  headers: HeadersLike,
  body: string | Uint8Array,
  secret: string,
  opts: VerifyOptions = {},
): Promise<WebhookEvent> {
  const raw = typeof body === 'string' ? enc.encode(body) : body;
  const sig = header(headers, headerSignature).trim();
  const delivery = header(headers, headerDelivery);
  if (sig === '' || delivery === '') throw new WebhookVerificationError('malformed', 'missing X-Gateway-Signature or X-Gateway-Delivery');

  let t: string;
  let candidates: string[];
  let format: 'A' | 'B';
  const ts = header(headers, headerTimestamp).trim();
  if (sig.startsWith('sha256=')) {
    if (ts === '') throw new WebhookVerificationError('malformed', 'format B without X-Gateway-Timestamp');
    format = 'B';
    t = ts;
    candidates = [sig.slice('sha256='.length)];
  } else {
    format = 'A';
    const parts = sig.split(',').map((p) => p.trim().split('=', 2) as [string, string?]);
    const tp = parts.filter(([k]) => k === 't');
    candidates = parts.filter(([k, v]) => k === 'v1' && v !== undefined).map(([, v]) => v!);
    if (tp.length !== 1 || candidates.length === 0) throw new WebhookVerificationError('malformed', 'format A signature needs one t and a v1');
    t = tp[0]![1] ?? '';
  }
  if (!/^\d{1,12}$/.test(t)) throw new WebhookVerificationError('malformed', 'bad signature timestamp');

  const key = await crypto.subtle.importKey('raw', enc.encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['verify']);
  const msg = signedMessage(t, raw);
  let ok = false;
  for (const c of candidates) {
    const mac = hexBytes(c);
    // subtle.verify compares in constant time; check every candidate.
    if (mac && (await crypto.subtle.verify('HMAC', key, mac, msg))) ok = true;
  }
  if (!ok) throw new WebhookVerificationError('signature', 'signature does not match');

  const now = opts.nowS ?? Date.now() / 1000;
  if (Math.abs(now - Number(t)) > (opts.toleranceS ?? webhookToleranceS)) {
    throw new WebhookVerificationError('stale', 'timestamp outside the tolerance window');
  }

  let ev: WebhookEvent;
  try {
    ev = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(raw)) as WebhookEvent;
  } catch {
    throw new WebhookVerificationError('malformed', 'body is not JSON');
  }
  const eventHeader = header(headers, headerEvent);
  if (format === 'A' && eventHeader !== 'host.l1_config_updated' && ev !== null && typeof ev === 'object' && 'type' in ev) {
    const u = ev as WebhookUserEvent;
    if (typeof u.type !== 'string' || u.type === '' || u.type !== eventHeader) {
      throw new WebhookVerificationError('malformed', "X-Gateway-Event does not match the body's type");
    }
    if (u.id !== delivery) throw new WebhookVerificationError('malformed', "X-Gateway-Delivery does not match the body's id");
    return u;
  }
  const wantEvent = format === 'A' ? 'host.l1_config_updated' : 'host.l1_config.updated';
  const host = ev as WebhookEventA | WebhookEventB | null;
  if (host?.event !== wantEvent || host.delivery_id !== delivery) {
    throw new WebhookVerificationError('malformed', `not a ${wantEvent} delivery with id ${delivery}`);
  }
  return host;
}

/**
 * DeliveryDeduper remembers processed delivery ids (in memory, the newest
 * `max`). A real receiver keeps them in its database, in the same transaction
 * as the new secret; this is the in-process version of that rule.
 */
export class DeliveryDeduper {
  private readonly ids = new Set<string>();
  private readonly max: number;

  constructor(max = 10000) {
    this.max = max;
  }

  /** seen reports whether id was recorded: answer 200 and do nothing else. */
  seen(id: string): boolean {
    return this.ids.has(id);
  }

  /** record remembers id, forgetting the oldest beyond max. */
  record(id: string): void {
    this.ids.delete(id);
    this.ids.add(id);
    while (this.ids.size > this.max) this.ids.delete(this.ids.values().next().value as string);
  }
}
