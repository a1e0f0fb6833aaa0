"""Typed results and request bodies, mirroring sdk/go/types.go and friends.

Results are dataclasses built from the hub's JSON; fields the hub adds later
are ignored, missing ones take their defaults. Timestamps stay RFC 3339
strings. Nested objects the Go SDK declares inline stay plain dicts.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Type, TypeVar

T = TypeVar("T")


def from_dict(cls: Type[T], d: Any) -> T:
    """Build dataclass cls from a JSON object, ignoring unknown keys."""
    if not isinstance(d, dict):
        d = {}
    names = {f.name for f in dataclasses.fields(cls)}  # type: ignore[arg-type]
    obj = cls(**{k: v for k, v in d.items() if k in names})  # type: ignore[call-arg]
    hook = getattr(obj, "_nested", None)
    if hook is not None:
        hook()
    return obj


def to_body(obj: Any) -> Dict[str, Any]:
    """A request dataclass as JSON: a field is left out when it holds its
    default or an empty map or list (the Go SDK's omitempty; fields whose
    default is None, the Go SDK's pointers, are sent when 0 or False)."""
    out: Dict[str, Any] = {}
    for f in dataclasses.fields(obj):
        v = getattr(obj, f.name)
        if f.default is not dataclasses.MISSING and v == f.default and type(v) is type(f.default):
            continue
        if v is None or (isinstance(v, (dict, list)) and not v):
            continue
        out[f.name] = v
    return out


@dataclass
class InstallCommand:
    powershell: str = ""
    shell: str = ""


@dataclass
class Host:
    id: str = ""
    user_id: str = ""
    name: str = ""
    bid: int = 0
    listen_port: int = 0
    public_ip: str = ""
    os: str = ""
    installed_version: str = ""
    report_url: str = ""
    status: str = ""
    last_seen_at: Optional[str] = None
    last_online_at: Optional[str] = None
    created_at: str = ""
    #: whether the agent is connected now (lists and get_host only)
    online: bool = False
    #: the host's labels, key -> value ("" for a key alone)
    tags: Dict[str, str] = field(default_factory=dict)


@dataclass
class Credentials:
    """Install credentials; the secrets in them are shown only once."""

    host_id: str = ""
    bid: int = 0
    secret_key: str = ""
    url: str = ""
    install_token: str = ""
    install_token_expires_at: str = ""
    agent_privkey_seed: str = ""
    agent_pubkey: str = ""
    api_endpoint: str = ""
    ws_url: str = ""
    listen_port: int = 0
    exe_url: str = ""
    exe_sha256: str = ""
    install_command: InstallCommand = field(default_factory=InstallCommand)

    def _nested(self) -> None:
        if isinstance(self.install_command, dict):
            self.install_command = from_dict(InstallCommand, self.install_command)


@dataclass
class Installer:
    """An installer download: the file's bytes and its name."""

    content: bytes = b""
    filename: str = ""
    content_type: str = ""


@dataclass
class PingResult:
    rtt_ms: int = 0
    agent_version: str = ""


@dataclass
class FileResult:
    path: str = ""
    changed: bool = False
    bytes: int = 0


@dataclass
class ReadResult:
    path: str = ""
    content: str = ""
    #: "utf-8" or "base64"
    encoding: str = ""
    bytes: int = 0


@dataclass
class RemoveStringResult:
    path: str = ""
    removed: int = 0
    bytes: int = 0


@dataclass
class UnzipResult:
    dir: str = ""
    files: int = 0
    bytes: int = 0


@dataclass
class DownloadOptions:
    url: str
    max_bytes: int = 0
    timeout_s: int = 0
    sha256: str = ""


@dataclass
class DownloadResult:
    path: str = ""
    bytes: int = 0
    sha256: str = ""


@dataclass
class ShellResult:
    stdout: str = ""
    stderr: str = ""
    exit_code: int = 0
    duration_ms: int = 0
    timed_out: bool = False
    truncated: bool = False


@dataclass
class KillResult:
    matched: List[int] = field(default_factory=list)
    exited: int = 0
    killed: int = 0


@dataclass
class Process:
    pid: int = 0
    ppid: int = 0
    name: str = ""
    exe: str = ""
    user: str = ""
    cpu_pct: float = 0.0
    rss_bytes: int = 0
    mem_pct: float = 0.0
    started_at: Optional[str] = None


@dataclass
class SystemInfo:
    os: str = ""
    platform: str = ""
    platform_version: str = ""
    kernel_version: str = ""
    arch: str = ""
    hostname: str = ""
    cpu_model: str = ""
    cpu_cores: int = 0
    cpu_threads: int = 0
    mem_total_bytes: int = 0
    mem_available_bytes: int = 0
    #: [{path, fstype, total_bytes, free_bytes, used_pct}]
    disks: List[Dict[str, Any]] = field(default_factory=list)
    #: [{name, mac, addrs, up}]
    interfaces: List[Dict[str, Any]] = field(default_factory=list)
    uptime_s: int = 0
    boot_time: str = ""
    agent_version: str = ""


@dataclass
class Metrics:
    cpu_pct: float = 0.0
    mem_pct: float = 0.0
    disk_pct: float = 0.0
    net_rx_bps: float = 0.0
    net_tx_bps: float = 0.0
    tcp_conns: int = 0
    uptime_s: int = 0


@dataclass
class ServiceRequest:
    action: str
    start_type: str = ""
    display_name: str = ""
    binary_path: str = ""
    args: str = ""
    description: str = ""
    timeout_s: int = 0


@dataclass
class ServiceStatus:
    name: str = ""
    display_name: str = ""
    state: str = ""
    start_type: str = ""
    pid: int = 0
    binary_path: str = ""


@dataclass
class ServiceResult:
    services: List[ServiceStatus] = field(default_factory=list)
    service: Optional[ServiceStatus] = None

    def _nested(self) -> None:
        self.services = [from_dict(ServiceStatus, s) for s in self.services or []]
        if isinstance(self.service, dict):
            self.service = from_dict(ServiceStatus, self.service)


@dataclass
class RegistryRequest:
    action: str
    name: str = ""
    type: str = ""
    value: Any = None
    recursive: bool = False


@dataclass
class RegistryValue:
    name: str = ""
    type: str = ""
    value: Any = None


@dataclass
class RegistryResult:
    value: Optional[RegistryValue] = None
    subkeys: List[str] = field(default_factory=list)
    values: List[RegistryValue] = field(default_factory=list)
    changed: bool = False

    def _nested(self) -> None:
        if isinstance(self.value, dict):
            self.value = from_dict(RegistryValue, self.value)
        self.values = [from_dict(RegistryValue, v) for v in self.values or []]
        self.subkeys = self.subkeys or []


@dataclass
class TaskRequest:
    action: str
    xml: str = ""


@dataclass
class TaskInfo:
    name: str = ""
    enabled: bool = False
    state: str = ""
    xml: str = ""


@dataclass
class TaskResult:
    tasks: List[TaskInfo] = field(default_factory=list)
    task: Optional[TaskInfo] = None

    def _nested(self) -> None:
        self.tasks = [from_dict(TaskInfo, t) for t in self.tasks or []]
        if isinstance(self.task, dict):
            self.task = from_dict(TaskInfo, self.task)


@dataclass
class L1Config:
    """A host's legacy L1 configuration; url "" sends no webhooks;
    webhook_format "A" or "B", "" keeps the host's."""

    bid: int
    secret_key: str
    url: str = ""
    webhook_format: str = ""

    def body(self) -> Dict[str, Any]:
        b: Dict[str, Any] = {"bid": self.bid, "secret_key": self.secret_key, "url": self.url}
        if self.webhook_format:
            b["webhook_format"] = self.webhook_format
        return b


@dataclass
class L1ConfigResult:
    bid: int = 0
    has_secret_key: bool = False
    url: str = ""
    agent_online: bool = False
    delivery_id: str = ""
    webhook_format: str = ""


@dataclass
class WebhookDelivery:
    id: str = ""
    event_type: str = ""
    format: str = ""
    #: pending, retrying, success, dead_letter, skipped_no_url
    status: str = ""
    attempts: int = 0
    target_url: str = ""
    http_status: Optional[int] = None
    last_error: str = ""
    next_attempt_at: Optional[str] = None
    created_at: str = ""
    delivered_at: Optional[str] = None


@dataclass
class OrchestrateStart:
    """Body of orchestrate_start; None takes the hub's default."""

    controller_exe: str = ""
    resolve_game_dir: bool = False
    spawn_subprocesses: bool = False
    spawn_delay_ms: Optional[int] = None
    enabled: Optional[Dict[str, bool]] = None
    run_gate_count: Optional[int] = None
    ports: Optional[Dict[str, int]] = None


@dataclass
class OrchestrateStartResult:
    game_dir: str = ""
    #: {exe, pid}
    controller: Dict[str, Any] = field(default_factory=dict)
    #: [{section, exe, pid, instance?}] in start order
    started: List[Dict[str, Any]] = field(default_factory=list)
    #: [{section, reason}], reason "missing" or "disabled"
    skipped: List[Dict[str, Any]] = field(default_factory=list)
    config_changed: List[str] = field(default_factory=list)


@dataclass
class OrchestrateShutdown:
    controller_exe: str = ""
    resolve_game_dir: bool = False
    timeout_override_s: Optional[int] = None


@dataclass
class OrchestrateShutdownResult:
    game_dir: str = ""
    #: {pid, killed}
    controller: Dict[str, Any] = field(default_factory=dict)
    #: [{section, exe, pid, stage}], stage quit, close, kill or not_running
    stopped: List[Dict[str, Any]] = field(default_factory=list)


@dataclass
class ShellOutput:
    """What ShellSession.read returns."""

    #: the output since the last read
    data: bytes = b""
    #: the output is over (the shell exited, or the session ended)
    eof: bool = False
    #: the shell's exit status, when eof and known (-1: killed)
    exit_code: Optional[int] = None
    #: why the session ended, when not by the shell's exit
    reason: str = ""
