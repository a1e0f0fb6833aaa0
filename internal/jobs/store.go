package jobs

import (
	"context"
	"errors"
	"time"

	"hostgate/internal/billing"
	"hostgate/internal/deliveries"
	"hostgate/internal/paging"
)

// ErrNotFound: no such job (or run output) of the owner.
var ErrNotFound = errors.New("jobs: not found")

// Store keeps jobs, their runs and outputs. It stores; the rules are the
// domain's, applied in units of work (Tx).
type Store interface {
	// Tx runs fn in one unit of work.
	Tx(ctx context.Context, fn func(Tx) error) error
	// GetJob reads owner's job with its target; ErrNotFound. owner ""
	// reads any job.
	GetJob(ctx context.Context, owner, id string) (Job, error)
	// ReadJob reads a job without its target (the driver's read).
	ReadJob(ctx context.Context, id string) (Job, error)
	// ListJobs pages owner's jobs, newest first, in state when set.
	ListJobs(ctx context.Context, owner string, state JobState, p paging.Page) ([]Job, int, error)
	// ListRuns pages a job's runs in host order (seq), in state when set,
	// with their host names.
	ListRuns(ctx context.Context, jobID string, state RunState, p paging.Page) ([]Run, int, error)
	// RunHosts lists the hosts of a job's runs in states, in host order.
	RunHosts(ctx context.Context, jobID string, states []RunState) ([]string, error)
	// GetOutput reads the output of the job's run on hostID not expired
	// at now; ErrNotFound.
	GetOutput(ctx context.Context, jobID, hostID string, now time.Time) (Output, error)
	// LeaseJobs takes, for instance until until, the unfinished jobs
	// whose lease is free, expired at now or already instance's, and
	// returns them (at most limit).
	LeaseJobs(ctx context.Context, instance string, now, until time.Time, limit int) ([]Job, error)
	// ReleaseJobs gives up instance's leases.
	ReleaseJobs(ctx context.Context, instance string) error
	// Candidates lists a job's queued runs that do not wait for their
	// host, in waves up to maxWave, in host order, at most limit.
	Candidates(ctx context.Context, jobID string, maxWave, limit int) ([]Run, error)
	// Waiting lists a job's queued runs that wait for their host, at
	// most limit.
	Waiting(ctx context.Context, jobID string, limit int) ([]Run, error)
	// SetWaiting marks queued runs as waiting for their host or not.
	SetWaiting(ctx context.Context, runIDs []string, waiting bool) error
	// AnyWaiting reports whether any queued run waits for its host.
	AnyWaiting(ctx context.Context) (bool, error)
	// WakeHost stops the queued runs of hostID from waiting and returns
	// how many it woke.
	WakeHost(ctx context.Context, hostID string) (int, error)
	// Overdue lists running runs whose deadline is before before.
	Overdue(ctx context.Context, before time.Time, limit int) ([]Run, error)
	// PruneOutputs deletes outputs expired at now.
	PruneOutputs(ctx context.Context, now time.Time) (int64, error)
}

// Tx is the plain operations a unit of work of the jobs is made of.
type Tx interface {
	// InsertJob stores a new job and InsertRuns its runs.
	InsertJob(ctx context.Context, j Job) error
	InsertRuns(ctx context.Context, runs []Run) error
	// LockJob reads a job (without its target) and locks it until the
	// unit of work ends; ErrNotFound.
	LockJob(ctx context.Context, id string) (Job, error)
	// SaveJob writes a locked job's state, counters, wave, stop reason,
	// charge total and end.
	SaveJob(ctx context.Context, j Job) error
	// StartRun moves a queued run to running with r's claim, deadline,
	// charge and start; false when it was not queued.
	StartRun(ctx context.Context, r Run) (bool, error)
	// StartRuns is StartRun for many runs in one statement: it moves
	// those of runs that are queued and returns how many it moved.
	StartRuns(ctx context.Context, runs []Run) (int, error)
	// EndRun moves a run from from to r's final state with its outcome;
	// false when it was not in from.
	EndRun(ctx context.Context, r Run, from RunState) (bool, error)
	// EndRuns is EndRun for many runs in one statement: it returns the
	// ids of the runs it moved (those that were in from).
	EndRuns(ctx context.Context, runs []Run, from RunState) ([]string, error)
	// EndQueued moves every queued run of a job to state with code and
	// message, and returns how many.
	EndQueued(ctx context.Context, jobID string, to RunState, code, message string, at time.Time) (int, error)
	// HostStates says, per host, "" (commandable), host_banned or
	// host_deleted.
	HostStates(ctx context.Context, hostIDs []string) (map[string]string, error)
	// Park marks queued runs as waiting for their host.
	Park(ctx context.Context, runIDs []string) error
	// InsertOutput keeps a run's whole output.
	InsertOutput(ctx context.Context, o Output) error
	// InsertOutputs keeps many runs' outputs in one statement.
	InsertOutputs(ctx context.Context, os []Output) error
	// Billing is the billing unit of work on the same transaction, so a
	// run's charge commits with its claim.
	Billing() billing.Tx
	// QueueDelivery queues a webhook delivery.
	QueueDelivery(ctx context.Context, d deliveries.Delivery) error
}
