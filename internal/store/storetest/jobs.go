package storetest

import (
	"encoding/json"
	"errors"
	"fmt"
	"testing"
	"time"

	"hostgate/internal/billing"
	"hostgate/internal/jobs"
	"hostgate/internal/paging"
	"hostgate/internal/store"
)

var jobTests = []test{
	{"InsertAndRead", testJobInsertAndRead},
	{"ClaimOnce", testJobClaimOnce},
	{"ChargeCommitsWithClaim", testJobChargeWithClaim},
	{"Lease", testJobLease},
	{"WaitingAndWake", testJobWaiting},
	{"EndQueuedOverdueOutputs", testJobEnds},
	{"BatchStartEndOutputs", testJobBatch},
}

// newJob stores a job of owner over hosts (two waves of two) and returns it.
func newJob(t *testing.T, s store.Store, owner string, hostIDs []string) (jobs.Job, []jobs.Run) {
	t.Helper()
	w := &jobs.Waves{Size: 2}
	j := jobs.Job{ID: newID(), Owner: owner, State: jobs.JobRunning, HostCount: len(hostIDs), Totals: jobs.Totals{Queued: len(hostIDs)},
		Wave: 1, ExpiresAt: t0.Add(time.Hour), CreatedAt: t0,
		Spec: jobs.Spec{Name: "n", Target: jobs.Target{HostIDs: hostIDs}, Operation: jobs.Operation{Controls: 1, Path: "/", Data: json.RawMessage(`{"a":1}`)},
			Offline: jobs.OfflineQueue, Concurrency: 5, Waves: w, Op: "files.dir", Args: json.RawMessage(`{}`), Rule: billing.RuleDir, TimeoutMs: 1000}}
	runs := make([]jobs.Run, len(hostIDs))
	for i, h := range hostIDs {
		runs[i] = jobs.Run{ID: newID(), JobID: j.ID, HostID: h, Seq: i, Wave: jobs.WaveOf(i, w), State: jobs.RunQueued}
	}
	must(t, "insert job", s.Jobs.Tx(t.Context(), func(tx jobs.Tx) error {
		if err := tx.InsertJob(t.Context(), j); err != nil {
			return err
		}
		return tx.InsertRuns(t.Context(), runs)
	}))
	return j, runs
}

func jobHosts(t *testing.T, s store.Store, owner string, n int) []string {
	ids := make([]string, n)
	for i := range ids {
		ids[i] = createHost(t, s, newHost(owner, "h", t0.Add(time.Duration(i)*time.Second))).ID
	}
	return ids
}

func testJobInsertAndRead(t *testing.T, s store.Store) {
	ctx := t.Context()
	ann := owner(t, s, "ann@example.com")
	hs := jobHosts(t, s, ann, 3)
	j, runs := newJob(t, s, ann, hs)
	got, err := s.Jobs.GetJob(ctx, ann, j.ID)
	must(t, "GetJob", err)
	checkTime(t, "created_at", got.CreatedAt, t0)
	checkTime(t, "expires_at", got.ExpiresAt, t0.Add(time.Hour))
	if got.Totals.Queued != 3 || got.Wave != 1 || got.Spec.Rule != billing.RuleDir || string(got.Spec.Operation.Data) != `{"a":1}` ||
		got.Spec.Waves == nil || got.Spec.Waves.Size != 2 || got.FinishedAt != nil || len(got.Spec.Target.HostIDs) != 3 {
		t.Fatalf("stored job %+v", got)
	}
	_, err = s.Jobs.GetJob(ctx, owner(t, s, "bob@example.com"), j.ID)
	checkErr(t, "another owner's job", err, jobs.ErrNotFound)
	list, total, err := s.Jobs.ListJobs(ctx, ann, jobs.JobRunning, paging.Page{Limit: 10})
	must(t, "ListJobs", err)
	if total != 1 || len(list) != 1 || list[0].ID != j.ID {
		t.Fatalf("ListJobs %d %+v", total, list)
	}
	if _, total, _ := s.Jobs.ListJobs(ctx, ann, jobs.JobFinished, paging.Page{Limit: 10}); total != 0 {
		t.Fatalf("finished jobs %d", total)
	}
	rs, total, err := s.Jobs.ListRuns(ctx, j.ID, "", paging.Page{Limit: 2, Offset: 1})
	must(t, "ListRuns", err)
	if total != 3 || len(rs) != 2 || rs[0].ID != runs[1].ID || rs[1].Wave != 2 || rs[0].HostName != "h" || rs[0].ExitCode != nil {
		t.Fatalf("ListRuns %d %+v", total, rs)
	}
	hosts, err := s.Jobs.RunHosts(ctx, j.ID, []jobs.RunState{jobs.RunQueued})
	must(t, "RunHosts", err)
	if len(hosts) != 3 || hosts[0] != hs[0] {
		t.Fatalf("RunHosts %v", hosts)
	}
}

func testJobClaimOnce(t *testing.T, s store.Store) {
	ann := owner(t, s, "ann@example.com")
	j, runs := newJob(t, s, ann, jobHosts(t, s, ann, 1))
	at := t0.Add(time.Minute)
	errs := race(8, func(i int) error {
		return s.Jobs.Tx(t.Context(), func(tx jobs.Tx) error {
			jj, err := tx.LockJob(t.Context(), j.ID)
			if err != nil {
				return err
			}
			r := runs[0]
			r.State, r.ClaimedBy, r.DeadlineAt, r.StartedAt, r.Charged = jobs.RunRunning, "inst", &at, &at, 5
			ok, err := tx.StartRun(t.Context(), r)
			if err != nil {
				return err
			}
			if !ok {
				return errLost
			}
			jj.Totals.Move(jobs.RunQueued, jobs.RunRunning, 1)
			return tx.SaveJob(t.Context(), jj)
		})
	})
	if won := countRace(t, errs, errLost); won != 1 {
		t.Fatalf("%d claims of one run won, want 1", won)
	}
	got, err := s.Jobs.GetJob(t.Context(), ann, j.ID)
	must(t, "GetJob", err)
	if got.Totals.Running != 1 || got.Totals.Queued != 0 {
		t.Fatalf("totals %+v", got.Totals)
	}
}

var errLost = errors.New("lost")

func testJobChargeWithClaim(t *testing.T, s store.Store) {
	ctx := t.Context()
	user := fund(t, s, 10000)
	j, runs := newJob(t, s, user, jobHosts(t, s, user, 1))
	charge := func(fail bool) error {
		return s.Jobs.Tx(ctx, func(tx jobs.Tx) error {
			res, err := billing.ChargeIn(ctx, tx.Billing(), []billing.Charge{{EventID: newID(), UserID: user, RuleCode: billing.RuleDir,
				HostID: runs[0].HostID, At: t0.Add(time.Minute)}})
			if err != nil {
				return err
			}
			r := runs[0]
			r.State, r.Charged = jobs.RunRunning, res[0].Units
			if _, err := tx.StartRun(ctx, r); err != nil {
				return err
			}
			if fail {
				return errLost
			}
			return nil
		})
	}
	checkErr(t, "failed unit of work", charge(true), errLost)
	if b, _ := s.Billing.Balance(ctx, user); b != 10000 {
		t.Fatalf("a rolled back claim charged: balance %d", b)
	}
	must(t, "charge with claim", charge(false))
	b, _ := s.Billing.Balance(ctx, user)
	rs, _, _ := s.Jobs.ListRuns(ctx, j.ID, jobs.RunRunning, paging.Page{Limit: 5})
	if b != 9000 || len(rs) != 1 || rs[0].Charged != 1000 {
		t.Fatalf("balance %d, runs %+v", b, rs)
	}
}

func testJobLease(t *testing.T, s store.Store) {
	ctx := t.Context()
	ann := owner(t, s, "ann@example.com")
	j, _ := newJob(t, s, ann, jobHosts(t, s, ann, 1))
	a, err := s.Jobs.LeaseJobs(ctx, "a", t0, t0.Add(10*time.Second), 10)
	must(t, "lease a", err)
	b, err := s.Jobs.LeaseJobs(ctx, "b", t0.Add(5*time.Second), t0.Add(15*time.Second), 10)
	must(t, "lease b", err)
	if len(a) != 1 || a[0].ID != j.ID || len(b) != 0 {
		t.Fatalf("a leased %d, b %d during a's lease", len(a), len(b))
	}
	again, _ := s.Jobs.LeaseJobs(ctx, "a", t0.Add(5*time.Second), t0.Add(15*time.Second), 10)
	b, _ = s.Jobs.LeaseJobs(ctx, "b", t0.Add(11*time.Second), t0.Add(21*time.Second), 10)
	if len(again) != 1 || len(b) != 0 {
		t.Fatalf("renewal %d, b after renewal %d", len(again), len(b))
	}
	b, _ = s.Jobs.LeaseJobs(ctx, "b", t0.Add(16*time.Second), t0.Add(26*time.Second), 10)
	if len(b) != 1 {
		t.Fatal("b did not take the expired lease")
	}
	must(t, "release", s.Jobs.ReleaseJobs(ctx, "b"))
	a, _ = s.Jobs.LeaseJobs(ctx, "a", t0.Add(17*time.Second), t0.Add(27*time.Second), 10)
	if len(a) != 1 {
		t.Fatal("a did not take the released lease")
	}
}

func testJobWaiting(t *testing.T, s store.Store) {
	ctx := t.Context()
	ann := owner(t, s, "ann@example.com")
	hs := jobHosts(t, s, ann, 3)
	j, runs := newJob(t, s, ann, hs)
	if any, _ := s.Jobs.AnyWaiting(ctx); any {
		t.Fatal("waiting before any park")
	}
	must(t, "park", s.Jobs.Tx(ctx, func(tx jobs.Tx) error { return tx.Park(ctx, []string{runs[0].ID}) }))
	if any, _ := s.Jobs.AnyWaiting(ctx); !any {
		t.Fatal("no run waits after a park")
	}
	c, err := s.Jobs.Candidates(ctx, j.ID, 1, 10)
	must(t, "Candidates", err)
	if len(c) != 1 || c[0].ID != runs[1].ID {
		t.Fatalf("candidates of wave 1 %+v", c)
	}
	w, _ := s.Jobs.Waiting(ctx, j.ID, 10)
	if len(w) != 1 || !w[0].Waiting {
		t.Fatalf("waiting %+v", w)
	}
	if n, _ := s.Jobs.WakeHost(ctx, hs[1]); n != 0 {
		t.Fatalf("woke %d runs of a host nothing waits for", n)
	}
	if n, _ := s.Jobs.WakeHost(ctx, hs[0]); n != 1 {
		t.Fatalf("woke %d", n)
	}
	if any, _ := s.Jobs.AnyWaiting(ctx); any {
		t.Fatal("still waiting after the wake")
	}
	must(t, "SetWaiting", s.Jobs.SetWaiting(ctx, []string{runs[2].ID}, true))
	if c, _ := s.Jobs.Candidates(ctx, j.ID, 2, 10); len(c) != 2 || c[0].ID != runs[0].ID || c[1].ID != runs[1].ID {
		t.Fatalf("candidates of waves 1-2 %+v", c)
	}
}

func testJobEnds(t *testing.T, s store.Store) {
	ctx := t.Context()
	ann := owner(t, s, "ann@example.com")
	hs := jobHosts(t, s, ann, 3)
	j, runs := newJob(t, s, ann, hs)
	deadline := t0.Add(time.Minute)
	must(t, "start and end", s.Jobs.Tx(ctx, func(tx jobs.Tx) error {
		r := runs[0]
		r.State, r.DeadlineAt, r.StartedAt = jobs.RunRunning, &deadline, &t0
		if ok, err := tx.StartRun(ctx, r); err != nil || !ok {
			return errors.Join(err, errLost)
		}
		r = runs[1]
		r.State, r.DeadlineAt = jobs.RunRunning, &deadline
		if _, err := tx.StartRun(ctx, r); err != nil {
			return err
		}
		code, fin := 0, deadline
		r.State, r.ExitCode, r.Stdout, r.FinishedAt = jobs.RunSucceeded, &code, "hi", &fin
		if ok, err := tx.EndRun(ctx, r, jobs.RunRunning); err != nil || !ok {
			return errors.Join(err, errLost)
		}
		if ok, _ := tx.EndRun(ctx, r, jobs.RunRunning); ok {
			return errors.New("ended twice")
		}
		if err := tx.InsertOutput(ctx, jobs.Output{RunID: r.ID, JobID: j.ID, HostID: r.HostID, ExitCode: &code, Stdout: "hi",
			Result: json.RawMessage(`{"stdout":"hi"}`), ExpiresAt: t0.Add(time.Hour)}); err != nil {
			return err
		}
		n, err := tx.EndQueued(ctx, j.ID, jobs.RunExpired, jobs.ErrExpired, "late", t0)
		if err != nil || n != 1 {
			return errors.Join(err, errors.New("EndQueued count"))
		}
		return nil
	}))
	over, err := s.Jobs.Overdue(ctx, deadline.Add(time.Second), 10)
	must(t, "Overdue", err)
	if len(over) != 1 || over[0].ID != runs[0].ID {
		t.Fatalf("overdue %+v", over)
	}
	if over, _ := s.Jobs.Overdue(ctx, deadline, 10); len(over) != 0 {
		t.Fatal("overdue before the deadline")
	}
	o, err := s.Jobs.GetOutput(ctx, j.ID, hs[1], t0.Add(time.Minute))
	must(t, "GetOutput", err)
	if o.Stdout != "hi" || *o.ExitCode != 0 || string(o.Result) != `{"stdout":"hi"}` {
		t.Fatalf("output %+v", o)
	}
	if n, _ := s.Jobs.PruneOutputs(ctx, t0.Add(time.Hour)); n != 1 {
		t.Fatalf("pruned %d", n)
	}
	_, err = s.Jobs.GetOutput(ctx, j.ID, hs[1], t0)
	checkErr(t, "pruned output", err, jobs.ErrNotFound)
	rs, _, _ := s.Jobs.ListRuns(ctx, j.ID, jobs.RunExpired, paging.Page{Limit: 5})
	if len(rs) != 1 || rs[0].Error != jobs.ErrExpired {
		t.Fatalf("expired runs %+v", rs)
	}
}

// testJobBatch: StartRuns moves only queued runs (a run claimed already
// is not counted, the claim's at-most-once), EndRuns only those in from
// with their outcomes, InsertOutputs keeps every output.
func testJobBatch(t *testing.T, s store.Store) {
	ctx := t.Context()
	ann := owner(t, s, "ann@example.com")
	hs := jobHosts(t, s, ann, 3)
	j, runs := newJob(t, s, ann, hs)
	deadline := t0.Add(time.Minute)
	for i := range runs {
		runs[i].State, runs[i].ClaimedBy, runs[i].DeadlineAt, runs[i].StartedAt, runs[i].Charged = jobs.RunRunning, "i1", &deadline, &t0, 3
	}
	must(t, "StartRuns", s.Jobs.Tx(ctx, func(tx jobs.Tx) error {
		if n, err := tx.StartRuns(ctx, runs[:2]); err != nil || n != 2 {
			return errors.Join(err, errLost)
		}
		if n, err := tx.StartRuns(ctx, runs); err != nil || n != 1 {
			return errors.Join(err, fmt.Errorf("restarted %d runs", n))
		}
		return nil
	}))
	page, _, err := s.Jobs.ListRuns(ctx, j.ID, jobs.RunRunning, paging.Page{Limit: 10})
	must(t, "ListRuns", err)
	if len(page) != 3 || page[0].ClaimedBy != "i1" || page[0].Charged != 3 || page[0].DeadlineAt == nil || !near(*page[0].DeadlineAt, deadline) ||
		page[0].StartedAt == nil || !near(*page[0].StartedAt, t0) {
		t.Fatalf("started runs %+v", page)
	}
	code, fin := 2, deadline
	ends := []jobs.Run{runs[0], runs[1]}
	ends[0].State, ends[0].ExitCode, ends[0].Stdout, ends[0].Truncated, ends[0].FinishedAt = jobs.RunSucceeded, &code, "hi", true, &fin
	ends[1].State, ends[1].Error, ends[1].Message, ends[1].FinishedAt = jobs.RunFailed, "agent_timeout", "late", &fin
	must(t, "EndRuns", s.Jobs.Tx(ctx, func(tx jobs.Tx) error {
		moved, err := tx.EndRuns(ctx, ends, jobs.RunRunning)
		if err != nil || len(moved) != 2 {
			return errors.Join(err, fmt.Errorf("moved %v", moved))
		}
		if moved, err := tx.EndRuns(ctx, append(ends, runs[2]), jobs.RunRunning); err != nil || len(moved) != 1 || moved[0] != runs[2].ID {
			return errors.Join(err, fmt.Errorf("ended again %v", moved))
		}
		return tx.InsertOutputs(ctx, []jobs.Output{
			{RunID: runs[0].ID, JobID: j.ID, HostID: hs[0], ExitCode: &code, Stdout: "hi", Result: json.RawMessage(`{"x":1}`), ExpiresAt: t0.Add(time.Hour)},
			{RunID: runs[1].ID, JobID: j.ID, HostID: hs[1], ExpiresAt: t0.Add(time.Hour)},
		})
	}))
	page, _, err = s.Jobs.ListRuns(ctx, j.ID, "", paging.Page{Limit: 10})
	must(t, "ListRuns", err)
	if len(page) != 3 || page[0].State != jobs.RunSucceeded || page[0].ExitCode == nil || *page[0].ExitCode != 2 || page[0].Stdout != "hi" ||
		!page[0].Truncated || page[1].State != jobs.RunFailed || page[1].Error != "agent_timeout" || page[1].ExitCode != nil ||
		page[1].FinishedAt == nil || !near(*page[1].FinishedAt, fin) || page[2].State != jobs.RunRunning {
		t.Fatalf("ended runs %+v", page)
	}
	o, err := s.Jobs.GetOutput(ctx, j.ID, hs[0], t0)
	must(t, "GetOutput", err)
	if *o.ExitCode != 2 || o.Stdout != "hi" || string(o.Result) != `{"x":1}` {
		t.Fatalf("output %+v", o)
	}
	if o, err := s.Jobs.GetOutput(ctx, j.ID, hs[1], t0); err != nil || o.ExitCode != nil {
		t.Fatalf("output %+v %v", o, err)
	}
}

// near: a stored time is the time given, to the microsecond both engines
// keep.
func near(a, b time.Time) bool { return a.Sub(b).Abs() < time.Microsecond }
