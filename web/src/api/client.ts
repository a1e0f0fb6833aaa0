// The one fetch wrapper: JSON in and out, the session cookies carried by the
// browser, every non-2xx turned into one ApiError, and the silent refresh of
// the access token on a 401 from the session's scope. createClient builds
// one per kind of session: the user console's `api` (gw_at/gw_rt, scope
// /v1/user/) and the admin console's `adminApi` (gw_admin_at/gw_admin_rt,
// scope /v1/admin/, src/admin/api.ts) share this implementation.

/** An error the hub (or the network) reported; `message` is shown to people. */
export class ApiError extends Error {
  readonly status: number;
  readonly code: string;

  constructor(status: number, code: string, message: string) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.code = code;
  }
}

/** Why a session ended; the value of /session-ended?reason=. */
export type SessionEndReason = 'ended' | 'suspended';

/** A query's values; an array repeats the parameter (`tag=a&tag=b`). */
type Query = Record<string, string | number | boolean | readonly string[] | undefined | null>;

export interface RequestOptions {
  query?: Query;
  body?: unknown;
  signal?: AbortSignal;
  headers?: Record<string, string>;
}

type SessionEndedHandler = (reason: SessionEndReason, hadSession: boolean) => void;

/** What one kind of session needs: which paths it guards and where it refreshes. */
export interface ClientScope {
  /** Paths whose 401 means "refresh and retry once", e.g. `/v1/user/`. */
  prefix: string;
  /** The refresh route, called with body `{}` (the refresh cookie is the credential). */
  refreshPath: string;
  /** Paths under `prefix` that are not behind the session (the admin sign-in), never refreshed. */
  publicPaths?: string[];
  /**
   * 401 error codes that are an answer, not an ended access token (a wrong
   * password at the admin step-up): thrown as they are, no refresh.
   */
  answerCodes?: string[];
}

/** The methods a console's pages call. */
export interface Client {
  get: <T>(path: string, query?: Query, signal?: AbortSignal) => Promise<T>;
  post: <T>(path: string, body?: unknown, headers?: Record<string, string>) => Promise<T>;
  put: <T>(path: string, body: unknown) => Promise<T>;
  delete: <T>(path: string) => Promise<T>;
}

/** A client bound to one session scope, with its session controls. */
export interface ScopedClient extends Client {
  request: <T>(method: string, path: string, opts?: RequestOptions) => Promise<T>;
  refreshSession: () => Promise<ApiError | null>;
  setSessionEndedHandler: (fn: SessionEndedHandler) => void;
  noteSession: (active: boolean) => void;
}

/** Builds a path with its query string; empty values are left out. */
export function withQuery(path: string, query?: Query): string {
  if (!query) return path;
  const qs = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) {
    if (typeof v === 'object' && v !== null) {
      for (const x of v) if (x !== '') qs.append(k, x);
    } else if (v !== undefined && v !== null && v !== '') qs.set(k, String(v));
  }
  const s = qs.toString();
  return s ? `${path}?${s}` : path;
}

async function send(method: string, path: string, opts: RequestOptions): Promise<Response> {
  const headers: Record<string, string> = { Accept: 'application/json', ...opts.headers };
  let body: string | undefined;
  if (opts.body !== undefined) {
    headers['Content-Type'] = 'application/json';
    body = JSON.stringify(opts.body);
  }
  try {
    return await fetch(withQuery(path, opts.query), {
      method,
      headers,
      body,
      credentials: 'same-origin',
      signal: opts.signal,
    });
  } catch (err) {
    if (err instanceof DOMException && err.name === 'AbortError') throw err;
    throw new ApiError(0, 'network', 'The hub could not be reached. Check your connection and try again.');
  }
}

/** Reads `{error, message}` from a failed response, falling back to the status text. */
export async function toApiError(res: Response): Promise<ApiError> {
  let code = 'http_' + res.status;
  let message = res.statusText || `Request failed (${res.status})`;
  try {
    const data = (await res.json()) as { error?: unknown; message?: unknown };
    if (typeof data.error === 'string') code = data.error;
    if (typeof data.message === 'string' && data.message) message = data.message;
  } catch {
    // not JSON: keep the status text
  }
  return new ApiError(res.status, code, message);
}

async function parse<T>(res: Response): Promise<T> {
  if (res.status === 204) return undefined as T;
  const text = await res.text();
  return (text ? JSON.parse(text) : undefined) as T;
}

/** A client for one kind of session (see the file comment). */
export function createClient(scope: ClientScope): ScopedClient {
  let onSessionEnded: SessionEndedHandler = () => {};
  let refreshing: Promise<ApiError | null> | null = null;
  let hadSession = false;

  const inScope = (path: string) =>
    path.startsWith(scope.prefix) && !(scope.publicPaths ?? []).some((p) => path.split('?')[0] === p);

  function endSession(reason: SessionEndReason): void {
    const had = hadSession;
    hadSession = false;
    onSessionEnded(reason, had);
  }

  /**
   * Asks the hub for a fresh access token with the refresh cookie. Concurrent
   * callers share one request (single flight). Resolves null on success. When
   * the hub refuses (401/403) the session ends ("suspended" on
   * account_suspended) and the refusal is returned; when the hub cannot be
   * reached or fails (5xx) the session is kept and that error is returned, so
   * a hiccup does not sign anyone out.
   */
  function refreshSession(): Promise<ApiError | null> {
    refreshing ??= (async () => {
      try {
        const res = await send('POST', scope.refreshPath, { body: {} });
        if (res.ok) return null;
        const err = await toApiError(res);
        if (res.status === 401 || res.status === 403) {
          endSession(err.code === 'account_suspended' ? 'suspended' : 'ended');
        }
        return err;
      } catch (err) {
        return err instanceof ApiError ? err : new ApiError(0, 'network', errorMessage(err));
      } finally {
        refreshing = null;
      }
    })();
    return refreshing;
  }

  async function request<T>(method: string, path: string, opts: RequestOptions = {}): Promise<T> {
    let res = await send(method, path, opts);
    const guarded = inScope(path);
    if (res.status === 401 && guarded && scope.answerCodes?.length) {
      const err = await toApiError(res.clone());
      if (scope.answerCodes.includes(err.code)) throw err;
    }
    if (res.status === 401 && guarded) {
      const refused = await refreshSession();
      if (refused) throw refused.status === 0 || refused.status >= 500 ? refused : await toApiError(res);
      res = await send(method, path, opts);
      if (res.status === 401) {
        endSession('ended');
        throw await toApiError(res);
      }
    }
    if (!res.ok) {
      const err = await toApiError(res);
      if (guarded && err.code === 'account_suspended') endSession('suspended');
      throw err;
    }
    if (guarded) hadSession = true;
    return parse<T>(res);
  }

  return {
    request,
    refreshSession,
    /**
     * Sets what happens when a session can no longer be refreshed (the app
     * clears its cache and navigates). `hadSession` tells whether this page ever
     * had a working session: a visitor who never signed in goes to the sign-in
     * page rather than to "your session ended".
     */
    setSessionEndedHandler: (fn) => {
      onSessionEnded = fn;
    },
    /** Records that the page has (after sign-in) or no longer has (after sign-out) a session. */
    noteSession: (active) => {
      hadSession = active;
    },
    get: <T>(path: string, query?: Query, signal?: AbortSignal) => request<T>('GET', path, { query, signal }),
    post: <T>(path: string, body: unknown = {}, headers?: Record<string, string>) =>
      request<T>('POST', path, { body, headers }),
    put: <T>(path: string, body: unknown) => request<T>('PUT', path, { body }),
    delete: <T>(path: string) => request<T>('DELETE', path),
  };
}

/** The user console's client: scope /v1/user/, refresh at /v1/public/auth/refresh. */
const userClient = createClient({ prefix: '/v1/user/', refreshPath: '/v1/public/auth/refresh' });

export const setSessionEndedHandler = userClient.setSessionEndedHandler;
export const noteSession = userClient.noteSession;
export const refreshSession = userClient.refreshSession;
export const request = userClient.request;

export const api: Client = {
  get: userClient.get,
  post: userClient.post,
  put: userClient.put,
  delete: userClient.delete,
};

/** Turns anything thrown into words for a person. */
export function errorMessage(err: unknown): string {
  if (err instanceof ApiError) return err.message;
  if (err instanceof Error && err.message) return err.message;
  return 'Something went wrong.';
}

/** Encodes one path segment (ids come from URLs and people). */
export const seg = (s: string): string => encodeURIComponent(s);
