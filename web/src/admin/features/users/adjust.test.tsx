// The balance adjustment dialog sends an Idempotency-Key (docs/billing.md):
// a resend of the same values after a failed answer keeps the key, so the hub
// applies the adjustment once; other values get a new key.
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { App as AntApp } from 'antd';
import { act } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { MemoryRouter, Route, Routes } from 'react-router';
import { afterEach, expect, it, vi } from 'vitest';
import { I18nProvider } from '../../../i18n';
import { adminCatalogs } from '../../i18n/messages';
import { AdminContext } from '../../session';
import UserPage from './UserPage';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

const USER_ID = 'u-1';
const user = {
  id: USER_ID,
  email: 'ops@example.com',
  display_name: 'Ops',
  status: 'active',
  created_at: '2026-11-26T04:40:38Z',
  balance: 12.5,
  host_count: 0,
  api_key_count: 0,
};

const answer = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });

let root: Root | null = null;
let el: HTMLElement | null = null;
afterEach(() => {
  act(() => root?.unmount());
  el?.remove();
  vi.unstubAllGlobals();
});

const settle = () =>
  act(async () => {
    await new Promise((r) => setTimeout(r, 50));
  });

async function until(ok: () => boolean) {
  for (let i = 0; i < 100 && !ok(); i++) await settle();
  expect(ok()).toBe(true);
}

function setValue(sel: string, value: string) {
  const input = document.querySelector<HTMLInputElement | HTMLTextAreaElement>(sel);
  expect(input).not.toBeNull();
  const proto = input instanceof HTMLTextAreaElement ? HTMLTextAreaElement.prototype : HTMLInputElement.prototype;
  // eslint-disable-next-line @typescript-eslint/unbound-method -- called with the input as `this` below
  const setter = Object.getOwnPropertyDescriptor(proto, 'value')?.set as ((this: typeof input, v: string) => void) | undefined;
  act(() => {
    setter?.call(input, value);
    input?.dispatchEvent(new Event('input', { bubbles: true }));
  });
}

function click(sel: string) {
  const b = document.querySelector<HTMLElement>(sel);
  expect(b).not.toBeNull();
  act(() => b?.click());
}

it('keeps the Idempotency-Key for a resend of the same adjustment and makes a new one for other values', async () => {
  const posts: { key: string | null; body: string }[] = [];
  let fail = true;
  vi.stubGlobal(
    'fetch',
    vi.fn((url: string, init?: RequestInit) => {
      const path = new URL(url, 'http://x').pathname;
      if (path === `/v1/admin/users/${USER_ID}/balance/adjust`) {
        posts.push({ key: new Headers(init?.headers).get('Idempotency-Key'), body: typeof init?.body === 'string' ? init.body : '' });
        if (fail) return Promise.resolve(answer(503, { error: 'unavailable', message: 'try again' }));
        return Promise.resolve(answer(200, { ok: true, balance_after: 17.5 }));
      }
      if (path === `/v1/admin/users/${USER_ID}`) return Promise.resolve(answer(200, user));
      return Promise.resolve(answer(200, { items: [], total: 0, limit: 10, offset: 0 }));
    }),
  );
  vi.stubGlobal(
    'ResizeObserver',
    class {
      observe() {}
      disconnect() {}
    },
  );
  const qc = new QueryClient({ defaultOptions: { queries: { retry: false }, mutations: { retry: false } } });
  const session = { id: 'a', username: 'someone', role: 'owner' as const, status: 'active' as const, created_at: '2026-11-26T04:40:38Z' };
  el = document.createElement('div');
  document.body.appendChild(el);
  root = createRoot(el);
  act(() => {
    root?.render(
      <QueryClientProvider client={qc}>
        <I18nProvider catalogs={adminCatalogs}>
          <AntApp>
            <AdminContext.Provider value={session}>
              <MemoryRouter initialEntries={[`/admin/users/${USER_ID}`]}>
                <Routes>
                  <Route path="/admin/users/:id" element={<UserPage />} />
                </Routes>
              </MemoryRouter>
            </AdminContext.Provider>
          </AntApp>
        </I18nProvider>
      </QueryClientProvider>,
    );
  });
  await until(() => document.querySelector('[data-testid="user-adjust-balance"]') !== null);
  click('[data-testid="user-adjust-balance"]');
  await until(() => document.querySelector('[data-testid="user-adjust-tokens"]') !== null);
  setValue('[data-testid="user-adjust-tokens"]', '5');
  setValue('[data-testid="user-adjust-reason"]', 'goodwill');
  click('[data-testid="user-adjust-submit"]');
  await until(() => posts.length === 1);
  await settle();
  click('[data-testid="user-adjust-submit"]'); // the same values again, after the failure
  await until(() => posts.length === 2);
  setValue('[data-testid="user-adjust-tokens"]', '6');
  fail = false;
  await settle();
  click('[data-testid="user-adjust-submit"]');
  await until(() => posts.length === 3);

  const [first, again, other] = posts as [(typeof posts)[0], (typeof posts)[0], (typeof posts)[0]];
  expect(first.key).toMatch(/^[0-9a-f]{32}$/);
  expect(again.key).toBe(first.key);
  expect(JSON.parse(again.body)).toEqual({ tokens: 5, reason: 'goodwill' });
  expect(other.key).toMatch(/^[0-9a-f]{32}$/);
  expect(other.key).not.toBe(first.key);
  expect(JSON.parse(other.body)).toEqual({ tokens: 6, reason: 'goodwill' });
});
