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

// Issue 26: tags, saved filters, jobs, schedules.
export type HostTags = Record<string, string>;
export type HostTagsOut = S['SetTagsOutBody'];
export type BulkTagsBody = S['BulkTagsInBody'];
export type TagCount = S['TagCount'];
export type SavedFilterQuery = S['FilterQuery'];
export type SavedFilter = S['SavedFilter'];
export type JobTarget = S['Target'];
export type JobOperation = S['JobOperation'];
export type JobWaves = S['JobWaves'];
export type JobRequest = S['JobRequest'];
/** The answer of a dry run (the create answer's schema; only host_count, host_ids, host_ids_truncated, max_cost are set). */
export type DryRun = Pick<S['JobCreated'], 'host_count' | 'host_ids' | 'host_ids_truncated' | 'max_cost'>;
export type Job = S['JobView'];
export type JobState = Job['state'];
export type JobTotals = S['Totals'];
export type JobResult = S['RunResult'];
export type RunState = JobResult['state'];
export type JobOutput = S['RunOutput'];
export type ScheduleBody = S['ScheduleInBody'];
export type Schedule = S['Schedule'];
export type ScheduleRun = S['ScheduleRun'];
