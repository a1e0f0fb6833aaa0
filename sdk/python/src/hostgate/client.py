"""The client of the hostgate client API (/v1/api/*), mirroring sdk/go.

Every method is the Go SDK's in snake_case with the same parameter order;
the Go SDK's ``ctx`` becomes the keyword-only ``timeout`` (seconds, this
call only; None: the client's).
"""
from __future__ import annotations

import base64
import json
import re
import urllib.parse
from typing import Any, Callable, List, Optional, Tuple

from . import controls as ctl
from ._transport import Transport
from .provisioning import Autologon, ProvisioningPayload, parse_payload
from .errors import Charge
from .jobs import JobsAPI
from .shell import ShellSession
from .types import (
    Credentials, DownloadOptions, DownloadResult, FileResult, Host, Installer, KillResult, L1Config,
    L1ConfigResult, Metrics, OrchestrateShutdown, OrchestrateShutdownResult, OrchestrateStart,
    OrchestrateStartResult, PingResult, Process, ReadResult, RegistryRequest, RegistryResult,
    RemoveStringResult, ServiceRequest, ServiceResult, ShellResult, SystemInfo, TaskRequest, TaskResult,
    UnzipResult, WebhookDelivery, from_dict, to_body,
)

Timeout = Optional[float]

def _host_path(host_id: str) -> str:
    return "/v1/api/hosts/" + urllib.parse.quote(host_id, safe="")

def _deliveries_path(host_id: str) -> str:
    return "/v1/user/hosts/" + urllib.parse.quote(host_id, safe="") + "/webhook-deliveries"

class Client(JobsAPI):
    """Calls the client API with one API key ("ak_<id>.<secret>").

    Safe for use from several threads. ``timeout`` bounds each call
    (seconds); ``max_retries`` and ``backoff_s`` shape the retries of
    idempotent reads and of requests that never reached the hub (never of a
    charged command).
    """

    def __init__(self, base_url: str, api_key: str, *, timeout: float = 30.0, max_retries: int = 3,
                 backoff_s: float = 0.2, on_charge: Optional[Callable[[Charge], None]] = None) -> None:
        self._t = Transport(base_url, api_key, timeout, max_retries, backoff_s, on_charge=on_charge)

    @property
    def timeout(self) -> float:
        return self._t.timeout

    @property
    def last_charge(self) -> Optional[Charge]:
        """What this thread's latest call cost (the hub's X-Hostgate-Charged
        and X-Hostgate-Balance headers), None when its answer named no
        charge (a free route, or a call refused before the charge).
        ``on_charge``, given to the constructor, is called with each Charge
        as it arrives, from any thread."""
        return self._t.last_charge

    # --- plumbing -------------------------------------------------------

    def _json(self, method: str, path: str, body: Any = None, *, timeout: Timeout = None,
              idempotent: bool = False) -> Any:
        status, _, data = self._t.call(method, path, body, timeout=timeout, idempotent=idempotent)
        if status == 204 or not data.strip():
            return None
        return json.loads(data)

    def _op(self, host_id: str, route: str, controls: int, path: str, data: Any, timeout: Timeout) -> Any:
        """Post {controls, path, data} to an operation route of a host."""
        body: dict = {"controls": controls}
        if path:
            body["path"] = path
        if data is not None:
            body["data"] = data
        return self._json("POST", _host_path(host_id) + "/" + route, body, timeout=timeout)

    def _longer(self, timeout: Timeout, needed_s: float) -> float:
        """A call that may legitimately take needed_s gets at least that."""
        return max(self._t.timeout if timeout is None else timeout, needed_s)

    # --- hosts ----------------------------------------------------------

    def list_hosts(self, *, timeout: Timeout = None) -> List[Host]:
        """The key holder's hosts."""
        out = self._json("GET", "/v1/api/hosts", timeout=timeout, idempotent=True) or {}
        return [from_dict(Host, h) for h in out.get("items") or []]

    def get_host(self, host_id: str, *, timeout: Timeout = None) -> Host:
        """One host with its live connection state."""
        return from_dict(Host, self._json("GET", _host_path(host_id), timeout=timeout, idempotent=True))

    def create_host(self, name: str, listen_port: Optional[int] = None, with_credentials: bool = False, *,
                    timeout: Timeout = None) -> Tuple[Host, Optional[Credentials]]:
        """Create a host; listen_port None (or 0) takes the default (23456).
        With with_credentials the answer carries install credentials too."""
        body: dict = {"name": name, "with_credentials": with_credentials}
        if listen_port:
            body["listen_port"] = listen_port
        out = self._json("POST", "/v1/api/hosts", body, timeout=timeout) or {}
        cr = out.get("credentials")
        return from_dict(Host, out.get("host")), (from_dict(Credentials, cr) if cr else None)

    def delete_host(self, host_id: str, *, timeout: Timeout = None) -> None:
        """Delete a host; its agent is dropped at once."""
        self._json("DELETE", _host_path(host_id), timeout=timeout)

    def install_token(self, host_id: str, *, timeout: Timeout = None) -> Credentials:
        """New install credentials, keeping the secret key."""
        return from_dict(Credentials, self._json("POST", _host_path(host_id) + "/install-token", timeout=timeout))

    def rotate_secret(self, host_id: str, *, timeout: Timeout = None) -> Credentials:
        """Install credentials with a new secret key; the running agent is
        dropped (and a webhook delivery is queued)."""
        return from_dict(Credentials, self._json("POST", _host_path(host_id) + "/rotate-secret", timeout=timeout))

    def installer(self, host_id: str, format: str = "", *, timeout: Timeout = None) -> Installer:
        """Download an installer: format "ps1", "cmd" or "exe" ("": exe).
        Issues new install credentials like install_token, so it is not
        retried although it is a GET."""
        p = _host_path(host_id) + "/installer"
        if format:
            p += "?format=" + urllib.parse.quote(format, safe="")
        _, headers, data = self._t.call("GET", p, None, timeout=timeout, idempotent=False)
        h = {k.lower(): v for k, v in headers.items()}
        ctype = h.get("content-type", "")
        if ctype.startswith("application/json"):
            data = base64.b64decode(json.loads(data))
        m = re.search(r'filename="([^"]*)"', h.get("content-disposition", ""))
        return Installer(content=data, filename=m.group(1) if m else "", content_type=ctype)

    def provisioning_payload(self, host_id: str, autologon: Optional[Autologon] = None, *,
                             timeout: Timeout = None) -> ProvisioningPayload:
        """The host's provisioning payload (docs/provisioning.md), with an
        autologon section when autologon is given. Like install_token it
        issues new install credentials, so it is never retried; free."""
        body = None if autologon is None else {"autologon": autologon.body()}
        _, _, data = self._t.call("POST", _host_path(host_id) + "/provisioning-payload", body, timeout=timeout)
        return parse_payload(data)

    def ping(self, host_id: str, *, timeout: Timeout = None) -> PingResult:
        """Round-trip a no-op command to the host's agent."""
        return from_dict(PingResult, self._json("POST", _host_path(host_id) + "/ping", timeout=timeout))

    # --- L1 configuration and webhook history -----------------------------

    def put_l1_config(self, host_id: str, cfg: L1Config, *, timeout: Timeout = None) -> L1ConfigResult:
        """Write the host's L1 configuration (charged control.update_l1);
        a webhook delivery is queued."""
        out = self._json("PUT", _host_path(host_id) + "/l1-config", cfg.body(), timeout=timeout)
        return from_dict(L1ConfigResult, out)

    def webhook_deliveries(self, host_id: str, limit: int = 0, *, timeout: Timeout = None) -> List[WebhookDelivery]:
        """The host's latest deliveries, newest first (limit 0: the hub's
        default of 50; at most 200). Not charged."""
        p = _deliveries_path(host_id) + (f"?limit={int(limit)}" if limit > 0 else "")
        out = self._json("GET", p, timeout=timeout, idempotent=True) or {}
        return [from_dict(WebhookDelivery, d) for d in out.get("items") or []]

    def retry_webhook_delivery(self, host_id: str, delivery_id: str, *, timeout: Timeout = None) -> WebhookDelivery:
        """Send a dead_letter delivery again, once."""
        p = _deliveries_path(host_id) + "/" + urllib.parse.quote(delivery_id, safe="") + "/retry"
        return from_dict(WebhookDelivery, self._json("POST", p, timeout=timeout))

    # --- files ----------------------------------------------------------

    def make_dir(self, host_id: str, path: str, *, timeout: Timeout = None) -> FileResult:
        """Create the directory path with its parents."""
        return from_dict(FileResult, self._op(host_id, "files/dir", ctl.CTL_DIR_MK, path, None, timeout))

    def remove_dir(self, host_id: str, path: str, *, timeout: Timeout = None) -> FileResult:
        """Remove the directory tree at path."""
        return from_dict(FileResult, self._op(host_id, "files/dir", ctl.CTL_DIR_RM, path, None, timeout))

    def create_file(self, host_id: str, path: str, content: str, *, timeout: Timeout = None) -> FileResult:
        """Create or replace the file at path with content."""
        return from_dict(FileResult, self._op(host_id, "files/text", ctl.CTL_FILE_MK, path, content, timeout))

    def remove_file(self, host_id: str, path: str, *, timeout: Timeout = None) -> FileResult:
        """Remove the file at path."""
        return from_dict(FileResult, self._op(host_id, "files/text", ctl.CTL_FILE_RM, path, None, timeout))

    def append_string(self, host_id: str, path: str, s: str, *, timeout: Timeout = None) -> FileResult:
        """Append s to the file at path, creating it if missing."""
        return from_dict(FileResult, self._op(host_id, "files/text", ctl.CTL_STR_AD, path, s, timeout))

    def read_string(self, host_id: str, path: str, *, timeout: Timeout = None) -> ReadResult:
        """Read the file at path (at most 1 MiB)."""
        return from_dict(ReadResult, self._op(host_id, "files/text", ctl.CTL_STR_RD, path, None, timeout))

    def remove_string(self, host_id: str, path: str, s: str, *, timeout: Timeout = None) -> RemoveStringResult:
        """Cut every occurrence of s from the file at path."""
        out = self._op(host_id, "files/text", ctl.CTL_STR_RM, path, s, timeout)
        return from_dict(RemoveStringResult, out)

    def unzip(self, host_id: str, zip_path: str, dir: str, *, timeout: Timeout = None) -> UnzipResult:
        """Unpack the zip file zip_path into the directory dir."""
        return from_dict(UnzipResult, self._op(host_id, "files/zip", ctl.CTL_ZIP_TO_DIR, zip_path, dir, timeout))

    def download(self, host_id: str, path: str, opts: DownloadOptions, *, timeout: Timeout = None) -> DownloadResult:
        """Make the host download opts.url to path."""
        t = self._longer(timeout, opts.timeout_s + 15) if opts.timeout_s else timeout
        out = self._op(host_id, "files/download", ctl.CTL_DOWN_FILE, path, to_body(opts), t)
        return from_dict(DownloadResult, out)

    # --- processes ------------------------------------------------------

    def exec(self, host_id: str, program: str, args: str, *, timeout: Timeout = None) -> int:
        """Start program with args (one string); returns its pid at once."""
        out = self._op(host_id, "process/exec", ctl.CTL_EXEC_PROGRAM, program, args or None, timeout) or {}
        return int(out.get("pid") or 0)

    def shell(self, host_id: str, program: str, args: str, timeout_s: int = 0, *,
              timeout: Timeout = None) -> ShellResult:
        """Run program with args (one string) and wait for it; at timeout_s
        seconds (0: the default, 60) its process tree is killed. The HTTP
        timeout is stretched to outlast timeout_s."""
        data: dict = {"args": args}
        if timeout_s > 0:
            data["timeout_s"] = timeout_s
        t = self._longer(timeout, (timeout_s if timeout_s > 0 else 60) + 15)
        return from_dict(ShellResult, self._op(host_id, "process/shell", ctl.CTL_EXEC_SHELL, program, data, t))

    def kill(self, host_id: str, name: str, timeout_s: int = 0, *, timeout: Timeout = None) -> KillResult:
        """Stop the processes of an executable name: soft first, hard after
        timeout_s seconds (0: the default, 10)."""
        data = {"timeout_s": timeout_s} if timeout_s > 0 else None
        t = self._longer(timeout, (timeout_s if timeout_s > 0 else 10) + 15)
        return from_dict(KillResult, self._op(host_id, "process/kill", ctl.CTL_KILL_PROCESS, name, data, t))

    def list_processes(self, host_id: str, name: str = "", *, timeout: Timeout = None) -> List[Process]:
        """The host's processes, only those of an executable name when name
        is not ""."""
        out = self._op(host_id, "process/list", ctl.CTL_PROCESS_LIST, name, None, timeout) or {}
        return [from_dict(Process, p) for p in out.get("processes") or []]

    # --- system and Windows ---------------------------------------------

    def system_info(self, host_id: str, *, timeout: Timeout = None) -> SystemInfo:
        """Describe the host."""
        return from_dict(SystemInfo, self._op(host_id, "system/info", ctl.CTL_SYSTEM_INFO, "", None, timeout))

    def metrics(self, host_id: str, *, timeout: Timeout = None) -> Metrics:
        """Sample the host's load now."""
        return from_dict(Metrics, self._op(host_id, "system/metrics", ctl.CTL_SYSTEM_METRICS, "", None, timeout))

    def service_ctl(self, host_id: str, name: str, req: ServiceRequest, *, timeout: Timeout = None) -> ServiceResult:
        """Control a Windows service (name "" for list)."""
        out = self._op(host_id, "service/ctl", ctl.CTL_SERVICE_CTL, name, to_body(req), timeout)
        return from_dict(ServiceResult, out)

    def registry(self, host_id: str, path: str, req: RegistryRequest, *, timeout: Timeout = None) -> RegistryResult:
        """Read or write the Windows registry key at path ("HKLM\\Software\\...")."""
        out = self._op(host_id, "registry/rw", ctl.CTL_REGISTRY_RW, path, to_body(req), timeout)
        return from_dict(RegistryResult, out)

    def scheduled_task(self, host_id: str, name: str, req: TaskRequest, *, timeout: Timeout = None) -> TaskResult:
        """Control a Windows scheduled task (name "" for list)."""
        out = self._op(host_id, "scheduled-task/ctl", ctl.CTL_SCHEDULED_TASK_CTL, name, to_body(req), timeout)
        return from_dict(TaskResult, out)

    def raw(self, host_id: str, controls: int, path: str, data: Any, *, timeout: Timeout = None) -> Any:
        """Send any operation by its controls value; returns the agent's
        result as it came (parsed JSON)."""
        return self._op(host_id, "controls/raw", controls, path, data, timeout)

    # --- orchestration --------------------------------------------------

    def orchestrate_start(self, host_id: str, base_path: str, req: Optional[OrchestrateStart] = None, *,
                          timeout: Timeout = None) -> OrchestrateStartResult:
        """Start the game server family in base_path (controls 16384)."""
        p = _host_path(host_id) + "/orchestrate/start?base_path=" + urllib.parse.quote(base_path, safe="")
        out = self._json("POST", p, to_body(req or OrchestrateStart()), timeout=timeout)
        return from_dict(OrchestrateStartResult, out)

    def orchestrate_shutdown(self, host_id: str, base_path: str, req: Optional[OrchestrateShutdown] = None, *,
                             timeout: Timeout = None) -> OrchestrateShutdownResult:
        """Shut the family down in three stages (controls 32768)."""
        p = _host_path(host_id) + "/orchestrate/shutdown?base_path=" + urllib.parse.quote(base_path, safe="")
        out = self._json("POST", p, to_body(req or OrchestrateShutdown()), timeout=timeout)
        return from_dict(OrchestrateShutdownResult, out)

    # --- shell sessions -------------------------------------------------

    def open_shell(self, host_id: str, cols: int = 0, rows: int = 0, *, timeout: Timeout = None) -> ShellSession:
        """Start the host's default shell on a terminal of cols x rows (0, 0
        for 80 x 24). Use the session as a context manager to close it."""
        out = self._json("POST", _host_path(host_id) + "/shell/session/open", {"cols": cols, "rows": rows},
                         timeout=timeout) or {}
        return ShellSession(self, host_id, str(out.get("stream_id", "")))
