package hostgate

// Controls values of the operations, as the hub's protocol table defines
// them (docs/operations.md): the sixteen legacy bit flags, then the newer
// operations. Raw sends any of them.
const (
	CtlDirMk                int64 = 1
	CtlDirRm                int64 = 2
	CtlFileMk               int64 = 4
	CtlFileRm               int64 = 8
	CtlStrAd                int64 = 16
	CtlStrRd                int64 = 32
	CtlStrRm                int64 = 64
	CtlZipToDir             int64 = 128
	CtlDownFile             int64 = 256
	CtlUploadFile           int64 = 512
	CtlExecProgram          int64 = 1024
	CtlChangeWatchDir       int64 = 2048
	CtlKillProcess          int64 = 4096
	CtlExecShell            int64 = 8192
	CtlOrchestratedStart    int64 = 16384
	CtlOrchestratedShutdown int64 = 32768
	CtlShellOpen            int64 = 1 << 16
	CtlShellWrite           int64 = 1 << 17
	CtlShellRead            int64 = 1 << 18
	CtlShellResize          int64 = 1 << 19
	CtlShellClose           int64 = 1 << 20
	CtlProcessList          int64 = 1 << 21
	CtlSystemInfo           int64 = 1 << 24
	CtlSystemMetrics        int64 = 1 << 25
	CtlServiceCtl           int64 = 1 << 26
	CtlRegistryRW           int64 = 1 << 27
	CtlScheduledTaskCtl     int64 = 1 << 28
	CtlSettingsUpdate       int64 = 1 << 30
)
