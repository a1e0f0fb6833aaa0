// Helpers both consoles' tests share: JSON answers, a recording fetch stub,
// typing into an input the way React notices, and mounting pages under a
// memory router with the providers they need.
import { QueryClientProvider } from '@tanstack/react-query';
import { App as AntApp } from 'antd';
import { act } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { createMemoryRouter, RouterProvider, type RouteObject } from 'react-router';
import { afterEach, vi } from 'vitest';
import { createQueryClient } from '../app/queryClient';
import { I18nProvider, type Lang, type Messages } from '../i18n';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

// Pages mounted by a test are unmounted after it, so their timers (antd's
// form debounce, a list's search pause) are cleared and never fire after the
// test file's window is gone.
const mounted: { root: Root; el: HTMLElement }[] = [];
afterEach(() => {
  for (const m of mounted.splice(0)) {
    act(() => m.root.unmount());
    m.el.remove();
  }
});

/** A JSON response with `status`. */
export function json(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });
}

export type FetchCall = { url: string; init: RequestInit };

/** Stubs fetch with `h`, pushing every call onto `calls`. */
export function mockFetch(calls: FetchCall[], h: (url: string, init: RequestInit) => Response | Promise<Response>) {
  vi.stubGlobal(
    'fetch',
    vi.fn((url: string, init: RequestInit) => {
      calls.push({ url, init });
      return Promise.resolve(h(url, init));
    }),
  );
}

/** Types `value` into an input: React tracks the value property, so set it through the prototype. */
export function typeInto(input: HTMLInputElement, value: string) {
  // eslint-disable-next-line @typescript-eslint/unbound-method -- called with the input as `this` below
  const setter = Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value')?.set as
    | ((this: HTMLInputElement, v: string) => void)
    | undefined;
  act(() => {
    setter?.call(input, value);
    input.dispatchEvent(new Event('input', { bubbles: true }));
  });
}

/** Mounts `routes` at `entry` with a fresh query client, the messages (the user console's by default) and antd's App. */
export function mountRoutes(routes: RouteObject[], entry: string, catalogs?: Record<Lang, Messages>) {
  const router = createMemoryRouter(routes, { initialEntries: [entry] });
  const el = document.createElement('div');
  document.body.appendChild(el);
  const root = createRoot(el);
  mounted.push({ root, el });
  act(() =>
    root.render(
      <QueryClientProvider client={createQueryClient()}>
        <I18nProvider catalogs={catalogs}>
          <AntApp>
            <RouterProvider router={router} />
          </AntApp>
        </I18nProvider>
      </QueryClientProvider>,
    ),
  );
  return { el, router };
}
