package schedules_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"

	"hostgate/internal/accounts"
	"hostgate/internal/apperr"
	"hostgate/internal/paging"
	"hostgate/internal/pgtest"
	"hostgate/internal/schedules"
	"hostgate/internal/store"
	"hostgate/internal/store/postgres"
	"hostgate/internal/store/sqlite"
)

// engine opens a store over one database; every call opens a new pool on
// the same database, as a restarted or another hub instance would.
type engine func(t *testing.T) store.Store

// engines runs f over SQLite and PostgreSQL.
func engines(t *testing.T, f func(t *testing.T, open engine)) {
	t.Run("sqlite", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "hostgate.db")
		f(t, func(t *testing.T) store.Store {
			db, err := sqlite.Open(t.Context(), path)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = db.Close() })
			return store.New(db)
		})
	})
	t.Run("postgres", func(t *testing.T) {
		url := pgtest.NewDatabase(t)
		f(t, func(t *testing.T) store.Store {
			db, err := postgres.Open(t.Context(), url)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = db.Close() })
			return store.New(db)
		})
	})
}

// clock is the instances' shared clock, set by the test.
type clock struct{ t atomic.Pointer[time.Time] }

func (c *clock) now() time.Time  { return *c.t.Load() }
func (c *clock) set(t time.Time) { c.t.Store(&t) }

// starter is the fake jobs service: it records each start.
type starter struct {
	mu     sync.Mutex
	starts []string // schedule ids
	fail   error
}

func (s *starter) StartScheduled(_ context.Context, owner, scheduleID string, job json.RawMessage) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.fail != nil {
		return "", s.fail
	}
	s.starts = append(s.starts, scheduleID)
	return "job-" + uuid.NewString(), nil
}

func (s *starter) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.starts)
}

// validator is the fake jobs validation.
type validator struct{ err error }

func (v validator) ValidateJob(context.Context, string, json.RawMessage) error { return v.err }

func newUser(t *testing.T, s store.Store) string {
	u := accounts.User{ID: uuid.NewString(), Email: uuid.NewString() + "@example.com", DisplayName: "U", Status: accounts.StatusActive, CreatedAt: time.Now()}
	sess := accounts.Session{ID: uuid.NewString(), UserID: u.ID, CreatedAt: time.Now(), ExpiresAt: time.Now().Add(time.Hour)}
	if err := s.Accounts.CreateUser(t.Context(), u, "h", sess, []byte(u.ID)); err != nil {
		t.Fatal(err)
	}
	return u.ID
}

func instance(s store.Store, c *clock, st schedules.Starter) *schedules.Service {
	svc := schedules.NewService(s.Schedules)
	svc.Now = c.now
	svc.SetJobs(validator{}, st)
	return svc
}

const job = `{"target":{"tags":["env=prod"]},"operation":{"controls":8192,"path":"/bin/true"}}`

func cronInput(expr string) schedules.Input {
	return schedules.Input{Name: "every five", Job: json.RawMessage(job), Cron: &expr, Timezone: "Europe/Berlin"}
}

// fireAll runs Fire on every instance at once and returns the starts.
func fireAll(t *testing.T, svcs []*schedules.Service) int {
	t.Helper()
	var wg sync.WaitGroup
	var total atomic.Int64
	start := make(chan struct{})
	for _, svc := range svcs {
		wg.Go(func() {
			<-start
			n, err := svc.Fire(t.Context())
			if err != nil {
				t.Errorf("Fire: %v", err)
			}
			total.Add(int64(n))
		})
	}
	close(start)
	wg.Wait()
	return int(total.Load())
}

var t0 = time.Date(2026, 1, 5, 10, 0, 0, 0, time.UTC)

func TestExactlyOneOfThreeInstancesFiresEachPeriod(t *testing.T) {
	engines(t, func(t *testing.T, open engine) {
		c := &clock{}
		c.set(t0)
		st := &starter{}
		first := open(t)
		owner := newUser(t, first)
		svcs := []*schedules.Service{instance(first, c, st), instance(open(t), c, st), instance(open(t), c, st)}
		sc, err := svcs[0].CreateSchedule(t.Context(), owner, cronInput("*/5 * * * *"))
		if err != nil {
			t.Fatal(err)
		}
		if sc.NextRunAt == nil || !sc.NextRunAt.Equal(t0.Add(5*time.Minute)) {
			t.Fatalf("next_run_at: %v, want 10:05", sc.NextRunAt)
		}
		if n := fireAll(t, svcs); n != 0 {
			t.Fatalf("before it is due: %d starts", n)
		}
		for period := 1; period <= 3; period++ {
			c.set(t0.Add(time.Duration(period)*5*time.Minute + 2*time.Second))
			if n := fireAll(t, svcs); n != 1 {
				t.Fatalf("period %d: %d instances started the run, want exactly 1", period, n)
			}
			if n := fireAll(t, svcs); n != 0 {
				t.Fatalf("period %d, scanned again: %d more starts", period, n)
			}
		}
		if st.count() != 3 {
			t.Fatalf("starts: %d, want 3", st.count())
		}
		// Restart: new instances over the same database fire the next
		// period, once.
		restarted := []*schedules.Service{instance(open(t), c, st), instance(open(t), c, st), instance(open(t), c, st)}
		c.set(t0.Add(20*time.Minute + time.Second))
		if n := fireAll(t, restarted); n != 1 {
			t.Fatalf("after restart: %d starts, want 1", n)
		}
		runs, err := restarted[0].ScheduleRuns(t.Context(), owner, sc.ID, paging.Page{Limit: 10})
		if err != nil || runs.Total != 4 {
			t.Fatalf("history: %d rows (%v), want 4", runs.Total, err)
		}
		got, _ := restarted[0].GetSchedule(t.Context(), owner, sc.ID)
		if got.LastJobID == "" || got.LastJobID != runs.Items[0].JobID || !runs.Items[0].At.Equal(t0.Add(20*time.Minute)) {
			t.Errorf("last run: schedule %+v, history %+v", got, runs.Items[0])
		}
	})
}

func TestMissedRunsFireOnceWhenAHubReturns(t *testing.T) {
	engines(t, func(t *testing.T, open engine) {
		c := &clock{}
		c.set(t0)
		st := &starter{}
		s := open(t)
		owner := newUser(t, s)
		svc := instance(s, c, st)
		sc, err := svc.CreateSchedule(t.Context(), owner, cronInput("*/5 * * * *"))
		if err != nil {
			t.Fatal(err)
		}
		// Every hub down from 10:00 to 11:32: seventeen periods missed.
		c.set(t0.Add(92 * time.Minute))
		back := instance(open(t), c, st)
		if n, err := back.Fire(t.Context()); n != 1 || err != nil {
			t.Fatalf("catch-up: %d starts (%v), want 1", n, err)
		}
		if n, _ := back.Fire(t.Context()); n != 0 {
			t.Fatalf("second scan: %d starts, want 0", n)
		}
		got, _ := back.GetSchedule(t.Context(), owner, sc.ID)
		if got.NextRunAt == nil || !got.NextRunAt.Equal(t0.Add(95*time.Minute)) {
			t.Errorf("next_run_at after catch-up: %v, want 11:35", got.NextRunAt)
		}
		runs, _ := back.ScheduleRuns(t.Context(), owner, sc.ID, paging.Page{Limit: 10})
		if runs.Total != 1 || !runs.Items[0].At.Equal(t0.Add(5*time.Minute)) || !runs.Items[0].FiredAt.Equal(t0.Add(92*time.Minute)) {
			t.Errorf("history: %+v, want one run planned 10:05, fired 11:32", runs.Items)
		}
	})
}

func TestOneOffPausesItselfAfterFiring(t *testing.T) {
	engines(t, func(t *testing.T, open engine) {
		c := &clock{}
		c.set(t0)
		st := &starter{}
		s := open(t)
		owner := newUser(t, s)
		svc := instance(s, c, st)
		at := t0.Add(30 * time.Minute)
		sc, err := svc.CreateSchedule(t.Context(), owner, schedules.Input{Name: "once", Job: json.RawMessage(job), At: &at})
		if err != nil {
			t.Fatal(err)
		}
		if sc.Timezone != "UTC" || !sc.NextRunAt.Equal(at) {
			t.Fatalf("created: %+v", sc)
		}
		c.set(at.Add(time.Second))
		if n, _ := svc.Fire(t.Context()); n != 1 {
			t.Fatalf("at its time: %d starts, want 1", n)
		}
		got, _ := svc.GetSchedule(t.Context(), owner, sc.ID)
		if !got.Paused || got.NextRunAt != nil || got.LastRunAt == nil {
			t.Errorf("after firing: %+v, want paused without a next run", got)
		}
		c.set(at.Add(time.Hour))
		if n, _ := svc.Fire(t.Context()); n != 0 {
			t.Errorf("later: %d starts, want 0", n)
		}
		if _, err := svc.ResumeSchedule(t.Context(), owner, sc.ID); !apperr.Is(err, apperr.CodeInvalidBody) {
			t.Errorf("resume of a past one-off: %v, want invalid_body", err)
		}
	})
}

func TestPauseAndResume(t *testing.T) {
	engines(t, func(t *testing.T, open engine) {
		c := &clock{}
		c.set(t0)
		st := &starter{}
		s := open(t)
		owner := newUser(t, s)
		svc := instance(s, c, st)
		sc, err := svc.CreateSchedule(t.Context(), owner, cronInput("*/5 * * * *"))
		if err != nil {
			t.Fatal(err)
		}
		p, err := svc.PauseSchedule(t.Context(), owner, sc.ID)
		if err != nil || !p.Paused || p.NextRunAt != nil {
			t.Fatalf("pause: %+v, %v", p, err)
		}
		c.set(t0.Add(22 * time.Minute))
		if n, _ := svc.Fire(t.Context()); n != 0 {
			t.Fatalf("paused: %d starts", n)
		}
		r, err := svc.ResumeSchedule(t.Context(), owner, sc.ID)
		if err != nil || r.Paused || r.NextRunAt == nil || !r.NextRunAt.Equal(t0.Add(25*time.Minute)) {
			t.Fatalf("resume: %+v, %v, want next run 10:25 (from now)", r, err)
		}
		if n, _ := svc.Fire(t.Context()); n != 0 {
			t.Fatalf("resumed: nothing missed is fired, got %d", n)
		}
	})
}

func TestStartFailureIsRecorded(t *testing.T) {
	engines(t, func(t *testing.T, open engine) {
		c := &clock{}
		c.set(t0)
		st := &starter{fail: apperr.New("empty_target", "the target matches no host")}
		s := open(t)
		owner := newUser(t, s)
		svc := instance(s, c, st)
		sc, _ := svc.CreateSchedule(t.Context(), owner, cronInput("*/5 * * * *"))
		c.set(t0.Add(5 * time.Minute))
		if n, err := svc.Fire(t.Context()); n != 1 || err != nil {
			t.Fatalf("Fire: %d, %v", n, err)
		}
		runs, _ := svc.ScheduleRuns(t.Context(), owner, sc.ID, paging.Page{Limit: 10})
		if runs.Total != 1 || runs.Items[0].Error != "empty_target" || runs.Items[0].JobID != "" ||
			runs.Items[0].Message != "the target matches no host" {
			t.Errorf("history: %+v", runs.Items)
		}
		got, _ := svc.GetSchedule(t.Context(), owner, sc.ID)
		if got.NextRunAt == nil || !got.NextRunAt.Equal(t0.Add(10*time.Minute)) {
			t.Errorf("a failed start still moves on: next %v", got.NextRunAt)
		}
	})
}

func TestSaveValidationAndLimits(t *testing.T) {
	engines(t, func(t *testing.T, open engine) {
		c := &clock{}
		c.set(t0)
		s := open(t)
		owner, other := newUser(t, s), newUser(t, s)
		svc := schedules.NewService(s.Schedules)
		svc.Now = c.now
		if _, err := svc.CreateSchedule(t.Context(), owner, cronInput("* * * * *")); !apperr.Is(err, apperr.CodeUnavailable) {
			t.Fatalf("without jobs: %v, want unavailable", err)
		}
		if n, err := svc.Fire(t.Context()); n != 0 || err != nil {
			t.Fatalf("Fire without a starter: %d, %v", n, err)
		}
		svc.SetJobs(validator{err: apperr.New("empty_target", "no")}, nil)
		if _, err := svc.CreateSchedule(t.Context(), owner, cronInput("* * * * *")); !apperr.Is(err, "empty_target") {
			t.Fatalf("refused by the jobs: %v", err)
		}
		svc.SetJobs(validator{}, nil)
		past := t0.Add(-time.Minute)
		bad := []schedules.Input{
			{Name: "", Job: json.RawMessage(job), Cron: cronInput("* * * * *").Cron},
			{Name: string(make([]rune, 101)), Job: json.RawMessage(job), Cron: cronInput("* * * * *").Cron},
			{Name: "x", Job: json.RawMessage(`[1]`), Cron: cronInput("* * * * *").Cron},
			{Name: "x", Job: json.RawMessage(`{"dry_run":true}`), Cron: cronInput("* * * * *").Cron},
			{Name: "x", Job: json.RawMessage(job), At: &past},
			{Name: "x", Job: json.RawMessage(job)},
			{Name: "x", Job: json.RawMessage(job), Cron: cronInput("CRON_TZ=UTC * * * * *").Cron},
			{Name: "x", Job: json.RawMessage(job), Cron: cronInput("0 0 30 2 *").Cron},
		}
		for i, in := range bad {
			if _, err := svc.CreateSchedule(t.Context(), owner, in); !apperr.Is(err, apperr.CodeInvalidBody) {
				t.Errorf("bad input %d: %v, want invalid_body", i, err)
			}
		}
		var first schedules.Schedule
		for i := range schedules.MaxPerUser {
			sc, err := svc.CreateSchedule(t.Context(), owner, cronInput("0 3 * * *"))
			if err != nil {
				t.Fatalf("schedule %d: %v", i, err)
			}
			if i == 0 {
				first = sc
			}
		}
		if _, err := svc.CreateSchedule(t.Context(), owner, cronInput("0 3 * * *")); !apperr.Is(err, schedules.CodeLimitReached) {
			t.Fatalf("101st: %v, want limit_reached", err)
		}
		// Tenant boundary: another user's schedule is not found.
		for name, call := range map[string]func() error{
			"get": func() error { _, err := svc.GetSchedule(t.Context(), other, first.ID); return err },
			"update": func() error {
				_, err := svc.UpdateSchedule(t.Context(), other, first.ID, schedules.Patch{})
				return err
			},
			"pause":  func() error { _, err := svc.PauseSchedule(t.Context(), other, first.ID); return err },
			"resume": func() error { _, err := svc.ResumeSchedule(t.Context(), other, first.ID); return err },
			"runs": func() error {
				_, err := svc.ScheduleRuns(t.Context(), other, first.ID, paging.Page{Limit: 1})
				return err
			},
			"delete": func() error { return svc.DeleteSchedule(t.Context(), other, first.ID) },
		} {
			if err := call(); !apperr.Is(err, apperr.CodeNotFound) {
				t.Errorf("%s another user's schedule: %v, want not_found", name, err)
			}
		}
		// PATCH replaces the timing and recomputes the next run.
		expr := "30 4 * * *"
		up, err := svc.UpdateSchedule(t.Context(), owner, first.ID, schedules.Patch{Cron: &expr})
		if err != nil || up.Cron != expr || !up.NextRunAt.Equal(time.Date(2026, 1, 6, 3, 30, 0, 0, time.UTC)) {
			t.Errorf("patch: %+v, %v, want next 04:30 Berlin", up, err)
		}
	})
}
