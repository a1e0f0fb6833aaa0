// Jobs, tags, saved filters, schedules and the webhook secret: the types of
// their requests and answers (sdk/go/jobs.go, tags.go, schedules.go;
// docs/jobs.md), and the helpers around them.
import { controls } from './controls.js';
import type { CallOptions } from './types.js';

/** JobTarget picks a job's hosts: exactly one of the three. */
export interface JobTarget {
  host_ids?: string[];
  /** Tag expressions, all of which must match: "env=prod", "role" (the key, any value), "role=" (the empty value). */
  tags?: string[];
  filter_id?: string;
}

/** JobOperation is what a job runs on each host: the body of controls/raw. */
export interface JobOperation {
  controls: number;
  path?: string;
  data?: unknown;
}

/** JobWaves releases hosts in waves of size, pause_s apart; the job stops when the failed share of its finished runs exceeds stop_if_failed_pct. */
export interface JobWaves {
  size: number;
  pause_s?: number;
  stop_if_failed_pct?: number;
}

/** JobRequest is the body of createJob and dryRunJob; left out: the hub's defaults (offline "skip", expires_in_s 3600, concurrency 50). */
export interface JobRequest {
  name?: string;
  target: JobTarget;
  operation: JobOperation;
  /** "skip" (an offline host ends skipped host_offline) or "queue" (it runs when it connects, until the job expires). */
  offline?: 'skip' | 'queue';
  expires_in_s?: number;
  concurrency?: number;
  notify_url?: string;
  waves?: JobWaves;
}

export interface JobTotals {
  queued: number;
  running: number;
  succeeded: number;
  failed: number;
  skipped: number;
  expired: number;
  canceled: number;
}

/** Job is a job and its progress. */
export interface Job {
  id: string;
  name: string;
  state: 'running' | 'finished' | 'canceled';
  host_count: number;
  totals: JobTotals;
  target: JobTarget;
  operation: JobOperation;
  offline: 'skip' | 'queue';
  concurrency: number;
  expires_at: string;
  waves: JobWaves | null;
  wave: number;
  stop_reason: '' | 'insufficient_balance' | 'failure_threshold' | 'canceled';
  notify_url: string;
  retry_of: string | null;
  schedule_id: string | null;
  charged: number;
  created_at: string;
  finished_at: string | null;
}

/** JobDryRun answers dryRunJob: what the job would target and the most it can cost. */
export interface JobDryRun {
  host_count: number;
  host_ids: string[];
  host_ids_truncated: boolean;
  max_cost: number;
}

/** JobResult is one host's run; stdout and stderr are the first 4096 bytes of each stream (jobOutput has all). */
export interface JobResult {
  host_id: string;
  host_name: string;
  state: 'queued' | 'running' | 'succeeded' | 'failed' | 'skipped' | 'expired' | 'canceled';
  wave: number;
  exit_code: number | null;
  stdout: string;
  stderr: string;
  output_truncated: boolean;
  error: string;
  message: string;
  charged: number;
  started_at: string | null;
  finished_at: string | null;
}

/** JobOutput is one host's whole output, kept for a while after its run. */
export interface JobOutput {
  host_id: string;
  exit_code: number | null;
  stdout: string;
  stderr: string;
  result?: unknown;
}

/** Page is one page of a paged list. */
/**
 * Page is one page of a paged list. next_cursor, when present, continues the
 * list after this page: pass it as the cursor option of the same call (same
 * other arguments, offset 0); a deep page costs the hub what the first does.
 * It is absent on the last page.
 */
export interface Page<T> {
  items: T[];
  total: number;
  limit: number;
  offset: number;
  next_cursor?: string;
}

/** PageOptions are a paged call's options: CallOptions and the cursor to continue after. */
export interface PageOptions extends CallOptions {
  /** A page's next_cursor: the page after it, with the same other arguments. */
  cursor?: string;
}

export interface TagCount {
  key: string;
  value: string;
  host_count: number;
}

/** FilterQuery is a saved filter's criteria, those of the host list. */
export interface FilterQuery {
  q?: string;
  status?: string;
  online?: boolean;
  os?: string;
  agent_version?: string;
  tags?: string[];
}

/** Filter is a saved filter; host_count is set by getFilter only. */
export interface Filter {
  id: string;
  name: string;
  query: FilterQuery;
  host_count?: number;
  created_at: string;
  updated_at: string;
}

/** ScheduleRequest is the body of createSchedule: exactly one of at and cron (five fields, in timezone; default UTC). */
export interface ScheduleRequest {
  name: string;
  job: JobRequest;
  at?: string;
  cron?: string;
  timezone?: string;
  paused?: boolean;
}

/** ScheduleUpdate is the body of updateSchedule: members left out keep the schedule's; at or cron replaces its timing. */
export interface ScheduleUpdate {
  name?: string;
  job?: JobRequest;
  at?: string;
  cron?: string;
  timezone?: string;
}

export interface Schedule {
  id: string;
  name: string;
  job: JobRequest;
  at: string | null;
  cron: string | null;
  timezone: string;
  paused: boolean;
  next_run_at: string | null;
  last_run_at: string | null;
  last_job_id: string | null;
  created_at: string;
  updated_at: string;
}

export interface ScheduleRun {
  /** The planned time; fired_at is when a hub started it (later for a run caught up after downtime). */
  at: string;
  fired_at: string;
  job_id: string | null;
  error: string;
  message: string;
}

/** WebhookSecret is the user's webhook secret (signs job.finished): secret only in rotateWebhookSecret's answer, shown once. */
export interface WebhookSecret {
  configured: boolean;
  secret?: string;
  created_at: string | null;
}

/** shellOperation is the operation of Client.shell (process/shell): program with args (one string), killed at timeoutS (0: the hub's 60). */
export function shellOperation(program: string, args: string, timeoutS = 0): JobOperation {
  const data: Record<string, unknown> = { args };
  if (timeoutS > 0) data.timeout_s = timeoutS;
  return { controls: controls.CtlExecShell, path: program, data };
}

/** jobFinal reports a job that will not change any more: finished or canceled, and no run still running. */
export function jobFinal(job: Job): boolean {
  return job.state !== 'running' && job.finished_at !== null && job.finished_at !== undefined;
}

/** jobSucceeded reports a final job every host of which succeeded. */
export function jobSucceeded(job: Job): boolean {
  return jobFinal(job) && job.host_count > 0 && job.totals.succeeded === job.host_count;
}

/** JobWaitTimeoutError: waitJob's timeout passed before the job was final; job is the job as last seen. */
export class JobWaitTimeoutError extends Error {
  readonly job: Job;
  constructor(message: string, job: Job) {
    super(message);
    this.name = 'JobWaitTimeoutError';
    this.job = job;
  }
}

/** jobPollIntervalMs is how often waitJob polls: from first to max, doubling. */
export const jobPollIntervalMs = { first: 250, max: 2000 };

/** pageQuery is "?limit=…&offset=…&state=…" with the set ones, sorted like the Go SDK's. */
export function pageQuery(limit: number, offset: number, extra: Record<string, string> = {}): string {
  const q = new URLSearchParams();
  const all: [string, string][] = Object.entries(extra).filter(([, v]) => v !== '');
  if (limit > 0) all.push(['limit', String(limit)]);
  if (offset > 0) all.push(['offset', String(offset)]);
  for (const [k, v] of all.sort(([a], [b]) => (a < b ? -1 : 1))) q.set(k, v);
  const s = q.toString();
  return s === '' ? '' : `?${s}`;
}

/**
 * pages yields every item of a paged list, fetching 200 at a time as it is
 * read: by each page's next_cursor (every item once, however deep), or by
 * offset from a list that gives none.
 */
export async function* pages<T>(fetchPage: (limit: number, offset: number, cursor: string) => Promise<Page<T>>): AsyncGenerator<T, void, undefined> {
  for (let offset = 0, cursor = ''; ;) {
    const p = await fetchPage(200, offset, cursor);
    const items = p.items ?? [];
    yield* items;
    if (p.next_cursor) {
      offset = 0;
      cursor = p.next_cursor;
      continue;
    }
    offset += items.length;
    if (items.length === 0 || cursor !== '' || offset >= p.total) return;
  }
}

/** collect gathers an async iteration into an array. */
export async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}
