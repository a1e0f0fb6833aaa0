// The HTTP layer: one request, its timeout and cancellation, error mapping and
// the retry policy.
import { HostgateError, type Charge } from './errors.js';

/** ClientOptions configure a Client. */
export interface ClientOptions {
  /**
   * Per-attempt timeout in milliseconds (default 30000; 0 for none). Calls
   * that wait on the host for longer (shell with a timeoutS, shell-session
   * reads with a wait) get their own wait plus 15 s when that is longer.
   */
  timeoutMs?: number;
  /** Extra attempts for retryable failures (default 3; 0 disables retries). */
  retries?: number;
  /** First backoff delay in milliseconds (default 200; doubled per attempt, with full jitter, capped at 5 s). */
  retryBaseMs?: number;
  /** The fetch to use (default the global fetch). */
  fetch?: typeof fetch;
  /**
   * Called with the Charge of every answer that names one (the hub's
   * X-Hostgate-Charged and X-Hostgate-Balance headers), successful or not:
   * what each charged call cost and the balance after it.
   */
  onCharge?: (charge: Charge) => void;
}

export interface Request {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  body?: unknown;
  signal?: AbortSignal;
  /** Lower bound of this call's timeout (ms), for calls that wait on the host. */
  minTimeoutMs?: number;
  /** Answer the raw Response (2xx only) instead of decoded JSON. */
  raw?: boolean;
  /** Never retry (a GET with side effects, such as installer). */
  noRetry?: boolean;
}

const retryStatuses = new Set([502, 503, 504]);
const maxBackoffMs = 5000;

/** anySignal is AbortSignal.any where present (Node ≥ 20.3, current browsers). */
function anySignal(signals: AbortSignal[]): AbortSignal {
  if (signals.length === 1) return signals[0]!;
  if (typeof AbortSignal.any === 'function') return AbortSignal.any(signals);
  const ac = new AbortController();
  for (const s of signals) {
    if (s.aborted) {
      ac.abort(s.reason);
      break;
    }
    s.addEventListener('abort', () => ac.abort(s.reason), { once: true });
  }
  return ac.signal;
}

/** connectionRefused reports a fetch failure where nothing reached the hub. */
function connectionRefused(err: unknown): boolean {
  const cause = (err as { cause?: { code?: string } } | null)?.cause;
  return cause?.code === 'ECONNREFUSED';
}

function isAbort(err: unknown): boolean {
  const name = (err as { name?: string } | null)?.name;
  return name === 'AbortError' || name === 'TimeoutError';
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const t = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(t);
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

export class Transport {
  readonly base: string;
  private readonly key: string;
  private readonly timeoutMs: number;
  private readonly retries: number;
  private readonly retryBaseMs: number;
  private readonly fetchFn: typeof fetch;
  private readonly onCharge?: (charge: Charge) => void;

  constructor(baseUrl: string, apiKey: string, opts: ClientOptions = {}) {
    this.base = baseUrl.replace(/\/+$/, '');
    this.key = apiKey;
    this.timeoutMs = opts.timeoutMs ?? 30000;
    this.retries = opts.retries ?? 3;
    this.retryBaseMs = opts.retryBaseMs ?? 200;
    this.fetchFn = opts.fetch ?? ((input, init) => globalThis.fetch(input, init));
    this.onCharge = opts.onCharge;
  }

  /**
   * call sends req. A GET is retried on a connection failure or a 502/503/504
   * answer; any other method only when the connection was refused (the hub
   * never saw it), so a charged command is never sent twice.
   */
  async call<T>(req: Request): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.once<T>(req);
      } catch (err) {
        if (attempt >= this.retries || !this.retryable(req, err) || req.signal?.aborted) throw err;
        const cap = Math.min(maxBackoffMs, this.retryBaseMs * 2 ** attempt);
        await sleep(Math.random() * cap, req.signal);
      }
    }
  }

  private retryable(req: Request, err: unknown): boolean {
    if (req.noRetry) return connectionRefused(err);
    if (err instanceof HostgateError) return req.method === 'GET' && retryStatuses.has(err.status);
    if (isAbort(err)) return false;
    return req.method === 'GET' || connectionRefused(err);
  }

  private async once<T>(req: Request): Promise<T> {
    const signals: AbortSignal[] = [];
    const timeout = this.timeoutMs > 0 ? Math.max(this.timeoutMs, req.minTimeoutMs ?? 0) : 0;
    if (timeout > 0) signals.push(AbortSignal.timeout(timeout));
    if (req.signal) signals.push(req.signal);
    const headers: Record<string, string> = { Authorization: `Bearer ${this.key}` };
    if (req.body !== undefined) headers['Content-Type'] = 'application/json';
    const resp = await this.fetchFn(this.base + req.path, {
      method: req.method,
      headers,
      body: req.body === undefined ? undefined : JSON.stringify(req.body),
      signal: signals.length ? anySignal(signals) : undefined,
    });
    const charge = chargeOf(resp.headers);
    if (charge && this.onCharge) this.onCharge(charge);
    if (resp.status >= 300) throw await toError(resp, charge);
    if (req.raw) return resp as T;
    const text = await resp.text();
    if (resp.status === 204 || text === '') return undefined as T;
    return JSON.parse(text) as T;
  }
}

/** chargeOf is the Charge an answer's headers name, undefined when none. */
export function chargeOf(h: Headers): Charge | undefined {
  const chargedText = h.get('X-Hostgate-Charged');
  if (chargedText === null || chargedText === '' || Number.isNaN(Number(chargedText))) return undefined;
  const c: Charge = { tokens: Number(chargedText), chargedText };
  const balanceText = h.get('X-Hostgate-Balance');
  if (balanceText !== null && balanceText !== '' && !Number.isNaN(Number(balanceText))) {
    c.balance = Number(balanceText);
    c.balanceText = balanceText;
  }
  return c;
}

async function toError(resp: Response, charge?: Charge): Promise<HostgateError> {
  const text = await resp.text().catch(() => '');
  try {
    const b = JSON.parse(text) as { error?: unknown; message?: unknown };
    if (typeof b.error === 'string' && b.error !== '') {
      return new HostgateError(resp.status, b.error, typeof b.message === 'string' ? b.message : '', charge);
    }
  } catch {
    // not JSON: fall through
  }
  return new HostgateError(resp.status, `http_${resp.status}`, text.trim(), charge);
}
