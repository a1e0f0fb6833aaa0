package jobs

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"

	"hostgate/internal/agentproto"
	"hostgate/internal/apperr"
	"hostgate/internal/billing"
	"hostgate/internal/deliveries"
	"hostgate/internal/operations"
	"hostgate/internal/paging"
)

// Targets resolves a job's target to owner's undeleted hosts in a stable
// order, at most max (more: 400 invalid_body; a host id or filter not the
// owner's: 404 not_found). hosts.Service.Select, through the hub.
type Targets interface {
	Select(ctx context.Context, owner string, t Target, max int) ([]string, error)
}

// Dispatcher reaches agents wherever they are connected (dispatch).
type Dispatcher interface {
	OnlineMany(ctx context.Context, hostIDs []string) (map[string]bool, error)
	Send(ctx context.Context, hostID, op string, args json.RawMessage, timeout time.Duration) (agentproto.Response, error)
}

// Pricer says what one call of a rule costs now (0 in free mode).
type Pricer interface {
	PriceNow(ctx context.Context, code string) (billing.Units, error)
}

// Notifier builds a job's job.finished delivery to its notify_url, signed
// with the user's webhook secret (deliveries.UserEvent and the user's
// secret, wired by the hub).
type Notifier interface {
	// CheckSecret is nil when the user has a webhook secret, else 400
	// webhook_secret_missing.
	CheckSecret(ctx context.Context, userID string) error
	// JobFinished builds the delivery of payload (the job object) to url.
	JobFinished(ctx context.Context, userID, url string, payload JobView, now time.Time) (deliveries.Delivery, error)
}

// Config configures the service.
type Config struct {
	Store    Store
	Targets  Targets
	Dispatch Dispatcher
	Pricer   Pricer
	// Notifier is nil when user webhooks are not wired: a request with a
	// notify_url is then refused (webhook_secret_missing).
	Notifier Notifier
	// Instance names this hub instance (leases, claims).
	Instance string
	// MaxHosts bounds a job's hosts (default DefaultMaxHosts).
	MaxHosts int
	// OutputTTL is how long a run's whole output is kept (default 168h).
	OutputTTL time.Duration
	// Tick is the driving period (default 250 ms); Lease a lease's length
	// (default 10 s); Grace how long after its deadline a running run is
	// taken as interrupted (default 30 s).
	Tick, Lease, Grace time.Duration
	// Drain is how long a stopping instance lets the runs it has sent
	// finish and records their results (default 15 s; the hub passes its
	// shutdown grace). A run still unanswered then is left running and
	// ends interrupted.
	Drain time.Duration
	// ExpiryScale multiplies expires_in_s (default 1). Test-only: it lets
	// a test see a queued run expire in seconds.
	ExpiryScale float64
	// Now is the clock (default time.Now); tests move it.
	Now func() time.Time
	Log *slog.Logger
}

// Service creates, reads and drives jobs.
type Service struct {
	cfg   Config
	st    Store
	now   func() time.Time
	poke  chan struct{}
	wait  atomic.Bool // some queued run waits for its host (refreshed each tick)
	mu    sync.Mutex
	live  map[string]bool      // runs this instance is sending
	woken map[string]time.Time // last check of each job's waiting runs
	res   chan outcome
	sends sync.WaitGroup
	// The jobs leased at leasedAt (driver loop only).
	held     []string
	leasedAt time.Time
}

// NewService returns the jobs service.
func NewService(cfg Config) *Service {
	if cfg.MaxHosts <= 0 {
		cfg.MaxHosts = DefaultMaxHosts
	}
	if cfg.OutputTTL <= 0 {
		cfg.OutputTTL = 168 * time.Hour
	}
	if cfg.Tick <= 0 {
		cfg.Tick = 250 * time.Millisecond
	}
	if cfg.Lease <= 0 {
		cfg.Lease = 10 * time.Second
	}
	if cfg.Grace <= 0 {
		cfg.Grace = 30 * time.Second
	}
	if cfg.Drain <= 0 {
		cfg.Drain = 15 * time.Second
	}
	if cfg.ExpiryScale <= 0 || cfg.ExpiryScale > 1 {
		cfg.ExpiryScale = 1
	}
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	s := &Service{cfg: cfg, st: cfg.Store, now: cfg.Now, poke: make(chan struct{}, 1),
		live: map[string]bool{}, woken: map[string]time.Time{}, res: make(chan outcome, 1024)}
	s.wait.Store(true)
	return s
}

// Created is a job created, or a dry run's answer.
type Created struct {
	Job    *Job
	DryRun *DryRun
}

func notFound(err error) error {
	if errors.Is(err, ErrNotFound) {
		return apperr.NotFound("job")
	}
	return err
}

// Create validates r (shape, operation, notify secret, target) and, unless
// it is a dry run, records the job and its queued runs. Nothing is recorded
// or charged on a refusal.
func (s *Service) Create(ctx context.Context, c Creator, r Request) (Created, error) {
	return s.create(ctx, c, r, "")
}

func (s *Service) create(ctx context.Context, c Creator, r Request, retryOf string) (Created, error) {
	r, err := Normalize(r, s.cfg.MaxHosts)
	if err != nil {
		return Created{}, err
	}
	p, err := operations.Prepare("", r.Operation.Controls, r.Operation.Path, r.Operation.Data)
	if err != nil {
		return Created{}, err
	}
	if err := s.checkNotify(ctx, c.UserID, r.NotifyURL); err != nil {
		return Created{}, err
	}
	hostIDs, err := s.cfg.Targets.Select(ctx, c.UserID, r.Target, s.cfg.MaxHosts)
	if err != nil {
		return Created{}, err
	}
	if len(hostIDs) == 0 {
		return Created{}, apperr.New(CodeEmptyTarget, "the target matches no host")
	}
	if r.DryRun {
		price, err := s.cfg.Pricer.PriceNow(ctx, p.Rule)
		if err != nil {
			return Created{}, err
		}
		d := &DryRun{HostCount: len(hostIDs), HostIDs: hostIDs, MaxCost: (price * billing.Units(len(hostIDs))).Tokens()}
		if len(d.HostIDs) > DryRunHostIDs {
			d.HostIDs, d.HostIDsTruncated = d.HostIDs[:DryRunHostIDs], true
		}
		return Created{DryRun: d}, nil
	}
	now := s.now().UTC()
	j := Job{
		ID: uuid.NewString(), Owner: c.UserID, State: JobRunning, HostCount: len(hostIDs),
		Totals: Totals{Queued: len(hostIDs)}, Wave: 1, RetryOf: retryOf, ScheduleID: c.ScheduleID,
		ExpiresAt: now.Add(time.Duration(float64(r.ExpiresInS)*s.cfg.ExpiryScale) * time.Second), CreatedAt: now,
		Spec: Spec{Name: r.Name, Target: r.Target, Operation: r.Operation, Offline: r.Offline, Concurrency: r.Concurrency,
			ExpiresInS: r.ExpiresInS, Waves: r.Waves, NotifyURL: r.NotifyURL, APIKeyID: c.APIKeyID,
			Op: p.Op, Args: p.Args, Rule: p.Rule, TimeoutMs: p.Timeout.Milliseconds()},
	}
	runs := make([]Run, len(hostIDs))
	for i, h := range hostIDs {
		runs[i] = Run{ID: newID(), JobID: j.ID, HostID: h, Seq: i, Wave: WaveOf(i, r.Waves), State: RunQueued}
	}
	err = s.st.Tx(ctx, func(tx Tx) error {
		if err := tx.InsertJob(ctx, j); err != nil {
			return err
		}
		return tx.InsertRuns(ctx, runs)
	})
	if err != nil {
		return Created{}, err
	}
	s.wake()
	return Created{Job: &j}, nil
}

// checkNotify refuses a notify_url while the user has no webhook secret.
func (s *Service) checkNotify(ctx context.Context, userID, url string) error {
	if url == "" {
		return nil
	}
	if s.cfg.Notifier == nil {
		return apperr.New(CodeWebhookSecretMissing, "set a webhook secret (POST /v1/api/webhook-secret/rotate) before asking for notify_url")
	}
	return s.cfg.Notifier.CheckSecret(ctx, userID)
}

func newID() string {
	if id, err := uuid.NewV7(); err == nil {
		return id.String()
	}
	return uuid.NewString()
}

// Get reads owner's job (404 not_found for anyone else's).
func (s *Service) Get(ctx context.Context, owner, id string) (Job, error) {
	j, err := s.st.GetJob(ctx, owner, id)
	return j, notFound(err)
}

// List pages owner's jobs, newest first.
func (s *Service) List(ctx context.Context, owner string, state JobState, p paging.Page) (paging.Result[Job], error) {
	switch state {
	case "", JobRunning, JobFinished, JobCanceled:
	default:
		return paging.Result[Job]{}, apperr.New(apperr.CodeInvalidQuery, "state must be running, finished or canceled")
	}
	items, total, err := s.st.ListJobs(ctx, owner, state, p)
	return paging.NewResult(items, total, p), err
}

// Results pages the runs of owner's job in host order.
func (s *Service) Results(ctx context.Context, owner, id string, state RunState, p paging.Page) (paging.Result[Run], error) {
	switch state {
	case "", RunQueued, RunRunning, RunSucceeded, RunFailed, RunSkipped, RunExpired, RunCanceled:
	default:
		return paging.Result[Run]{}, apperr.New(apperr.CodeInvalidQuery, "state must be a run state")
	}
	if _, err := s.Get(ctx, owner, id); err != nil {
		return paging.Result[Run]{}, err
	}
	items, total, err := s.st.ListRuns(ctx, id, state, p)
	return paging.NewResult(items, total, p), err
}

// Output is the whole output of owner's job's run on hostID, while kept.
func (s *Service) Output(ctx context.Context, owner, id, hostID string) (Output, error) {
	if _, err := s.Get(ctx, owner, id); err != nil {
		return Output{}, err
	}
	o, err := s.st.GetOutput(ctx, id, hostID, s.now().UTC())
	if errors.Is(err, ErrNotFound) {
		return Output{}, apperr.NotFound("output")
	}
	return o, err
}

// Cancel cancels owner's job: its queued runs end canceled, running ones
// finish. A finished job is 409 job_finished; a canceled one is answered
// as it is.
func (s *Service) Cancel(ctx context.Context, owner, id string) (Job, error) {
	full, err := s.Get(ctx, owner, id)
	if err != nil {
		return Job{}, err
	}
	var out Job
	err = s.st.Tx(ctx, func(tx Tx) error {
		j, err := tx.LockJob(ctx, id)
		if err != nil {
			return err
		}
		switch j.State {
		case JobFinished:
			return apperr.New(CodeJobFinished, "the job has finished")
		case JobCanceled:
			out = j
			return nil
		}
		j.Stop(StopCanceled)
		if err := s.endQueued(ctx, tx, &j, RunCanceled, ErrJobCanceled, "the job was canceled"); err != nil {
			return err
		}
		out = j
		return s.save(ctx, tx, &out)
	})
	out.Spec.Target = full.Spec.Target // the lock does not read it
	return out, notFound(err)
}

// Retry starts a new job over the hosts of owner's job whose runs ended in
// states (default failed), with the same operation and options.
func (s *Service) Retry(ctx context.Context, c Creator, id string, states []RunState) (Job, error) {
	j, err := s.Get(ctx, c.UserID, id)
	if err != nil {
		return Job{}, err
	}
	if len(states) == 0 {
		states = []RunState{RunFailed}
	}
	for _, st := range states {
		switch st {
		case RunFailed, RunSkipped, RunExpired, RunCanceled:
		default:
			return Job{}, invalid("states must be failed, skipped, expired or canceled")
		}
	}
	hostIDs, err := s.st.RunHosts(ctx, id, states)
	if err != nil {
		return Job{}, err
	}
	if len(hostIDs) == 0 {
		return Job{}, apperr.New(CodeEmptyTarget, "no run of the job is in those states")
	}
	sp := j.Spec
	r := Request{Name: sp.Name, Target: Target{HostIDs: hostIDs}, Operation: sp.Operation, Offline: sp.Offline,
		ExpiresInS: sp.ExpiresInS, Concurrency: sp.Concurrency, NotifyURL: sp.NotifyURL, Waves: sp.Waves}
	created, err := s.create(ctx, c, r, id)
	if err != nil {
		return Job{}, err
	}
	return *created.Job, nil
}

// Watch calls fn with owner's job now and whenever it changes (checked
// every 500 ms), until the job is final or ctx ends.
func (s *Service) Watch(ctx context.Context, owner, id string, fn func(Job) error) error {
	j, err := s.Get(ctx, owner, id)
	if err != nil {
		return err
	}
	if err := fn(j); err != nil {
		return err
	}
	last, _ := json.Marshal(j.View())
	t := time.NewTicker(500 * time.Millisecond)
	defer t.Stop()
	for j.FinishedAt == nil {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
		if j, err = s.Get(ctx, owner, id); err != nil {
			return err
		}
		b, _ := json.Marshal(j.View())
		if string(b) == string(last) {
			continue
		}
		last = b
		if err := fn(j); err != nil {
			return err
		}
	}
	return nil
}

// HostConnected is told by the agent gateway that hostID's agent
// connected: runs waiting for it are woken. It costs nothing while no run
// waits for any host (a flag refreshed on each tick), so a fleet's
// reconnect does not query the store once per agent.
func (s *Service) HostConnected(ctx context.Context, hostID string) {
	if !s.wait.Load() {
		return
	}
	n, err := s.st.WakeHost(ctx, hostID)
	if err != nil {
		s.cfg.Log.WarnContext(ctx, "wake queued runs failed", "host_id", hostID, "err", err)
		return
	}
	if n > 0 {
		s.wake()
	}
}

// wake makes the driver look at its jobs now.
func (s *Service) wake() {
	select {
	case s.poke <- struct{}{}:
	default:
	}
}

// endQueued ends every queued run of j in state to with code, counting them.
func (s *Service) endQueued(ctx context.Context, tx Tx, j *Job, to RunState, code, msg string) error {
	n, err := tx.EndQueued(ctx, j.ID, to, code, msg, s.now().UTC())
	if err != nil {
		return err
	}
	j.Totals.Move(RunQueued, to, n)
	return nil
}

// save writes j, ending it (and queuing its notification) when nothing of
// it is queued or running.
func (s *Service) save(ctx context.Context, tx Tx, j *Job) error {
	now := s.now().UTC()
	if j.Finish(now) && j.Spec.NotifyURL != "" && s.cfg.Notifier != nil {
		v := j.View()
		if full, err := s.st.GetJob(ctx, "", j.ID); err == nil { // the target, which the lock does not read
			v.Target = full.Spec.Target
		}
		d, err := s.cfg.Notifier.JobFinished(ctx, j.Owner, j.Spec.NotifyURL, v, now)
		if err != nil {
			// A secret removed since the job was created: the job still
			// ends, unannounced.
			s.cfg.Log.WarnContext(ctx, "job notification not queued", "job_id", j.ID, "err", err)
		} else if err := tx.QueueDelivery(ctx, d); err != nil {
			return err
		}
	}
	return tx.SaveJob(ctx, *j)
}
