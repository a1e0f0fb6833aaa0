// The hosts list and host creation. The host page's own queries live in
// src/features/host.
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '../api/client';
import { qk } from '../api/queryKeys';
import type { CreateHostBody, Credentials, Host, HostPage } from '../api/types';
import type { HostListParams } from '../lib/paging';

/** How often the list re-reads hosts so `online` follows the agents. */
export const HOSTS_POLL_MS = 5_000;

export function useHosts(p: HostListParams) {
  return useQuery({
    queryKey: qk.hosts.list(p),
    queryFn: ({ signal }) => api.get<HostPage>('/v1/user/hosts', { ...p }, signal),
    placeholderData: keepPreviousData,
    refetchInterval: HOSTS_POLL_MS,
  });
}

/**
 * The create answer: the host plus, once, its install credentials. The
 * document types the answer as Host; the credentials are optional here so
 * the console works before and after the hub adds them.
 */
export type HostCreated = Host & { credentials?: Credentials };

export function useCreateHost() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (b: CreateHostBody) => api.post<HostCreated>('/v1/user/hosts', b),
    meta: { errorShownInline: true },
    onSuccess: () => qc.invalidateQueries({ queryKey: qk.hosts.all }),
  });
}
