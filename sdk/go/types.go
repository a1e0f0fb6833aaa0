package hostgate

import "time"

// FileResult answers the directory and file writes. Changed is false when
// there was nothing to do.
type FileResult struct {
	Path    string `json:"path"`
	Changed bool   `json:"changed"`
	Bytes   int64  `json:"bytes,omitempty"`
}

// ReadResult answers ReadString; Encoding is "utf-8" or "base64".
type ReadResult struct {
	Path     string `json:"path"`
	Content  string `json:"content"`
	Encoding string `json:"encoding"`
	Bytes    int64  `json:"bytes"`
}

// RemoveStringResult answers RemoveString.
type RemoveStringResult struct {
	Path    string `json:"path"`
	Removed int    `json:"removed"`
	Bytes   int64  `json:"bytes"`
}

// UnzipResult answers Unzip.
type UnzipResult struct {
	Dir   string `json:"dir"`
	Files int    `json:"files"`
	Bytes int64  `json:"bytes"`
}

// DownloadOptions are Download's data: the URL and optional limits.
type DownloadOptions struct {
	URL      string `json:"url"`
	MaxBytes int64  `json:"max_bytes,omitempty"`
	TimeoutS int    `json:"timeout_s,omitempty"`
	SHA256   string `json:"sha256,omitempty"`
}

// DownloadResult answers Download.
type DownloadResult struct {
	Path   string `json:"path"`
	Bytes  int64  `json:"bytes"`
	SHA256 string `json:"sha256"`
}

// ShellResult answers Shell.
type ShellResult struct {
	Stdout     string `json:"stdout"`
	Stderr     string `json:"stderr"`
	ExitCode   int    `json:"exit_code"`
	DurationMs int64  `json:"duration_ms"`
	TimedOut   bool   `json:"timed_out"`
	Truncated  bool   `json:"truncated"`
}

// KillResult answers Kill.
type KillResult struct {
	Matched []int `json:"matched"`
	Exited  int   `json:"exited"`
	Killed  int   `json:"killed"`
}

// Process is one entry of ListProcesses.
type Process struct {
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

// SystemInfo answers SystemInfo.
type SystemInfo struct {
	OS              string `json:"os"`
	Platform        string `json:"platform"`
	PlatformVersion string `json:"platform_version"`
	KernelVersion   string `json:"kernel_version"`
	Arch            string `json:"arch"`
	Hostname        string `json:"hostname"`
	CPUModel        string `json:"cpu_model"`
	CPUCores        int    `json:"cpu_cores"`
	CPUThreads      int    `json:"cpu_threads"`
	MemTotalBytes   uint64 `json:"mem_total_bytes"`
	MemAvailBytes   uint64 `json:"mem_available_bytes"`
	Disks           []struct {
		Path       string  `json:"path"`
		FSType     string  `json:"fstype"`
		TotalBytes uint64  `json:"total_bytes"`
		FreeBytes  uint64  `json:"free_bytes"`
		UsedPct    float64 `json:"used_pct"`
	} `json:"disks"`
	Interfaces []struct {
		Name  string   `json:"name"`
		MAC   string   `json:"mac,omitempty"`
		Addrs []string `json:"addrs"`
		Up    bool     `json:"up"`
	} `json:"interfaces"`
	UptimeS      uint64    `json:"uptime_s"`
	BootTime     time.Time `json:"boot_time"`
	AgentVersion string    `json:"agent_version"`
}

// Metrics is the spec's MetricsResult.
type Metrics struct {
	CPUPct   float64 `json:"cpu_pct"`
	MemPct   float64 `json:"mem_pct"`
	DiskPct  float64 `json:"disk_pct"`
	NetRxBps float64 `json:"net_rx_bps"`
	NetTxBps float64 `json:"net_tx_bps"`
	TCPConns int64   `json:"tcp_conns"`
	UptimeS  int64   `json:"uptime_s"`
}

// ServiceRequest is the data of ServiceCtl (Windows hosts).
type ServiceRequest struct {
	Action      string `json:"action"`
	StartType   string `json:"start_type,omitempty"`
	DisplayName string `json:"display_name,omitempty"`
	BinaryPath  string `json:"binary_path,omitempty"`
	Args        string `json:"args,omitempty"`
	Description string `json:"description,omitempty"`
	TimeoutS    int    `json:"timeout_s,omitempty"`
}

// ServiceStatus describes one Windows service.
type ServiceStatus struct {
	Name        string `json:"name"`
	DisplayName string `json:"display_name,omitempty"`
	State       string `json:"state"`
	StartType   string `json:"start_type,omitempty"`
	PID         int    `json:"pid,omitempty"`
	BinaryPath  string `json:"binary_path,omitempty"`
}

// ServiceResult answers ServiceCtl: Services for list, Service otherwise.
type ServiceResult struct {
	Services []ServiceStatus `json:"services,omitempty"`
	Service  *ServiceStatus  `json:"service,omitempty"`
}

// RegistryRequest is the data of Registry (Windows hosts).
type RegistryRequest struct {
	Action    string `json:"action"`
	Name      string `json:"name,omitempty"`
	Type      string `json:"type,omitempty"`
	Value     any    `json:"value,omitempty"`
	Recursive bool   `json:"recursive,omitempty"`
}

// RegistryValue is one registry value.
type RegistryValue struct {
	Name  string `json:"name"`
	Type  string `json:"type"`
	Value any    `json:"value,omitempty"`
}

// RegistryResult answers Registry.
type RegistryResult struct {
	Value   *RegistryValue  `json:"value,omitempty"`
	Subkeys []string        `json:"subkeys,omitempty"`
	Values  []RegistryValue `json:"values,omitempty"`
	Changed bool            `json:"changed,omitempty"`
}

// TaskRequest is the data of ScheduledTask (Windows hosts).
type TaskRequest struct {
	Action string `json:"action"`
	XML    string `json:"xml,omitempty"`
}

// TaskInfo describes one scheduled task.
type TaskInfo struct {
	Name    string `json:"name"`
	Enabled bool   `json:"enabled"`
	State   string `json:"state,omitempty"`
	XML     string `json:"xml,omitempty"`
}

// TaskResult answers ScheduledTask.
type TaskResult struct {
	Tasks []TaskInfo `json:"tasks,omitempty"`
	Task  *TaskInfo  `json:"task,omitempty"`
}
