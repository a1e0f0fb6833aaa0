// The hosts list and host creation. The host page's own queries live in
// src/features/host.
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../api/client';
import { qk } from '../api/queryKeys';
import type { CreateHostBody, HostCreated, HostPage } from '../api/types';
import { hostListQuery, type HostListParams } from '../lib/paging';
import { useCursorPages } from '../lib/useCursorPages';

/** How often the list re-reads hosts so `online` follows the agents. */
export const HOSTS_POLL_MS = 5_000;

/** A page of the hosts list, by cursor where one is known (src/lib/cursorPages.ts). */
export function useHosts(p: HostListParams) {
  const { limit, offset, ...criteria } = hostListQuery(p);
  return useCursorPages({
    list: 'user.hosts',
    queryKey: qk.hosts.list(p),
    page: { limit, offset },
    criteria,
    fetch: (query, signal) => api.get<HostPage>('/v1/user/hosts', query, signal),
    refetchInterval: HOSTS_POLL_MS,
  });
}

/**
 * Creates a host with its first install credentials in the same call
 * (`with_credentials`), for the host page to show once.
 */
export function useCreateHost() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (b: Omit<CreateHostBody, 'with_credentials'>) =>
      api.post<HostCreated>('/v1/user/hosts', { ...b, with_credentials: true }),
    meta: { errorShownInline: true },
    onSuccess: () => qc.invalidateQueries({ queryKey: qk.hosts.all }),
  });
}
