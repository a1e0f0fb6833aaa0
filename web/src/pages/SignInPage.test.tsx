import { act } from 'react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { mountRoutes, typeInto } from '../test/helpers';
import { SignInPage } from './SignInPage';

afterEach(() => vi.unstubAllGlobals());

function mount() {
  return mountRoutes(
    [
      { path: '/signin', element: <SignInPage /> },
      { path: '/hosts', element: <div data-testid="hosts-page" /> },
    ],
    '/signin?next=/hosts',
  );
}

async function submit(el: HTMLElement) {
  typeInto(el.querySelector<HTMLInputElement>('[data-testid=signin-email]')!, 'a@example.com');
  typeInto(el.querySelector<HTMLInputElement>('[data-testid=signin-password]')!, 'secret password');
  await act(async () => {
    el.querySelector<HTMLButtonElement>('[data-testid=signin-submit]')!.click();
    await new Promise((r) => setTimeout(r, 50));
  });
}

describe('SignInPage', () => {
  it('shows the API message of a refused sign-in (suspended account) in form-error', async () => {
    vi.stubGlobal(
      'fetch',
      vi.fn(() =>
        Promise.resolve(
          new Response(JSON.stringify({ error: 'account_suspended', message: 'this account is suspended' }), { status: 403 }),
        ),
      ),
    );
    const { el } = mount();
    await submit(el);
    await vi.waitFor(() =>
      expect(el.querySelector('[data-testid=form-error]')?.textContent).toBe('this account is suspended'),
    );
  });

  it('goes on to the next page after a sign-in, sending no token of its own', async () => {
    const fetchMock = vi.fn((url: string, init: RequestInit) => {
      void url;
      void init;
      return Promise.resolve(
        new Response(JSON.stringify({ access_token: 'x', refresh_token: 'y', access_ttl_s: 900, user: { id: 'u' } }), {
          status: 200,
        }),
      );
    });
    vi.stubGlobal('fetch', fetchMock);
    const { el, router } = mount();
    await submit(el);
    await vi.waitFor(() => expect(router.state.location.pathname).toBe('/hosts'));
    const [url, init] = fetchMock.mock.calls[0]!;
    expect(url).toBe('/v1/public/auth/login');
    expect(JSON.parse(init.body as string)).toEqual({ email: 'a@example.com', password: 'secret password' });
    expect(localStorage.length).toBe(0);
    expect(sessionStorage.length).toBe(0);
  });
});
