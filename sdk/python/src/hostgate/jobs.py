"""Jobs, tags, saved filters, schedules and the webhook secret, mirroring
sdk/go/jobs.go, tags.go and schedules.go (docs/jobs.md).

A job runs one operation on many hosts (by ids, tags or a saved filter)
with a result per host::

    job = c.create_job(JobRequest(target=JobTarget(tags=["env=prod"]),
                                  operation=shell_operation("uptime", "", 30)))
    job = c.wait_job(job.id, 600)
    for r in c.job_results(job.id):
        print(r.host_name, r.state, r.exit_code, r.stdout)
"""
from __future__ import annotations

import time
import urllib.parse
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, Generic, Iterator, List, Optional, TypeVar

from . import controls as ctl
from .errors import TimeoutError
from .types import WebhookDelivery, from_dict

T = TypeVar("T")
Timeout = Optional[float]


# --- requests -------------------------------------------------------------

@dataclass
class JobTarget:
    """A job's hosts: exactly one of the three. Tags are expressions that
    must all match: "env=prod", "role" (the key, any value), "role=" (the
    key with the empty value)."""

    host_ids: List[str] = field(default_factory=list)
    tags: List[str] = field(default_factory=list)
    filter_id: str = ""

    def body(self) -> Dict[str, Any]:
        b: Dict[str, Any] = {}
        if self.host_ids:
            b["host_ids"] = list(self.host_ids)
        if self.tags:
            b["tags"] = list(self.tags)
        if self.filter_id:
            b["filter_id"] = self.filter_id
        return b


@dataclass
class JobOperation:
    """What a job runs on each host: the body of controls/raw."""

    controls: int = 0
    path: str = ""
    data: Any = None

    def body(self) -> Dict[str, Any]:
        b: Dict[str, Any] = {"controls": self.controls}
        if self.path:
            b["path"] = self.path
        if self.data is not None:
            b["data"] = self.data
        return b


def shell_operation(program: str, args: str, timeout_s: int = 0) -> JobOperation:
    """The operation of Client.shell (process/shell): program with args (one
    string), its process tree killed at timeout_s (0: the hub's 60)."""
    data: Dict[str, Any] = {"args": args}
    if timeout_s > 0:
        data["timeout_s"] = timeout_s
    return JobOperation(controls=ctl.CTL_EXEC_SHELL, path=program, data=data)


@dataclass
class JobWaves:
    """Release hosts in waves of size, pause_s apart; stop the job when the
    failed share of its finished runs exceeds stop_if_failed_pct (None:
    never)."""

    size: int = 0
    pause_s: int = 0
    stop_if_failed_pct: Optional[int] = None

    def body(self) -> Dict[str, Any]:
        b: Dict[str, Any] = {"size": self.size}
        if self.pause_s:
            b["pause_s"] = self.pause_s
        if self.stop_if_failed_pct is not None:
            b["stop_if_failed_pct"] = self.stop_if_failed_pct
        return b


@dataclass
class JobRequest:
    """The body of create_job and dry_run_job; empty values take the hub's
    defaults (offline "skip", expires_in_s 3600, concurrency 50)."""

    target: JobTarget = field(default_factory=JobTarget)
    operation: JobOperation = field(default_factory=JobOperation)
    name: str = ""
    #: "skip" or "queue" (an offline host runs when it connects, until expiry)
    offline: str = ""
    expires_in_s: int = 0
    concurrency: int = 0
    notify_url: str = ""
    waves: Optional[JobWaves] = None

    def body(self) -> Dict[str, Any]:
        b: Dict[str, Any] = {}
        if self.name:
            b["name"] = self.name
        b["target"] = self.target.body()
        b["operation"] = self.operation.body()
        for k in ("offline", "expires_in_s", "concurrency", "notify_url"):
            if getattr(self, k):
                b[k] = getattr(self, k)
        if self.waves is not None:
            b["waves"] = self.waves.body()
        return b


@dataclass
class FilterQuery:
    """A saved filter's criteria, those of the host list."""

    q: str = ""
    status: str = ""
    online: Optional[bool] = None
    os: str = ""
    agent_version: str = ""
    tags: List[str] = field(default_factory=list)

    def body(self) -> Dict[str, Any]:
        b: Dict[str, Any] = {k: getattr(self, k) for k in ("q", "status", "os", "agent_version") if getattr(self, k)}
        if self.online is not None:
            b["online"] = self.online
        if self.tags:
            b["tags"] = list(self.tags)
        return b


@dataclass
class ScheduleRequest:
    """The body of create_schedule: exactly one of at (RFC 3339) and cron
    (five fields, in timezone, an IANA name; "" is UTC)."""

    name: str
    job: JobRequest
    at: Optional[str] = None
    cron: str = ""
    timezone: str = ""
    paused: bool = False

    def body(self) -> Dict[str, Any]:
        b: Dict[str, Any] = {"name": self.name, "job": self.job.body()}
        if self.at:
            b["at"] = self.at
        if self.cron:
            b["cron"] = self.cron
        if self.timezone:
            b["timezone"] = self.timezone
        if self.paused:
            b["paused"] = True
        return b


@dataclass
class ScheduleUpdate:
    """The body of update_schedule: empty fields keep the schedule's; at or
    cron replaces its timing."""

    name: str = ""
    job: Optional[JobRequest] = None
    at: Optional[str] = None
    cron: str = ""
    timezone: str = ""

    def body(self) -> Dict[str, Any]:
        b: Dict[str, Any] = {k: getattr(self, k) for k in ("name", "at", "cron", "timezone") if getattr(self, k)}
        if self.job is not None:
            b["job"] = self.job.body()
        return b


# --- answers --------------------------------------------------------------

@dataclass
class JobTotals:
    queued: int = 0
    running: int = 0
    succeeded: int = 0
    failed: int = 0
    skipped: int = 0
    expired: int = 0
    canceled: int = 0


@dataclass
class Job:
    """A job and its progress. target, operation and waves stay as the hub
    sent them (dicts)."""

    id: str = ""
    name: str = ""
    #: running, finished or canceled
    state: str = ""
    host_count: int = 0
    totals: JobTotals = field(default_factory=JobTotals)
    target: Dict[str, Any] = field(default_factory=dict)
    operation: Dict[str, Any] = field(default_factory=dict)
    offline: str = ""
    concurrency: int = 0
    expires_at: str = ""
    waves: Optional[Dict[str, Any]] = None
    wave: int = 0
    #: "", insufficient_balance, failure_threshold or canceled
    stop_reason: str = ""
    notify_url: str = ""
    retry_of: Optional[str] = None
    schedule_id: Optional[str] = None
    charged: float = 0
    created_at: str = ""
    finished_at: Optional[str] = None

    def _nested(self) -> None:
        if isinstance(self.totals, dict):
            self.totals = from_dict(JobTotals, self.totals)

    @property
    def final(self) -> bool:
        """The job will not change any more: finished or canceled, and no
        run still running."""
        return self.state != "running" and self.finished_at is not None

    @property
    def succeeded(self) -> bool:
        """A final job every host of which succeeded."""
        return self.final and self.host_count > 0 and self.totals.succeeded == self.host_count


@dataclass
class JobDryRun:
    host_count: int = 0
    host_ids: List[str] = field(default_factory=list)
    host_ids_truncated: bool = False
    max_cost: float = 0


@dataclass
class JobResult:
    """One host's run. stdout/stderr are the first 4096 bytes of each
    stream (job_output has all of it)."""

    host_id: str = ""
    host_name: str = ""
    #: queued, running, succeeded, failed, skipped, expired, canceled
    state: str = ""
    wave: int = 0
    exit_code: Optional[int] = None
    stdout: str = ""
    stderr: str = ""
    output_truncated: bool = False
    error: str = ""
    message: str = ""
    charged: float = 0
    started_at: Optional[str] = None
    finished_at: Optional[str] = None


@dataclass
class JobOutput:
    host_id: str = ""
    exit_code: Optional[int] = None
    stdout: str = ""
    stderr: str = ""
    result: Any = None


@dataclass
class Page(Generic[T]):
    """One page of a paged list. next_cursor, when not empty, continues the
    list after this page: pass it as the cursor of the same call (same other
    arguments, offset 0); a deep page costs the hub what the first does. It
    is empty on the last page."""

    items: List[T] = field(default_factory=list)
    total: int = 0
    limit: int = 0
    offset: int = 0
    next_cursor: str = ""


@dataclass
class TagCount:
    key: str = ""
    value: str = ""
    host_count: int = 0


@dataclass
class Filter:
    """A saved filter; host_count is set by get_filter only."""

    id: str = ""
    name: str = ""
    query: FilterQuery = field(default_factory=FilterQuery)
    host_count: Optional[int] = None
    created_at: str = ""
    updated_at: str = ""

    def _nested(self) -> None:
        if isinstance(self.query, dict):
            self.query = from_dict(FilterQuery, self.query)
            self.query.tags = self.query.tags or []


@dataclass
class Schedule:
    id: str = ""
    name: str = ""
    #: the job template as the hub sent it
    job: Dict[str, Any] = field(default_factory=dict)
    at: Optional[str] = None
    cron: Optional[str] = None
    timezone: str = ""
    paused: bool = False
    next_run_at: Optional[str] = None
    last_run_at: Optional[str] = None
    last_job_id: Optional[str] = None
    created_at: str = ""
    updated_at: str = ""


@dataclass
class ScheduleRun:
    #: the planned time; fired_at when a hub started it
    at: str = ""
    fired_at: str = ""
    job_id: Optional[str] = None
    error: str = ""
    message: str = ""


@dataclass
class WebhookSecret:
    """The user's webhook secret (signs job.finished): secret ("whsec_...")
    only in rotate_webhook_secret's answer, shown once."""

    configured: bool = False
    secret: str = ""
    created_at: Optional[str] = None


class JobWaitTimeout(TimeoutError):
    """wait_job's timeout passed before the job was final; ``job`` is the
    job as last seen."""

    def __init__(self, message: str, job: Job) -> None:
        super().__init__(message, sent=True)
        self.job = job


def _q(s: str) -> str:
    return urllib.parse.quote(s, safe="")


def _job_path(job_id: str) -> str:
    return "/v1/api/jobs/" + _q(job_id)


def _page_query(limit: int, offset: int, **extra: str) -> str:
    q = {k: v for k, v in sorted(extra.items()) if v}
    if limit > 0:
        q["limit"] = str(int(limit))
    if offset > 0:
        q["offset"] = str(int(offset))
    return "?" + urllib.parse.urlencode(sorted(q.items())) if q else ""


def _page(cls: Any, out: Any) -> Page:
    out = out or {}
    return Page(items=[from_dict(cls, x) for x in out.get("items") or []], total=int(out.get("total") or 0),
                limit=int(out.get("limit") or 0), offset=int(out.get("offset") or 0),
                next_cursor=str(out.get("next_cursor") or ""))


def _pages(fetch: Callable[[int, int, str], Page]) -> Iterator[Any]:
    """Every item of a paged list, fetched 200 at a time as it is read: by
    each page's next_cursor (every item once, however deep), or by offset
    from a list that gives none."""
    offset, cursor = 0, ""
    while True:
        p = fetch(200, offset, cursor)
        yield from p.items
        if p.next_cursor:
            offset, cursor = 0, p.next_cursor
            continue
        offset += len(p.items)
        if not p.items or cursor or offset >= p.total:
            return


#: wait_job's polling interval: from the first to the last, doubling
POLL_INTERVAL_S = (0.25, 2.0)


class JobsAPI:
    """The job, tag, filter, schedule and webhook-secret methods of Client."""

    _json: Callable[..., Any]

    # --- jobs -------------------------------------------------------------

    def create_job(self, req: JobRequest, *, timeout: Timeout = None) -> Job:
        """Start a job. The target is resolved now; a host id that is not
        the key holder's refuses it whole (404 not_found), no match is 400
        empty_target. Each run is charged when it runs."""
        return from_dict(Job, self._json("POST", "/v1/api/jobs", req.body(), timeout=timeout))

    def dry_run_job(self, req: JobRequest, *, timeout: Timeout = None) -> JobDryRun:
        """Resolve req's target and price it; nothing is recorded or charged."""
        body = dict(req.body(), dry_run=True)
        return from_dict(JobDryRun, self._json("POST", "/v1/api/jobs", body, timeout=timeout))

    def get_job(self, job_id: str, *, timeout: Timeout = None) -> Job:
        """A job with its totals."""
        return from_dict(Job, self._json("GET", _job_path(job_id), timeout=timeout, idempotent=True))

    def list_jobs(self, state: str = "", limit: int = 0, offset: int = 0, cursor: str = "", *,
                  timeout: Timeout = None) -> Page:
        """The key holder's jobs, newest first; state "" for all, else
        running, finished or canceled (limit 0: the hub's 50; at most 200).
        A cursor (a page's next_cursor) continues after that page."""
        out = self._json("GET", "/v1/api/jobs" + _page_query(limit, offset, state=state, cursor=cursor), timeout=timeout,
                         idempotent=True)
        return _page(Job, out)

    def cancel_job(self, job_id: str, *, timeout: Timeout = None) -> Job:
        """Cancel a job: queued runs end canceled, running ones finish (a
        finished job: 409 job_finished)."""
        return from_dict(Job, self._json("POST", _job_path(job_id) + "/cancel", timeout=timeout))

    def retry_job(self, job_id: str, states: Optional[List[str]] = None, *, timeout: Timeout = None) -> Job:
        """A new job over the hosts whose runs ended in one of states (None:
        failed only), with the same operation and options."""
        body = {"states": list(states)} if states else None
        return from_dict(Job, self._json("POST", _job_path(job_id) + "/retry", body, timeout=timeout))

    def wait_job(self, job_id: str, timeout_s: float = 0, *, timeout: Timeout = None) -> Job:
        """Poll the job until it is final and return it; after timeout_s
        seconds (0: no limit) raise JobWaitTimeout carrying the job as last
        seen. ``timeout`` bounds each poll."""
        deadline = time.monotonic() + timeout_s if timeout_s > 0 else None
        wait = POLL_INTERVAL_S[0]
        while True:
            job = self.get_job(job_id, timeout=timeout)
            if job.final:
                return job
            if deadline is not None:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise JobWaitTimeout(f"hostgate: job {job_id} not final after {timeout_s}s", job)
                time.sleep(min(wait, left))
            else:
                time.sleep(wait)
            wait = min(2 * wait, POLL_INTERVAL_S[1])

    def list_job_results(self, job_id: str, state: str = "", limit: int = 0, offset: int = 0, cursor: str = "", *,
                         timeout: Timeout = None) -> Page:
        """One page of a job's results, in the job's host order; a cursor
        (a page's next_cursor) continues after that page."""
        p = _job_path(job_id) + "/results" + _page_query(limit, offset, state=state, cursor=cursor)
        return _page(JobResult, self._json("GET", p, timeout=timeout, idempotent=True))

    def job_results(self, job_id: str, state: str = "", *, timeout: Timeout = None) -> Iterator[JobResult]:
        """Every result of a job (of one state, or all), fetching pages of
        200 as the iteration goes."""
        return _pages(lambda limit, offset, cursor: self.list_job_results(job_id, state, limit, offset, cursor,
                                                                          timeout=timeout))

    def job_output(self, job_id: str, host_id: str, *, timeout: Timeout = None) -> JobOutput:
        """One host's whole output (404 not_found once the hub dropped it)."""
        p = _job_path(job_id) + "/results/" + _q(host_id) + "/output"
        return from_dict(JobOutput, self._json("GET", p, timeout=timeout, idempotent=True))

    # --- tags and saved filters -------------------------------------------

    def set_tags(self, host_id: str, tags: Dict[str, str], *, timeout: Timeout = None) -> Dict[str, str]:
        """Replace a host's tags and return them. Free."""
        out = self._json("PUT", "/v1/api/hosts/" + _q(host_id) + "/tags", {"tags": dict(tags or {})}, timeout=timeout)
        return dict((out or {}).get("tags") or {})

    def update_tags(self, host_ids: List[str], add: Optional[Dict[str, str]] = None,
                    remove: Optional[List[str]] = None, *, timeout: Timeout = None) -> int:
        """Add tags to and remove keys from every host of host_ids, all or
        none (at most 1000 hosts); the number of hosts updated. Free."""
        body: Dict[str, Any] = {"host_ids": list(host_ids)}
        if add:
            body["add"] = dict(add)
        if remove:
            body["remove"] = list(remove)
        return int((self._json("POST", "/v1/api/hosts/tags", body, timeout=timeout) or {}).get("updated") or 0)

    def search_hosts(self, query: FilterQuery, filter_id: str = "", limit: int = 0, offset: int = 0,
                     cursor: str = "", *, timeout: Timeout = None) -> Page:
        """One page of the key holder's hosts matching query (and the saved
        filter filter_id, when given); limit 0: the hub's 50, at most 200. A
        cursor (a page's next_cursor) continues after that page, with the
        same query; all_hosts walks every page so."""
        from .types import Host
        q: List[Any] = [(k, getattr(query, k)) for k in ("q", "status", "os", "agent_version") if getattr(query, k)]
        if filter_id:
            q.append(("filter_id", filter_id))
        if query.online is not None:
            q.append(("online", "true" if query.online else "false"))
        q += [("tag", t) for t in query.tags]
        q.append(("limit", str(limit if limit > 0 else 50)))
        if offset > 0:
            q.append(("offset", str(offset)))
        if cursor:
            q.append(("cursor", cursor))
        p = "/v1/api/hosts?" + urllib.parse.urlencode(sorted(q))
        return _page(Host, self._json("GET", p, timeout=timeout, idempotent=True))

    def all_hosts(self, query: FilterQuery, filter_id: str = "", *, timeout: Timeout = None) -> Iterator[Any]:
        """Every host search_hosts finds for query (and filter_id), fetched
        200 at a time by cursor as the iteration goes: each host once,
        however many there are."""
        return _pages(lambda limit, offset, cursor: self.search_hosts(query, filter_id, limit, offset, cursor,
                                                                      timeout=timeout))

    def list_tags(self, *, timeout: Timeout = None) -> List[TagCount]:
        """The key=value pairs on the key holder's hosts with their counts."""
        return list(_pages(lambda limit, offset, cursor: _page(TagCount, self._json(
            "GET", "/v1/api/tags" + _page_query(limit, offset, cursor=cursor), timeout=timeout, idempotent=True))))

    def list_filters(self, *, timeout: Timeout = None) -> List[Filter]:
        """The key holder's saved filters."""
        return list(_pages(lambda limit, offset, cursor: _page(Filter, self._json(
            "GET", "/v1/api/filters" + _page_query(limit, offset, cursor=cursor), timeout=timeout, idempotent=True))))

    def get_filter(self, filter_id: str, *, timeout: Timeout = None) -> Filter:
        """A saved filter with the number of hosts it matches now."""
        return from_dict(Filter, self._json("GET", "/v1/api/filters/" + _q(filter_id), timeout=timeout, idempotent=True))

    def create_filter(self, name: str, query: FilterQuery, *, timeout: Timeout = None) -> Filter:
        """Save a filter (name unique: 409 name_taken; at most 100)."""
        out = self._json("POST", "/v1/api/filters", {"name": name, "query": query.body()}, timeout=timeout)
        return from_dict(Filter, out)

    def update_filter(self, filter_id: str, name: str = "", query: Optional[FilterQuery] = None, *,
                      timeout: Timeout = None) -> Filter:
        """Rename a saved filter (name "" keeps it) and replace its query
        (None keeps it)."""
        body: Dict[str, Any] = {}
        if name:
            body["name"] = name
        if query is not None:
            body["query"] = query.body()
        return from_dict(Filter, self._json("PATCH", "/v1/api/filters/" + _q(filter_id), body, timeout=timeout))

    def delete_filter(self, filter_id: str, *, timeout: Timeout = None) -> None:
        """Delete a saved filter."""
        self._json("DELETE", "/v1/api/filters/" + _q(filter_id), timeout=timeout)

    # --- schedules and the webhook secret ---------------------------------

    def list_schedules(self, *, timeout: Timeout = None) -> List[Schedule]:
        """The key holder's schedules."""
        return list(_pages(lambda limit, offset, cursor: _page(Schedule, self._json(
            "GET", "/v1/api/schedules" + _page_query(limit, offset, cursor=cursor), timeout=timeout, idempotent=True))))

    def get_schedule(self, schedule_id: str, *, timeout: Timeout = None) -> Schedule:
        """One schedule."""
        return from_dict(Schedule, self._json("GET", "/v1/api/schedules/" + _q(schedule_id), timeout=timeout,
                                              idempotent=True))

    def create_schedule(self, req: ScheduleRequest, *, timeout: Timeout = None) -> Schedule:
        """Save a schedule; its job is validated as create_job would, its
        target resolved at each run."""
        return from_dict(Schedule, self._json("POST", "/v1/api/schedules", req.body(), timeout=timeout))

    def update_schedule(self, schedule_id: str, req: ScheduleUpdate, *, timeout: Timeout = None) -> Schedule:
        """Change a schedule; its next run is recomputed from now."""
        return from_dict(Schedule, self._json("PATCH", "/v1/api/schedules/" + _q(schedule_id), req.body(),
                                              timeout=timeout))

    def pause_schedule(self, schedule_id: str, *, timeout: Timeout = None) -> Schedule:
        """Stop a schedule from firing until resume_schedule."""
        return from_dict(Schedule, self._json("POST", "/v1/api/schedules/" + _q(schedule_id) + "/pause", timeout=timeout))

    def resume_schedule(self, schedule_id: str, *, timeout: Timeout = None) -> Schedule:
        """Let a paused schedule fire again from its next time."""
        return from_dict(Schedule, self._json("POST", "/v1/api/schedules/" + _q(schedule_id) + "/resume",
                                              timeout=timeout))

    def delete_schedule(self, schedule_id: str, *, timeout: Timeout = None) -> None:
        """Delete a schedule; the jobs it started are kept."""
        self._json("DELETE", "/v1/api/schedules/" + _q(schedule_id), timeout=timeout)

    def schedule_runs(self, schedule_id: str, limit: int = 0, offset: int = 0, cursor: str = "", *,
                      timeout: Timeout = None) -> Page:
        """One page of a schedule's history, newest first; a cursor (a page's
        next_cursor) continues after that page."""
        p = "/v1/api/schedules/" + _q(schedule_id) + "/runs" + _page_query(limit, offset, cursor=cursor)
        return _page(ScheduleRun, self._json("GET", p, timeout=timeout, idempotent=True))

    def get_webhook_secret(self, *, timeout: Timeout = None) -> WebhookSecret:
        """Whether the user has a webhook secret, and since when."""
        return from_dict(WebhookSecret, self._json("GET", "/v1/api/webhook-secret", timeout=timeout, idempotent=True))

    def rotate_webhook_secret(self, *, timeout: Timeout = None) -> WebhookSecret:
        """Issue a new webhook secret (replacing the last at once); it is
        not shown again."""
        s = from_dict(WebhookSecret, self._json("POST", "/v1/api/webhook-secret/rotate", timeout=timeout))
        s.configured = s.configured or bool(s.secret)
        return s

    def list_user_webhook_deliveries(self, limit: int = 0, offset: int = 0, cursor: str = "", *,
                                     timeout: Timeout = None) -> Page:
        """One page of the user's user-level webhook deliveries (job.finished),
        newest first (limit 0: the hub's default of 50; at most 200); its
        items are WebhookDelivery. A host's deliveries are webhook_deliveries.
        A cursor (a page's next_cursor) continues after that page."""
        p = "/v1/api/webhook-deliveries" + _page_query(limit, offset, cursor=cursor)
        return _page(WebhookDelivery, self._json("GET", p, timeout=timeout, idempotent=True))

    def retry_user_webhook_delivery(self, delivery_id: str, *, timeout: Timeout = None) -> WebhookDelivery:
        """Send a dead_letter user-level delivery again, once (another user's
        or a host's delivery: 404 not_found; any other state: 409
        delivery_not_dead)."""
        p = "/v1/api/webhook-deliveries/" + _q(delivery_id) + "/retry"
        return from_dict(WebhookDelivery, self._json("POST", p, timeout=timeout))
