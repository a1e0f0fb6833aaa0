// API keys: list, create (secret shown once), delete.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, seg } from '../api/client';
import { qk } from '../api/queryKeys';
import type { ApiKeyCreated, ApiKey } from '../api/types';

export function useApiKeys() {
  return useQuery({
    queryKey: qk.apiKeys,
    queryFn: ({ signal }) => api.get<{ items?: ApiKey[] | null }>('/v1/user/api-keys', undefined, signal),
    select: (r) => r.items ?? [],
    // "Last used" changes whenever a key is used elsewhere: follow it while
    // the page is open (and at once when the window regains focus).
    refetchInterval: 30_000,
    refetchOnWindowFocus: 'always',
  });
}

export function useCreateApiKey() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (name: string) => api.post<ApiKeyCreated>('/v1/user/api-keys', { name }),
    meta: { errorShownInline: true },
    onSuccess: () => qc.invalidateQueries({ queryKey: qk.apiKeys }),
  });
}

export function useDeleteApiKey() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => api.delete<unknown>(`/v1/user/api-keys/${seg(id)}`),
    onSuccess: () => qc.invalidateQueries({ queryKey: qk.apiKeys }),
  });
}
