// Package jobs runs one operation across many of a user's hosts: a job is
// created from a request (validated like a single-host controls/raw call),
// resolved to hosts, and driven by one hub instance at a time under a lease
// in the store. Each host's run is claimed queued→running in a unit of work
// that also charges it, before anything is sent, so a run is sent at most
// once and charged exactly once when it runs (docs/jobs.md).
//
// The rules (request validation, waves, the failure threshold, state
// transitions and the job's counters, output excerpts) are Go here; the
// store only stores and makes the conditional updates the rules ask for.
package jobs

import (
	"encoding/json"
	"time"

	"hostgate/internal/billing"
	"hostgate/internal/deliveries"
	"hostgate/internal/dispatch"
)

// Error codes of the jobs API.
const (
	CodeEmptyTarget = "empty_target"
	CodeJobFinished = "job_finished"
	// CodeWebhookSecretMissing: notify_url without a webhook secret, the
	// code the secrets themselves answer.
	CodeWebhookSecretMissing = deliveries.CodeWebhookSecretMissing
)

// Run error codes the jobs add to the single-host call's codes.
const (
	ErrNonzeroExit       = "nonzero_exit"
	ErrInterrupted       = "interrupted"
	ErrExpired           = "expired"
	ErrJobStopped        = "job_stopped"
	ErrJobCanceled       = "job_canceled"
	ErrHostOffline       = "host_offline"
	ErrHostBanned        = "host_banned"
	ErrHostDeleted       = "host_deleted"
	ErrInsufficient      = billing.CodeInsufficientBalance
	ErrAgentDisconnected = dispatch.CodeAgentDisconnected
)

// JobState is where a job is.
type JobState string

// The job states.
const (
	JobRunning  JobState = "running"
	JobFinished JobState = "finished"
	JobCanceled JobState = "canceled"
)

// RunState is where one host's run is.
type RunState string

// The run states: queued → running → succeeded | failed; queued → skipped
// | expired | canceled.
const (
	RunQueued    RunState = "queued"
	RunRunning   RunState = "running"
	RunSucceeded RunState = "succeeded"
	RunFailed    RunState = "failed"
	RunSkipped   RunState = "skipped"
	RunExpired   RunState = "expired"
	RunCanceled  RunState = "canceled"
)

// Final reports whether a run in state s is over.
func (s RunState) Final() bool { return s != RunQueued && s != RunRunning }

// Stop reasons.
const (
	StopInsufficientBalance = "insufficient_balance"
	StopFailureThreshold    = "failure_threshold"
	StopCanceled            = "canceled"
)

// Offline policies.
const (
	OfflineSkip  = "skip"
	OfflineQueue = "queue"
)

// Target picks the hosts of a job: exactly one of the three is set.
type Target struct {
	HostIDs  []string `json:"host_ids,omitempty"`
	Tags     []string `json:"tags,omitempty"`
	FilterID string   `json:"filter_id,omitempty"`
}

// Operation is the single-host operation a job runs, as controls/raw
// takes it.
type Operation struct {
	Controls int64           `json:"controls"`
	Path     string          `json:"path"`
	Data     json.RawMessage `json:"data,omitempty"`
}

// Waves releases a job's hosts in waves of Size.
type Waves struct {
	Size            int  `json:"size"`
	PauseS          int  `json:"pause_s"`
	StopIfFailedPct *int `json:"stop_if_failed_pct,omitempty"`
}

// Request asks for a job.
type Request struct {
	Name        string
	Target      Target
	Operation   Operation
	Offline     string
	ExpiresInS  int
	Concurrency int
	DryRun      bool
	NotifyURL   string
	Waves       *Waves
}

// Creator is who creates a job and is charged for it: the user, the API
// key (client API; "" from the console) and the schedule (scheduled jobs).
type Creator struct {
	UserID     string
	APIKeyID   string
	ScheduleID string
}

// Totals counts a job's runs by state; kept on the job row.
type Totals struct {
	Queued    int `json:"queued"`
	Running   int `json:"running"`
	Succeeded int `json:"succeeded"`
	Failed    int `json:"failed"`
	Skipped   int `json:"skipped"`
	Expired   int `json:"expired"`
	Canceled  int `json:"canceled"`
}

// Spec is what a job runs and how; stored as JSON on the job row.
type Spec struct {
	Name        string    `json:"name"`
	Target      Target    `json:"-"` // a column of its own: the driver never reads it
	Operation   Operation `json:"operation"`
	Offline     string    `json:"offline"`
	Concurrency int       `json:"concurrency"`
	ExpiresInS  int       `json:"expires_in_s"`
	Waves       *Waves    `json:"waves,omitempty"`
	NotifyURL   string    `json:"notify_url,omitempty"`
	APIKeyID    string    `json:"api_key_id,omitempty"`
	// What the hub sends and charges (operations.Prepare).
	Op        string          `json:"op"`
	Args      json.RawMessage `json:"args"`
	Rule      string          `json:"rule"`
	TimeoutMs int64           `json:"timeout_ms"`
}

// Timeout is the agent's answer wait of each run.
func (s Spec) Timeout() time.Duration { return time.Duration(s.TimeoutMs) * time.Millisecond }

// Job is a job row.
type Job struct {
	ID         string
	Owner      string
	State      JobState
	HostCount  int
	Totals     Totals
	Spec       Spec
	Wave       int
	WaveDoneAt *time.Time // when the current wave ended (its pause runs from then)
	StopReason string
	RetryOf    string
	ScheduleID string
	Charged    billing.Units
	ExpiresAt  time.Time
	CreatedAt  time.Time
	FinishedAt *time.Time
}

// Run is one host's run of a job.
type Run struct {
	ID         string
	JobID      string
	HostID     string
	HostName   string // read with results only
	Seq        int
	Wave       int
	State      RunState
	Waiting    bool // queued for an offline host (offline=queue)
	ClaimedBy  string
	DeadlineAt *time.Time
	ExitCode   *int
	Stdout     string
	Stderr     string
	Truncated  bool
	Error      string
	Message    string
	Charged    billing.Units
	StartedAt  *time.Time
	FinishedAt *time.Time
}

// Output is a run's whole output, kept for a while after the run.
type Output struct {
	RunID     string
	JobID     string
	HostID    string
	ExitCode  *int
	Stdout    string
	Stderr    string
	Result    json.RawMessage
	ExpiresAt time.Time
}

// DryRun is what a job would do.
type DryRun struct {
	HostCount        int      `json:"host_count"`
	HostIDs          []string `json:"host_ids"`
	HostIDsTruncated bool     `json:"host_ids_truncated"`
	MaxCost          float64  `json:"max_cost"`
}
