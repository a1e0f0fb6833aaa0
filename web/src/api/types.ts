// Names for the generated schema types the console uses. Never hand-write a
// response shape: add an alias here instead.
import type { components, operations } from './schema';

type S = components['schemas'];

export type User = S['User'];
export type AuthResp = S['AuthResp'];
export type Balance = S['BalanceOutBody'];
export type BillingEvent = S['BillingEvent'];
export type BillingEventPage = S['ResultBillingEvent'];
export type Recharge = S['Recharge'];
export type RechargeStatus = Recharge['status'];
export type RechargeCreated = S['RechargeOutBody'];
export type RechargePage = S['ResultRecharge'];
export type Price = S['Price'];
export type PriceList = S['PricesOutBody'];
export type Host = S['Host'];
export type HostListItem = S['HostListItem'];
export type HostPage = S['HostItemsOutBody'];
export type HostWithState = S['UserHostOutBody'];
export type MetricsPage = S['MetricsOutBody'];
export type CreateHostBody = S['CreateHostBody'];
/** The create answer: the host plus, with `with_credentials`, its first install credentials. */
export type HostCreated = S['UserCreatedHostOutBody'];
/** A `sort` value of `GET /v1/user/hosts` (the hub's hosts.SortOrders). */
export type HostSort = NonNullable<NonNullable<operations['userListHosts']['parameters']['query']>['sort']>;
export type HostStatus = NonNullable<NonNullable<operations['userListHosts']['parameters']['query']>['status']>;
export type UpdateHostBody = S['UpdateHostInBody'];
export type Credentials = S['Credentials'];
export type ApiKey = S['Key'];
export type ApiKeyCreated = S['Created'];
export type Metrics = S['Metrics'];
export type SystemInfo = S['SystemInfo'];
export type Upgrade = S['Upgrade'];
export type DeliveryRow = S['DeliveryRow'];
export type L1Config = S['L1ConfigBody'];
export type TicketOut = S['TicketOutBody'];
export type Problem = S['Problem'];

/** The paged list envelope every paged route answers with. */
export interface Page<T> {
  items?: T[] | null;
  total?: number;
  limit?: number;
  offset?: number;
}
export type InstallTokenReissued = S['UserInstallTokenOutBody'];
export type RotatedHost = S['RotatedHostOutBody'];
export type L1ConfigSaved = S['L1ConfigPutResp'];
export type DeliveriesPage = S['DeliveriesOutBody'];
export type DiskInfo = S['DiskInfo'];
export type NetInterface = S['NetInterface'];
export type ProvisioningPayload = S['ProvisioningPayload'];
export type ProvisioningRequest = S['ProvisioningInBody'];

// ---- Issue 26 (tags, saved filters, jobs, schedules). Written from
// /work/contract-26.md until the hub's routes are in docs/openapi.json; then
// each becomes an alias of the generated schema.
export type HostTags = Record<string, string>;
export interface HostTagsOut {
  host_id: string;
  tags: HostTags;
}
export interface BulkTagsBody {
  host_ids: string[];
  add?: HostTags;
  remove?: string[];
}
export interface TagCount {
  key: string;
  value: string;
  host_count: number;
}
export interface SavedFilterQuery {
  q?: string;
  status?: string;
  online?: boolean;
  os?: string;
  agent_version?: string;
  tags?: string[] | null;
}
export interface SavedFilter {
  id: string;
  name: string;
  query: SavedFilterQuery;
  host_count?: number;
  created_at: string;
  updated_at: string;
}
export interface JobTarget {
  host_ids?: string[] | null;
  tags?: string[] | null;
  filter_id?: string;
}
export interface JobOperation {
  controls: number;
  path: string;
  data?: unknown;
}
export interface JobWaves {
  size: number;
  pause_s?: number;
  stop_if_failed_pct?: number | null;
}
export type JobState = 'running' | 'finished' | 'canceled';
export type RunState = 'queued' | 'running' | 'succeeded' | 'failed' | 'skipped' | 'expired' | 'canceled';
export type JobTotals = Record<RunState, number>;
export interface JobRequest {
  name?: string;
  target: JobTarget;
  operation: JobOperation;
  offline?: 'skip' | 'queue';
  expires_in_s?: number;
  concurrency?: number;
  dry_run?: boolean;
  notify_url?: string;
  waves?: JobWaves;
}
export interface DryRun {
  host_count: number;
  host_ids?: string[] | null;
  host_ids_truncated?: boolean;
  max_cost: number;
}
export interface Job {
  id: string;
  name?: string;
  state: JobState;
  host_count: number;
  totals: JobTotals;
  target: JobTarget;
  operation: JobOperation;
  offline: 'skip' | 'queue';
  concurrency: number;
  expires_at: string;
  waves?: JobWaves | null;
  wave?: number;
  stop_reason?: string;
  notify_url?: string;
  retry_of?: string | null;
  schedule_id?: string | null;
  charged: number;
  created_at: string;
  finished_at?: string | null;
}
export interface JobResult {
  host_id: string;
  host_name: string;
  state: RunState;
  wave?: number;
  exit_code?: number | null;
  stdout?: string;
  stderr?: string;
  output_truncated?: boolean;
  error?: string;
  message?: string;
  charged?: number;
  started_at?: string | null;
  finished_at?: string | null;
}
export interface JobOutput {
  host_id: string;
  exit_code?: number | null;
  stdout?: string;
  stderr?: string;
  result?: unknown;
}
export interface ScheduleBody {
  name: string;
  job: Omit<JobRequest, 'dry_run'>;
  at?: string | null;
  cron?: string | null;
  timezone?: string;
  paused?: boolean;
}
export interface Schedule {
  id: string;
  name: string;
  job: Omit<JobRequest, 'dry_run'>;
  at?: string | null;
  cron?: string | null;
  timezone: string;
  paused: boolean;
  next_run_at?: string | null;
  last_run_at?: string | null;
  last_job_id?: string | null;
  created_at: string;
  updated_at: string;
}
export interface ScheduleRun {
  at: string;
  job_id?: string | null;
  error?: string;
  message?: string;
}
