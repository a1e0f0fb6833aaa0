/**
 * Controls values of the operations, as the hub's protocol table defines them
 * (docs/operations.md): the sixteen legacy bit flags, then the newer
 * operations. Identical to the Go SDK's `sdk/go/controls.go` (a test compares
 * them). `client.raw` sends any of them.
 */
export const controls = Object.freeze({
  CtlDirMk: 1,
  CtlDirRm: 2,
  CtlFileMk: 4,
  CtlFileRm: 8,
  CtlStrAd: 16,
  CtlStrRd: 32,
  CtlStrRm: 64,
  CtlZipToDir: 128,
  CtlDownFile: 256,
  CtlUploadFile: 512,
  CtlExecProgram: 1024,
  CtlChangeWatchDir: 2048,
  CtlKillProcess: 4096,
  CtlExecShell: 8192,
  CtlOrchestratedStart: 16384,
  CtlOrchestratedShutdown: 32768,
  CtlShellOpen: 1 << 16,
  CtlShellWrite: 1 << 17,
  CtlShellRead: 1 << 18,
  CtlShellResize: 1 << 19,
  CtlShellClose: 1 << 20,
  CtlProcessList: 1 << 21,
  CtlSystemInfo: 1 << 24,
  CtlSystemMetrics: 1 << 25,
  CtlServiceCtl: 1 << 26,
  CtlRegistryRW: 1 << 27,
  CtlScheduledTaskCtl: 1 << 28,
  CtlSettingsUpdate: 1 << 30,
} as const);

export type ControlName = keyof typeof controls;
