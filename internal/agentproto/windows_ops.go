package agentproto

import (
	"slices"
	"strings"
)

// Windows-only operations: service control (SERVICE_CTL), registry
// (REGISTRY_RW) and scheduled tasks (SCHEDULED_TASK_CTL). Elsewhere the
// agent answers CodeUnsupportedOS.

// Service actions.
const (
	ServiceList         = "list"
	ServiceQuery        = "query"
	ServiceStart        = "start"
	ServiceStop         = "stop"
	ServiceRestart      = "restart"
	ServiceSetStartType = "set_start_type"
	ServiceCreate       = "create"
	ServiceDelete       = "delete"
)

// Service limits: timeout_s bounds waiting for start, stop and restart to
// settle.
const (
	DefaultServiceTimeoutS = 30
	MaxServiceTimeoutS     = 300
)

// Service start types.
var ServiceStartTypes = []string{"auto", "delayed_auto", "manual", "disabled"}

// ServiceData is SERVICE_CTL's data; path is the service name (unused by
// list).
type ServiceData struct {
	Action string `json:"action"`
	// StartType for set_start_type and create.
	StartType string `json:"start_type,omitempty"`
	// DisplayName, BinaryPath (the executable), Args and Description for
	// create.
	DisplayName string `json:"display_name,omitempty"`
	BinaryPath  string `json:"binary_path,omitempty"`
	Args        string `json:"args,omitempty"`
	Description string `json:"description,omitempty"`
	// TimeoutS bounds waiting for start, stop and restart to settle
	// (default 30, at most 300).
	TimeoutS int `json:"timeout_s,omitempty"`
}

// Validate checks the action and the fields it needs.
func (d ServiceData) Validate(path string) error {
	switch d.Action {
	case ServiceList:
		return nil
	case ServiceQuery, ServiceStart, ServiceStop, ServiceRestart, ServiceDelete:
	case ServiceSetStartType:
		if !slices.Contains(ServiceStartTypes, d.StartType) {
			return ArgsError("start_type must be one of %s", strings.Join(ServiceStartTypes, ", "))
		}
	case ServiceCreate:
		if d.BinaryPath == "" {
			return ArgsError("create needs binary_path")
		}
		if d.StartType != "" && !slices.Contains(ServiceStartTypes, d.StartType) {
			return ArgsError("start_type must be one of %s", strings.Join(ServiceStartTypes, ", "))
		}
	default:
		return ArgsError("action must be one of list, query, start, stop, restart, set_start_type, create, delete")
	}
	if path == "" {
		return ArgsError("path (the service name) is required for %s", d.Action)
	}
	if d.TimeoutS < 0 || d.TimeoutS > MaxServiceTimeoutS {
		return ArgsError("timeout_s must be 0..%d", MaxServiceTimeoutS)
	}
	return nil
}

// ServiceStatus describes one service.
type ServiceStatus struct {
	Name        string `json:"name"`
	DisplayName string `json:"display_name,omitempty"`
	// State: stopped, start_pending, stop_pending, running,
	// continue_pending, pause_pending, paused.
	State      string `json:"state"`
	StartType  string `json:"start_type,omitempty"`
	PID        int    `json:"pid,omitempty"`
	BinaryPath string `json:"binary_path,omitempty"`
}

// ServiceResult answers SERVICE_CTL: Services for list, Service for the
// other actions (delete reports the state before deletion).
type ServiceResult struct {
	Services []ServiceStatus `json:"services,omitempty"`
	Service  *ServiceStatus  `json:"service,omitempty"`
}

// Registry actions.
const (
	RegistryRead        = "read"
	RegistryWrite       = "write"
	RegistryDeleteValue = "delete_value"
	RegistryList        = "list"
	RegistryCreateKey   = "create_key"
	RegistryDeleteKey   = "delete_key"
)

// Registry value types.
var RegistryTypes = []string{"sz", "expand_sz", "multi_sz", "dword", "qword", "binary"}

// RegistryHives are the accepted roots of a registry path.
var RegistryHives = []string{"HKLM", "HKCU", "HKCR", "HKU", "HKCC"}

// RegistryData is REGISTRY_RW's data; path is the key,
// "<hive>\<subkey>", with the hive short (HKLM) or long
// (HKEY_LOCAL_MACHINE).
type RegistryData struct {
	Action string `json:"action"`
	// Name is the value name (read, write, delete_value); "" is the
	// key's default value.
	Name string `json:"name,omitempty"`
	// Type and Value for write. Value is a string (sz, expand_sz), a list
	// of strings (multi_sz), a number (dword, qword) or base64 (binary).
	Type  string `json:"type,omitempty"`
	Value any    `json:"value,omitempty"`
	// Recursive lets delete_key remove a key that has subkeys.
	Recursive bool `json:"recursive,omitempty"`
}

// Validate checks the action, the hive and the value's shape.
func (d RegistryData) Validate(path string) error {
	switch d.Action {
	case RegistryRead, RegistryDeleteValue, RegistryList, RegistryCreateKey, RegistryDeleteKey:
	case RegistryWrite:
		if !slices.Contains(RegistryTypes, d.Type) {
			return ArgsError("type must be one of %s", strings.Join(RegistryTypes, ", "))
		}
		if d.Value == nil {
			return ArgsError("write needs value")
		}
	default:
		return ArgsError("action must be one of read, write, delete_value, list, create_key, delete_key")
	}
	hive, sub, _ := strings.Cut(path, `\`)
	if _, ok := RegistryHive(hive); !ok {
		return ArgsError("path must start with a hive: %s", strings.Join(RegistryHives, ", "))
	}
	if (d.Action == RegistryDeleteKey || d.Action == RegistryCreateKey) && strings.Trim(sub, `\`) == "" {
		return ArgsError("%s needs a subkey below the hive", d.Action)
	}
	return nil
}

// RegistryHive maps a hive name, short or long, to its short form.
func RegistryHive(name string) (string, bool) {
	switch strings.ToUpper(name) {
	case "HKLM", "HKEY_LOCAL_MACHINE":
		return "HKLM", true
	case "HKCU", "HKEY_CURRENT_USER":
		return "HKCU", true
	case "HKCR", "HKEY_CLASSES_ROOT":
		return "HKCR", true
	case "HKU", "HKEY_USERS":
		return "HKU", true
	case "HKCC", "HKEY_CURRENT_CONFIG":
		return "HKCC", true
	}
	return "", false
}

// RegistryValue is one value: read returns it with Value set, list
// without.
type RegistryValue struct {
	Name  string `json:"name"`
	Type  string `json:"type"`
	Value any    `json:"value,omitempty"`
}

// RegistryResult answers REGISTRY_RW: Value for read; Subkeys and Values
// for list; Changed for the writes (false: nothing to delete, or the key
// existed).
type RegistryResult struct {
	Value   *RegistryValue  `json:"value,omitempty"`
	Subkeys []string        `json:"subkeys,omitempty"`
	Values  []RegistryValue `json:"values,omitempty"`
	Changed bool            `json:"changed,omitempty"`
}

// Scheduled-task actions.
const (
	TaskList    = "list"
	TaskQuery   = "query"
	TaskCreate  = "create"
	TaskRun     = "run"
	TaskEnd     = "end"
	TaskEnable  = "enable"
	TaskDisable = "disable"
	TaskDelete  = "delete"
)

// TaskData is SCHEDULED_TASK_CTL's data; path is the task name, e.g.
// `\hostgate\backup` (unused by list).
type TaskData struct {
	Action string `json:"action"`
	// XML is the Task Scheduler definition for create (replacing a task
	// of that name).
	XML string `json:"xml,omitempty"`
}

// Validate checks the action and the fields it needs.
func (d TaskData) Validate(path string) error {
	switch d.Action {
	case TaskList:
		return nil
	case TaskQuery, TaskRun, TaskEnd, TaskEnable, TaskDisable, TaskDelete:
	case TaskCreate:
		if strings.TrimSpace(d.XML) == "" {
			return ArgsError("create needs xml")
		}
	default:
		return ArgsError("action must be one of list, query, create, run, end, enable, disable, delete")
	}
	if path == "" {
		return ArgsError("path (the task name) is required for %s", d.Action)
	}
	return nil
}

// TaskInfo describes one scheduled task.
type TaskInfo struct {
	Name    string `json:"name"`
	Enabled bool   `json:"enabled"`
	// State is "disabled" or "unknown": schtasks' language-independent
	// XML output carries the definition, not the run state or run times.
	State string `json:"state,omitempty"`
	// XML is the definition (query only).
	XML string `json:"xml,omitempty"`
}

// TaskResult answers SCHEDULED_TASK_CTL: Tasks for list, Task for query
// and the changes.
type TaskResult struct {
	Tasks []TaskInfo `json:"tasks,omitempty"`
	Task  *TaskInfo  `json:"task,omitempty"`
}
