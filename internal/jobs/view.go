package jobs

import (
	"encoding/json"
	"time"
)

// OperationView is a job's operation as the API shows it.
type OperationView struct {
	Controls int64  `json:"controls"`
	Path     string `json:"path"`
	Data     any    `json:"data"`
}

// JobView is the job object of the API (and of the job.finished payload).
type JobView struct {
	ID          string        `json:"id"`
	Name        string        `json:"name"`
	State       string        `json:"state" enum:"running,finished,canceled"`
	HostCount   int           `json:"host_count"`
	Totals      Totals        `json:"totals"`
	Target      Target        `json:"target"`
	Operation   OperationView `json:"operation"`
	Offline     string        `json:"offline" enum:"skip,queue"`
	Concurrency int           `json:"concurrency"`
	ExpiresAt   time.Time     `json:"expires_at"`
	Waves       *Waves        `json:"waves"`
	Wave        int           `json:"wave"`
	StopReason  string        `json:"stop_reason" enum:",insufficient_balance,failure_threshold,canceled"`
	NotifyURL   string        `json:"notify_url"`
	RetryOf     *string       `json:"retry_of"`
	ScheduleID  *string       `json:"schedule_id"`
	Charged     float64       `json:"charged" doc:"Tokens charged for the job's runs"`
	CreatedAt   time.Time     `json:"created_at"`
	FinishedAt  *time.Time    `json:"finished_at"`
}

func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// View is j as the API shows it.
func (j Job) View() JobView {
	var data any
	if len(j.Spec.Operation.Data) > 0 {
		_ = json.Unmarshal(j.Spec.Operation.Data, &data)
	}
	return JobView{
		ID: j.ID, Name: j.Spec.Name, State: string(j.State), HostCount: j.HostCount, Totals: j.Totals,
		Target: j.Spec.Target, Operation: OperationView{Controls: j.Spec.Operation.Controls, Path: j.Spec.Operation.Path, Data: data},
		Offline: j.Spec.Offline, Concurrency: j.Spec.Concurrency, ExpiresAt: j.ExpiresAt, Waves: j.Spec.Waves, Wave: j.Wave,
		StopReason: j.StopReason, NotifyURL: j.Spec.NotifyURL, RetryOf: optional(j.RetryOf), ScheduleID: optional(j.ScheduleID),
		Charged: j.Charged.Tokens(), CreatedAt: j.CreatedAt, FinishedAt: j.FinishedAt,
	}
}

// RunResult is one run as the results list shows it.
type RunResult struct {
	HostID          string     `json:"host_id"`
	HostName        string     `json:"host_name"`
	State           string     `json:"state" enum:"queued,running,succeeded,failed,skipped,expired,canceled"`
	Wave            int        `json:"wave"`
	ExitCode        *int       `json:"exit_code"`
	Stdout          string     `json:"stdout"`
	Stderr          string     `json:"stderr"`
	OutputTruncated bool       `json:"output_truncated"`
	Error           string     `json:"error"`
	Message         string     `json:"message"`
	Charged         float64    `json:"charged"`
	StartedAt       *time.Time `json:"started_at"`
	FinishedAt      *time.Time `json:"finished_at"`
}

// Result is r as the results list shows it.
func (r Run) Result() RunResult {
	return RunResult{HostID: r.HostID, HostName: r.HostName, State: string(r.State), Wave: r.Wave, ExitCode: r.ExitCode,
		Stdout: r.Stdout, Stderr: r.Stderr, OutputTruncated: r.Truncated, Error: r.Error, Message: r.Message,
		Charged: r.Charged.Tokens(), StartedAt: r.StartedAt, FinishedAt: r.FinishedAt}
}

// RunOutput is a run's whole output.
type RunOutput struct {
	HostID   string `json:"host_id"`
	ExitCode *int   `json:"exit_code"`
	Stdout   string `json:"stdout"`
	Stderr   string `json:"stderr"`
	Result   any    `json:"result"`
}

// View is o as the API shows it.
func (o Output) View() RunOutput {
	var res any
	if len(o.Result) > 0 {
		_ = json.Unmarshal(o.Result, &res)
	}
	return RunOutput{HostID: o.HostID, ExitCode: o.ExitCode, Stdout: o.Stdout, Stderr: o.Stderr, Result: res}
}
