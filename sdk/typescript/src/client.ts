// Client: every /v1/api/* operation of the Go SDK (sdk/go), in camelCase with
// the same parameter order; each method takes an optional last {signal}.
import { controls } from './controls.js';
import * as J from './jobs.js';
import { ShellSession } from './shell.js';
import { Transport, type ClientOptions } from './transport.js';
import type * as T from './types.js';

type O = T.CallOptions;

const hostPath = (id: string) => `/v1/api/hosts/${encodeURIComponent(id)}`;
const jobPath = (id: string) => `/v1/api/jobs/${encodeURIComponent(id)}`;
const enc = encodeURIComponent;
const deliveriesPath = (id: string) => `/v1/user/hosts/${encodeURIComponent(id)}/webhook-deliveries`;

/**
 * Client calls the hub's client API with one API key ("ak_<id>.<secret>").
 *
 *     const c = new Client('https://hub.example.com', process.env.HOSTGATE_API_KEY!);
 *     const r = await c.shell(hostId, '/bin/sh', "-c 'uname -a'", 30);
 */
export class Client {
  private readonly t: Transport;

  constructor(baseUrl: string, apiKey: string, opts: ClientOptions = {}) {
    this.t = new Transport(baseUrl, apiKey, opts);
  }

  /** op posts {controls, path, data} to an operation route of a host. */
  private op<R>(hostId: string, route: string, ctl: number, path: string, data: unknown, o: O, minTimeoutMs?: number): Promise<R> {
    const body: Record<string, unknown> = { controls: ctl };
    if (path !== '') body.path = path;
    if (data !== undefined && data !== null) body.data = data;
    return this.t.call<R>({ method: 'POST', path: `${hostPath(hostId)}/${route}`, body, signal: o.signal, minTimeoutMs });
  }

  // Hosts.

  /** listHosts lists the key holder's hosts. */
  async listHosts(o: O = {}): Promise<T.HostListItem[]> {
    const r = await this.t.call<{ items: T.HostListItem[] | null }>({ method: 'GET', path: '/v1/api/hosts', signal: o.signal });
    return r.items ?? [];
  }

  /** getHost returns one host with its live connection state. */
  getHost(hostId: string, o: O = {}): Promise<T.HostListItem> {
    return this.t.call({ method: 'GET', path: hostPath(hostId), signal: o.signal });
  }

  /**
   * createHost creates a host; listenPort 0 (or omitted) takes the default
   * (23456). With withCredentials the answer carries install credentials too.
   */
  createHost(name: string, listenPort = 0, withCredentials = false, o: O = {}): Promise<T.CreateHostResult> {
    const body: Record<string, unknown> = { name, with_credentials: withCredentials };
    if (listenPort) body.listen_port = listenPort;
    return this.t.call({ method: 'POST', path: '/v1/api/hosts', body, signal: o.signal });
  }

  /** deleteHost deletes a host; its agent is dropped at once. */
  async deleteHost(hostId: string, o: O = {}): Promise<void> {
    await this.t.call({ method: 'DELETE', path: hostPath(hostId), signal: o.signal });
  }

  /** installToken issues new install credentials, keeping the secret key. */
  installToken(hostId: string, o: O = {}): Promise<T.Credentials> {
    return this.t.call({ method: 'POST', path: `${hostPath(hostId)}/install-token`, signal: o.signal });
  }

  /** rotateSecret issues install credentials with a new secret key; the running agent is dropped. */
  rotateSecret(hostId: string, o: O = {}): Promise<T.Credentials> {
    return this.t.call({ method: 'POST', path: `${hostPath(hostId)}/rotate-secret`, signal: o.signal });
  }

  /**
   * installer downloads an installer ("exe", the default: the agent with its
   * provisioning payload; "ps1" or "cmd"). Like installToken it issues new
   * install credentials, so although it is a GET it is not retried.
   */
  async installer(hostId: string, format: T.InstallerFormat = 'exe', o: O = {}): Promise<T.Installer> {
    const resp = await this.t.call<Response>({
      method: 'GET',
      path: `${hostPath(hostId)}/installer?format=${encodeURIComponent(format)}`,
      signal: o.signal,
      raw: true,
      noRetry: true,
    });
    const disp = resp.headers.get('Content-Disposition') ?? '';
    const m = /filename="?([^";]+)"?/.exec(disp);
    return {
      data: new Uint8Array(await resp.arrayBuffer()),
      filename: m?.[1] ?? '',
      contentType: resp.headers.get('Content-Type') ?? '',
    };
  }

  /**
   * provisioningPayload returns the host's provisioning payload
   * (docs/provisioning.md), with an autologon section when autologon is
   * given. Like installToken it issues new install credentials; free.
   */
  async provisioningPayload(hostId: string, autologon?: T.Autologon, o: O = {}): Promise<T.ProvisioningPayload> {
    const resp = await this.t.call<Response>({
      method: 'POST',
      path: `${hostPath(hostId)}/provisioning-payload`,
      body: autologon === undefined ? undefined : { autologon },
      signal: o.signal,
      raw: true,
    });
    const raw = (await resp.text()).trim();
    const p = JSON.parse(raw) as T.ProvisioningPayload;
    Object.defineProperty(p, 'raw', { value: raw, enumerable: false });
    return p;
  }

  /** ping round-trips a no-op command to the host's agent. */
  async ping(hostId: string, o: O = {}): Promise<T.PingResult> {
    const r = await this.t.call<{ rtt_ms: number; agent_version: string }>({ method: 'POST', path: `${hostPath(hostId)}/ping`, signal: o.signal });
    return { rttMs: r.rtt_ms, agentVersion: r.agent_version };
  }

  /**
   * putL1Config writes the host's L1 configuration (charged
   * control.update_l1); the agent gets it at once when online, and a webhook
   * delivery is queued.
   */
  putL1Config(hostId: string, cfg: T.L1Config, o: O = {}): Promise<T.L1ConfigResult> {
    return this.t.call({ method: 'PUT', path: `${hostPath(hostId)}/l1-config`, body: cfg, signal: o.signal });
  }

  /** webhookDeliveries returns the host's latest deliveries, newest first (limit 0: the hub's default 50; at most 200). Not charged. */
  async webhookDeliveries(hostId: string, limit = 0, o: O = {}): Promise<T.WebhookDelivery[]> {
    const q = limit > 0 ? `?limit=${limit}` : '';
    const r = await this.t.call<{ items: T.WebhookDelivery[] | null }>({ method: 'GET', path: deliveriesPath(hostId) + q, signal: o.signal });
    return r.items ?? [];
  }

  /** retryWebhookDelivery sends a dead_letter delivery again, once. */
  retryWebhookDelivery(hostId: string, deliveryId: string, o: O = {}): Promise<T.WebhookDelivery> {
    return this.t.call({ method: 'POST', path: `${deliveriesPath(hostId)}/${encodeURIComponent(deliveryId)}/retry`, signal: o.signal });
  }

  // Files.

  /** makeDir creates the directory path with its parents. */
  makeDir(hostId: string, path: string, o: O = {}): Promise<T.FileResult> {
    return this.op(hostId, 'files/dir', controls.CtlDirMk, path, undefined, o);
  }

  /** removeDir removes the directory tree at path. */
  removeDir(hostId: string, path: string, o: O = {}): Promise<T.FileResult> {
    return this.op(hostId, 'files/dir', controls.CtlDirRm, path, undefined, o);
  }

  /** createFile creates or replaces the file at path with content. */
  createFile(hostId: string, path: string, content: string, o: O = {}): Promise<T.FileResult> {
    return this.op(hostId, 'files/text', controls.CtlFileMk, path, content, o);
  }

  /** removeFile removes the file at path. */
  removeFile(hostId: string, path: string, o: O = {}): Promise<T.FileResult> {
    return this.op(hostId, 'files/text', controls.CtlFileRm, path, undefined, o);
  }

  /** appendString appends s to the file at path, creating it if missing. */
  appendString(hostId: string, path: string, s: string, o: O = {}): Promise<T.FileResult> {
    return this.op(hostId, 'files/text', controls.CtlStrAd, path, s, o);
  }

  /** readString reads the file at path (at most 1 MiB). */
  readString(hostId: string, path: string, o: O = {}): Promise<T.ReadResult> {
    return this.op(hostId, 'files/text', controls.CtlStrRd, path, undefined, o);
  }

  /** removeString cuts every occurrence of s from the file at path. */
  removeString(hostId: string, path: string, s: string, o: O = {}): Promise<T.RemoveStringResult> {
    return this.op(hostId, 'files/text', controls.CtlStrRm, path, s, o);
  }

  /** unzip unpacks the zip file zipPath into the directory dir. */
  unzip(hostId: string, zipPath: string, dir: string, o: O = {}): Promise<T.UnzipResult> {
    return this.op(hostId, 'files/zip', controls.CtlZipToDir, zipPath, dir, o);
  }

  /** download makes the host download opts.url to path. */
  download(hostId: string, path: string, opts: T.DownloadOptions, o: O = {}): Promise<T.DownloadResult> {
    const wait = opts.timeout_s ? opts.timeout_s * 1000 + 15000 : undefined;
    return this.op(hostId, 'files/download', controls.CtlDownFile, path, opts, o, wait);
  }

  // Processes.

  /** exec starts program with args (one string) and resolves with its pid at once. */
  async exec(hostId: string, program: string, args = '', o: O = {}): Promise<number> {
    const r = await this.op<{ pid: number }>(hostId, 'process/exec', controls.CtlExecProgram, program, args === '' ? undefined : args, o);
    return r.pid;
  }

  /**
   * shell runs program with args (one string) and waits for it; at timeoutS
   * seconds (0: the default, 60) its process tree is killed.
   */
  shell(hostId: string, program: string, args: string, timeoutS = 0, o: O = {}): Promise<T.ShellResult> {
    const data: Record<string, unknown> = { args };
    if (timeoutS > 0) data.timeout_s = timeoutS;
    return this.op(hostId, 'process/shell', controls.CtlExecShell, program, data, o, (timeoutS || 60) * 1000 + 15000);
  }

  /** kill stops the processes of an executable name: soft first, hard after timeoutS seconds (0: the default, 10). */
  kill(hostId: string, name: string, timeoutS = 0, o: O = {}): Promise<T.KillResult> {
    const data = timeoutS > 0 ? { timeout_s: timeoutS } : undefined;
    return this.op(hostId, 'process/kill', controls.CtlKillProcess, name, data, o, (timeoutS || 10) * 1000 + 15000);
  }

  /** listProcesses lists the host's processes, only those of an executable name when name is not "". */
  async listProcesses(hostId: string, name = '', o: O = {}): Promise<T.Process[]> {
    const r = await this.op<{ processes: T.Process[] | null }>(hostId, 'process/list', controls.CtlProcessList, name, undefined, o);
    return r.processes ?? [];
  }

  // System.

  /** systemInfo describes the host. */
  systemInfo(hostId: string, o: O = {}): Promise<T.SystemInfo> {
    return this.op(hostId, 'system/info', controls.CtlSystemInfo, '', undefined, o);
  }

  /** metrics samples the host's load now. */
  metrics(hostId: string, o: O = {}): Promise<T.Metrics> {
    return this.op(hostId, 'system/metrics', controls.CtlSystemMetrics, '', undefined, o);
  }

  // Windows.

  /** serviceCtl controls a Windows service (name "" for list). */
  serviceCtl(hostId: string, name: string, req: T.ServiceRequest, o: O = {}): Promise<T.ServiceResult> {
    return this.op(hostId, 'service/ctl', controls.CtlServiceCtl, name, req, o);
  }

  /** registry reads or writes the Windows registry key at path ("HKLM\\Software\\…"). */
  registry(hostId: string, path: string, req: T.RegistryRequest, o: O = {}): Promise<T.RegistryResult> {
    return this.op(hostId, 'registry/rw', controls.CtlRegistryRW, path, req, o);
  }

  /** scheduledTask controls a Windows scheduled task (name "" for list). */
  scheduledTask(hostId: string, name: string, req: T.TaskRequest, o: O = {}): Promise<T.TaskResult> {
    return this.op(hostId, 'scheduled-task/ctl', controls.CtlScheduledTaskCtl, name, req, o);
  }

  /** raw sends any operation by its controls value and resolves with the agent's result as it came. */
  raw(hostId: string, ctl: number, path: string, data?: unknown, o: O = {}): Promise<unknown> {
    return this.op(hostId, 'controls/raw', ctl, path, data, o);
  }

  // Orchestration (docs/orchestration.md).

  /**
   * orchestrateStart starts the game server family in basePath (or, with
   * resolve_game_dir, below it): Config.ini merged, the controller, then the
   * children in manifest order.
   */
  orchestrateStart(hostId: string, basePath: string, req: T.OrchestrateStart = {}, o: O = {}): Promise<T.OrchestrateStartResult> {
    return this.t.call({
      method: 'POST',
      path: `${hostPath(hostId)}/orchestrate/start?base_path=${encodeURIComponent(basePath)}`,
      body: req,
      signal: o.signal,
    });
  }

  /** orchestrateShutdown shuts the family down in three stages: controller killed, quit message and wait, window close and forced termination. */
  orchestrateShutdown(hostId: string, basePath: string, req: T.OrchestrateShutdown = {}, o: O = {}): Promise<T.OrchestrateShutdownResult> {
    return this.t.call({
      method: 'POST',
      path: `${hostPath(hostId)}/orchestrate/shutdown?base_path=${encodeURIComponent(basePath)}`,
      body: req,
      signal: o.signal,
    });
  }

  // Shell sessions (docs/terminal.md).

  /** openShell starts the host's default shell on a terminal of cols × rows (0, 0 for 80 × 24). */
  async openShell(hostId: string, cols = 0, rows = 0, o: O = {}): Promise<ShellSession> {
    const r = await this.t.call<{ stream_id: string }>({
      method: 'POST',
      path: `${hostPath(hostId)}/shell/session/open`,
      body: { cols, rows },
      signal: o.signal,
    });
    return new ShellSession(this.t, hostId, r.stream_id);
  }

  // Jobs (docs/jobs.md).

  /**
   * createJob starts a job. The target is resolved now; a host id that is not
   * the key holder's refuses it whole (404 not_found), a target matching no
   * host is 400 empty_target. Each run is charged when it runs.
   */
  createJob(req: J.JobRequest, o: O = {}): Promise<J.Job> {
    return this.t.call({ method: 'POST', path: '/v1/api/jobs', body: req, signal: o.signal });
  }

  /** dryRunJob resolves req's target and prices it; nothing is recorded or charged. */
  dryRunJob(req: J.JobRequest, o: O = {}): Promise<J.JobDryRun> {
    return this.t.call({ method: 'POST', path: '/v1/api/jobs', body: { ...req, dry_run: true }, signal: o.signal });
  }

  /** getJob returns a job with its totals. */
  getJob(jobId: string, o: O = {}): Promise<J.Job> {
    return this.t.call({ method: 'GET', path: jobPath(jobId), signal: o.signal });
  }

  /** listJobs lists the key holder's jobs, newest first; state '' for all (limit 0: the hub's 50; at most 200). */
  listJobs(state = '', limit = 0, offset = 0, o: J.PageOptions = {}): Promise<J.Page<J.Job>> {
    return this.t.call({ method: 'GET', path: '/v1/api/jobs' + J.pageQuery(limit, offset, { state, cursor: o.cursor ?? '' }), signal: o.signal });
  }

  /** cancelJob cancels a job: queued runs end canceled, running ones finish (a finished job: 409 job_finished). */
  cancelJob(jobId: string, o: O = {}): Promise<J.Job> {
    return this.t.call({ method: 'POST', path: `${jobPath(jobId)}/cancel`, signal: o.signal });
  }

  /** retryJob starts a new job over the hosts whose runs ended in one of states (default: failed), same operation and options. */
  retryJob(jobId: string, states: string[] = [], o: O = {}): Promise<J.Job> {
    const body = states.length > 0 ? { states } : undefined;
    return this.t.call({ method: 'POST', path: `${jobPath(jobId)}/retry`, body, signal: o.signal });
  }

  /**
   * waitJob polls the job until it is final (jobFinal) and resolves with it;
   * after timeoutS seconds (0: no limit) it rejects with JobWaitTimeoutError
   * carrying the job as last seen.
   */
  async waitJob(jobId: string, timeoutS = 0, o: O = {}): Promise<J.Job> {
    const deadline = timeoutS > 0 ? Date.now() + timeoutS * 1000 : Infinity;
    let wait = J.jobPollIntervalMs.first;
    for (;;) {
      const job = await this.getJob(jobId, o);
      if (J.jobFinal(job)) return job;
      const left = deadline - Date.now();
      if (left <= 0) throw new J.JobWaitTimeoutError(`hostgate: job ${jobId} not final after ${timeoutS}s`, job);
      await new Promise<void>((resolve, reject) => {
        if (o.signal?.aborted) return reject(o.signal.reason);
        const onAbort = () => { clearTimeout(timer); reject(o.signal!.reason); };
        const timer = setTimeout(() => { o.signal?.removeEventListener('abort', onAbort); resolve(); }, Math.min(wait, left));
        o.signal?.addEventListener('abort', onAbort, { once: true });
      });
      wait = Math.min(2 * wait, J.jobPollIntervalMs.max);
    }
  }

  /** listJobResults returns one page of a job's results, in the job's host order; state '' for all. */
  listJobResults(jobId: string, state = '', limit = 0, offset = 0, o: J.PageOptions = {}): Promise<J.Page<J.JobResult>> {
    return this.t.call({ method: 'GET', path: `${jobPath(jobId)}/results` + J.pageQuery(limit, offset, { state, cursor: o.cursor ?? '' }), signal: o.signal });
  }

  /**
   * jobResults iterates over every result of a job (of one state, or all),
   * fetching pages of 200 as the iteration goes:
   *
   *     for await (const r of c.jobResults(job.id)) console.log(r.host_name, r.state);
   */
  jobResults(jobId: string, state = '', o: O = {}): AsyncGenerator<J.JobResult, void, undefined> {
    return J.pages((limit, offset, cursor) => this.listJobResults(jobId, state, limit, offset, { ...o, cursor }));
  }

  /** jobOutput returns one host's whole output of a job (404 not_found once the hub dropped it). */
  jobOutput(jobId: string, hostId: string, o: O = {}): Promise<J.JobOutput> {
    return this.t.call({ method: 'GET', path: `${jobPath(jobId)}/results/${enc(hostId)}/output`, signal: o.signal });
  }

  // Tags and saved filters.

  /** setTags replaces a host's tags and resolves with them. Free. */
  async setTags(hostId: string, tags: Record<string, string>, o: O = {}): Promise<Record<string, string>> {
    const r = await this.t.call<{ tags: Record<string, string> | null }>({ method: 'PUT', path: `${hostPath(hostId)}/tags`, body: { tags: tags ?? {} }, signal: o.signal });
    return r.tags ?? {};
  }

  /** updateTags adds tags to and removes keys from every host of hostIds, all or none (at most 1000); resolves with the number updated. Free. */
  async updateTags(hostIds: string[], add: Record<string, string> = {}, remove: string[] = [], o: O = {}): Promise<number> {
    const body: Record<string, unknown> = { host_ids: hostIds };
    if (Object.keys(add).length > 0) body.add = add;
    if (remove.length > 0) body.remove = remove;
    const r = await this.t.call<{ updated: number }>({ method: 'POST', path: '/v1/api/hosts/tags', body, signal: o.signal });
    return r.updated;
  }

  /**
   * searchHosts returns one page of the key holder's hosts matching query (and the saved filter filterId, when given); limit 0: the
   * hub's 50, at most 200. The cursor option (a page's next_cursor) continues after that page; allHosts walks every page so.
   */
  searchHosts(query: J.FilterQuery = {}, filterId = '', limit = 0, offset = 0, o: J.PageOptions = {}): Promise<J.Page<T.HostListItem>> {
    const q: [string, string][] = [];
    for (const k of ['q', 'status', 'os', 'agent_version'] as const) if (query[k]) q.push([k, query[k]!]);
    if (filterId !== '') q.push(['filter_id', filterId]);
    if (query.online !== undefined) q.push(['online', String(query.online)]);
    for (const t of query.tags ?? []) q.push(['tag', t]);
    q.push(['limit', String(limit > 0 ? limit : 50)]);
    if (offset > 0) q.push(['offset', String(offset)]);
    if (o.cursor) q.push(['cursor', o.cursor]);
    q.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return this.t.call({ method: 'GET', path: '/v1/api/hosts?' + new URLSearchParams(q).toString(), signal: o.signal });
  }

  /**
   * allHosts iterates over every host searchHosts finds for query (and filterId), fetching pages of 200 by cursor as the iteration
   * goes: each host once, however many there are:
   *
   *     for await (const h of c.allHosts({ status: 'online' })) console.log(h.name);
   */
  allHosts(query: J.FilterQuery = {}, filterId = '', o: O = {}): AsyncGenerator<T.HostListItem, void, undefined> {
    return J.pages((limit, offset, cursor) => this.searchHosts(query, filterId, limit, offset, { ...o, cursor }));
  }

  /** listTags lists the key=value pairs on the key holder's hosts with their host counts. */
  listTags(o: O = {}): Promise<J.TagCount[]> {
    return J.collect(J.pages((limit, offset, cursor) => this.t.call<J.Page<J.TagCount>>({ method: 'GET', path: '/v1/api/tags' + J.pageQuery(limit, offset, { cursor }), signal: o.signal })));
  }

  /** listFilters lists the key holder's saved filters. */
  listFilters(o: O = {}): Promise<J.Filter[]> {
    return J.collect(J.pages((limit, offset, cursor) => this.t.call<J.Page<J.Filter>>({ method: 'GET', path: '/v1/api/filters' + J.pageQuery(limit, offset, { cursor }), signal: o.signal })));
  }

  /** getFilter returns a saved filter with the number of hosts it matches now. */
  getFilter(filterId: string, o: O = {}): Promise<J.Filter> {
    return this.t.call({ method: 'GET', path: `/v1/api/filters/${enc(filterId)}`, signal: o.signal });
  }

  /** createFilter saves a filter (name unique: 409 name_taken; at most 100: 409 limit_reached). */
  createFilter(name: string, query: J.FilterQuery, o: O = {}): Promise<J.Filter> {
    return this.t.call({ method: 'POST', path: '/v1/api/filters', body: { name, query }, signal: o.signal });
  }

  /** updateFilter renames a saved filter (name '' keeps it) and replaces its query (undefined keeps it). */
  updateFilter(filterId: string, name = '', query?: J.FilterQuery, o: O = {}): Promise<J.Filter> {
    const body: Record<string, unknown> = {};
    if (name !== '') body.name = name;
    if (query !== undefined) body.query = query;
    return this.t.call({ method: 'PATCH', path: `/v1/api/filters/${enc(filterId)}`, body, signal: o.signal });
  }

  /** deleteFilter deletes a saved filter. */
  async deleteFilter(filterId: string, o: O = {}): Promise<void> {
    await this.t.call({ method: 'DELETE', path: `/v1/api/filters/${enc(filterId)}`, signal: o.signal });
  }

  // Schedules and the webhook secret.

  /** listSchedules lists the key holder's schedules. */
  listSchedules(o: O = {}): Promise<J.Schedule[]> {
    return J.collect(J.pages((limit, offset, cursor) => this.t.call<J.Page<J.Schedule>>({ method: 'GET', path: '/v1/api/schedules' + J.pageQuery(limit, offset, { cursor }), signal: o.signal })));
  }

  /** getSchedule returns one schedule. */
  getSchedule(scheduleId: string, o: O = {}): Promise<J.Schedule> {
    return this.t.call({ method: 'GET', path: `/v1/api/schedules/${enc(scheduleId)}`, signal: o.signal });
  }

  /** createSchedule saves a schedule; its job is validated as createJob would, its target resolved at each run. */
  createSchedule(req: J.ScheduleRequest, o: O = {}): Promise<J.Schedule> {
    return this.t.call({ method: 'POST', path: '/v1/api/schedules', body: req, signal: o.signal });
  }

  /** updateSchedule changes a schedule; its next run is recomputed from now. */
  updateSchedule(scheduleId: string, req: J.ScheduleUpdate, o: O = {}): Promise<J.Schedule> {
    return this.t.call({ method: 'PATCH', path: `/v1/api/schedules/${enc(scheduleId)}`, body: req, signal: o.signal });
  }

  /** pauseSchedule stops a schedule from firing until resumeSchedule. */
  pauseSchedule(scheduleId: string, o: O = {}): Promise<J.Schedule> {
    return this.t.call({ method: 'POST', path: `/v1/api/schedules/${enc(scheduleId)}/pause`, signal: o.signal });
  }

  /** resumeSchedule lets a paused schedule fire again from its next time. */
  resumeSchedule(scheduleId: string, o: O = {}): Promise<J.Schedule> {
    return this.t.call({ method: 'POST', path: `/v1/api/schedules/${enc(scheduleId)}/resume`, signal: o.signal });
  }

  /** deleteSchedule deletes a schedule; the jobs it started are kept. */
  async deleteSchedule(scheduleId: string, o: O = {}): Promise<void> {
    await this.t.call({ method: 'DELETE', path: `/v1/api/schedules/${enc(scheduleId)}`, signal: o.signal });
  }

  /** scheduleRuns returns one page of a schedule's history, newest first. */
  scheduleRuns(scheduleId: string, limit = 0, offset = 0, o: J.PageOptions = {}): Promise<J.Page<J.ScheduleRun>> {
    return this.t.call({ method: 'GET', path: `/v1/api/schedules/${enc(scheduleId)}/runs` + J.pageQuery(limit, offset, { cursor: o.cursor ?? '' }), signal: o.signal });
  }

  /** getWebhookSecret says whether the user has a webhook secret, and since when. */
  getWebhookSecret(o: O = {}): Promise<J.WebhookSecret> {
    return this.t.call({ method: 'GET', path: '/v1/api/webhook-secret', signal: o.signal });
  }

  /** rotateWebhookSecret issues a new webhook secret (replacing the last at once); it is not shown again. */
  async rotateWebhookSecret(o: O = {}): Promise<J.WebhookSecret> {
    const s = await this.t.call<J.WebhookSecret>({ method: 'POST', path: '/v1/api/webhook-secret/rotate', signal: o.signal });
    return { ...s, configured: s.configured || Boolean(s.secret) };
  }

  /**
   * listUserWebhookDeliveries returns one page of the user's user-level webhook deliveries (job.finished), newest first
   * (limit 0: the hub's default 50; at most 200). A host's deliveries are webhookDeliveries.
   */
  listUserWebhookDeliveries(limit = 0, offset = 0, o: J.PageOptions = {}): Promise<J.Page<T.WebhookDelivery>> {
    return this.t.call({ method: 'GET', path: '/v1/api/webhook-deliveries' + J.pageQuery(limit, offset, { cursor: o.cursor ?? '' }), signal: o.signal });
  }

  /** retryUserWebhookDelivery sends a dead_letter user-level delivery again, once (another user's or a host's: 404 not_found; other states: 409 delivery_not_dead). */
  retryUserWebhookDelivery(deliveryId: string, o: O = {}): Promise<T.WebhookDelivery> {
    return this.t.call({ method: 'POST', path: `/v1/api/webhook-deliveries/${enc(deliveryId)}/retry`, signal: o.signal });
  }
}
