// The hosts list and host creation. The host page's own queries live in
// src/features/host.
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '../api/client';
import { qk } from '../api/queryKeys';
import type { CreateHostBody, HostCreated, HostPage } from '../api/types';
import { hostListQuery, type HostListParams } from '../lib/paging';

/** How often the list re-reads hosts so `online` follows the agents. */
export const HOSTS_POLL_MS = 5_000;

export function useHosts(p: HostListParams) {
  return useQuery({
    queryKey: qk.hosts.list(p),
    queryFn: ({ signal }) => api.get<HostPage>('/v1/user/hosts', { ...hostListQuery(p) }, signal),
    placeholderData: keepPreviousData,
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
