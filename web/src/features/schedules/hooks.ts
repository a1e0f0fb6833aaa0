// The schedules page's queries and mutations (issue 26 §3).
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, seg } from '../../api/client';
import { qk } from '../../api/queryKeys';
import type { Page, Schedule, ScheduleBody, ScheduleRun } from '../../api/types';
import type { PageParams } from '../../lib/paging';
import { useCursorPages } from '../../lib/useCursorPages';

export function useSchedules(p: PageParams) {
  return useCursorPages({
    list: 'user.schedules',
    queryKey: qk.schedules.list(p),
    page: p,
    fetch: (query, signal) => api.get<Page<Schedule>>('/v1/user/schedules', query, signal),
    refetchInterval: 30_000,
  });
}

export function useScheduleRuns(id: string, p: PageParams) {
  return useCursorPages({
    list: `user.schedules.${id}.runs`,
    queryKey: qk.schedules.runs(id, p),
    page: p,
    fetch: (query, signal) => api.get<Page<ScheduleRun>>(`/v1/user/schedules/${seg(id)}/runs`, query, signal),
  });
}

export function useCreateSchedule() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (b: ScheduleBody) => api.post<Schedule>('/v1/user/schedules', b),
    meta: { errorShownInline: true },
    onSuccess: () => qc.invalidateQueries({ queryKey: qk.schedules.all }),
  });
}

/** Pauses or resumes a schedule. */
export function useSetSchedulePaused() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (v: { id: string; paused: boolean }) =>
      api.post<Schedule>(`/v1/user/schedules/${seg(v.id)}/${v.paused ? 'pause' : 'resume'}`),
    onSuccess: () => qc.invalidateQueries({ queryKey: qk.schedules.all }),
  });
}

export function useDeleteSchedule() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => api.delete(`/v1/user/schedules/${seg(id)}`),
    onSuccess: () => qc.invalidateQueries({ queryKey: qk.schedules.all }),
  });
}
