// Renders the host page against a stubbed hub: the contract's test ids, the
// offline state, the delivery rows and the 404 words.
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { App as AntApp } from 'antd';
import { act } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { MemoryRouter, Route, Routes } from 'react-router';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { I18nProvider } from '../../i18n';
import HostPage from './HostPage';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

const HOST_ID = '72695e4b-d6ab-49af-b201-f124040b2bc1';
const host = {
  id: HOST_ID,
  user_id: 'u',
  name: 'web-1',
  bid: 1234,
  listen_port: 23456,
  status: 'offline',
  created_at: '2026-11-26T04:40:38Z',
  last_seen_at: '2026-11-26T04:41:00Z',
  installed_version: '1.2.3',
  webhook_format: 'B',
  report_url: 'https://example.com/r',
};

function json(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });
}

let root: Root | null = null;
let el: HTMLElement | null = null;

afterEach(() => {
  act(() => root?.unmount());
  el?.remove();
  vi.unstubAllGlobals();
});

/** Every request the page made, as "METHOD url". */
let requests: string[] = [];

async function renderAt(routes: (url: string) => Response, state?: unknown) {
  requests = [];
  vi.stubGlobal(
    'fetch',
    vi.fn((input: string, init?: RequestInit) => {
      requests.push(`${init?.method ?? 'GET'} ${input}`);
      return Promise.resolve(routes(input));
    }),
  );
  class RO {
    observe() {}
    disconnect() {}
  }
  vi.stubGlobal('ResizeObserver', RO);
  const qc = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  el = document.createElement('div');
  document.body.appendChild(el);
  root = createRoot(el);
  await act(async () => {
    root?.render(
      <QueryClientProvider client={qc}>
        <I18nProvider>
          <AntApp>
            <MemoryRouter initialEntries={[{ pathname: `/hosts/${HOST_ID}`, state }]}>
              <Routes>
                <Route path="/hosts/:id" element={<HostPage />} />
              </Routes>
            </MemoryRouter>
          </AntApp>
        </I18nProvider>
      </QueryClientProvider>,
    );
    await new Promise((r) => setTimeout(r, 50));
  });
  await act(async () => {
    await new Promise((r) => setTimeout(r, 50));
  });
  return el;
}

const q = (sel: string) => document.querySelector(sel);

/** Lets queries settle until check() passes (or about 15 s pass). */
async function until(check: () => boolean) {
  for (let i = 0; i < 750 && !check(); i++) {
    await act(async () => {
      await new Promise((r) => setTimeout(r, 20));
    });
  }
}

describe('HostPage', () => {
  it('shows an offline host with its parts and a dead delivery', { timeout: 40_000 }, async () => {
    await renderAt((url) => {
      if (url.includes('/metrics')) return json(200, { items: [] });
      if (url.includes('/webhook-deliveries'))
        return json(200, {
          items: [
            {
              id: 'd1',
              event_type: 'host.l1_config.updated',
              status: 'dead_letter',
              attempts: 5,
              target_url: 'https://example.com/r',
              created_at: '2026-11-26T04:40:48Z',
              format: 'B',
              last_error: 'dial tcp: refused',
            },
          ],
        });
      return json(200, { host, online: false, upgrade: { host_id: HOST_ID, version: '1.3.0', state: 'failed', requested_at: host.created_at, requested_by: 'a', updated_at: host.created_at } });
    });
    await until(
      () =>
        Boolean(q('[data-testid=delivery-row]')) &&
        Boolean(q('[data-testid=metrics-chart]')?.textContent?.includes('No metrics yet')),
    );
    expect(q('[data-testid=host-name-title]')?.textContent).toBe('web-1');
    expect(q('[data-testid=host-status]')?.getAttribute('data-online')).toBe('false');
    expect(q('[data-testid=host-status]')?.textContent).toContain('Offline');
    expect(document.body.textContent).toContain('Upgrade to 1.3.0 failed');
    expect((q('[data-testid=sysinfo-refresh]') as HTMLButtonElement).disabled).toBe(true);
    expect(q('[data-testid=open-terminal]')?.hasAttribute('href')).toBe(false);
    expect(q('[data-testid=installer-download]')?.getAttribute('href')).toBe(`/v1/user/hosts/${HOST_ID}/installer`);
    expect(q('[data-testid=metrics-chart]')?.textContent).toContain('No metrics yet');
    const row = q('[data-testid=delivery-row]');
    expect(row?.getAttribute('data-status')).toBe('dead_letter');
    expect(row?.getAttribute('data-delivery-id')).toBe('d1');
    expect(row?.querySelector('[data-testid=delivery-retry]')).not.toBeNull();
    expect((q('[data-testid=l1-bid]') as HTMLInputElement).value).toBe('1234');
    expect((q('[data-testid=l1-url]') as HTMLInputElement).value).toBe('https://example.com/r');
    expect((q('[data-testid=l1-secret]') as HTMLInputElement).value).toBe('');
    expect(q('[data-testid=credentials-panel]')).toBeNull();
  });

  it('shows the credentials of the create answer once, without issuing others', { timeout: 40_000 }, async () => {
    const credentials = {
      host_id: HOST_ID,
      bid: 1234,
      secret_key: 'ab'.repeat(16),
      install_token: 'tok',
      install_token_expires_at: '2026-11-26T04:55:38Z',
      agent_privkey_seed: 'seed',
      agent_pubkey: 'pub',
      api_endpoint: 'http://hub',
      ws_url: 'ws://hub/gateway/ws',
      listen_port: 23456,
      exe_url: '',
      exe_sha256: '',
      url: '',
      install_command: { powershell: 'irm http://hub/install/tok.ps1 | iex', shell: 'curl -fsSL http://hub/install/tok.sh | sh' },
    };
    await renderAt(
      (url) => {
        if (url.includes('/metrics') || url.includes('/webhook-deliveries')) return json(200, { items: [] });
        return json(200, { host: { ...host, status: 'pending' }, online: false });
      },
      { created: { ...host, status: 'pending', credentials } },
    );
    await until(() => Boolean(q('[data-testid=credentials-json]')));
    expect(q('[data-testid=credentials-panel]')).not.toBeNull();
    expect(JSON.parse(q('[data-testid=credentials-json]')?.textContent ?? '{}')).toEqual(credentials);
    expect(q('[data-testid=install-command-shell]')?.textContent).toContain('tok.sh');
    expect(requests.filter((r) => !r.startsWith('GET '))).toEqual([]);
  });

  it('says host not found on a 404, with a way back', { timeout: 40_000 }, async () => {
    await renderAt(() => json(404, { error: 'not_found', message: 'host not found' }));
    await until(() => Boolean(document.body.textContent?.includes('Host not found')));
    expect(document.body.textContent).toContain('Host not found');
    expect(q('a[href="/hosts"]')).not.toBeNull();
  });
});
