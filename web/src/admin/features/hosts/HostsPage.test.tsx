// The hosts list against a stubbed hub: the URL's state becomes the hub's
// query, typing searches after a pause, writes the URL and goes back to the
// first page, and a filter change does the same.
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { App as AntApp } from 'antd';
import { act, useEffect } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { MemoryRouter, Route, Routes, useLocation } from 'react-router';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { I18nProvider } from '../../../i18n';
import { adminCatalogs } from '../../i18n/messages';
import HostsPage from './HostsPage';
import { SEARCH_DEBOUNCE_MS } from './useListState';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

let root: Root | null = null;
let el: HTMLElement | null = null;
let requests: URL[] = [];
const seen = { location: '' };

afterEach(() => {
  act(() => root?.unmount());
  el?.remove();
  vi.unstubAllGlobals();
});

function Where() {
  const l = useLocation();
  useEffect(() => {
    seen.location = l.pathname + l.search;
  }, [l]);
  return null;
}

const item = (i: number) => ({
  id: `h${i}`,
  user_id: 'u1',
  user_email: 'alice@example.com',
  name: `node-${i}`,
  bid: i,
  listen_port: 1,
  status: 'online',
  created_at: '2026-11-26T04:40:38Z',
  webhook_format: 'A',
  online: true,
  ws_connected: true,
});

async function settle(ms = 60) {
  await act(async () => {
    await new Promise((r) => setTimeout(r, ms));
  });
}

async function render(path: string) {
  requests = [];
  vi.stubGlobal(
    'fetch',
    vi.fn((input: string) => {
      const u = new URL(input, 'http://x');
      requests.push(u);
      const body = { items: [item(1), item(2)], total: 2, limit: 20, offset: 0, q: u.searchParams.get('q') ?? '' };
      return Promise.resolve(new Response(JSON.stringify(body), { status: 200, headers: { 'Content-Type': 'application/json' } }));
    }),
  );
  const qc = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  el = document.createElement('div');
  document.body.appendChild(el);
  root = createRoot(el);
  act(() => {
    root?.render(
      <QueryClientProvider client={qc}>
        <I18nProvider catalogs={adminCatalogs}>
          <AntApp>
            <MemoryRouter initialEntries={[path]}>
              <Where />
              <Routes>
                <Route path="/admin/hosts" element={<HostsPage />} />
              </Routes>
            </MemoryRouter>
          </AntApp>
        </I18nProvider>
      </QueryClientProvider>,
    );
  });
  for (let i = 0; i < 60 && !document.querySelector('[data-testid="hosts-row"]'); i++) await settle(50);
}

const last = () => requests[requests.length - 1];

function type(input: HTMLInputElement, value: string) {
  const desc = Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value');
  act(() => {
    desc?.set?.call(input, value);
    input.dispatchEvent(new Event('input', { bubbles: true }));
  });
}

describe('hosts list', () => {
  it("asks the hub for the URL's state and lists its rows", async () => {
    await render('/admin/hosts?status=online&online=true&os=linux&sort=-user_email&page=2');
    const q = last()?.searchParams;
    expect(last()?.pathname).toBe('/v1/admin/hosts');
    expect(q?.get('status')).toBe('online');
    expect(q?.get('online')).toBe('true');
    expect(q?.get('os')).toBe('linux');
    expect(q?.get('sort')).toBe('-user_email');
    expect(q?.get('offset')).toBe('20');
    const rows = [...document.querySelectorAll('[data-testid="hosts-row"]')].map((r) => r.getAttribute('data-id'));
    expect(rows).toEqual(['h1', 'h2']);
  });

  it('searches after a pause, writes the URL and goes back to the first page', async () => {
    await render('/admin/hosts?status=online&page=3');
    const input = document.querySelector<HTMLInputElement>('input[data-testid="hosts-search"]');
    expect(input).not.toBeNull();
    if (!input) return;
    type(input, 'alice@');
    await settle(SEARCH_DEBOUNCE_MS / 3);
    expect(seen.location).toBe('/admin/hosts?status=online&page=3');
    await settle(SEARCH_DEBOUNCE_MS + 100);
    expect(seen.location).toBe('/admin/hosts?q=alice%40&status=online');
    for (let i = 0; i < 40 && last()?.searchParams.get('q') !== 'alice@'; i++) await settle(50);
    expect(last()?.searchParams.get('q')).toBe('alice@');
    expect(last()?.searchParams.get('offset')).toBe('0');
  });
});
