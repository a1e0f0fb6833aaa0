package agentproto

import (
	"path/filepath"
	"strings"
	"time"
	"unicode"
)

// Game-engine orchestration: ORCHESTRATED_START (16384, op
// "orchestrate.start") and ORCHESTRATED_SHUTDOWN (32768, op
// "orchestrate.shutdown"). The command's path is the client's base_path,
// its data the body below. docs/orchestration.md describes both.

// Orchestration limits (spec section 8).
const (
	DefaultControllerExe   = "GameCenter.exe"
	DefaultSpawnDelayMs    = 3000
	MaxSpawnDelayMs        = 60_000
	DefaultRunGateCount    = 1
	MaxRunGateCount        = 16
	MaxTimeoutOverrideS    = 600
	MaxOrchestrateSettings = 64
)

// Kinds of child process, which name their stage-2 waits (spec section
// 8).
const (
	KindDatabase = "database"
	KindLogin    = "login"
	KindLog      = "log"
	KindMain     = "main"
	KindGate     = "gate"
)

// KindWaits are the stage-2 waits of the kinds: how long a child has to
// exit after the quit message.
var KindWaits = map[string]time.Duration{
	KindDatabase: 60 * time.Second,
	KindLogin:    30 * time.Second,
	KindLog:      30 * time.Second,
	KindMain:     60 * time.Second,
	KindGate:     20 * time.Second,
}

// The agent's shutdown waits after stage 2 for each child; a request's
// timeout_override_s replaces the stage-2 wait and OrchestrateCloseWait.
const (
	// OrchestrateCloseWait is stage 3's: how long a child has to exit
	// after its window is closed.
	OrchestrateCloseWait = 5 * time.Second
	// OrchestrateSettle bounds the wait for a killed process to be gone.
	OrchestrateSettle = 5 * time.Second
)

// FamilyChild is one child of the default (GameCenter) family: its
// Config.ini section, its executable relative to the game directory
// ('/'-separated), its kind, and whether it starts run_gate_count times.
type FamilyChild struct {
	Section, Exe, Kind string
	PerRunGate         bool
}

// count is how many instances of c start with run_gate_count n.
func (c FamilyChild) count(runGates int) int {
	if c.PerRunGate {
		return runGates
	}
	return 1
}

// DefaultFamily is the GameCenter family in start order (issue 18's
// table): the agent's default manifest, and what the hub's wait for an
// orchestration derives from.
var DefaultFamily = []FamilyChild{
	{Section: "DBServer", Exe: "DBServer/DBServer.exe", Kind: KindDatabase},
	{Section: "LoginSrv", Exe: "LoginSrv/LoginSrv.exe", Kind: KindLogin},
	{Section: "LogServer", Exe: "LogServer/LogDataServer.exe", Kind: KindLog},
	{Section: "M2Server", Exe: "Mir200/M2Server.exe", Kind: KindMain},
	{Section: "RunGate", Exe: "RunGate/RunGate.exe", Kind: KindGate, PerRunGate: true},
	{Section: "SelGate", Exe: "SelGate/SelGate.exe", Kind: KindGate},
	{Section: "LoginGate", Exe: "LoginGate/LoginGate.exe", Kind: KindGate},
}

// DefaultFamilyChildren is how many children of the default family start
// with run_gate_count runGates (22 at MaxRunGateCount).
func DefaultFamilyChildren(runGates int) int {
	n := 0
	for _, c := range DefaultFamily {
		n += c.count(runGates)
	}
	return n
}

// OrchestrateStartData is ORCHESTRATED_START's data. Pointers tell an
// absent field (its default) from a zero one, which may be invalid
// (run_gate_count 0) or meaningful (spawn_delay_ms 0).
type OrchestrateStartData struct {
	// ControllerExe is the controller's file name in the game directory
	// (default GameCenter.exe).
	ControllerExe string `json:"controller_exe,omitempty"`
	// ResolveGameDir searches up to three levels below base_path for the
	// directory holding the controller.
	ResolveGameDir bool `json:"resolve_game_dir,omitempty"`
	// SpawnSubprocesses starts the manifest's children after the
	// controller; without it only the controller starts.
	SpawnSubprocesses bool `json:"spawn_subprocesses,omitempty"`
	// SpawnDelayMs is the gap before each child (default 3000).
	SpawnDelayMs *int `json:"spawn_delay_ms,omitempty"`
	// Enabled overrides sections' GetStart flags; written to Config.ini.
	Enabled map[string]bool `json:"enabled,omitempty"`
	// RunGateCount is how many RunGate instances start (1..16, default 1).
	RunGateCount *int `json:"run_gate_count,omitempty"`
	// Ports sets integer values of Config.ini: "Section.Key" → 1..65535.
	Ports map[string]int `json:"ports,omitempty"`
}

// Controller is the controller's file name, defaulted.
func (d OrchestrateStartData) Controller() string { return controllerOrDefault(d.ControllerExe) }

// SpawnDelay is spawn_delay_ms, defaulted.
func (d OrchestrateStartData) SpawnDelay() int {
	if d.SpawnDelayMs == nil {
		return DefaultSpawnDelayMs
	}
	return *d.SpawnDelayMs
}

// RunGates is run_gate_count, defaulted.
func (d OrchestrateStartData) RunGates() int {
	if d.RunGateCount == nil {
		return DefaultRunGateCount
	}
	return *d.RunGateCount
}

// Validate checks every field's range and form; path is base_path.
func (d OrchestrateStartData) Validate(path string) error {
	if err := validateBasePath(path); err != nil {
		return err
	}
	if err := ValidateControllerExe(d.ControllerExe); err != nil {
		return err
	}
	if d.SpawnDelayMs != nil && (*d.SpawnDelayMs < 0 || *d.SpawnDelayMs > MaxSpawnDelayMs) {
		return ArgsError("spawn_delay_ms must be 0..%d", MaxSpawnDelayMs)
	}
	if d.RunGateCount != nil && (*d.RunGateCount < 1 || *d.RunGateCount > MaxRunGateCount) {
		return ArgsError("run_gate_count must be 1..%d", MaxRunGateCount)
	}
	if len(d.Enabled) > MaxOrchestrateSettings || len(d.Ports) > MaxOrchestrateSettings {
		return ArgsError("enabled and ports take at most %d entries each", MaxOrchestrateSettings)
	}
	for s := range d.Enabled {
		if err := ValidateININame("enabled section", s); err != nil {
			return err
		}
	}
	for k, port := range d.Ports {
		if _, _, err := SplitPortKey(k); err != nil {
			return err
		}
		if port < 1 || port > 65535 {
			return ArgsError("ports[%q] must be 1..65535, got %d", k, port)
		}
	}
	return nil
}

// SplitPortKey splits a ports key "Section.Key" at its last dot (so a
// section name may hold dots) and checks both names.
func SplitPortKey(k string) (section, key string, err error) {
	i := strings.LastIndexByte(k, '.')
	if i < 0 {
		return "", "", ArgsError("ports key %q must be Section.Key", k)
	}
	section, key = k[:i], k[i+1:]
	if err := ValidateININame("ports section", section); err != nil {
		return "", "", err
	}
	if err := ValidateININame("ports key", key); err != nil {
		return "", "", err
	}
	if strings.ContainsRune(key, '=') {
		return "", "", ArgsError("ports key %q: the key must not contain '='", k)
	}
	return section, key, nil
}

// ValidateININame checks a section or key name an INI file can hold on
// one line and find again: not empty, at most 64 characters, no control
// characters, brackets, '=', or comment marker, no surrounding spaces.
func ValidateININame(what, s string) error {
	switch {
	case s == "" || len(s) > 64:
		return ArgsError("%s %q must be 1..64 bytes", what, s)
	case strings.TrimSpace(s) != s:
		return ArgsError("%s %q must not start or end with a space", what, s)
	case strings.ContainsAny(s, "[]=;#"):
		return ArgsError("%s %q must not contain [ ] = ; or #", what, s)
	case strings.ContainsFunc(s, unicode.IsControl):
		return ArgsError("%s %q must not contain control characters", what, s)
	}
	return nil
}

// ValidateControllerExe checks controller_exe: "" (the default) or a
// plain file name, never a path.
func ValidateControllerExe(name string) error {
	if name == "" {
		return nil
	}
	if len(name) > 255 || strings.ContainsAny(name, `/\:`) || name == "." || name == ".." ||
		strings.ContainsFunc(name, unicode.IsControl) || strings.TrimSpace(name) != name {
		return ArgsError("controller_exe must be a plain file name, got %q", name)
	}
	return nil
}

func controllerOrDefault(name string) string {
	if name == "" {
		return DefaultControllerExe
	}
	return name
}

// validateBasePath checks base_path: required, absolute (on the host's
// own terms, checked again by the agent), no NUL byte.
func validateBasePath(p string) error {
	if p == "" {
		return ArgsError("base_path is required")
	}
	if strings.IndexByte(p, 0) >= 0 {
		return ArgsError("base_path must not contain a NUL byte")
	}
	// The hub cannot know the host's OS: a Windows drive path or a Unix
	// absolute path both pass here.
	if !filepath.IsAbs(p) && !isWindowsAbs(p) && !strings.HasPrefix(p, "/") {
		return ArgsError("base_path must be an absolute path, got %q", p)
	}
	return nil
}

func isWindowsAbs(p string) bool {
	if strings.HasPrefix(p, `\\`) {
		return true
	}
	return len(p) >= 3 && p[1] == ':' && (p[2] == '\\' || p[2] == '/') &&
		(p[0]|0x20 >= 'a' && p[0]|0x20 <= 'z')
}

// OrchestrateShutdownData is ORCHESTRATED_SHUTDOWN's data.
type OrchestrateShutdownData struct {
	ControllerExe  string `json:"controller_exe,omitempty"`
	ResolveGameDir bool   `json:"resolve_game_dir,omitempty"`
	// TimeoutOverrideS replaces every wait of stages 2 and 3 (0..600).
	TimeoutOverrideS *int `json:"timeout_override_s,omitempty"`
}

// Controller is the controller's file name, defaulted.
func (d OrchestrateShutdownData) Controller() string { return controllerOrDefault(d.ControllerExe) }

// Validate checks the fields; path is base_path.
func (d OrchestrateShutdownData) Validate(path string) error {
	if err := validateBasePath(path); err != nil {
		return err
	}
	if err := ValidateControllerExe(d.ControllerExe); err != nil {
		return err
	}
	if t := d.TimeoutOverrideS; t != nil && (*t < 0 || *t > MaxTimeoutOverrideS) {
		return ArgsError("timeout_override_s must be 0..%d", MaxTimeoutOverrideS)
	}
	return nil
}

// OrchestrateStartResult answers ORCHESTRATED_START.
type OrchestrateStartResult struct {
	GameDir    string               `json:"game_dir"`
	Controller OrchestrateProcess   `json:"controller"`
	Started    []OrchestrateStarted `json:"started"`
	Skipped    []OrchestrateSkipped `json:"skipped"`
	// ConfigChanged lists the Config.ini keys ("Section.Key") whose value
	// the start changed or added, sorted.
	ConfigChanged []string `json:"config_changed"`
}

// OrchestrateProcess is the controller as started: its executable's full
// path and pid.
type OrchestrateProcess struct {
	Exe string `json:"exe"`
	PID int    `json:"pid"`
}

// OrchestrateStarted is one child started. Instance is the 1-based
// instance number of a section started several times (RunGate).
type OrchestrateStarted struct {
	Section  string `json:"section"`
	Exe      string `json:"exe"`
	PID      int    `json:"pid"`
	Instance int    `json:"instance,omitempty"`
}

// Reasons a section was not started.
const (
	SkipMissing  = "missing"  // its executable does not exist
	SkipDisabled = "disabled" // GetStart=0, or enabled false
)

// OrchestrateSkipped is one section not started and why.
type OrchestrateSkipped struct {
	Section string `json:"section"`
	Reason  string `json:"reason"`
}

// OrchestrateShutdownResult answers ORCHESTRATED_SHUTDOWN.
type OrchestrateShutdownResult struct {
	GameDir    string               `json:"game_dir"`
	Controller OrchestrateKilled    `json:"controller"`
	Stopped    []OrchestrateStopped `json:"stopped"`
}

// OrchestrateKilled is stage 1: the controller's pid (0 when it was not
// running) and whether it was killed.
type OrchestrateKilled struct {
	PID    int  `json:"pid"`
	Killed bool `json:"killed"`
}

// Shutdown stages a child was stopped at.
const (
	StageQuit       = "quit"        // exited after the quit message
	StageClose      = "close"       // exited after the window close
	StageKill       = "kill"        // forcibly terminated
	StageNotRunning = "not_running" // no process of it was running
)

// OrchestrateStopped is one child stopped (pid 0 for not_running).
type OrchestrateStopped struct {
	Section string `json:"section"`
	Exe     string `json:"exe"`
	PID     int    `json:"pid"`
	Stage   string `json:"stage"`
}
