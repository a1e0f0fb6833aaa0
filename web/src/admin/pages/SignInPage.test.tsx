import { QueryClientProvider } from '@tanstack/react-query';
import { App as AntApp } from 'antd';
import { act } from 'react';
import { createRoot } from 'react-dom/client';
import { createMemoryRouter, RouterProvider } from 'react-router';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createQueryClient } from '../../app/queryClient';
import { I18nProvider } from '../../i18n';
import { adminCatalogs } from '../i18n/messages';
import { AdminSignInPage } from './SignInPage';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

afterEach(() => vi.unstubAllGlobals());

function mount() {
  const router = createMemoryRouter(
    [
      { path: '/admin/signin', element: <AdminSignInPage /> },
      { path: '/admin/audit', element: <div data-testid="audit-page" /> },
    ],
    { initialEntries: ['/admin/signin?next=/admin/audit'] },
  );
  const el = document.createElement('div');
  document.body.appendChild(el);
  act(() =>
    createRoot(el).render(
      <QueryClientProvider client={createQueryClient()}>
        <I18nProvider catalogs={adminCatalogs}>
          <AntApp>
            <RouterProvider router={router} />
          </AntApp>
        </I18nProvider>
      </QueryClientProvider>,
    ),
  );
  return { el, router };
}

function type(input: HTMLInputElement, value: string) {
  // eslint-disable-next-line @typescript-eslint/unbound-method -- called with the input as `this` below
  const setter = Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value')?.set as
    | ((this: HTMLInputElement, v: string) => void)
    | undefined;
  act(() => {
    setter?.call(input, value);
    input.dispatchEvent(new Event('input', { bubbles: true }));
  });
}

async function submit(el: HTMLElement, username: string) {
  type(el.querySelector<HTMLInputElement>('[data-testid=admin-signin-username]')!, username);
  type(el.querySelector<HTMLInputElement>('[data-testid=admin-signin-password]')!, 'secret password');
  await act(async () => {
    el.querySelector<HTMLButtonElement>('[data-testid=admin-signin-submit]')!.click();
    await new Promise((r) => setTimeout(r, 50));
  });
}

describe('AdminSignInPage', () => {
  it('asks for a username and a password, with no sign-up and no link to the customer pages', () => {
    const { el } = mount();
    expect(el.querySelector('[data-testid=admin-signin-username]')).not.toBeNull();
    expect(el.querySelector('[data-testid=admin-signin-password]')).not.toBeNull();
    expect(el.querySelector('[data-testid=signin-email], [data-testid=goto-signup]')).toBeNull();
    expect([...el.querySelectorAll('a')].map((a) => a.getAttribute('href'))).toEqual([]);
  });

  it('signs in at /v1/admin/auth/login and follows next inside the admin console', async () => {
    const calls: { url: string; body: string }[] = [];
    vi.stubGlobal(
      'fetch',
      vi.fn((url: string, init: RequestInit) => {
        calls.push({ url, body: init.body as string });
        const admin = { id: 'a1', username: 'ops', role: 'viewer', status: 'active', created_at: '2026-01-01T00:00:00Z' };
        return Promise.resolve(new Response(JSON.stringify({ admin, user: admin }), { status: 200 }));
      }),
    );
    const { el, router } = mount();
    await submit(el, '  ops ');
    await vi.waitFor(() => expect(router.state.location.pathname).toBe('/admin/audit'));
    expect(calls[0]).toEqual({ url: '/v1/admin/auth/login', body: '{"username":"ops","password":"secret password"}' });
  });

  it("shows the hub's words for a refused sign-in", async () => {
    vi.stubGlobal(
      'fetch',
      vi.fn(() =>
        Promise.resolve(
          new Response(JSON.stringify({ error: 'invalid_credentials', message: 'Wrong username or password' }), { status: 401 }),
        ),
      ),
    );
    const { el } = mount();
    await submit(el, 'ops');
    await vi.waitFor(() => expect(el.querySelector('[data-testid=form-error]')?.textContent).toBe('Wrong username or password'));
  });
});
