"""Controls values of the operations, identical to sdk/go/controls.go.

The sixteen legacy bit flags, then the newer operations. ``Client.raw``
sends any of them.
"""
from __future__ import annotations

CTL_DIR_MK = 1
CTL_DIR_RM = 2
CTL_FILE_MK = 4
CTL_FILE_RM = 8
CTL_STR_AD = 16
CTL_STR_RD = 32
CTL_STR_RM = 64
CTL_ZIP_TO_DIR = 128
CTL_DOWN_FILE = 256
CTL_UPLOAD_FILE = 512
CTL_EXEC_PROGRAM = 1024
CTL_CHANGE_WATCH_DIR = 2048
CTL_KILL_PROCESS = 4096
CTL_EXEC_SHELL = 8192
CTL_ORCHESTRATED_START = 16384
CTL_ORCHESTRATED_SHUTDOWN = 32768
CTL_SHELL_OPEN = 1 << 16
CTL_SHELL_WRITE = 1 << 17
CTL_SHELL_READ = 1 << 18
CTL_SHELL_RESIZE = 1 << 19
CTL_SHELL_CLOSE = 1 << 20
CTL_PROCESS_LIST = 1 << 21
CTL_SYSTEM_INFO = 1 << 24
CTL_SYSTEM_METRICS = 1 << 25
CTL_SERVICE_CTL = 1 << 26
CTL_REGISTRY_RW = 1 << 27
CTL_SCHEDULED_TASK_CTL = 1 << 28
CTL_SETTINGS_UPDATE = 1 << 30

#: Go constant name -> value, for cross-checks with sdk/go/controls.go.
GO_NAMES = {
    "CtlDirMk": CTL_DIR_MK,
    "CtlDirRm": CTL_DIR_RM,
    "CtlFileMk": CTL_FILE_MK,
    "CtlFileRm": CTL_FILE_RM,
    "CtlStrAd": CTL_STR_AD,
    "CtlStrRd": CTL_STR_RD,
    "CtlStrRm": CTL_STR_RM,
    "CtlZipToDir": CTL_ZIP_TO_DIR,
    "CtlDownFile": CTL_DOWN_FILE,
    "CtlUploadFile": CTL_UPLOAD_FILE,
    "CtlExecProgram": CTL_EXEC_PROGRAM,
    "CtlChangeWatchDir": CTL_CHANGE_WATCH_DIR,
    "CtlKillProcess": CTL_KILL_PROCESS,
    "CtlExecShell": CTL_EXEC_SHELL,
    "CtlOrchestratedStart": CTL_ORCHESTRATED_START,
    "CtlOrchestratedShutdown": CTL_ORCHESTRATED_SHUTDOWN,
    "CtlShellOpen": CTL_SHELL_OPEN,
    "CtlShellWrite": CTL_SHELL_WRITE,
    "CtlShellRead": CTL_SHELL_READ,
    "CtlShellResize": CTL_SHELL_RESIZE,
    "CtlShellClose": CTL_SHELL_CLOSE,
    "CtlProcessList": CTL_PROCESS_LIST,
    "CtlSystemInfo": CTL_SYSTEM_INFO,
    "CtlSystemMetrics": CTL_SYSTEM_METRICS,
    "CtlServiceCtl": CTL_SERVICE_CTL,
    "CtlRegistryRW": CTL_REGISTRY_RW,
    "CtlScheduledTaskCtl": CTL_SCHEDULED_TASK_CTL,
    "CtlSettingsUpdate": CTL_SETTINGS_UPDATE,
}
