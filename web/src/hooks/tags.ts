// Host tags and saved filters (issue 26 §1): the tag list for autocomplete,
// replacing one host's tags, adding/removing tags on a selection, and the
// saved filters of the hosts list.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, request, seg } from '../api/client';
import { qk } from '../api/queryKeys';
import type { BulkTagsBody, HostTags, HostTagsOut, Page, SavedFilter, SavedFilterQuery, TagCount } from '../api/types';

/** Every tag of the caller's hosts with its host count (the hub's max page, for the filter's choices). */
export function useTagList() {
  return useQuery({
    queryKey: qk.tags,
    queryFn: ({ signal }) => api.get<Page<TagCount>>('/v1/user/tags', { limit: 1000 }, signal),
    staleTime: 10_000,
  });
}

/** Replaces one host's tags. */
export function useSetHostTags() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (v: { hostId: string; tags: HostTags }) =>
      api.put<HostTagsOut>(`/v1/user/hosts/${seg(v.hostId)}/tags`, { tags: v.tags }),
    meta: { errorShownInline: true },
    onSuccess: () => Promise.all([qc.invalidateQueries({ queryKey: qk.hosts.all }), qc.invalidateQueries({ queryKey: qk.tags })]),
  });
}

/** Adds and removes tags on a selection of hosts in one call. */
export function useBulkTags() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (b: BulkTagsBody) => api.post<{ updated: number }>('/v1/user/hosts/tags', b),
    meta: { errorShownInline: true },
    onSuccess: () => Promise.all([qc.invalidateQueries({ queryKey: qk.hosts.all }), qc.invalidateQueries({ queryKey: qk.tags })]),
  });
}

/** The caller's saved filters (at most 100, so one page). */
export function useSavedFilters() {
  return useQuery({
    queryKey: qk.filters.all,
    queryFn: ({ signal }) => api.get<Page<SavedFilter>>('/v1/user/filters', { limit: 100 }, signal),
  });
}

export function useCreateFilter() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (b: { name: string; query: SavedFilterQuery }) => api.post<SavedFilter>('/v1/user/filters', b),
    meta: { errorShownInline: true },
    onSuccess: () => qc.invalidateQueries({ queryKey: qk.filters.all }),
  });
}

export function useRenameFilter() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (v: { id: string; name: string }) =>
      request<SavedFilter>('PATCH', `/v1/user/filters/${seg(v.id)}`, { body: { name: v.name } }),
    meta: { errorShownInline: true },
    onSuccess: () => qc.invalidateQueries({ queryKey: qk.filters.all }),
  });
}

export function useDeleteFilter() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => api.delete(`/v1/user/filters/${seg(id)}`),
    onSuccess: () => qc.invalidateQueries({ queryKey: qk.filters.all }),
  });
}
