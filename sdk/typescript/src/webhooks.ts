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

/** webhookNewSecret is the secret_key a verified event carries (Format A data, Format B after; '' when none). */
export function webhookNewSecret(ev: WebhookEvent): string {
  if (isUserEvent(ev)) return '';
  const section = ev.event === 'host.l1_config_updated' ? ev.data : ev.after;
  return wellFormed(section?.secret_key ?? '');
}

const enc = new TextEncoder();

/** The largest nesting of a delivery's JSON; deeper bodies are refused (as the Go and Python SDKs do). */
export const webhookMaxDepth = 64;

/** wellFormed replaces each lone surrogate by U+FFFD, as Go's JSON decoder and TextEncoder do. */
function wellFormed(s: string): string {
  return s.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD');
}

/** trimOWS drops the spaces and tabs around a header value (RFC 9110 OWS). */
function trimOWS(s: string): string {
  return s.replace(/^[ \t]+|[ \t]+$/g, '');
}

/** A signed time: 1 to 18 ASCII digits, nothing else. */
const unixSeconds = /^[0-9]{1,18}$/;

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

/** tooDeep says whether body nests arrays and objects deeper than max (exact for valid JSON). */
function tooDeep(body: Uint8Array, max: number): boolean {
  let depth = 0;
  let inString = false;
  let escaped = false;
  for (const c of body) {
    if (inString) {
      if (escaped) escaped = false;
      else if (c === 0x5c) escaped = true;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return true;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return false;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** str is v when it is a string (its lone surrogates replaced), else undefined. */
function str(v: unknown): string | undefined {
  return typeof v === 'string' ? wellFormed(v) : undefined;
}

/**
 * verifyWebhook checks a delivery with the secret held now and resolves with
 * its parsed event, or rejects with WebhookVerificationError (never another
 * error, whatever the input). The format comes from the headers:
 * `sha256=` with X-Gateway-Timestamp is Format B, `t=…,v1=…` is Format A.
 * body must be the raw bytes as received.
 *
 * The Go and Python SDKs give the same verdict for every input: header
 * values lose spaces and tabs at both ends, a timestamp is 1 to 18 ASCII
 * digits, a MAC 64 hex digits, the body UTF-8 JSON nested at most 64 deep.
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
  const get = (name: string) => wellFormed(header(headers, name));
  const sig = trimOWS(get(headerSignature));
  if (sig === '') throw new WebhookVerificationError('malformed', `no ${headerSignature} header`);

  let t: string;
  let candidates: string[];
  let format: 'A' | 'B';
  if (sig.startsWith('sha256=')) {
    format = 'B';
    t = trimOWS(get(headerTimestamp));
    if (!unixSeconds.test(t)) throw new WebhookVerificationError('malformed', `${headerTimestamp} is not unix seconds`);
    candidates = [sig.slice('sha256='.length)];
  } else {
    format = 'A';
    let ts: string | undefined;
    candidates = [];
    for (const part of sig.split(',')) {
      const p = trimOWS(part);
      const eq = p.indexOf('=');
      const [k, v] = eq < 0 ? [p, ''] : [p.slice(0, eq), p.slice(eq + 1)];
      if (k === 't') {
        if (ts !== undefined || !unixSeconds.test(trimOWS(v))) {
          throw new WebhookVerificationError('malformed', `${headerSignature} needs exactly one t=<unix seconds>`);
        }
        ts = trimOWS(v);
      } else if (k === 'v1') candidates.push(v);
    }
    if (ts === undefined || candidates.length === 0) {
      throw new WebhookVerificationError('malformed', `${headerSignature} must read t=<unix>,v1=<hex>`);
    }
    t = ts;
  }
  t = t.replace(/^0+(?=[0-9])/, ''); // signed as a number: 0042 is 42
  if (typeof secret !== 'string' || secret === '') throw new WebhookVerificationError('signature', 'the receiver holds no secret');

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

  if (tooDeep(raw, webhookMaxDepth)) throw new WebhookVerificationError('malformed', `body nests deeper than ${webhookMaxDepth}`);
  let doc: unknown;
  try {
    // Strict UTF-8, and a BOM is not skipped: Go and Python refuse it too.
    doc = JSON.parse(new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(raw));
  } catch {
    throw new WebhookVerificationError('malformed', 'body is not JSON');
  }
  if (!isObject(doc)) throw new WebhookVerificationError('malformed', 'body is not an object');
  const eventHeader = get(headerEvent);
  const delivery = get(headerDelivery);
  if (format === 'A' && eventHeader !== 'host.l1_config_updated' && Object.hasOwn(doc, 'type')) {
    const typ = str(doc.type);
    if (!typ || typ !== eventHeader) throw new WebhookVerificationError('malformed', "X-Gateway-Event does not match the body's type");
    const id = str(doc.id);
    if (!id || id !== delivery) throw new WebhookVerificationError('malformed', "X-Gateway-Delivery does not match the body's id");
    return { ...doc, type: typ, id } as unknown as WebhookUserEvent;
  }
  const wantEvent = format === 'A' ? 'host.l1_config_updated' : 'host.l1_config.updated';
  if (str(own(doc, 'event')) !== wantEvent || eventHeader !== wantEvent) {
    throw new WebhookVerificationError('malformed', `event is not ${wantEvent}`);
  }
  const did = str(own(doc, 'delivery_id'));
  if (!did || did !== delivery) throw new WebhookVerificationError('malformed', "X-Gateway-Delivery does not match the body's delivery_id");
  if (format === 'B' && !did.startsWith('wd_')) throw new WebhookVerificationError('malformed', 'delivery_id lacks the wd_ prefix');
  const sectionName = format === 'A' ? 'data' : 'after';
  const section = own(doc, sectionName);
  if (section !== undefined && section !== null) {
    if (!isObject(section)) throw new WebhookVerificationError('malformed', `${sectionName} is not an object`);
    const k = own(section, 'secret_key');
    if (k !== undefined && k !== null && typeof k !== 'string') {
      throw new WebhookVerificationError('malformed', `${sectionName}.secret_key is not a string`);
    }
    if (typeof k === 'string') doc[sectionName] = { ...section, secret_key: wellFormed(k) };
  }
  // The ids and the secret as Go and Python read them: lone surrogates are U+FFFD.
  return { ...doc, delivery_id: did } as unknown as WebhookEventA | WebhookEventB;
}

/** own is an object's own property (never one of Object.prototype's). */
function own(o: Record<string, unknown>, k: string): unknown {
  return Object.hasOwn(o, k) ? o[k] : undefined;
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
