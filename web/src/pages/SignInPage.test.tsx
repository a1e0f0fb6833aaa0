import { QueryClientProvider } from '@tanstack/react-query';
import { App as AntApp } from 'antd';
import { act } from 'react';
import { createRoot } from 'react-dom/client';
import { createMemoryRouter, RouterProvider } from 'react-router';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createQueryClient } from '../app/queryClient';
import { I18nProvider } from '../i18n';
import { SignInPage } from './SignInPage';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

afterEach(() => vi.unstubAllGlobals());

function mount() {
  const router = createMemoryRouter(
    [
      { path: '/signin', element: <SignInPage /> },
      { path: '/hosts', element: <div data-testid="hosts-page" /> },
    ],
    { initialEntries: ['/signin?next=/hosts'] },
  );
  const el = document.createElement('div');
  document.body.appendChild(el);
  act(() =>
    createRoot(el).render(
      <QueryClientProvider client={createQueryClient()}>
        <I18nProvider>
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
  // React tracks the value property; set it through the prototype so the change is seen.
  // eslint-disable-next-line @typescript-eslint/unbound-method -- called with the input as `this` below
  const setter = Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value')?.set as
    | ((this: HTMLInputElement, v: string) => void)
    | undefined;
  act(() => {
    setter?.call(input, value);
    input.dispatchEvent(new Event('input', { bubbles: true }));
  });
}

async function submit(el: HTMLElement) {
  type(el.querySelector<HTMLInputElement>('[data-testid=signin-email]')!, 'a@example.com');
  type(el.querySelector<HTMLInputElement>('[data-testid=signin-password]')!, 'secret password');
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
