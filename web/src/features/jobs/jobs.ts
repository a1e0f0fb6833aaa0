// The jobs pages' logic, kept pure for tests: the progress a job has made,
// the shell operation the "command" form builds, the raw operation editor,
// the request of the new-job form and the URL state of the lists.
import type { Job, JobOperation, JobRequest, JobState, JobTarget, JobTotals, RunState } from '../../api/types';
import { pageFromSearch, pageToSearch, type PageParams } from '../../lib/paging';
import { cleanTagExprs } from '../../lib/tags';

export const RUN_STATES: readonly RunState[] = ['queued', 'running', 'succeeded', 'failed', 'skipped', 'expired', 'canceled'];
export const FINAL_RUN_STATES: readonly RunState[] = ['succeeded', 'failed', 'skipped', 'expired', 'canceled'];
export const JOB_STATES: readonly JobState[] = ['running', 'finished', 'canceled'];
/** process.shell (EXEC_SHELL), as the single-host `process/shell` route sends it. */
export const CTL_EXEC_SHELL = 8192;
/** How often the detail page re-reads a job that is still moving. */
export const JOB_POLL_MS = 1_000;

export interface Progress {
  /** Runs in a final state. */
  done: number;
  /** done / host_count, 0..100, rounded down so 100 means every run is final. */
  percent: number;
  /** Succeeded share of all hosts, 0..100 (the green part of the bar). */
  successPercent: number;
  /** The failed share of the finished runs (what `stop_if_failed_pct` compares), 0..100. */
  failedPct: number;
}

function totalsOf(t: Partial<JobTotals> | null | undefined): JobTotals {
  const out = {} as JobTotals;
  for (const s of RUN_STATES) out[s] = Math.max(0, Number(t?.[s] ?? 0) || 0);
  return out;
}

/** How far a job is: counts of final runs and the bar's percentages. */
export function jobProgress(job: Pick<Job, 'host_count' | 'totals'>): Progress {
  const t = totalsOf(job.totals);
  const done = FINAL_RUN_STATES.reduce((n, s) => n + t[s], 0);
  const all = Math.max(job.host_count, done + t.queued + t.running);
  if (all <= 0) return { done: 0, percent: 100, successPercent: 0, failedPct: 0 };
  const percent = done >= all ? 100 : Math.min(99, Math.floor((done * 100) / all));
  const successPercent = Math.min(percent, Math.floor((t.succeeded * 100) / all));
  const ended = t.succeeded + t.failed;
  const failedPct = ended > 0 ? Math.round((t.failed * 1000) / ended) / 10 : 0;
  return { done, percent, successPercent, failedPct };
}

/** Whether a run has ended (it will not change again). */
export function isFinalRun(s: RunState): boolean {
  return FINAL_RUN_STATES.includes(s);
}

/** A key that changes whenever the job's state or counts do (the results page is read again then). */
export function jobRevision(job: Pick<Job, 'state' | 'totals'> | undefined): string {
  if (!job) return '';
  return [job.state, ...RUN_STATES.map((s) => job.totals?.[s] ?? 0)].join(':');
}

/** Whether the page should keep polling: the job runs, or a canceled job still has runs finishing. */
export function jobIsLive(job: Pick<Job, 'state' | 'totals' | 'finished_at'>): boolean {
  if (job.state === 'running') return true;
  return !job.finished_at && (job.totals?.running ?? 0) > 0;
}

/** The states with a non-zero count, in lifecycle order. */
export function nonZeroStates(totals: Partial<JobTotals> | null | undefined): [RunState, number][] {
  const t = totalsOf(totals);
  return RUN_STATES.filter((s) => t[s] > 0).map((s) => [s, t[s]]);
}

/** Quotes a string for a POSIX shell: one word, nothing expanded. */
export function shQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

export interface ShellForm {
  /** The program, `/bin/sh` by default. */
  program: string;
  /** The command line given to it with `-c`. */
  command: string;
  /** Seconds before the agent kills the process tree (0 = the agent's default). */
  timeout_s?: number;
}

/** The `process.shell` operation running `command` with `program -c` (the single-host shell call's body). */
export function shellOperation(f: ShellForm): JobOperation {
  const data: { args: string; timeout_s?: number } = { args: `-c ${shQuote(f.command)}` };
  if (f.timeout_s && f.timeout_s > 0) data.timeout_s = Math.floor(f.timeout_s);
  return { controls: CTL_EXEC_SHELL, path: f.program.trim() || '/bin/sh', data };
}

/** Reads the command back from a shell operation (for "edit as raw" and schedules), or null. */
export function shellFormOf(op: JobOperation | null | undefined): ShellForm | null {
  if (!op || op.controls !== CTL_EXEC_SHELL) return null;
  const d = op.data as { args?: unknown; timeout_s?: unknown } | null | undefined;
  const args = typeof d?.args === 'string' ? d.args : '';
  const m = /^-c '((?:[^']|'\\'')*)'$/.exec(args);
  if (!m) return null;
  return {
    program: op.path ?? '',
    command: (m[1] ?? '').replace(/'\\''/g, "'"),
    timeout_s: typeof d?.timeout_s === 'number' ? d.timeout_s : undefined,
  };
}

/** A one-line summary of an operation for lists: the shell command, or `controls path`. */
export function operationSummary(op: JobOperation | null | undefined): string {
  if (!op) return '—';
  const sh = shellFormOf(op);
  if (sh) return sh.command;
  return `${op.controls} ${op.path}`.trim();
}

export type RawParse = { ok: true; op: JobOperation } | { ok: false; error: 'json' | 'shape' };

/** Parses the raw editor's `{controls, path, data}`; the hub validates the rest. */
export function parseRawOperation(text: string): RawParse {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return { ok: false, error: 'json' };
  }
  if (!v || typeof v !== 'object' || Array.isArray(v)) return { ok: false, error: 'shape' };
  const o = v as Record<string, unknown>;
  if (typeof o.controls !== 'number' || !Number.isInteger(o.controls) || o.controls <= 0) return { ok: false, error: 'shape' };
  if (typeof o.path !== 'string') return { ok: false, error: 'shape' };
  const op: JobOperation = { controls: o.controls, path: o.path };
  if ('data' in o) op.data = o.data;
  return { ok: true, op };
}

export type TargetKind = 'hosts' | 'tags' | 'filter';

/** The new-job form's values. */
export interface JobFormValues {
  name?: string;
  targetKind: TargetKind;
  hostIds: string[];
  tags: string[];
  filterId?: string;
  opKind: 'shell' | 'raw';
  shell: ShellForm;
  raw: string;
  offline: 'skip' | 'queue';
  expires_in_s: number;
  concurrency: number;
  notify_url?: string;
  wavesOn: boolean;
  waveSize?: number;
  wavePause?: number;
  waveStopPct?: number | null;
}

export const JOB_DEFAULTS = { offline: 'skip', expires_in_s: 3600, concurrency: 50 } as const;

/** The job's target from the form (only the chosen kind). */
export function targetOf(v: Pick<JobFormValues, 'targetKind' | 'hostIds' | 'tags' | 'filterId'>): JobTarget {
  if (v.targetKind === 'hosts') return { host_ids: [...v.hostIds] };
  if (v.targetKind === 'tags') return { tags: cleanTagExprs(v.tags) };
  return { filter_id: v.filterId ?? '' };
}

/** Builds the request body; throws 'raw_json'/'raw_shape' when the raw editor does not hold an operation. */
export function buildJobRequest(v: JobFormValues, dryRun: boolean): JobRequest {
  let operation: JobOperation;
  if (v.opKind === 'shell') operation = shellOperation(v.shell);
  else {
    const r = parseRawOperation(v.raw);
    if (!r.ok) throw new Error('raw_' + r.error);
    operation = r.op;
  }
  const req: JobRequest = {
    target: targetOf(v),
    operation,
    offline: v.offline,
    expires_in_s: v.expires_in_s,
    concurrency: v.concurrency,
    dry_run: dryRun,
  };
  const name = v.name?.trim();
  if (name) req.name = name;
  const url = v.notify_url?.trim();
  if (url) req.notify_url = url;
  if (v.wavesOn && v.waveSize) {
    req.waves = { size: v.waveSize, pause_s: v.wavePause ?? 0 };
    if (v.waveStopPct !== undefined && v.waveStopPct !== null) req.waves.stop_if_failed_pct = v.waveStopPct;
  }
  return req;
}

/** What the new-job page starts with, from its URL (`host=`, `tag=`, `filter=` repeated as needed). */
export function targetFromSearch(sp: URLSearchParams): Pick<JobFormValues, 'targetKind' | 'hostIds' | 'tags' | 'filterId'> {
  const hostIds = [...new Set(sp.getAll('host').filter(Boolean))];
  const tags = cleanTagExprs(sp.getAll('tag'));
  const filterId = sp.get('filter') || undefined;
  const targetKind: TargetKind = hostIds.length ? 'hosts' : tags.length ? 'tags' : filterId ? 'filter' : 'hosts';
  return { targetKind, hostIds, tags, filterId };
}

/** The new-job page's address for a target. */
export function newJobHref(t: { hostIds?: string[]; tags?: string[]; filterId?: string }): string {
  const sp = new URLSearchParams();
  for (const h of t.hostIds ?? []) sp.append('host', h);
  for (const x of t.tags ?? []) sp.append('tag', x);
  if (t.filterId) sp.set('filter', t.filterId);
  const s = sp.toString();
  return s ? `/jobs/new?${s}` : '/jobs/new';
}

export interface JobListParams extends PageParams {
  state?: JobState;
}

/** The jobs list's state from the URL (`state`, `page`, `size`). */
export function jobParamsFromSearch(sp: URLSearchParams): JobListParams {
  const st = sp.get('state') ?? '';
  const state = (JOB_STATES as readonly string[]).includes(st) ? (st as JobState) : undefined;
  return { ...pageFromSearch(sp), state };
}

export function jobParamsToSearch(p: JobListParams): URLSearchParams {
  const sp = new URLSearchParams();
  if (p.state) sp.set('state', p.state);
  return pageToSearch(sp, p);
}

export interface ResultParams extends PageParams {
  state?: RunState;
}

/** The results table's state from the job page's URL (`rstate`, `rpage`, `rsize`). */
export function resultParamsFromSearch(sp: URLSearchParams): ResultParams {
  const st = sp.get('rstate') ?? '';
  const state = (RUN_STATES as readonly string[]).includes(st) ? (st as RunState) : undefined;
  return { ...pageFromSearch(sp, 'r'), state };
}

export function resultParamsToSearch(cur: URLSearchParams, p: ResultParams): URLSearchParams {
  const sp = new URLSearchParams(cur);
  if (p.state) sp.set('rstate', p.state);
  else sp.delete('rstate');
  return pageToSearch(sp, p, 'r');
}
