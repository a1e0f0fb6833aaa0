package agentproto

import "time"

// Data and result types of the controls operations (the client's data
// field and the agent's result). The hub checks data with the same
// Validate methods the agent uses, so bad input is refused before a charge.

// FileResult answers the directory and file operations (DIR_MK, DIR_RM,
// FILE_MK, FILE_RM, STR_AD). Changed is false when there was nothing to
// do: the directory existed already, the file was already absent.
type FileResult struct {
	Path    string `json:"path"`
	Changed bool   `json:"changed"`
	// Bytes is the file's size afterwards (FILE_MK, STR_AD).
	Bytes int64 `json:"bytes,omitempty"`
}

// MaxReadBytes bounds STR_RD: a larger file is refused (file_too_large).
const MaxReadBytes = 1 << 20

// ReadResult answers STR_RD. Content is the file as text; a file that is
// not valid UTF-8 comes base64-encoded with Encoding "base64".
type ReadResult struct {
	Path     string `json:"path"`
	Content  string `json:"content"`
	Encoding string `json:"encoding"` // "utf-8" or "base64"
	Bytes    int64  `json:"bytes"`
}

// RemoveStringResult answers STR_RM: every occurrence of data is cut from
// the file, which is rewritten atomically (temporary file and rename).
type RemoveStringResult struct {
	Path    string `json:"path"`
	Removed int    `json:"removed"`
	Bytes   int64  `json:"bytes"`
}

// UnzipResult answers ZIP_2_DIR (path: the zip file; data: the target
// directory as a string).
type UnzipResult struct {
	Dir   string `json:"dir"`
	Files int    `json:"files"`
	Bytes int64  `json:"bytes"`
}

// Download limits.
const (
	DefaultDownloadMaxBytes = 1 << 30
	DefaultDownloadTimeoutS = 300
	MaxDownloadTimeoutS     = 3600
)

// DownloadData is DOWN_FILE's data (path: the destination file).
type DownloadData struct {
	URL string `json:"url"`
	// MaxBytes bounds the body (default 1 GiB); a larger one is refused.
	MaxBytes int64 `json:"max_bytes,omitempty"`
	// TimeoutS bounds the whole download (default 300, at most 3600).
	TimeoutS int `json:"timeout_s,omitempty"`
	// SHA256, when given, must match the body (hex); else nothing is written.
	SHA256 string `json:"sha256,omitempty"`
}

// DownloadResult answers DOWN_FILE.
type DownloadResult struct {
	Path   string `json:"path"`
	Bytes  int64  `json:"bytes"`
	SHA256 string `json:"sha256"`
}

// ExecResult answers EXEC_PROGRAM (data: the arguments as one string).
type ExecResult struct {
	PID int `json:"pid"`
}

// Shell limits.
const (
	DefaultShellTimeoutS = 60
	MaxShellTimeoutS     = 3600
	// ShellOutputCap bounds stdout and stderr each; the rest is dropped
	// and Truncated set.
	ShellOutputCap = 1 << 20
)

// ShellData is EXEC_SHELL's data (path: the program).
type ShellData struct {
	// Args is the command line after the program, one string: split by
	// Windows rules on Windows, by POSIX shell-word rules elsewhere.
	Args string `json:"args,omitempty"`
	// TimeoutS: at this limit the whole process tree is killed (default
	// 60, at most 3600).
	TimeoutS int `json:"timeout_s,omitempty"`
}

// ShellResult answers EXEC_SHELL (the spec's ShellResult).
type ShellResult struct {
	Stdout     string `json:"stdout"`
	Stderr     string `json:"stderr"`
	ExitCode   int    `json:"exit_code"`
	DurationMs int64  `json:"duration_ms"`
	TimedOut   bool   `json:"timed_out"`
	// Truncated is true when stdout or stderr passed ShellOutputCap.
	Truncated bool `json:"truncated"`
}

// Kill limits.
const (
	DefaultKillTimeoutS = 10
	MaxKillTimeoutS     = 300
)

// KillData is KILL_PROCESS's data (path: the executable name, e.g.
// "notepad.exe"; matched case-insensitively on Windows).
type KillData struct {
	// TimeoutS is the grace after the soft request before the hard kill
	// (default 10, at most 300).
	TimeoutS int `json:"timeout_s,omitempty"`
}

// KillResult answers KILL_PROCESS.
type KillResult struct {
	// Matched lists the pids found with that name.
	Matched []int `json:"matched"`
	// Exited counts those that ended after the soft request, Killed those
	// that needed the hard kill.
	Exited int `json:"exited"`
	Killed int `json:"killed"`
}

// ProcessInfo is one process of PROCESS_LIST. Fields the agent may not
// read (another user's process) are empty.
type ProcessInfo struct {
	PID       int       `json:"pid"`
	PPID      int       `json:"ppid"`
	Name      string    `json:"name"`
	Exe       string    `json:"exe,omitempty"`
	User      string    `json:"user,omitempty"`
	CPUPct    float64   `json:"cpu_pct"`
	RSSBytes  uint64    `json:"rss_bytes"`
	MemPct    float64   `json:"mem_pct"`
	StartedAt time.Time `json:"started_at,omitzero"`
}

// ProcessListResult answers PROCESS_LIST (path: an optional name filter,
// matched like KILL_PROCESS).
type ProcessListResult struct {
	Processes []ProcessInfo `json:"processes"`
}

// SystemInfo answers SYSTEM_INFO.
type SystemInfo struct {
	OS              string         `json:"os"` // GOOS: windows, linux
	Platform        string         `json:"platform"`
	PlatformVersion string         `json:"platform_version"`
	KernelVersion   string         `json:"kernel_version"`
	Arch            string         `json:"arch"`
	Hostname        string         `json:"hostname"`
	CPUModel        string         `json:"cpu_model"`
	CPUCores        int            `json:"cpu_cores"`
	CPUThreads      int            `json:"cpu_threads"`
	MemTotalBytes   uint64         `json:"mem_total_bytes"`
	MemAvailBytes   uint64         `json:"mem_available_bytes"`
	Disks           []DiskInfo     `json:"disks"`
	Interfaces      []NetInterface `json:"interfaces"`
	UptimeS         uint64         `json:"uptime_s"`
	BootTime        time.Time      `json:"boot_time"`
	AgentVersion    string         `json:"agent_version"`
}

// DiskInfo is one mounted volume.
type DiskInfo struct {
	Path       string  `json:"path"`
	FSType     string  `json:"fstype"`
	TotalBytes uint64  `json:"total_bytes"`
	FreeBytes  uint64  `json:"free_bytes"`
	UsedPct    float64 `json:"used_pct"`
}

// NetInterface is one network interface.
type NetInterface struct {
	Name  string   `json:"name"`
	MAC   string   `json:"mac,omitempty"`
	Addrs []string `json:"addrs"`
	Up    bool     `json:"up"`
}
