// Result and request types, taken from the types generated from the hub's
// OpenAPI document (schema.d.ts, `npm run gen:api`).
import type { components } from './schema.js';

type S = components['schemas'];

export type Host = S['Host'];
/** HostListItem is a host with its live connection state (listHosts, getHost). */
export type HostListItem = S['HostListItem'];
export type Credentials = S['Credentials'];
export type InstallCommand = S['InstallCommand'];
export type FileResult = S['FileResult'];
export type ReadResult = S['ReadResult'];
export type RemoveStringResult = S['RemoveStringResult'];
export type UnzipResult = S['UnzipResult'];
export type DownloadOptions = S['DownloadData'];
export type DownloadResult = S['DownloadResult'];
export type ShellResult = S['ShellResult'];
export type KillResult = S['KillResult'];
export type Process = S['ProcessInfo'];
export type SystemInfo = S['SystemInfo'];
export type Metrics = S['MetricsResult'];
export type ServiceRequest = S['ServiceData'];
export type ServiceStatus = S['ServiceStatus'];
export type ServiceResult = S['ServiceResult'];
export type RegistryRequest = S['RegistryData'];
export type RegistryValue = S['RegistryValue'];
export type RegistryResult = S['RegistryResult'];
export type TaskRequest = S['TaskData'];
export type TaskInfo = S['TaskInfo'];
export type TaskResult = S['TaskResult'];
export type OrchestrateStart = S['OrchestrateStartData'];
export type OrchestrateStartResult = S['OrchestrateStartResult'];
export type OrchestrateShutdown = S['OrchestrateShutdownData'];
export type OrchestrateShutdownResult = S['OrchestrateShutdownResult'];
export type L1Config = S['L1ConfigBody'];
export type L1ConfigResult = S['L1ConfigPutResp'];
export type WebhookDelivery = S['DeliveryRow'];

/** CreateHostResult answers createHost; credentials only with withCredentials. */
export interface CreateHostResult {
  host: Host;
  credentials?: Credentials;
}

/** PingResult answers ping. */
export interface PingResult {
  rttMs: number;
  agentVersion: string;
}

/** InstallerFormat is the installer's kind: the agent exe, or a ps1/cmd script. */
export type InstallerFormat = 'exe' | 'ps1' | 'cmd';

/** Installer answers installer: the file's bytes and its suggested name. */
export interface Installer {
  data: Uint8Array;
  filename: string;
  contentType: string;
}

/** CallOptions is every method's optional last argument. */
export interface CallOptions {
  /** Cancels the call (fetch rejects with the signal's reason). */
  signal?: AbortSignal;
}
