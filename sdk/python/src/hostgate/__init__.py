"""hostgate: Python client of the hostgate client API (/v1/api/*).

    import hostgate
    c = hostgate.Client("https://hub.example.com", api_key)
    res = c.shell(host_id, "/bin/sh", "-c 'uname -a'", 30)

Standard library only. The Go and TypeScript SDKs have the same operations,
parameter order, error type and controls values (sdk/go).
"""
from __future__ import annotations

from . import controls, webhooks
from .client import Client
from .errors import (
    Charge, HostgateError, TimeoutError, TransportError, error_code, is_agent_timeout, is_host_offline,
    is_insufficient_balance, is_not_found,
)
from .jobs import (
    Filter, FilterQuery, Job, JobDryRun, JobOperation, JobOutput, JobRequest, JobResult, JobTarget, JobTotals,
    JobWaitTimeout, JobWaves, Page, Schedule, ScheduleRequest, ScheduleRun, ScheduleUpdate, TagCount, WebhookSecret,
    shell_operation,
)
from .provisioning import Autologon, PayloadAutologon, PayloadHub, ProvisioningPayload
from .shell import ShellSession
from .types import (
    Credentials, DownloadOptions, DownloadResult, FileResult, Host, InstallCommand, Installer, KillResult,
    L1Config, L1ConfigResult, Metrics, OrchestrateShutdown, OrchestrateShutdownResult, OrchestrateStart,
    OrchestrateStartResult, PingResult, Process, ReadResult, RegistryRequest, RegistryResult, RegistryValue,
    RemoveStringResult, ServiceRequest, ServiceResult, ServiceStatus, ShellOutput, ShellResult, SystemInfo,
    TaskInfo, TaskRequest, TaskResult, UnzipResult, WebhookDelivery, from_dict,
)

__version__ = "0.1.0"

__all__ = [
    "Client", "ShellSession", "Charge", "HostgateError", "TransportError", "TimeoutError", "error_code",
    "is_insufficient_balance", "is_host_offline", "is_not_found", "is_agent_timeout", "controls", "webhooks",
    "Credentials", "DownloadOptions", "DownloadResult", "FileResult", "Host", "InstallCommand", "Installer",
    "KillResult", "L1Config", "L1ConfigResult", "Metrics", "OrchestrateShutdown", "OrchestrateShutdownResult",
    "OrchestrateStart", "OrchestrateStartResult", "PingResult", "Process", "ReadResult", "RegistryRequest",
    "RegistryResult", "RegistryValue", "RemoveStringResult", "ServiceRequest", "ServiceResult", "ServiceStatus",
    "ShellOutput", "ShellResult", "SystemInfo", "TaskInfo", "TaskRequest", "TaskResult", "UnzipResult",
    "WebhookDelivery",
]
__all__ += ["Autologon", "PayloadAutologon", "PayloadHub", "ProvisioningPayload"]
__all__ += ["Filter", "FilterQuery", "Job", "JobDryRun", "JobOperation", "JobOutput", "JobRequest", "JobResult",
            "JobTarget", "JobTotals", "JobWaitTimeout", "JobWaves", "Page", "Schedule", "ScheduleRequest", "ScheduleRun",
            "ScheduleUpdate", "TagCount", "WebhookSecret", "shell_operation", "from_dict"]
