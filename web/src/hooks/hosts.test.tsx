// Host creation asks the hub for the first install credentials in the same
// call, so the host page never issues them in a second one.
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { act, useEffect } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { HostCreated } from '../api/types';
import { useCreateHost } from './hosts';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

let root: Root | null = null;
let el: HTMLElement | null = null;

afterEach(() => {
  act(() => root?.unmount());
  el?.remove();
  vi.unstubAllGlobals();
});

describe('useCreateHost', () => {
  it('creates the host with its credentials in one POST', async () => {
    const created = { id: 'h1', name: 'web-1', credentials: { install_token: 'tok' } };
    const fetchMock = vi.fn<(url: string, init?: RequestInit) => Promise<Response>>(() =>
      Promise.resolve(new Response(JSON.stringify(created), { status: 200, headers: { 'Content-Type': 'application/json' } })),
    );
    vi.stubGlobal('fetch', fetchMock);
    let answer: HostCreated | undefined;
    function Create() {
      const { mutate } = useCreateHost();
      useEffect(() => mutate({ name: 'web-1', listen_port: 30000 }, { onSuccess: (c) => (answer = c) }), [mutate]);
      return null;
    }
    el = document.createElement('div');
    document.body.appendChild(el);
    root = createRoot(el);
    await act(async () => {
      root?.render(
        <QueryClientProvider client={new QueryClient()}>
          <Create />
        </QueryClientProvider>,
      );
      await new Promise((r) => setTimeout(r, 50));
    });
    const posts = fetchMock.mock.calls.filter(([, init]) => init?.method === 'POST');
    expect(posts).toHaveLength(1);
    const [url, init] = posts[0] ?? [];
    expect(url).toBe('/v1/user/hosts');
    expect(JSON.parse(init?.body as string)).toEqual({ name: 'web-1', listen_port: 30000, with_credentials: true });
    expect(answer?.credentials?.install_token).toBe('tok');
  });
});
