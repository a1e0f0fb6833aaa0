// The admin fleet pages' queries and mutations (the /v1/admin/hosts routes).
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { adminApi, seg } from '../../api';
import type { MetricsPage, TicketOut } from '../../../api/types';
import type { MetricsSource } from '../../../features/host/hooks';
import { useCursorPages } from '../../../lib/useCursorPages';
import { stateToQuery, type ListState } from './listQuery';
import type { AdminHostDetail, AdminHostsPage, GatewayVersion, HostEvent, PushUpgradeResult } from './types';

/** The list and the host page re-read the hub this often, so state follows the agents. */
export const FLEET_POLL_MS = 5_000;
/** The event history is re-read this often. */
export const EVENTS_POLL_MS = 10_000;

export const adminHostKeys = {
  all: ['admin', 'hosts'] as const,
  list: (s: ListState) => ['admin', 'hosts', 'list', s] as const,
  detail: (id: string) => ['admin', 'hosts', 'detail', id] as const,
  events: (id: string, limit: number) => ['admin', 'hosts', 'detail', id, 'events', limit] as const,
  versions: ['admin', 'gateway-versions', 'published'] as const,
};

/** Where the admin host routes start (the terminal's socket too). */
export const ADMIN_HOSTS_BASE = '/v1/admin/hosts';

const base = (id: string) => `${ADMIN_HOSTS_BASE}/${seg(id)}`;

/** A page of the fleet, by cursor where one is known (src/lib/cursorPages.ts). */
export function useAdminHosts(s: ListState, extra?: Record<string, string | undefined>) {
  return useCursorPages({
    list: 'admin.hosts',
    queryKey: [...adminHostKeys.list(s), extra ?? {}],
    page: s,
    criteria: { ...stateToQuery(s), ...extra },
    fetch: (query, signal) => adminApi.get<AdminHostsPage>('/v1/admin/hosts', query, signal),
    refetchInterval: FLEET_POLL_MS,
  });
}

export function useAdminHost(id: string) {
  return useQuery({
    queryKey: adminHostKeys.detail(id),
    queryFn: ({ signal }) => adminApi.get<AdminHostDetail>(base(id), undefined, signal),
    refetchInterval: FLEET_POLL_MS,
  });
}

export function useHostEvents(id: string, limit: number) {
  return useQuery({
    queryKey: adminHostKeys.events(id, limit),
    queryFn: ({ signal }) => adminApi.get<{ items?: HostEvent[] | null }>(`${base(id)}/events`, { limit }, signal),
    placeholderData: keepPreviousData,
    refetchInterval: EVENTS_POLL_MS,
  });
}

/** The metrics chart's source: the admin route, under the admin keys. */
export function adminMetricsSource(id: string): MetricsSource {
  return {
    key: adminHostKeys.detail(id),
    fetch: (limit, signal) => adminApi.get<MetricsPage>(`${base(id)}/metrics`, { limit }, signal),
  };
}

/** Published versions an upgrade may target: not yanked, newest first as the hub lists them. */
export function usePublishedVersions(enabled: boolean) {
  return useQuery({
    queryKey: adminHostKeys.versions,
    queryFn: ({ signal }) =>
      adminApi.get<{ items?: GatewayVersion[] | null }>('/v1/admin/gateway-versions', { limit: 200 }, signal),
    select: (p) => (p.items ?? []).filter((v) => !v.yanked_at),
    enabled,
  });
}

function useHostWrite<T, A = void>(fn: (a: A) => Promise<T>, inline = false) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: fn,
    meta: inline ? { errorShownInline: true } : undefined,
    onSuccess: () => qc.invalidateQueries({ queryKey: adminHostKeys.all }),
  });
}

export const useBanHost = (id: string) => useHostWrite(() => adminApi.post<unknown>(`${base(id)}/ban`));
export const useUnbanHost = (id: string) => useHostWrite(() => adminApi.post<unknown>(`${base(id)}/unban`));
export const usePushUpgrade = (id: string) =>
  useHostWrite((version: string) => adminApi.post<PushUpgradeResult>(`${base(id)}/push-upgrade`, { version }), true);

export function useDeleteAdminHost(id: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: () => adminApi.delete<unknown>(base(id)),
    onSuccess: () => {
      qc.removeQueries({ queryKey: adminHostKeys.detail(id) });
      return qc.invalidateQueries({ queryKey: adminHostKeys.all });
    },
  });
}

export const openAdminTicket = (id: string) => adminApi.post<TicketOut>(`${base(id)}/terminal/ticket`);
