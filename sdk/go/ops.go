package hostgate

import (
	"context"
	"encoding/json"
	"net/http"
)

// op posts {controls, path, data} to an operation route of a host.
func (c *Client) op(ctx context.Context, hostID, route string, controls int64, path string, data, out any) error {
	body := map[string]any{"controls": controls}
	if path != "" {
		body["path"] = path
	}
	if data != nil {
		body["data"] = data
	}
	return c.do(ctx, http.MethodPost, hostPath(hostID)+"/"+route, body, out)
}

// MakeDir creates the directory path with its parents.
func (c *Client) MakeDir(ctx context.Context, hostID, path string) (FileResult, error) {
	var r FileResult
	return r, c.op(ctx, hostID, "files/dir", CtlDirMk, path, nil, &r)
}

// RemoveDir removes the directory tree at path.
func (c *Client) RemoveDir(ctx context.Context, hostID, path string) (FileResult, error) {
	var r FileResult
	return r, c.op(ctx, hostID, "files/dir", CtlDirRm, path, nil, &r)
}

// CreateFile creates or replaces the file at path with content.
func (c *Client) CreateFile(ctx context.Context, hostID, path, content string) (FileResult, error) {
	var r FileResult
	return r, c.op(ctx, hostID, "files/text", CtlFileMk, path, content, &r)
}

// RemoveFile removes the file at path.
func (c *Client) RemoveFile(ctx context.Context, hostID, path string) (FileResult, error) {
	var r FileResult
	return r, c.op(ctx, hostID, "files/text", CtlFileRm, path, nil, &r)
}

// AppendString appends s to the file at path, creating it if missing.
func (c *Client) AppendString(ctx context.Context, hostID, path, s string) (FileResult, error) {
	var r FileResult
	return r, c.op(ctx, hostID, "files/text", CtlStrAd, path, s, &r)
}

// ReadString reads the file at path (at most 1 MiB).
func (c *Client) ReadString(ctx context.Context, hostID, path string) (ReadResult, error) {
	var r ReadResult
	return r, c.op(ctx, hostID, "files/text", CtlStrRd, path, nil, &r)
}

// RemoveString cuts every occurrence of s from the file at path.
func (c *Client) RemoveString(ctx context.Context, hostID, path, s string) (RemoveStringResult, error) {
	var r RemoveStringResult
	return r, c.op(ctx, hostID, "files/text", CtlStrRm, path, s, &r)
}

// Unzip unpacks the zip file zipPath into the directory dir.
func (c *Client) Unzip(ctx context.Context, hostID, zipPath, dir string) (UnzipResult, error) {
	var r UnzipResult
	return r, c.op(ctx, hostID, "files/zip", CtlZipToDir, zipPath, dir, &r)
}

// Download makes the host download opts.URL to path.
func (c *Client) Download(ctx context.Context, hostID, path string, opts DownloadOptions) (DownloadResult, error) {
	var r DownloadResult
	return r, c.op(ctx, hostID, "files/download", CtlDownFile, path, opts, &r)
}

// Exec starts program with args (one string) and returns its pid at once.
func (c *Client) Exec(ctx context.Context, hostID, program, args string) (int, error) {
	var r struct {
		PID int `json:"pid"`
	}
	var data any
	if args != "" {
		data = args
	}
	return r.PID, c.op(ctx, hostID, "process/exec", CtlExecProgram, program, data, &r)
}

// Shell runs program with args (one string) and waits for it; at
// timeoutS seconds (0: the default, 60) its process tree is killed.
func (c *Client) Shell(ctx context.Context, hostID, program, args string, timeoutS int) (ShellResult, error) {
	var r ShellResult
	data := map[string]any{"args": args}
	if timeoutS > 0 {
		data["timeout_s"] = timeoutS
	}
	return r, c.op(ctx, hostID, "process/shell", CtlExecShell, program, data, &r)
}

// Kill stops the processes of an executable name: soft first, hard after
// timeoutS seconds (0: the default, 10).
func (c *Client) Kill(ctx context.Context, hostID, name string, timeoutS int) (KillResult, error) {
	var r KillResult
	var data any
	if timeoutS > 0 {
		data = map[string]any{"timeout_s": timeoutS}
	}
	return r, c.op(ctx, hostID, "process/kill", CtlKillProcess, name, data, &r)
}

// ListProcesses lists the host's processes, only those of an executable
// name when name is not "".
func (c *Client) ListProcesses(ctx context.Context, hostID, name string) ([]Process, error) {
	var r struct {
		Processes []Process `json:"processes"`
	}
	return r.Processes, c.op(ctx, hostID, "process/list", CtlProcessList, name, nil, &r)
}

// SystemInfo describes the host.
func (c *Client) SystemInfo(ctx context.Context, hostID string) (SystemInfo, error) {
	var r SystemInfo
	return r, c.op(ctx, hostID, "system/info", CtlSystemInfo, "", nil, &r)
}

// Metrics samples the host's load now.
func (c *Client) Metrics(ctx context.Context, hostID string) (Metrics, error) {
	var r Metrics
	return r, c.op(ctx, hostID, "system/metrics", CtlSystemMetrics, "", nil, &r)
}

// ServiceCtl controls a Windows service (name "" for list).
func (c *Client) ServiceCtl(ctx context.Context, hostID, name string, req ServiceRequest) (ServiceResult, error) {
	var r ServiceResult
	return r, c.op(ctx, hostID, "service/ctl", CtlServiceCtl, name, req, &r)
}

// Registry reads or writes the Windows registry key at path
// ("HKLM\\Software\\…").
func (c *Client) Registry(ctx context.Context, hostID, path string, req RegistryRequest) (RegistryResult, error) {
	var r RegistryResult
	return r, c.op(ctx, hostID, "registry/rw", CtlRegistryRW, path, req, &r)
}

// ScheduledTask controls a Windows scheduled task (name "" for list).
func (c *Client) ScheduledTask(ctx context.Context, hostID, name string, req TaskRequest) (TaskResult, error) {
	var r TaskResult
	return r, c.op(ctx, hostID, "scheduled-task/ctl", CtlScheduledTaskCtl, name, req, &r)
}

// Raw sends any operation by its controls value and returns the agent's
// result as it came.
func (c *Client) Raw(ctx context.Context, hostID string, controls int64, path string, data any) (json.RawMessage, error) {
	var r json.RawMessage
	return r, c.op(ctx, hostID, "controls/raw", controls, path, data, &r)
}
