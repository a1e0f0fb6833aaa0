// The host and user pages by role against a stubbed hub: an owner sees every
// write control, an operator no balance adjustment, finance no host or
// suspend controls, a viewer none; and the host page's facts (flapping,
// upgrade state, owner link) come from the admin answer.
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { App as AntApp } from 'antd';
import { act } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { MemoryRouter, Route, Routes } from 'react-router';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { I18nProvider } from '../../../i18n';
import { adminCatalogs } from '../../i18n/messages';
import { AdminContext } from '../../session';
import type { Role } from '../../types';
import HostPage from './HostPage';
import UserPage from '../users/UserPage';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

const HOST_ID = 'h-1';
const USER_ID = 'u-1';
const hostAnswer = {
  host: {
    id: HOST_ID,
    user_id: USER_ID,
    name: 'kestrel-gw',
    bid: 1,
    listen_port: 2,
    status: 'online',
    created_at: '2026-11-26T04:40:38Z',
    installed_version: '1.2.3',
    webhook_format: 'A',
  },
  ws_connected: true,
  online: true,
  upgrade: { host_id: HOST_ID, version: '9.1.0', state: 'downloading', requested_by: 'a', requested_at: '2026-11-26T05:00:00Z', updated_at: '2026-11-26T05:00:01Z' },
  owner: { id: USER_ID, email: 'ops@example.com' },
  flaps_1h: { connects: 7, disconnects: 6 },
};
const userAnswer = {
  id: USER_ID,
  email: 'ops@example.com',
  display_name: 'Ops',
  status: 'active',
  created_at: '2026-11-26T04:40:38Z',
  balance: 12.5,
  host_count: 1,
  api_key_count: 1,
};

function json(body: unknown): Response {
  return new Response(JSON.stringify(body), { status: 200, headers: { 'Content-Type': 'application/json' } });
}

function route(url: string): Response {
  const u = new URL(url, 'http://x');
  switch (u.pathname) {
    case `/v1/admin/hosts/${HOST_ID}`:
      return json(hostAnswer);
    case `/v1/admin/users/${USER_ID}`:
      return json(userAnswer);
    case `/v1/admin/users/${USER_ID}/ledger-check`:
      return json({ user_id: USER_ID, balance: 12.5, events_sum: 10, consistent: false });
    case `/v1/admin/users/${USER_ID}/api-keys`:
      return json({ items: [{ id: 'k', name: 'deploy bot', prefix: 'ak_12', created_at: '2026-11-26T04:40:38Z', last_used_at: null }] });
    default:
      return json({ items: [], total: 0, limit: 10, offset: 0 });
  }
}

let root: Root | null = null;
let el: HTMLElement | null = null;

afterEach(() => {
  act(() => root?.unmount());
  el?.remove();
  vi.unstubAllGlobals();
});

async function render(path: string, role: Role) {
  vi.stubGlobal('fetch', vi.fn((input: string) => Promise.resolve(route(input))));
  class RO {
    observe() {}
    disconnect() {}
  }
  vi.stubGlobal('ResizeObserver', RO);
  const qc = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  const session = { id: 'a', username: 'someone', role, status: 'active' as const, created_at: '2026-11-26T04:40:38Z' };
  el = document.createElement('div');
  document.body.appendChild(el);
  root = createRoot(el);
  await act(async () => {
    root?.render(
      <QueryClientProvider client={qc}>
        <I18nProvider catalogs={adminCatalogs}>
          <AntApp>
            <AdminContext.Provider value={session}>
              <MemoryRouter initialEntries={[path]}>
                <Routes>
                  <Route path="/admin/hosts/:id" element={<HostPage />} />
                  <Route path="/admin/users/:id" element={<UserPage />} />
                </Routes>
              </MemoryRouter>
            </AdminContext.Provider>
          </AntApp>
        </I18nProvider>
      </QueryClientProvider>,
    );
    await new Promise((r) => setTimeout(r, 50));
  });
  await act(async () => {
    await new Promise((r) => setTimeout(r, 50));
  });
}

/** Lets the page settle until ok() holds (at most 5 s). */
async function until(ok: () => boolean) {
  for (let i = 0; i < 100 && !ok(); i++) {
    await act(async () => {
      await new Promise((r) => setTimeout(r, 50));
    });
  }
  expect(ok()).toBe(true);
}

const ids = () => new Set([...document.querySelectorAll('[data-testid]')].map((e) => e.getAttribute('data-testid')));
const HOST_WRITES = ['host-push-upgrade', 'host-ban', 'host-delete', 'host-open-terminal'];
const USER_WRITES = ['user-suspend', 'user-adjust-balance'];

describe('host page by role', () => {
  it('shows the admin facts: flapping, upgrade state, owner', async () => {
    await render(`/admin/hosts/${HOST_ID}`, 'owner');
    const flaps = document.querySelector('[data-testid="host-flaps"]');
    expect(flaps?.getAttribute('data-level')).toBe('high');
    expect(flaps?.getAttribute('data-connects')).toBe('7');
    expect(document.querySelector('[data-testid="host-upgrade-state"]')?.getAttribute('data-state')).toBe('downloading');
    const owner = document.querySelector('[data-testid="host-owner"]');
    expect(owner?.textContent).toBe('ops@example.com');
    expect(owner?.getAttribute('href')).toBe(`/admin/users/${USER_ID}`);
    expect(document.querySelector('[data-testid="host-status"]')?.getAttribute('data-online')).toBe('true');
  });

  it.each([
    ['owner', HOST_WRITES],
    ['operator', HOST_WRITES],
    ['finance', []],
    ['viewer', []],
  ] as const)('%s sees %j', async (role, want) => {
    await render(`/admin/hosts/${HOST_ID}`, role);
    await until(() => document.querySelector('[data-testid="host-status"]') !== null);
    expect(document.querySelector('[data-testid="host-status"]')).not.toBeNull();
    const seen = ids();
    expect(HOST_WRITES.filter((w) => seen.has(w))).toEqual(want);
    expect(seen.has('host-unban')).toBe(false);
  });
});

describe('user page by role', () => {
  it.each([
    ['owner', USER_WRITES],
    ['operator', ['user-suspend']],
    ['finance', ['user-adjust-balance']],
    ['viewer', []],
  ] as const)('%s sees %j', async (role, want) => {
    await render(`/admin/users/${USER_ID}`, role);
    await until(() => document.querySelector('[data-testid="user-balance"]') !== null);
    expect(document.querySelector('[data-testid="user-balance"]')?.getAttribute('data-tokens')).toBe('12.5');
    const seen = ids();
    expect(USER_WRITES.filter((w) => seen.has(w))).toEqual(want);
    expect(seen.has('user-resume')).toBe(false);
    await until(() => document.body.textContent?.includes('deploy bot') ?? false);
  });
});

describe('user page ledger check', () => {
  it('is asked for on a click, by any role, and says when the balance does not match', async () => {
    await render(`/admin/users/${USER_ID}`, 'viewer');
    await until(() => document.querySelector('[data-testid="user-ledger-check"]') !== null);
    const asked = () =>
      (fetch as unknown as { mock: { calls: [string][] } }).mock.calls.filter(([u]) => u.includes('/ledger-check')).length;
    expect(asked()).toBe(0);
    act(() => {
      (document.querySelector('[data-testid="user-ledger-check"]') as HTMLButtonElement).click();
    });
    await until(() => document.querySelector('[data-testid="user-ledger-check-result"]') !== null);
    expect(asked()).toBe(1);
    const res = document.querySelector('[data-testid="user-ledger-check-result"]');
    expect(res?.getAttribute('data-consistent')).toBe('false');
    expect(res?.textContent).toContain('12.5');
    expect(res?.textContent).toContain('10');
  });
});
