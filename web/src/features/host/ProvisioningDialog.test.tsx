// The provisioning payload dialog against a stubbed hub: it warns before
// anything happens, checks the password, sends the body the hub expects and
// saves the answer as provisioning-<host id>.json.
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { App as AntApp } from 'antd';
import { act } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { I18nProvider } from '../../i18n';
import { ProvisioningDialog } from './ProvisioningDialog';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

const HOST_ID = '72695e4b-d6ab-49af-b201-f124040b2bc1';
const payload = {
  schema_version: 1,
  hub: { host_id: HOST_ID, bid: 7, secret_key: 's'.repeat(32), install_token: 't', agent_privkey_seed: 'a', agent_pubkey: 'b', ws_url: 'ws://x', api_endpoint: 'http://x' },
  autologon: { username: 'Administrator', password: 'Generated-password-24chr' },
};

let root: Root | null = null;
let el: HTMLElement | null = null;

afterEach(() => {
  act(() => root?.unmount());
  el?.remove();
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

const q = (sel: string) => document.querySelector(sel);

async function settle(check: () => boolean) {
  for (let i = 0; i < 500 && !check(); i++) {
    await act(async () => {
      await new Promise((r) => setTimeout(r, 20));
    });
  }
}

/** A Blob's text (jsdom's Blob has no text()). */
function readText(b: Blob): Promise<string> {
  return new Promise((ok, fail) => {
    const r = new FileReader();
    r.onload = () => ok(typeof r.result === 'string' ? r.result : '');
    r.onerror = () => fail(new Error('read the blob'));
    r.readAsText(b);
  });
}

function type(sel: string, value: string) {
  const input = q(sel) as HTMLInputElement;
  const desc = Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value');
  act(() => {
    desc?.set?.call(input, value);
    input.dispatchEvent(new Event('input', { bubbles: true }));
  });
}

async function render(onClose = () => {}) {
  const requests: { url: string; body: unknown }[] = [];
  vi.stubGlobal(
    'fetch',
    vi.fn((url: string, init?: RequestInit) => {
      requests.push({ url, body: typeof init?.body === 'string' ? JSON.parse(init.body) : undefined });
      return Promise.resolve(new Response(JSON.stringify(payload), { status: 200, headers: { 'Content-Type': 'application/json' } }));
    }),
  );
  const blobs: Blob[] = [];
  vi.stubGlobal('URL', Object.assign(URL, { createObjectURL: (b: Blob) => (blobs.push(b), 'blob:x'), revokeObjectURL: () => {} }));
  const clicks = vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(() => {});
  const qc = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  el = document.createElement('div');
  document.body.appendChild(el);
  root = createRoot(el);
  await act(async () => {
    root?.render(
      <QueryClientProvider client={qc}>
        <I18nProvider>
          <AntApp>
            <ProvisioningDialog hostId={HOST_ID} open onClose={onClose} />
          </AntApp>
        </I18nProvider>
      </QueryClientProvider>,
    );
    await new Promise((r) => setTimeout(r, 50));
  });
  return { requests, blobs, clicks };
}

describe('ProvisioningDialog', () => {
  it('warns, then saves the payload without autologon', async () => {
    const onClose = vi.fn();
    const { requests, blobs, clicks } = await render(onClose);
    expect(q('[data-testid=provisioning-warning]')?.textContent).toContain('previous install token');
    expect(q('[data-testid=provisioning-autologon-user]')).toBeNull();
    act(() => (q('[data-testid=provisioning-download]') as HTMLButtonElement).click());
    await settle(() => blobs.length > 0);
    expect(requests).toEqual([{ url: `/v1/user/hosts/${HOST_ID}/provisioning-payload`, body: {} }]);
    expect(JSON.parse(await readText(blobs[0]!))).toEqual(payload);
    expect(clicks).toHaveBeenCalled();
    expect(document.querySelector('a[download]')).toBeNull();
    await settle(() => onClose.mock.calls.length > 0);
    expect(onClose).toHaveBeenCalled();
  });

  it('asks for autologon with a checked password, generated when left empty', async () => {
    const { requests, blobs } = await render();
    act(() => (q('[data-testid=provisioning-autologon]') as HTMLInputElement).click());
    await settle(() => Boolean(q('[data-testid=provisioning-autologon-password]')));
    type('[data-testid=provisioning-autologon-user]', 'ops');
    type('[data-testid=provisioning-autologon-password]', 'x'.repeat(15));
    act(() => (q('[data-testid=provisioning-download]') as HTMLButtonElement).click());
    await settle(() => Boolean(document.body.textContent?.includes('16 to 128 characters (or leave it empty')));
    expect(requests).toEqual([]);
    type('[data-testid=provisioning-autologon-password]', '');
    act(() => (q('[data-testid=provisioning-download]') as HTMLButtonElement).click());
    await settle(() => blobs.length > 0);
    expect(requests.map((r) => r.body)).toEqual([{ autologon: { username: 'ops' } }]);
  });
});
