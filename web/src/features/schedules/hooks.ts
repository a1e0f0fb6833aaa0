// The schedules page's queries and mutations (issue 26 §3).
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, seg } from '../../api/client';
import { qk } from '../../api/queryKeys';
import type { Page, Schedule, ScheduleBody, ScheduleRun } from '../../api/types';
import type { PageParams } from '../../lib/paging';

export function useSchedules(p: PageParams) {
  return useQuery({
    queryKey: qk.schedules.list(p),
    queryFn: ({ signal }) => api.get<Page<Schedule>>('/v1/user/schedules', { ...p }, signal),
    placeholderData: keepPreviousData,
    refetchInterval: 30_000,
  });
}

export function useScheduleRuns(id: string, p: PageParams) {
  return useQuery({
    queryKey: qk.schedules.runs(id, p),
    queryFn: ({ signal }) => api.get<Page<ScheduleRun>>(`/v1/user/schedules/${seg(id)}/runs`, { ...p }, signal),
    placeholderData: keepPreviousData,
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
