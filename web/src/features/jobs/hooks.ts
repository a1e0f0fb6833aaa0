// The jobs pages' queries and mutations (issue 26 §2).
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, seg } from '../../api/client';
import { qk } from '../../api/queryKeys';
import type { DryRun, Job, JobOutput, JobRequest, JobResult, Page } from '../../api/types';
import { useCursorPages } from '../../lib/useCursorPages';
import { isFinalRun, JOB_POLL_MS, jobIsLive, type JobListParams, type ResultParams } from './jobs';

export function useJobs(p: JobListParams) {
  const { limit, offset, ...criteria } = p;
  return useCursorPages({
    list: 'user.jobs',
    queryKey: qk.jobs.list(p),
    page: { limit, offset },
    criteria,
    fetch: (query, signal) => api.get<Page<Job>>('/v1/user/jobs', query, signal),
    // Running jobs' counts move: follow them while any is on the page.
    refetchInterval: (q) => ((q.state.data?.items ?? []).some((j) => jobIsLive(j)) ? 3_000 : false),
  });
}

/** One job, re-read every second while it can still change. */
export function useJob(id: string) {
  return useQuery({
    queryKey: qk.jobs.detail(id),
    queryFn: ({ signal }) => api.get<Job>(`/v1/user/jobs/${seg(id)}`, undefined, signal),
    refetchInterval: (q) => (q.state.data && !jobIsLive(q.state.data) ? false : JOB_POLL_MS),
  });
}

/**
 * A page of a job's results. `rev` changes whenever the job's counts do, so
 * the page is read again as runs end; while the job is live, or the page
 * still shows a run that is not final (its row written after the counts),
 * it is also re-read every 2 s.
 */
export function useJobResults(id: string, p: ResultParams, live: boolean, rev: string) {
  const { limit, offset, ...criteria } = p;
  return useCursorPages({
    list: `user.jobs.${id}.results`,
    queryKey: [...qk.jobs.results(id, p), rev],
    page: { limit, offset },
    criteria,
    fetch: (query, signal) => api.get<Page<JobResult>>(`/v1/user/jobs/${seg(id)}/results`, query, signal),
    refetchInterval: (q) =>
      live || (q.state.data?.items ?? []).some((r) => !isFinalRun(r.state)) ? JOB_POLL_MS * 2 : false,
  });
}

/** One host's whole output, fetched when asked for. */
export function useJobOutput(id: string, hostId: string, enabled: boolean) {
  return useQuery({
    queryKey: qk.jobs.output(id, hostId),
    queryFn: ({ signal }) =>
      api.get<JobOutput>(`/v1/user/jobs/${seg(id)}/results/${seg(hostId)}/output`, undefined, signal),
    enabled,
    staleTime: Infinity,
  });
}

export function useDryRun() {
  return useMutation({
    mutationFn: (req: JobRequest) => api.post<DryRun>('/v1/user/jobs', { ...req, dry_run: true }),
    meta: { errorShownInline: true },
  });
}

export function useCreateJob() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (req: JobRequest) => api.post<Job>('/v1/user/jobs', { ...req, dry_run: false }),
    meta: { errorShownInline: true },
    onSuccess: () => Promise.all([qc.invalidateQueries({ queryKey: qk.jobs.all }), qc.invalidateQueries({ queryKey: qk.balance })]),
  });
}

export function useCancelJob(id: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: () => api.post<Job>(`/v1/user/jobs/${seg(id)}/cancel`),
    onSuccess: (job) => {
      qc.setQueryData(qk.jobs.detail(id), job);
      return qc.invalidateQueries({ queryKey: qk.jobs.all });
    },
  });
}

export function useRetryJob(id: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (states: string[]) => api.post<Job>(`/v1/user/jobs/${seg(id)}/retry`, { states }),
    onSuccess: () => qc.invalidateQueries({ queryKey: qk.jobs.all }),
  });
}
