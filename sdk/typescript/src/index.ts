// hostgate TypeScript SDK: the client API (/v1/api/*) and webhook receivers.
export { Client } from './client.js';
export type { ClientOptions } from './transport.js';
export { ShellSession, type ShellOutput } from './shell.js';
export { HostgateError, errorCode, isAgentTimeout, isHostOffline, isInsufficientBalance, isNotFound, type Charge } from './errors.js';
export { controls, type ControlName } from './controls.js';
export * from './webhooks.js';
export { JobWaitTimeoutError, jobFinal, jobPollIntervalMs, jobSucceeded, shellOperation } from './jobs.js';
export type { Filter, FilterQuery, Job, JobDryRun, JobOperation, JobOutput, JobRequest, JobResult, JobTarget, JobTotals, JobWaves, Page, PageOptions, Schedule, ScheduleRequest, ScheduleRun, ScheduleUpdate, TagCount, WebhookSecret } from './jobs.js';
export type * from './types.js';
export type { components, paths, operations } from './schema.js';
export { VERSION } from './version.js';
