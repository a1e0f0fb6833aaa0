package storetest

import (
	"encoding/json"
	"errors"
	"slices"
	"testing"
	"time"

	"hostgate/internal/deliveries"
	"hostgate/internal/paging"
	"hostgate/internal/schedules"
	"hostgate/internal/store"
	"hostgate/internal/webhooks"
)

var scheduleTests = []test{
	{"CRUDAndTenant", testScheduleCRUD},
	{"Limit", testScheduleLimit},
	{"DueAndClaim", testScheduleDueAndClaim},
	{"ClaimRace", testScheduleClaimRace},
	{"OneOffPausesAndHistory", testScheduleOneOffHistory},
	{"DeleteTakesHistory", testScheduleDeleteHistory},
	{"UserDeliveries", testUserDeliveries},
	{"UserSecret", testUserSecret},
}

func newSchedule(owner, name string, next *time.Time) schedules.Schedule {
	return schedules.Schedule{ID: newID(), UserID: owner, Name: name, Job: json.RawMessage(`{"target":{"tags":["env=prod"]}}`),
		Cron: "*/5 * * * *", Timezone: "Europe/Berlin", NextRunAt: next, Paused: next == nil, CreatedAt: t0, UpdatedAt: t0}
}

func ptr[T any](v T) *T { return &v }

func testScheduleCRUD(t *testing.T, s store.Store) {
	ctx := t.Context()
	alice, bob := owner(t, s, "alice@example.com"), owner(t, s, "bob@example.com")
	a := newSchedule(alice, "nightly", ptr(t0.Add(time.Hour)))
	must(t, "CreateSchedule", s.Schedules.CreateSchedule(ctx, a, 100))
	b := newSchedule(alice, "later", nil)
	b.CreatedAt = t0.Add(time.Second)
	must(t, "CreateSchedule", s.Schedules.CreateSchedule(ctx, b, 100))

	got, err := s.Schedules.GetSchedule(ctx, alice, a.ID)
	must(t, "GetSchedule", err)
	if got.Name != "nightly" || got.Cron != a.Cron || got.Timezone != a.Timezone || got.Paused || string(got.Job) != string(a.Job) {
		t.Errorf("GetSchedule: got %+v, want %+v", got, a)
	}
	checkTime(t, "next_run_at", *got.NextRunAt, t0.Add(time.Hour))
	_, err = s.Schedules.GetSchedule(ctx, bob, a.ID)
	checkErr(t, "GetSchedule of another user's", err, schedules.ErrNotFound)

	items, total, err := s.Schedules.ListSchedules(ctx, alice, paging.Page{Limit: 1})
	must(t, "ListSchedules", err)
	if total != 2 || len(items) != 1 || items[0].ID != b.ID || !items[0].Paused || items[0].NextRunAt != nil {
		t.Errorf("ListSchedules: got %d of %d (%+v), want the newest (paused) of 2", len(items), total, items)
	}
	if _, total, _ := s.Schedules.ListSchedules(ctx, bob, paging.Page{Limit: 10}); total != 0 {
		t.Errorf("bob's schedules: got %d, want 0", total)
	}

	a.Name, a.At, a.Cron, a.NextRunAt, a.UpdatedAt = "once", ptr(t0.Add(2*time.Hour)), "", ptr(t0.Add(2*time.Hour)), t0.Add(time.Minute)
	must(t, "UpdateSchedule", s.Schedules.UpdateSchedule(ctx, a))
	got, _ = s.Schedules.GetSchedule(ctx, alice, a.ID)
	if got.Name != "once" || got.Cron != "" || got.At == nil || !got.At.Equal(stored(t0.Add(2*time.Hour))) {
		t.Errorf("after UpdateSchedule: got %+v", got)
	}
	stolen := a
	stolen.UserID = bob
	checkErr(t, "UpdateSchedule as another user", s.Schedules.UpdateSchedule(ctx, stolen), schedules.ErrNotFound)
	checkErr(t, "DeleteSchedule as another user", s.Schedules.DeleteSchedule(ctx, bob, a.ID), schedules.ErrNotFound)
	must(t, "DeleteSchedule", s.Schedules.DeleteSchedule(ctx, alice, a.ID))
	_, err = s.Schedules.GetSchedule(ctx, alice, a.ID)
	checkErr(t, "GetSchedule after delete", err, schedules.ErrNotFound)
}

func testScheduleLimit(t *testing.T, s store.Store) {
	alice := owner(t, s, "alice@example.com")
	for i := range 2 {
		must(t, "CreateSchedule", s.Schedules.CreateSchedule(t.Context(), newSchedule(alice, "s", nil), 2))
		_ = i
	}
	checkErr(t, "third CreateSchedule", s.Schedules.CreateSchedule(t.Context(), newSchedule(alice, "s", nil), 2), schedules.ErrLimit)
	// Racing creates never pass the limit together.
	bob := owner(t, s, "bob@example.com")
	errs := race(6, func(int) error { return s.Schedules.CreateSchedule(t.Context(), newSchedule(bob, "r", nil), 3) })
	if n := countRace(t, errs, schedules.ErrLimit); n != 3 {
		t.Errorf("racing creates: %d succeeded, want 3", n)
	}
}

func claimOf(sc schedules.Schedule, next *time.Time, now time.Time) schedules.Claim {
	return schedules.Claim{ScheduleID: sc.ID, Was: *sc.NextRunAt, Next: next,
		Run: schedules.Run{ID: newID(), ScheduleID: sc.ID, At: *sc.NextRunAt, FiredAt: now}}
}

func testScheduleDueAndClaim(t *testing.T, s store.Store) {
	ctx := t.Context()
	alice := owner(t, s, "alice@example.com")
	late := newSchedule(alice, "late", ptr(t0.Add(2*time.Minute)))
	early := newSchedule(alice, "early", ptr(t0.Add(time.Minute)))
	future := newSchedule(alice, "future", ptr(t0.Add(time.Hour)))
	paused := newSchedule(alice, "paused", nil)
	for _, sc := range []schedules.Schedule{late, early, future, paused} {
		must(t, "CreateSchedule", s.Schedules.CreateSchedule(ctx, sc, 100))
	}
	now := t0.Add(5 * time.Minute)
	due, err := s.Schedules.DueSchedules(ctx, now, 10)
	must(t, "DueSchedules", err)
	var names []string
	for _, d := range due {
		names = append(names, d.Name)
	}
	if !slices.Equal(names, []string{"early", "late"}) {
		t.Fatalf("DueSchedules: got %v, want [early late]", names)
	}
	c := claimOf(due[0], ptr(t0.Add(10*time.Minute)), now)
	must(t, "ClaimRun", s.Schedules.ClaimRun(ctx, c))
	checkErr(t, "second ClaimRun of the same run", s.Schedules.ClaimRun(ctx, claimOf(due[0], ptr(t0.Add(10*time.Minute)), now)), schedules.ErrClaimLost)
	got, _ := s.Schedules.GetSchedule(ctx, alice, early.ID)
	checkTime(t, "next_run_at after claim", *got.NextRunAt, t0.Add(10*time.Minute))
	checkTime(t, "last_run_at after claim", *got.LastRunAt, now)
	if got.Paused {
		t.Error("a claimed cron schedule paused")
	}
}

func testScheduleClaimRace(t *testing.T, s store.Store) {
	ctx := t.Context()
	alice := owner(t, s, "alice@example.com")
	sc := newSchedule(alice, "raced", ptr(t0))
	must(t, "CreateSchedule", s.Schedules.CreateSchedule(ctx, sc, 100))
	errs := race(8, func(int) error {
		return s.Schedules.ClaimRun(ctx, claimOf(sc, ptr(t0.Add(5*time.Minute)), t0.Add(time.Second)))
	})
	if n := countRace(t, errs, schedules.ErrClaimLost); n != 1 {
		t.Errorf("racing claims: %d won, want exactly 1", n)
	}
	runs, total, err := s.Schedules.ListRuns(ctx, alice, sc.ID, paging.Page{Limit: 10})
	must(t, "ListRuns", err)
	if total != 1 || len(runs) != 1 {
		t.Errorf("history after the race: %d rows, want 1", total)
	}
}

func testScheduleOneOffHistory(t *testing.T, s store.Store) {
	ctx := t.Context()
	alice, bob := owner(t, s, "alice@example.com"), owner(t, s, "bob@example.com")
	sc := newSchedule(alice, "once", ptr(t0))
	sc.At, sc.Cron = ptr(t0), ""
	must(t, "CreateSchedule", s.Schedules.CreateSchedule(ctx, sc, 100))
	c := claimOf(sc, nil, t0.Add(3*time.Second))
	must(t, "ClaimRun", s.Schedules.ClaimRun(ctx, c))
	got, _ := s.Schedules.GetSchedule(ctx, alice, sc.ID)
	if !got.Paused || got.NextRunAt != nil {
		t.Errorf("one-off after its run: paused %v next %v, want paused, no next run", got.Paused, got.NextRunAt)
	}
	must(t, "FinishRun", s.Schedules.FinishRun(ctx, sc.ID, c.Run.ID, "job-1", "", ""))
	got, _ = s.Schedules.GetSchedule(ctx, alice, sc.ID)
	if got.LastJobID != "job-1" {
		t.Errorf("last_job_id: got %q, want job-1", got.LastJobID)
	}
	// A second (manual) history row, failed.
	sc2 := got
	sc2.NextRunAt, sc2.Paused, sc2.UpdatedAt = ptr(t0.Add(time.Hour)), false, t0
	must(t, "UpdateSchedule", s.Schedules.UpdateSchedule(ctx, sc2))
	c2 := claimOf(sc2, nil, t0.Add(time.Hour))
	must(t, "ClaimRun", s.Schedules.ClaimRun(ctx, c2))
	must(t, "FinishRun", s.Schedules.FinishRun(ctx, sc.ID, c2.Run.ID, "", "empty_target", "no host matches"))
	runs, total, err := s.Schedules.ListRuns(ctx, alice, sc.ID, paging.Page{Limit: 10})
	must(t, "ListRuns", err)
	if total != 2 || runs[0].ID != c2.Run.ID || runs[0].Error != "empty_target" || runs[0].JobID != "" ||
		runs[1].JobID != "job-1" || runs[1].Error != "" {
		t.Errorf("ListRuns: got %+v, want the failed run, then job-1", runs)
	}
	checkTime(t, "run at", runs[1].At, t0)
	checkTime(t, "run fired_at", runs[1].FiredAt, t0.Add(3*time.Second))
	if got, _ := s.Schedules.GetSchedule(ctx, alice, sc.ID); got.LastJobID != "job-1" {
		t.Errorf("a failed run changed last_job_id to %q", got.LastJobID)
	}
	_, _, err = s.Schedules.ListRuns(ctx, bob, sc.ID, paging.Page{Limit: 10})
	checkErr(t, "ListRuns of another user's schedule", err, schedules.ErrNotFound)
}

func testScheduleDeleteHistory(t *testing.T, s store.Store) {
	ctx := t.Context()
	alice := owner(t, s, "alice@example.com")
	sc := newSchedule(alice, "gone", ptr(t0))
	must(t, "CreateSchedule", s.Schedules.CreateSchedule(ctx, sc, 100))
	must(t, "ClaimRun", s.Schedules.ClaimRun(ctx, claimOf(sc, ptr(t0.Add(time.Hour)), t0)))
	must(t, "DeleteSchedule", s.Schedules.DeleteSchedule(ctx, alice, sc.ID))
	_, _, err := s.Schedules.ListRuns(ctx, alice, sc.ID, paging.Page{Limit: 10})
	checkErr(t, "ListRuns after delete", err, schedules.ErrNotFound)
}

// userDelivery is a pending host-less delivery of userID.
func userDelivery(userID string, at time.Time) deliveries.Delivery {
	id := newID()
	return deliveries.Delivery{ID: id, UserID: userID, EventType: webhooks.EventJobFinished, Format: webhooks.FormatA,
		Status: deliveries.StatusPending, TargetURL: "https://hooks.example.com/jobs",
		Payload: []byte(`{"id":"` + id + `"}`), SealedSecrets: []byte("sealed " + id), NextAttemptAt: at, CreatedAt: at}
}

func testUserDeliveries(t *testing.T, s store.Store) {
	ctx := t.Context()
	alice, bob := owner(t, s, "alice@example.com"), owner(t, s, "bob@example.com")
	h := createHost(t, s, newHost(alice, "web-1", t0))
	hostRows := enqueue(t, s, h, 2, t0)
	u1, u2 := userDelivery(alice, t0), userDelivery(alice, t0)
	must(t, "EnqueueDelivery u1", s.Deliveries.EnqueueDelivery(ctx, u1))
	must(t, "EnqueueDelivery u2", s.Deliveries.EnqueueDelivery(ctx, u2))
	// Host-less rows wait for no other: both come in one claim, with the
	// host's oldest row only (its order unchanged).
	got := claim(t, s, "one", t0)
	want := []string{hostRows[0].ID, u1.ID, u2.ID}
	if !slices.Equal(got, want) {
		t.Fatalf("ClaimDue: got %v, want %v", got, want)
	}
	c, err := s.Deliveries.ClaimDue(ctx, "one", t0, time.Minute, 100)
	must(t, "ClaimDue again", err)
	if len(c) != 0 {
		t.Errorf("second claim while leased: got %d rows, want 0", len(c))
	}
	dead := deliveries.Result{Status: deliveries.StatusDeadLetter, At: t0, HTTPStatus: 500, Error: "receiver answered 500"}
	must(t, "FinishDelivery", s.Deliveries.FinishDelivery(ctx, u1.ID, "one", dead))
	must(t, "FinishDelivery", s.Deliveries.FinishDelivery(ctx, u2.ID, "one", success(t0)))

	items, total, err := s.Deliveries.ListUserDeliveries(ctx, alice, paging.Page{Limit: 10})
	must(t, "ListUserDeliveries", err)
	if total != 2 || items[0].ID != u2.ID || items[1].ID != u1.ID || items[0].HostID != "" {
		t.Errorf("ListUserDeliveries: got %d %+v, want u2, u1 (no host rows)", total, items)
	}
	if _, total, _ := s.Deliveries.ListUserDeliveries(ctx, bob, paging.Page{Limit: 10}); total != 0 {
		t.Errorf("bob's user deliveries: got %d, want 0", total)
	}
	if ds, _ := s.Deliveries.ListDeliveries(ctx, h.ID, 10); len(ds) != 2 {
		t.Errorf("host history: got %d rows, want its 2", len(ds))
	}
	_, err = s.Deliveries.RetryUserDelivery(ctx, bob, u1.ID, t0)
	checkErr(t, "RetryUserDelivery of another user's", err, deliveries.ErrNotFound)
	_, err = s.Deliveries.RetryUserDelivery(ctx, alice, hostRows[1].ID, t0)
	checkErr(t, "RetryUserDelivery of a host row", err, deliveries.ErrNotFound)
	_, err = s.Deliveries.RetryUserDelivery(ctx, alice, u2.ID, t0)
	checkErr(t, "RetryUserDelivery of a delivered row", err, deliveries.ErrNotDead)
	d, err := s.Deliveries.RetryUserDelivery(ctx, alice, u1.ID, t0.Add(time.Minute))
	must(t, "RetryUserDelivery", err)
	if d.Status != deliveries.StatusRetrying || d.Attempts != 1 {
		t.Errorf("revived: got %s after %d attempts, want retrying after 1", d.Status, d.Attempts)
	}
}

func testUserSecret(t *testing.T, s store.Store) {
	ctx := t.Context()
	alice := owner(t, s, "alice@example.com")
	_, _, err := s.Deliveries.UserSecret(ctx, alice)
	checkErr(t, "UserSecret before any", err, deliveries.ErrNoSecret)
	must(t, "PutUserSecret", s.Deliveries.PutUserSecret(ctx, alice, []byte("sealed 1"), t0))
	must(t, "PutUserSecret again", s.Deliveries.PutUserSecret(ctx, alice, []byte("sealed 2"), t0.Add(time.Hour)))
	sealed, at, err := s.Deliveries.UserSecret(ctx, alice)
	must(t, "UserSecret", err)
	if string(sealed) != "sealed 2" {
		t.Errorf("UserSecret: got %q, want the rotated one", sealed)
	}
	checkTime(t, "secret created_at", at, t0.Add(time.Hour))
	if errors.Is(err, deliveries.ErrNoSecret) {
		t.Error("unreachable")
	}
}
