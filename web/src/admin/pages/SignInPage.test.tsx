import { act } from 'react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { mountRoutes, typeInto } from '../../test/helpers';
import { adminCatalogs } from '../i18n/messages';
import { AdminSignInPage } from './SignInPage';

afterEach(() => vi.unstubAllGlobals());

function mount() {
  return mountRoutes(
    [
      { path: '/admin/signin', element: <AdminSignInPage /> },
      { path: '/admin/audit', element: <div data-testid="audit-page" /> },
    ],
    '/admin/signin?next=/admin/audit',
    adminCatalogs,
  );
}

async function submit(el: HTMLElement, username: string) {
  typeInto(el.querySelector<HTMLInputElement>('[data-testid=admin-signin-username]')!, username);
  typeInto(el.querySelector<HTMLInputElement>('[data-testid=admin-signin-password]')!, 'secret password');
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
