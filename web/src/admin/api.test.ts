import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { json, mockFetch, type FetchCall } from '../test/helpers';
import { api, noteSession, setSessionEndedHandler } from '../api/client';
import { adminApi, adminClient } from './api';
import { adminSessionEndTarget, safeAdminNext } from './app/sessionTarget';

let calls: FetchCall[];
let ended: { reason: string; had: boolean }[];
let userEnded: number;

beforeEach(() => {
  calls = [];
  ended = [];
  userEnded = 0;
  adminClient.noteSession(false);
  noteSession(false);
  adminClient.setSessionEndedHandler((reason, had) => ended.push({ reason, had }));
  setSessionEndedHandler(() => userEnded++);
});

afterEach(() => vi.unstubAllGlobals());

describe('the admin client', () => {
  it('refreshes at /v1/admin/auth/refresh on a 401 from /v1/admin/* and retries once', async () => {
    let fresh = false;
    mockFetch(calls, (url) => {
      if (url === '/v1/admin/auth/refresh') {
        fresh = true;
        return json(200, { admin: {} });
      }
      return fresh ? json(200, { id: 'a1' }) : json(401, { error: 'invalid_token', message: 'expired' });
    });
    await expect(adminApi.get('/v1/admin/me')).resolves.toEqual({ id: 'a1' });
    expect(calls.map((c) => c.url)).toEqual(['/v1/admin/me', '/v1/admin/auth/refresh', '/v1/admin/me']);
    expect(calls[1]!.init.body).toBe('{}');
    expect(calls[1]!.init.credentials).toBe('same-origin');
    expect(ended).toEqual([]);
  });

  it('shares one refresh between concurrent 401s', async () => {
    let fresh = false;
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    mockFetch(calls, async (url) => {
      if (url === '/v1/admin/auth/refresh') {
        await gate;
        fresh = true;
        return json(200, {});
      }
      return fresh ? json(200, { url }) : json(401, { error: 'invalid_token', message: 'expired' });
    });
    const all = Promise.all([
      adminApi.get('/v1/admin/me'),
      adminApi.get('/v1/admin/dashboard/summary'),
      adminApi.get('/v1/admin/audit-logs', { limit: 20 }),
    ]);
    await vi.waitFor(() => expect(calls.filter((c) => c.url === '/v1/admin/auth/refresh')).toHaveLength(1));
    release();
    await expect(all).resolves.toHaveLength(3);
    expect(calls.filter((c) => c.url === '/v1/admin/auth/refresh')).toHaveLength(1);
  });

  it('ends the admin session (not the user one) when the refresh is refused', async () => {
    let n = 0;
    mockFetch(calls, (url) => {
      if (url === '/v1/admin/auth/refresh') return json(401, { error: 'invalid_token', message: 'session ended' });
      return n++ === 0 ? json(200, { id: 'a1' }) : json(401, { error: 'invalid_token', message: 'disabled' });
    });
    await adminApi.get('/v1/admin/me');
    await expect(adminApi.get('/v1/admin/me')).rejects.toMatchObject({ status: 401 });
    expect(ended).toEqual([{ reason: 'ended', had: true }]);
    expect(userEnded).toBe(0);
  });

  it('never refreshes for a wrong password at the admin sign-in', async () => {
    mockFetch(calls, () => json(401, { error: 'invalid_credentials', message: 'Wrong username or password' }));
    await expect(adminApi.post('/v1/admin/auth/login', { username: 'a', password: 'b' })).rejects.toMatchObject({
      message: 'Wrong username or password',
    });
    expect(calls).toHaveLength(1);
    expect(ended).toEqual([]);
  });

  it('shows a wrong step-up password as it is, without a refresh', async () => {
    mockFetch(calls, () => json(401, { error: 'invalid_credentials', message: 'Wrong password' }));
    adminClient.noteSession(true);
    await expect(adminApi.post('/v1/admin/auth/step-up', { password: 'x' })).rejects.toMatchObject({
      status: 401,
      code: 'invalid_credentials',
      message: 'Wrong password',
    });
    expect(calls.map((c) => c.url)).toEqual(['/v1/admin/auth/step-up']);
    expect(ended).toEqual([]);
  });

  it('keeps the session when the refresh cannot reach the hub', async () => {
    mockFetch(calls, (url) => {
      if (url === '/v1/admin/auth/refresh') throw new TypeError('Failed to fetch');
      return json(401, { error: 'invalid_token', message: 'expired' });
    });
    adminClient.noteSession(true);
    await expect(adminApi.get('/v1/admin/me')).rejects.toMatchObject({ status: 0, code: 'network' });
    expect(ended).toEqual([]);
  });

  it('sends extra headers (the step-up token) with a post', async () => {
    mockFetch(calls, () => json(200, { mode: 'charging' }));
    await adminApi.post('/v1/admin/billing/mode', { mode: 'charging' }, { 'X-Step-Up-Token': 'su_1' });
    expect((calls[0]!.init.headers as Record<string, string>)['X-Step-Up-Token']).toBe('su_1');
  });

  it('the two scopes do not cross: a 401 from /v1/user/* never calls the admin refresh', async () => {
    mockFetch(calls, (url) => (url.endsWith('/refresh') ? json(401, { error: 'x', message: 'x' }) : json(401, { error: 'x', message: 'x' })));
    await expect(api.get('/v1/user/me')).rejects.toMatchObject({ status: 401 });
    await expect(adminApi.get('/v1/user/me')).rejects.toMatchObject({ status: 401 });
    expect(calls.map((c) => c.url)).toEqual(['/v1/user/me', '/v1/public/auth/refresh', '/v1/user/me']);
    expect(ended).toEqual([]);
  });
});

describe('where the admin console goes when its session ends', () => {
  it('sign-in for a visitor, the session-ended page after a session, nowhere from a public page', () => {
    expect(adminSessionEndTarget('ended', false, { pathname: '/admin', search: '' })).toBe('/admin/signin');
    expect(adminSessionEndTarget('ended', false, { pathname: '/admin/audit', search: '?action=x' })).toBe(
      '/admin/signin?next=%2Fadmin%2Faudit%3Faction%3Dx',
    );
    expect(adminSessionEndTarget('ended', true, { pathname: '/admin/pricing', search: '' })).toBe('/admin/session-ended');
    expect(adminSessionEndTarget('ended', true, { pathname: '/admin/signin', search: '' })).toBeNull();
    expect(adminSessionEndTarget('ended', true, { pathname: '/admin/session-ended', search: '' })).toBeNull();
  });

  it('follows next only inside the admin console', () => {
    expect(safeAdminNext('/admin/audit?x=1')).toBe('/admin/audit?x=1');
    expect(safeAdminNext('/hosts')).toBe('/admin');
    expect(safeAdminNext('//evil.example')).toBe('/admin');
    expect(safeAdminNext('/admin/signin')).toBe('/admin');
    expect(safeAdminNext(null)).toBe('/admin');
  });
});
