// The hosts list's tags against a stubbed hub: the URL's tag filters reach
// the hub as repeated tag= parameters, each host shows its tags, and a
// selection runs a job on those hosts.
import { act } from 'react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { json, mockFetch, mountRoutes, type FetchCall } from '../test/helpers';
import HostsPage from './HostsPage';

const host = (id: string, name: string, tags: Record<string, string>) => ({
  id,
  name,
  user_id: 'u',
  bid: 1,
  listen_port: 23456,
  status: 'online',
  online: true,
  created_at: '2026-11-27T11:00:00Z',
  webhook_format: 'A',
  tags,
});

afterEach(() => {
  document.body.innerHTML = '';
  vi.unstubAllGlobals();
});

const q = (sel: string) => document.querySelector(sel);
async function until(check: () => boolean) {
  for (let i = 0; i < 400 && !check(); i++) {
    await act(async () => {
      await new Promise((r) => setTimeout(r, 20));
    });
  }
}

describe('HostsPage tags', () => {
  it('filters by the URL tags, shows each host tags and runs on the selection', { timeout: 30_000 }, async () => {
    const calls: FetchCall[] = [];
    mockFetch(calls, (url) => {
      if (url.startsWith('/v1/user/hosts'))
        return json(200, { items: [host('h1', 'web-1', { env: 'prod', role: '' }), host('h2', 'web-2', { env: 'prod' })], total: 2, limit: 20, offset: 0 });
      if (url.startsWith('/v1/user/tags')) return json(200, { items: [{ key: 'env', value: 'prod', host_count: 2 }], total: 1, limit: 1000, offset: 0 });
      if (url.startsWith('/v1/user/filters')) return json(200, { items: [], total: 0, limit: 100, offset: 0 });
      return json(404, { error: 'not_found', message: 'no' });
    });
    const { router } = mountRoutes(
      [
        { path: '/hosts', element: <HostsPage /> },
        { path: '/jobs/new', element: <div data-testid="new-job" /> },
      ],
      '/hosts?tag=env%3Dprod&tag=role',
    );
    await until(() => document.querySelectorAll('[data-testid="host-row"]').length === 2);
    const list = calls.find((c) => c.url.startsWith('/v1/user/hosts?'));
    expect(list?.url).toContain('tag=env%3Dprod&tag=role');
    const tags = [...document.querySelectorAll('[data-host-id="h1"] [data-testid="host-tag"]')].map((e) => e.getAttribute('data-tag'));
    expect(tags).toEqual(['env=prod', 'role']);
    expect(q('[data-testid="hosts-run-tags"]')).not.toBeNull();

    act(() => (q('[data-host-id="h2"] .ant-checkbox-input') as HTMLElement).click());
    await until(() => q('[data-testid="hosts-run-selected"]') !== null);
    act(() => (q('[data-testid="hosts-run-selected"]') as HTMLElement).click());
    await until(() => q('[data-testid="new-job"]') !== null);
    expect(router.state.location.pathname + router.state.location.search).toBe('/jobs/new?host=h2');
  });
});
