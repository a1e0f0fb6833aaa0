// Every TanStack Query key the console uses, in one place, so an
// invalidation always names the same key the query used. Keys are arrays
// that start with the resource; invalidating a prefix (e.g. qk.hosts.all)
// refreshes every query under it.
import type { HostListParams, PageParams } from '../lib/paging';

export const qk = {
  me: ['me'] as const,
  balance: ['billing', 'balance'] as const,
  hosts: {
    all: ['hosts'] as const,
    list: (p: HostListParams) => ['hosts', 'list', p] as const,
    detail: (id: string) => ['hosts', 'detail', id] as const,
    metrics: (id: string, limit: number) => ['hosts', 'detail', id, 'metrics', limit] as const,
    sysinfo: (id: string) => ['hosts', 'detail', id, 'sysinfo'] as const,
    deliveries: (id: string, limit: number) => ['hosts', 'detail', id, 'deliveries', limit] as const,
  },
  tags: ['tags'] as const,
  filters: {
    all: ['filters'] as const,
    detail: (id: string) => ['filters', id] as const,
  },
  jobs: {
    all: ['jobs'] as const,
    list: (p: PageParams & { state?: string }) => ['jobs', 'list', p] as const,
    detail: (id: string) => ['jobs', 'detail', id] as const,
    results: (id: string, p: PageParams & { state?: string }) => ['jobs', 'detail', id, 'results', p] as const,
    output: (id: string, hostId: string) => ['jobs', 'detail', id, 'output', hostId] as const,
  },
  schedules: {
    all: ['schedules'] as const,
    list: (p: PageParams) => ['schedules', 'list', p] as const,
    runs: (id: string, p: PageParams) => ['schedules', 'runs', id, p] as const,
  },
  apiKeys: ['api-keys'] as const,
  billing: {
    all: ['billing'] as const,
    prices: ['billing', 'prices'] as const,
    events: (p: PageParams) => ['billing', 'events', p] as const,
    recharges: (p: PageParams & { status?: string }) => ['billing', 'recharges', p] as const,
  },
};
