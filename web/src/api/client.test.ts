import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { json, mockFetch, type FetchCall } from '../test/helpers';
import { sessionEndTarget } from '../app/sessionTarget';
import { ApiError, api, noteSession, refreshSession, setSessionEndedHandler, withQuery } from './client';

let calls: FetchCall[];
let ended: { reason: string; had: boolean }[];

beforeEach(() => {
  calls = [];
  ended = [];
  noteSession(false);
  setSessionEndedHandler((reason, had) => ended.push({ reason, had }));
});

afterEach(() => vi.unstubAllGlobals());

describe('errors', () => {
  it('turns {error, message} into an ApiError with the message in words', async () => {
    mockFetch(calls, () => json(402, { error: 'insufficient_balance', message: 'Your balance is too low.' }));
    const err = await api.post('/v1/user/hosts', { name: 'x' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ status: 402, code: 'insufficient_balance', message: 'Your balance is too low.' });
  });

  it('falls back to the status when the body is not JSON', async () => {
    mockFetch(calls, () => new Response('oops', { status: 502, statusText: 'Bad Gateway' }));
    await expect(api.get('/v1/public/health')).rejects.toMatchObject({ status: 502, code: 'http_502', message: 'Bad Gateway' });
  });

  it('reports a network failure as an ApiError with status 0', async () => {
    vi.stubGlobal('fetch', vi.fn(() => Promise.reject(new TypeError('Failed to fetch'))));
    await expect(api.get('/v1/user/me')).rejects.toMatchObject({ status: 0, code: 'network' });
  });

  it('sends JSON with the session cookies and no token header', async () => {
    mockFetch(calls, () => json(200, { ok: true }));
    await api.put('/v1/user/me', { display_name: 'A' });
    const { init } = calls[0]!;
    expect(init.credentials).toBe('same-origin');
    expect(init.body).toBe('{"display_name":"A"}');
    expect((init.headers as Record<string, string>)['Content-Type']).toBe('application/json');
    expect((init.headers as Record<string, string>).Authorization).toBeUndefined();
  });

  it('ends the session as suspended on 403 account_suspended from /v1/user', async () => {
    mockFetch(calls, () => json(403, { error: 'account_suspended', message: 'Account suspended' }));
    await expect(api.get('/v1/user/me')).rejects.toMatchObject({ code: 'account_suspended' });
    expect(ended).toEqual([{ reason: 'suspended', had: false }]);
  });

  it('does not refresh on a 401 from a public route (wrong password)', async () => {
    mockFetch(calls, () => json(401, { error: 'invalid_credentials', message: 'Wrong email or password' }));
    await expect(api.post('/v1/public/auth/login', {})).rejects.toMatchObject({ message: 'Wrong email or password' });
    expect(calls).toHaveLength(1);
    expect(ended).toEqual([]);
  });
});

describe('silent refresh', () => {
  it('refreshes once and retries the request', async () => {
    let fresh = false;
    mockFetch(calls, (url) => {
      if (url === '/v1/public/auth/refresh') {
        fresh = true;
        return json(200, { user: {} });
      }
      return fresh ? json(200, { id: 'u1' }) : json(401, { error: 'invalid_token', message: 'expired' });
    });
    await expect(api.get('/v1/user/me')).resolves.toEqual({ id: 'u1' });
    expect(calls.map((c) => c.url)).toEqual(['/v1/user/me', '/v1/public/auth/refresh', '/v1/user/me']);
    expect(calls[1]!.init.body).toBe('{}');
    expect(ended).toEqual([]);
  });

  it('shares one refresh between concurrent 401s (single flight)', async () => {
    let fresh = false;
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    mockFetch(calls, async (url) => {
      if (url === '/v1/public/auth/refresh') {
        await gate;
        fresh = true;
        return json(200, {});
      }
      return fresh ? json(200, { url }) : json(401, { error: 'invalid_token', message: 'expired' });
    });
    const all = Promise.all([api.get('/v1/user/me'), api.get('/v1/user/hosts'), api.get('/v1/user/billing/balance')]);
    await vi.waitFor(() => expect(calls.filter((c) => c.url === '/v1/public/auth/refresh')).toHaveLength(1));
    release();
    const res = await all;
    expect(res).toHaveLength(3);
    expect(calls.filter((c) => c.url === '/v1/public/auth/refresh')).toHaveLength(1);
  });

  it('ends the session when the refresh fails, after a session was seen', async () => {
    let n = 0;
    mockFetch(calls, (url) => {
      if (url === '/v1/public/auth/refresh') return json(401, { error: 'invalid_token', message: 'gone' });
      return n++ === 0 ? json(200, { id: 'u1' }) : json(401, { error: 'invalid_token', message: 'revoked' });
    });
    await api.get('/v1/user/me');
    await expect(api.get('/v1/user/me')).rejects.toMatchObject({ status: 401 });
    expect(ended).toEqual([{ reason: 'ended', had: true }]);
  });

  it('tells the handler a visitor never had a session', async () => {
    mockFetch(calls, (url) =>
      url === '/v1/public/auth/refresh'
        ? json(401, { error: 'unauthorized', message: 'no' })
        : json(401, { error: 'unauthorized', message: 'no' }),
    );
    await expect(api.get('/v1/user/me')).rejects.toBeInstanceOf(ApiError);
    expect(ended).toEqual([{ reason: 'ended', had: false }]);
  });

  it('ends the session as suspended when the refresh says account_suspended', async () => {
    mockFetch(calls, (url) =>
      url === '/v1/public/auth/refresh'
        ? json(403, { error: 'account_suspended', message: 'suspended' })
        : json(401, { error: 'invalid_token', message: 'revoked' }),
    );
    noteSession(true);
    await expect(api.get('/v1/user/hosts')).rejects.toBeInstanceOf(ApiError);
    expect(ended).toEqual([{ reason: 'suspended', had: true }]);
  });

  it('maps a refresh refused with 403 account_suspended to /session-ended?reason=suspended', async () => {
    const suspended = (url: string) =>
      url === '/v1/public/auth/refresh'
        ? json(403, { error: 'account_suspended', message: 'Account suspended' })
        : json(401, { error: 'invalid_token', message: 'expired' });
    const targets: (string | null)[] = [];
    setSessionEndedHandler((reason, had) => targets.push(sessionEndTarget(reason, had, { pathname: '/hosts', search: '' })));

    // After a session was seen on the page…
    mockFetch(calls, suspended);
    noteSession(true);
    await expect(api.get('/v1/user/billing/balance')).rejects.toMatchObject({ status: 401 });
    // …and on a fresh page load that has not seen one yet (still suspended, not "sign in").
    await expect(api.get('/v1/user/me')).rejects.toMatchObject({ status: 401 });
    // A direct refresh (the installer download uses it) reports the refusal.
    await expect(refreshSession()).resolves.toMatchObject({ status: 403, code: 'account_suspended' });

    expect(targets).toEqual([
      '/session-ended?reason=suspended',
      '/session-ended?reason=suspended',
      '/session-ended?reason=suspended',
    ]);
    expect(calls.filter((c) => c.url === '/v1/public/auth/refresh')).toHaveLength(3);
  });

  it('keeps the session when the refresh cannot reach the hub or the hub fails', async () => {
    let n = 0;
    mockFetch(calls, (url) => {
      if (url === '/v1/public/auth/refresh') {
        if (n++ === 0) throw new TypeError('Failed to fetch');
        return json(503, { error: 'unavailable', message: 'try later' });
      }
      return json(401, { error: 'invalid_token', message: 'expired' });
    });
    noteSession(true);
    await expect(api.get('/v1/user/me')).rejects.toMatchObject({ status: 0, code: 'network' });
    await expect(api.get('/v1/user/me')).rejects.toMatchObject({ status: 503, message: 'try later' });
    expect(ended).toEqual([]);
  });

  it('retries only once: a second 401 ends the session', async () => {
    mockFetch(calls, (url) => (url === '/v1/public/auth/refresh' ? json(200, {}) : json(401, { error: 'invalid_token', message: 'x' })));
    await expect(api.get('/v1/user/me')).rejects.toMatchObject({ status: 401 });
    expect(calls.map((c) => c.url)).toEqual(['/v1/user/me', '/v1/public/auth/refresh', '/v1/user/me']);
    expect(ended).toHaveLength(1);
  });
});

describe('withQuery', () => {
  it('leaves out empty values', () => {
    expect(withQuery('/v1/user/hosts', { q: '', status: undefined, limit: 20, offset: 0, sort: '-name' })).toBe(
      '/v1/user/hosts?limit=20&offset=0&sort=-name',
    );
    expect(withQuery('/x', {})).toBe('/x');
  });

  it('repeats array values', () => {
    expect(withQuery('/v1/user/hosts', { tag: ['env=prod', '', 'role'], limit: 5 })).toBe(
      '/v1/user/hosts?tag=env%3Dprod&tag=role&limit=5',
    );
  });
});
