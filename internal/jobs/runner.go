package jobs

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"time"

	"hostgate/internal/agentproto"
	"hostgate/internal/apperr"
	"hostgate/internal/billing"
	"hostgate/internal/operations"
)

// Driving timings.
const (
	// sendMargin is added to a run's answer wait for its deadline: the
	// routing between instances.
	sendMargin = 5 * time.Second
	// recheckWaiting is how often a driver asks whether the hosts its
	// waiting runs wait for have connected (besides HostConnected).
	recheckWaiting = 2 * time.Second
	sweepEvery     = 5 * time.Second
	leaseBatch     = 100
	// candidatesExtra are read beyond the free slots, so that offline
	// hosts do not hold back online ones.
	candidatesExtra = 200
	flushMax        = 256
	// gatherFor is how long the recorder waits for more answers after
	// the first before it writes them.
	gatherFor = 2 * time.Millisecond
	// claimShare: a driver claims once a fifth of a job's concurrency is
	// free (or nothing runs), not for each slot freed: fewer, larger
	// units of work.
	claimShare = 5
)

// outcome is a run's end as its sender learned it.
type outcome struct {
	run Run
	out Output
}

// Run drives this instance's share of the jobs until ctx ends: it leases
// jobs, releases their waves, claims and charges their runs and sends them,
// records results in batches and sweeps interrupted runs and old outputs.
// Several instances run it at once; each job is driven by one at a time.
//
// When ctx ends the instance claims nothing more, but the runs it has
// sent go on for up to Drain and their results are recorded: a rolling
// restart does not turn runs in flight into interrupted ones. The caller
// keeps the dispatcher running until Run returns.
func (s *Service) Run(ctx context.Context) error {
	work, stopSends := context.WithCancel(context.WithoutCancel(ctx))
	defer stopSends()
	sent := make(chan struct{}) // closed once no send is left
	done := make(chan struct{})
	go func() { defer close(done); s.record(context.WithoutCancel(ctx), sent) }()
	t := time.NewTicker(s.cfg.Tick)
	defer t.Stop()
	lastSweep := time.Time{}
	for {
		if s.now().Sub(lastSweep) >= sweepEvery {
			lastSweep = s.now()
			if err := s.Sweep(ctx); err != nil && ctx.Err() == nil {
				s.cfg.Log.WarnContext(ctx, "jobs sweep failed", "err", err)
			}
		}
		if err := s.tick(ctx, work); err != nil && ctx.Err() == nil {
			s.cfg.Log.WarnContext(ctx, "jobs tick failed", "err", err)
		}
		select {
		case <-ctx.Done():
			s.drain()
			stopSends() // sends still unanswered give up; their runs stay running
			s.sends.Wait()
			close(sent)
			<-done
			rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
			defer cancel()
			_ = s.st.ReleaseJobs(rctx, s.cfg.Instance)
			return nil
		case <-t.C:
		case <-s.poke:
		}
	}
}

// drain waits up to Drain for the sends in flight to end.
func (s *Service) drain() {
	idle := make(chan struct{})
	go func() { s.sends.Wait(); close(idle) }()
	t := time.NewTimer(s.cfg.Drain)
	defer t.Stop()
	select {
	case <-idle:
	case <-t.C:
		s.mu.Lock()
		n := len(s.live)
		s.mu.Unlock()
		s.cfg.Log.Warn("stopping with job runs unanswered; they end interrupted", "runs", n, "drain", s.cfg.Drain.String())
	}
}

// tick drives every job this instance holds or can take. The leases are
// taken and renewed (one write) and the waiting flag refreshed at most
// every quarter lease or Tick; in between, a poke (results recorded, a job
// created) drives the jobs already held, reading each job row. Runs are
// sent under work, which outlives ctx by the drain.
func (s *Service) tick(ctx, work context.Context) error {
	now := s.now().UTC()
	var jobs []Job
	if now.Sub(s.leasedAt) >= min(s.cfg.Lease/4, s.cfg.Tick) || s.leasedAt.IsZero() {
		any, err := s.st.AnyWaiting(ctx)
		if err != nil {
			return err
		}
		s.wait.Store(any)
		if jobs, err = s.st.LeaseJobs(ctx, s.cfg.Instance, now, now.Add(s.cfg.Lease), leaseBatch); err != nil {
			return err
		}
		s.leasedAt = now
		s.held = s.held[:0]
		for _, j := range jobs {
			s.held = append(s.held, j.ID)
		}
	} else {
		for _, id := range s.held {
			j, err := s.st.ReadJob(ctx, id)
			if err != nil {
				return err
			}
			jobs = append(jobs, j)
		}
	}
	var errs []error
	for _, j := range jobs {
		if j.FinishedAt != nil {
			continue
		}
		if err := s.drive(ctx, work, j); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// inTx runs fn on job id locked, and saves it (ending it when nothing is
// left) unless fn says skip.
func (s *Service) inTx(ctx context.Context, id string, fn func(tx Tx, j *Job) (bool, error)) error {
	return s.st.Tx(ctx, func(tx Tx) error {
		j, err := tx.LockJob(ctx, id)
		if err != nil {
			return err
		}
		if j.FinishedAt != nil {
			return nil
		}
		keep, err := fn(tx, &j)
		if err != nil || !keep {
			return err
		}
		return s.save(ctx, tx, &j)
	})
}

// drive moves one job on: expiry, the end, waiting hosts, waves, claims.
func (s *Service) drive(ctx, work context.Context, j Job) error {
	now := s.now().UTC()
	switch {
	case j.Totals.Queued > 0 && !now.Before(j.ExpiresAt):
		return s.inTx(ctx, j.ID, func(tx Tx, j *Job) (bool, error) {
			return true, s.endQueued(ctx, tx, j, RunExpired, ErrExpired, "the job expired before the host could run it")
		})
	case j.Totals.Active() == 0 || (j.Stopped() && j.Totals.Running == 0):
		return s.inTx(ctx, j.ID, func(Tx, *Job) (bool, error) { return true, nil })
	case j.Stopped():
		return nil
	}
	if j.Spec.Offline == OfflineQueue {
		if err := s.recheckWaiting(ctx, j.ID); err != nil {
			return err
		}
	}
	return s.claim(ctx, work, j)
}

// recheckWaiting wakes, every recheckWaiting, the waiting runs of a job
// whose hosts are connected: a backstop for HostConnected, which may run
// on an instance whose flag had not yet seen them wait.
func (s *Service) recheckWaiting(ctx context.Context, jobID string) error {
	s.mu.Lock()
	due := s.now().Sub(s.woken[jobID]) >= recheckWaiting
	if due {
		s.woken[jobID] = s.now()
	}
	s.mu.Unlock()
	if !due {
		return nil
	}
	runs, err := s.st.Waiting(ctx, jobID, 5000)
	if err != nil || len(runs) == 0 {
		return err
	}
	on, err := s.cfg.Dispatch.OnlineMany(ctx, hostsOf(runs))
	if err != nil {
		return err
	}
	var wake []string
	for _, r := range runs {
		if on[r.HostID] {
			wake = append(wake, r.ID)
		}
	}
	if len(wake) == 0 {
		return nil
	}
	return s.st.SetWaiting(ctx, wake, false)
}

func hostsOf(runs []Run) []string {
	ids := make([]string, len(runs))
	for i, r := range runs {
		ids[i] = r.HostID
	}
	return ids
}

// nextWave applies the wave rule to a job whose current wave is done.
func (s *Service) nextWave(ctx context.Context, id string) error {
	return s.inTx(ctx, id, func(tx Tx, j *Job) (bool, error) {
		if j.Stopped() {
			return true, nil
		}
		now := s.now().UTC()
		doneAt := now
		if j.WaveDoneAt != nil {
			doneAt = *j.WaveDoneAt
		}
		switch NextWave(*j, doneAt, now) {
		case WaveStop:
			if j.Totals.Queued == 0 {
				return true, nil
			}
			j.Stop(StopFailureThreshold)
			return true, s.endQueued(ctx, tx, j, RunCanceled, ErrJobStopped, "the job stopped: too many runs failed")
		case WaveRelease:
			j.Wave++
			j.WaveDoneAt = nil
			s.wake()
		default:
			j.WaveDoneAt = &doneAt
		}
		return true, nil
	})
}

// claim starts as many of the job's released runs as its concurrency
// allows: in one unit of work each run is checked (host banned or
// deleted: skipped), offline ones skipped or parked, and the rest charged
// and claimed queued→running. Only then are they sent.
func (s *Service) claim(ctx, work context.Context, snap Job) error {
	slots := snap.Spec.Concurrency - snap.Totals.Running
	if slots <= 0 || (snap.Totals.Running > 0 && slots < snap.Spec.Concurrency/claimShare && slots < snap.Totals.Queued) {
		// A wave with a run still running is not done.
		return nil
	}
	cands, err := s.st.Candidates(ctx, snap.ID, snap.Wave, slots+min(slots, candidatesExtra))
	if err != nil {
		return err
	}
	if len(cands) == 0 {
		// Nothing of the released waves is queued without waiting: the
		// wave is done once nothing runs.
		if snap.Totals.Running == 0 && snap.Spec.Waves != nil {
			return s.nextWave(ctx, snap.ID)
		}
		return nil
	}
	hosts := hostsOf(cands)
	on, err := s.cfg.Dispatch.OnlineMany(ctx, hosts)
	if err != nil {
		return err
	}
	var started []Run
	var spec Spec
	err = s.inTx(ctx, snap.ID, func(tx Tx, j *Job) (bool, error) {
		started, spec = nil, j.Spec
		if j.Stopped() {
			return true, nil
		}
		free := j.Spec.Concurrency - j.Totals.Running
		states, err := tx.HostStates(ctx, hosts)
		if err != nil {
			return false, err
		}
		now := s.now().UTC()
		var park []string
		var take []Run
		for _, r := range cands {
			switch {
			case states[r.HostID] != "":
				if err := s.end(ctx, tx, j, r, RunQueued, RunSkipped, states[r.HostID], hostMessage(states[r.HostID])); err != nil {
					return false, err
				}
			case !on[r.HostID] && j.Spec.Offline == OfflineQueue:
				park = append(park, r.ID)
			case !on[r.HostID]:
				if err := s.end(ctx, tx, j, r, RunQueued, RunSkipped, ErrHostOffline, "the host's agent was not connected"); err != nil {
					return false, err
				}
			case len(take) < free:
				take = append(take, r)
			}
		}
		if len(park) > 0 {
			if err := tx.Park(ctx, park); err != nil {
				return false, err
			}
		}
		if len(take) == 0 {
			return true, nil
		}
		cs := make([]billing.Charge, len(take))
		for i, r := range take {
			cs[i] = billing.Charge{EventID: newID(), UserID: j.Owner, RuleCode: j.Spec.Rule, HostID: r.HostID, APIKeyID: j.Spec.APIKeyID, At: now}
		}
		charged, err := billing.ChargeIn(ctx, tx.Billing(), cs)
		if err != nil {
			return false, err
		}
		deadline := now.Add(j.Spec.Timeout() + sendMargin)
		// The runs charged before the first refused charge (all of them
		// when none was refused) start.
		k := 0
		for ; k < len(take) && !errors.Is(charged[k].Err, billing.ErrInsufficient); k++ {
			r := &take[k]
			r.State, r.ClaimedBy, r.DeadlineAt, r.StartedAt = RunRunning, s.cfg.Instance, &deadline, &now
			r.Charged = charged[k].Units
			j.Charged += r.Charged
		}
		// One conditional update claims them all, in the unit of work
		// of their charges.
		n, err := tx.StartRuns(ctx, take[:k])
		if err != nil {
			return false, err
		}
		if n != k {
			// Another driver claimed one; this unit of work rolls
			// back with its charges.
			return false, errClaimLost
		}
		j.Totals.Move(RunQueued, RunRunning, k)
		started = take[:k]
		if k < len(take) {
			if err := s.end(ctx, tx, j, take[k], RunQueued, RunSkipped, ErrInsufficient, "the balance was too low for this run"); err != nil {
				return false, err
			}
			j.Stop(StopInsufficientBalance)
			return true, s.endQueued(ctx, tx, j, RunSkipped, ErrInsufficient, "the job stopped: the balance was too low")
		}
		return true, nil
	})
	if errors.Is(err, errClaimLost) {
		return nil
	}
	if err != nil {
		return err
	}
	for _, r := range started {
		s.send(work, spec, r)
	}
	return nil
}

var errClaimLost = errors.New("jobs: run claimed by another driver")

func hostMessage(code string) string {
	if code == ErrHostBanned {
		return "the host is banned"
	}
	return "the host was deleted"
}

// end moves one run from from to to with code, counting it.
func (s *Service) end(ctx context.Context, tx Tx, j *Job, r Run, from, to RunState, code, msg string) error {
	now := s.now().UTC()
	r.State, r.Error, r.Message, r.FinishedAt = to, code, msg, &now
	ok, err := tx.EndRun(ctx, r, from)
	if err == nil && ok {
		j.Totals.Move(from, to, 1)
	}
	return err
}

// send carries out a claimed run and hands its outcome to the recorder.
// A run whose send is cut short by the hub stopping is left running: the
// sweeper of a live instance ends it interrupted after its deadline.
func (s *Service) send(ctx context.Context, sp Spec, r Run) {
	s.mu.Lock()
	s.live[r.ID] = true
	s.mu.Unlock()
	s.sends.Go(func() {
		defer func() {
			s.mu.Lock()
			delete(s.live, r.ID)
			s.mu.Unlock()
		}()
		resp, err := s.cfg.Dispatch.Send(ctx, r.HostID, sp.Op, sp.Args, sp.Timeout())
		if ctx.Err() != nil {
			return
		}
		o := Outcome(sp.Op, resp, err)
		now := s.now().UTC()
		o.run.ID, o.run.JobID, o.run.HostID, o.run.FinishedAt = r.ID, r.JobID, r.HostID, &now
		o.out.RunID, o.out.JobID, o.out.HostID, o.out.ExpiresAt = r.ID, r.JobID, r.HostID, now.Add(s.cfg.OutputTTL)
		select {
		case s.res <- o:
		case <-ctx.Done():
		}
	})
}

// Outcome turns an agent's answer (or the send's error) into a run's end
// and its whole output: succeeded when the agent answered OK and, for a
// process with an exit code, it is 0 (else failed nonzero_exit); failed
// with the single-host call's code otherwise.
func Outcome(op string, resp agentproto.Response, err error) outcome {
	var o outcome
	switch {
	case err != nil:
		o.run.State, o.run.Error, o.run.Message = RunFailed, apperr.Code(err), errMessage(err)
		if o.run.Error == apperr.CodeInternal {
			o.run.Message = "the hub could not send the command"
		}
		return o
	case !resp.OK || resp.Error != nil:
		fe := operations.AgentFailure(resp.Error)
		o.run.State, o.run.Error, o.run.Message = RunFailed, apperr.Code(fe), errMessage(fe)
		return o
	}
	o.run.State = RunSucceeded
	o.out.Result = resp.Result
	if op == "process.shell" {
		var sh agentproto.ShellResult
		if json.Unmarshal(resp.Result, &sh) == nil {
			code := sh.ExitCode
			o.run.ExitCode, o.out.ExitCode = &code, &code
			o.out.Stdout, o.out.Stderr = sh.Stdout, sh.Stderr
			var cut1, cut2 bool
			o.run.Stdout, cut1 = Excerpt(sh.Stdout, ExcerptBytes)
			o.run.Stderr, cut2 = Excerpt(sh.Stderr, ExcerptBytes)
			o.run.Truncated = cut1 || cut2 || sh.Truncated
			if code != 0 {
				o.run.State, o.run.Error, o.run.Message = RunFailed, ErrNonzeroExit, "the process exited with a non-zero code"
			}
			return o
		}
	}
	o.out.Stdout = string(resp.Result)
	o.run.Stdout, o.run.Truncated = Excerpt(string(resp.Result), ExcerptBytes)
	return o
}

func errMessage(err error) string {
	var e *apperr.Error
	if errors.As(err, &e) {
		return e.Message
	}
	return err.Error()
}

// record writes the senders' outcomes in batches, one unit of work per
// job: the outcomes that arrive while one batch is written go together in
// the next, so a lone result is written at once and a busy job pays one
// commit for many. It returns once sent is closed (no sender is left) and
// what they handed over is written.
func (s *Service) record(ctx context.Context, sent <-chan struct{}) {
	for {
		var batch []outcome
		select {
		case o := <-s.res:
			batch = append(batch, o)
		case <-sent:
			// Whatever the senders handed over before the end.
			for {
				select {
				case o := <-s.res:
					batch = append(batch, o)
					continue
				default:
				}
				break
			}
			fctx, cancel := context.WithTimeout(ctx, 5*time.Second)
			s.flush(fctx, batch)
			cancel()
			return
		}
		// Answers of one claim arrive together: a moment's wait lets
		// them share the unit of work (and the claim that follows).
		gather := time.NewTimer(gatherFor)
	more:
		for len(batch) < flushMax {
			select {
			case o := <-s.res:
				batch = append(batch, o)
			case <-gather.C:
				break more
			}
		}
		gather.Stop()
		s.flush(ctx, batch)
	}
}

// flush writes a batch and pokes the driver: their slots are free.
func (s *Service) flush(ctx context.Context, batch []outcome) {
	if len(batch) == 0 {
		return
	}
	if err := s.write(ctx, batch); err != nil {
		// The runs stay running; the sweeper ends them interrupted.
		s.cfg.Log.WarnContext(ctx, "recording job results failed", "runs", len(batch), "err", err)
	}
	s.wake()
}

// write records outcomes: each run running→its end, with its output.
func (s *Service) write(ctx context.Context, os []outcome) error {
	byJob := map[string][]outcome{}
	var ids []string
	for _, o := range os {
		if _, ok := byJob[o.run.JobID]; !ok {
			ids = append(ids, o.run.JobID)
		}
		byJob[o.run.JobID] = append(byJob[o.run.JobID], o)
	}
	slices.Sort(ids)
	var errs []error
	for _, id := range ids {
		batch := byJob[id]
		runs := make([]Run, len(batch))
		for i, o := range batch {
			runs[i] = o.run
		}
		errs = append(errs, s.inTx(ctx, id, func(tx Tx, j *Job) (bool, error) {
			// One conditional update ends them all; only the runs it
			// moved are counted and keep an output.
			moved, err := tx.EndRuns(ctx, runs, RunRunning)
			if err != nil {
				return false, err
			}
			var only map[string]bool
			if len(moved) != len(batch) {
				only = make(map[string]bool, len(moved))
				for _, id := range moved {
					only[id] = true
				}
			}
			outs := make([]Output, 0, len(moved))
			for _, o := range batch {
				if only != nil && !only[o.run.ID] {
					continue
				}
				j.Totals.Move(RunRunning, o.run.State, 1)
				outs = append(outs, o.out)
			}
			return true, tx.InsertOutputs(ctx, outs)
		}))
	}
	return errors.Join(errs...)
}

// Sweep ends runs found running past their deadline and the grace (their
// driver died mid-run: failed interrupted, never sent again) and deletes
// outputs past their time. Every instance sweeps.
func (s *Service) Sweep(ctx context.Context) error {
	now := s.now().UTC()
	runs, err := s.st.Overdue(ctx, now.Add(-s.cfg.Grace), 500)
	if err != nil {
		return err
	}
	byJob := map[string][]Run{}
	s.mu.Lock()
	for _, r := range runs {
		if !s.live[r.ID] {
			byJob[r.JobID] = append(byJob[r.JobID], r)
		}
	}
	s.mu.Unlock()
	var errs []error
	for id, rs := range byJob {
		errs = append(errs, s.inTx(ctx, id, func(tx Tx, j *Job) (bool, error) {
			for _, r := range rs {
				if err := s.end(ctx, tx, j, r, RunRunning, RunFailed, ErrInterrupted, "the hub instance running it stopped; it was not sent again"); err != nil {
					return false, err
				}
			}
			return true, nil
		}))
	}
	if _, err := s.st.PruneOutputs(ctx, now); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}
