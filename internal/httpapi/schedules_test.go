package httpapi_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"hostgate/internal/apperr"
	"hostgate/internal/eventually"
	"hostgate/internal/hubtest"
)

// fakeJobs stands in for the jobs service: it accepts every job request
// except one whose name is "refuse", and records each start.
type fakeJobs struct {
	mu     sync.Mutex
	starts []string
}

func (*fakeJobs) ValidateJob(_ context.Context, _ string, job json.RawMessage) error {
	var j struct{ Name string }
	_ = json.Unmarshal(job, &j)
	if j.Name == "refuse" {
		return apperr.New(apperr.CodeInvalidBody, "operation: refused by the jobs")
	}
	return nil
}

func (f *fakeJobs) StartScheduled(_ context.Context, _, scheduleID string, _ json.RawMessage) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.starts = append(f.starts, scheduleID)
	return "11111111-2222-4333-8444-555555555555", nil
}

func (f *fakeJobs) started() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.starts)
}

type scheduleJSON struct {
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Job       json.RawMessage `json:"job"`
	At        *time.Time      `json:"at"`
	Cron      *string         `json:"cron"`
	Timezone  string          `json:"timezone"`
	Paused    bool            `json:"paused"`
	NextRunAt *time.Time      `json:"next_run_at"`
	LastRunAt *time.Time      `json:"last_run_at"`
	LastJobID *string         `json:"last_job_id"`
}

var scheduledJob = map[string]any{"target": map[string]any{"tags": []string{"env=prod"}},
	"operation": map[string]any{"controls": 8192, "path": "/bin/sh"}, "offline": "queue"}

func TestSchedulesWithoutJobsAreUnavailable(t *testing.T) {
	hubtest.Run(t, func(t *testing.T, mode hubtest.Mode) {
		h := hubtest.Start(t, mode)
		u := h.Register(t)
		r := h.Client(t).As(u.AccessToken).Do("POST", "/v1/user/schedules",
			map[string]any{"name": "n", "cron": "0 3 * * *", "job": scheduledJob}).Want(t, 503, "unavailable")
		if !strings.Contains(string(r.Body), "jobs not available") {
			t.Errorf("message: %s", r.Body)
		}
	})
}

func TestSchedulesAPI(t *testing.T) {
	hubtest.Run(t, func(t *testing.T, mode hubtest.Mode) {
		h := hubtest.Start(t, mode)
		h.Schedules.SetJobs(&fakeJobs{}, nil)
		u := h.Register(t)
		user := h.Client(t).As(u.AccessToken)
		key := h.Client(t).As(apiKey(t, h, u.AccessToken))

		var sc scheduleJSON
		key.Do("POST", "/v1/api/schedules", map[string]any{"name": "nightly", "cron": "30 2 * * *",
			"timezone": "Europe/Berlin", "job": scheduledJob}).Want(t, 201, "").JSON(t, &sc)
		if sc.Cron == nil || *sc.Cron != "30 2 * * *" || sc.At != nil || sc.Timezone != "Europe/Berlin" || sc.Paused ||
			sc.NextRunAt == nil || sc.LastRunAt != nil || sc.LastJobID != nil || !strings.Contains(string(sc.Job), `"offline":"queue"`) {
			t.Fatalf("created: %+v (job %s)", sc, sc.Job)
		}
		if l := sc.NextRunAt.In(mustZone(t, "Europe/Berlin")); l.Hour() != 2 || l.Minute() != 30 || sc.NextRunAt.Location() != time.UTC {
			t.Errorf("next_run_at %v is not 02:30 Berlin in UTC", sc.NextRunAt)
		}
		// The same schedule through the console routes.
		var got scheduleJSON
		user.Do("GET", "/v1/user/schedules/"+sc.ID, nil).Want(t, 200, "").JSON(t, &got)
		if got.ID != sc.ID || got.Name != "nightly" {
			t.Errorf("GET: %+v", got)
		}
		at := time.Now().Add(48 * time.Hour).UTC().Truncate(time.Second)
		var once scheduleJSON
		user.Do("POST", "/v1/user/schedules", map[string]any{"name": "once", "at": at, "cron": nil, "job": scheduledJob}).
			Want(t, 201, "").JSON(t, &once)
		if once.At == nil || !once.At.Equal(at) || once.Cron != nil || once.Timezone != "UTC" || !once.NextRunAt.Equal(at) {
			t.Errorf("one-off: %+v", once)
		}
		var page struct {
			Items                []scheduleJSON
			Total, Limit, Offset int
		}
		key.Do("GET", "/v1/api/schedules?limit=1", nil).Want(t, 200, "").JSON(t, &page)
		if page.Total != 2 || len(page.Items) != 1 || page.Items[0].ID != once.ID || page.Limit != 1 {
			t.Errorf("list: %+v", page)
		}

		// PATCH replaces the timing; pause and resume.
		var patched scheduleJSON
		user.Do("PATCH", "/v1/user/schedules/"+sc.ID, map[string]any{"name": "hourly", "cron": "0 * * * *"}).Want(t, 200, "").JSON(t, &patched)
		if patched.Name != "hourly" || *patched.Cron != "0 * * * *" || patched.NextRunAt.Minute() != 0 {
			t.Errorf("patched: %+v", patched)
		}
		var paused scheduleJSON
		key.Do("POST", "/v1/api/schedules/"+sc.ID+"/pause", nil).Want(t, 200, "").JSON(t, &paused)
		if !paused.Paused || paused.NextRunAt != nil {
			t.Errorf("paused: %+v", paused)
		}
		var resumed scheduleJSON
		key.Do("POST", "/v1/api/schedules/"+sc.ID+"/resume", nil).Want(t, 200, "").JSON(t, &resumed)
		if resumed.Paused || resumed.NextRunAt == nil || !resumed.NextRunAt.After(time.Now()) {
			t.Errorf("resumed: %+v", resumed)
		}
		var runs struct {
			Items []json.RawMessage
			Total int
		}
		user.Do("GET", "/v1/user/schedules/"+sc.ID+"/runs", nil).Want(t, 200, "").JSON(t, &runs)
		if runs.Total != 0 || runs.Items == nil {
			t.Errorf("runs: %+v", runs)
		}

		// Refusals.
		for name, body := range map[string]map[string]any{
			"both":        {"name": "x", "cron": "* * * * *", "at": at, "job": scheduledJob},
			"neither":     {"name": "x", "job": scheduledJob},
			"CRON_TZ":     {"name": "x", "cron": "CRON_TZ=UTC 0 3 * * *", "job": scheduledJob},
			"six fields":  {"name": "x", "cron": "0 0 3 * * *", "job": scheduledJob},
			"bad zone":    {"name": "x", "cron": "0 3 * * *", "timezone": "Nowhere/Else", "job": scheduledJob},
			"empty name":  {"name": "", "cron": "0 3 * * *", "job": scheduledJob},
			"past at":     {"name": "x", "at": time.Now().Add(-time.Hour), "job": scheduledJob},
			"dry run":     {"name": "x", "cron": "0 3 * * *", "job": map[string]any{"dry_run": true}},
			"job refused": {"name": "x", "cron": "0 3 * * *", "job": map[string]any{"name": "refuse"}},
			"job missing": {"name": "x", "cron": "0 3 * * *"},
		} {
			t.Run(name, func(t *testing.T) {
				key.Do("POST", "/v1/api/schedules", body).Want(t, 400, "invalid_body")
			})
		}

		// Tenant boundary: another user's schedule is not found, by either route.
		other := h.Register(t)
		otherUser := h.Client(t).As(other.AccessToken)
		otherKey := h.Client(t).As(apiKey(t, h, other.AccessToken))
		for _, c := range []struct {
			method, path string
			body         any
		}{
			{"GET", "/schedules/" + sc.ID, nil},
			{"PATCH", "/schedules/" + sc.ID, map[string]any{"name": "mine"}},
			{"POST", "/schedules/" + sc.ID + "/pause", nil},
			{"POST", "/schedules/" + sc.ID + "/resume", nil},
			{"GET", "/schedules/" + sc.ID + "/runs", nil},
			{"DELETE", "/schedules/" + sc.ID, nil},
		} {
			otherUser.Do(c.method, "/v1/user"+c.path, c.body).Want(t, 404, "not_found")
			otherKey.Do(c.method, "/v1/api"+c.path, c.body).Want(t, 404, "not_found")
		}
		var theirs struct{ Total int }
		otherKey.Do("GET", "/v1/api/schedules", nil).Want(t, 200, "").JSON(t, &theirs)
		if theirs.Total != 0 {
			t.Errorf("another user sees %d schedules", theirs.Total)
		}
		user.Do("GET", "/v1/user/schedules/"+sc.ID, nil).Want(t, 200, "")

		key.Do("DELETE", "/v1/api/schedules/"+sc.ID, nil).Want(t, 204, "")
		user.Do("GET", "/v1/user/schedules/"+sc.ID, nil).Want(t, 404, "not_found")
		user.Do("GET", "/v1/user/schedules/"+sc.ID+"/runs", nil).Want(t, 404, "not_found")
	})
}

func TestScheduleLimit(t *testing.T) {
	hubtest.Run(t, func(t *testing.T, mode hubtest.Mode) {
		h := hubtest.Start(t, mode)
		h.Schedules.SetJobs(&fakeJobs{}, nil)
		c := h.Client(t).As(h.Register(t).AccessToken)
		for range 100 {
			c.Do("POST", "/v1/user/schedules", map[string]any{"name": "n", "cron": "0 3 * * *", "job": scheduledJob}).Want(t, 201, "")
		}
		c.Do("POST", "/v1/user/schedules", map[string]any{"name": "n", "cron": "0 3 * * *", "job": scheduledJob}).Want(t, 409, "limit_reached")
	})
}

// TestScheduleFiresInTheHub: hub.Run runs the firing loop; a one-off
// schedule starts its job once and pauses itself.
func TestScheduleFiresInTheHub(t *testing.T) {
	hubtest.Run(t, func(t *testing.T, mode hubtest.Mode) {
		h := hubtest.Start(t, mode)
		jobs := &fakeJobs{}
		h.Schedules.SetJobs(jobs, jobs)
		c := h.Client(t).As(h.Register(t).AccessToken)
		var sc scheduleJSON
		c.Do("POST", "/v1/user/schedules", map[string]any{"name": "soon", "at": time.Now().Add(time.Second), "job": scheduledJob}).
			Want(t, 201, "").JSON(t, &sc)
		eventually.True(t, 20*time.Second, "the schedule fires", func() bool { return jobs.started() == 1 })
		var got scheduleJSON
		eventually.True(t, 10*time.Second, "the run is recorded", func() bool {
			c.Do("GET", "/v1/user/schedules/"+sc.ID, nil).Want(t, 200, "").JSON(t, &got)
			return got.LastJobID != nil
		})
		if !got.Paused || got.NextRunAt != nil || got.LastRunAt == nil || *got.LastJobID != "11111111-2222-4333-8444-555555555555" {
			t.Errorf("after firing: %+v", got)
		}
		var runs struct {
			Items []struct {
				At      time.Time `json:"at"`
				FiredAt time.Time `json:"fired_at"`
				JobID   *string   `json:"job_id"`
				Error   string    `json:"error"`
			}
			Total int
		}
		c.Do("GET", "/v1/user/schedules/"+sc.ID+"/runs", nil).Want(t, 200, "").JSON(t, &runs)
		if runs.Total != 1 || runs.Items[0].JobID == nil || runs.Items[0].Error != "" || runs.Items[0].FiredAt.Before(runs.Items[0].At) {
			t.Errorf("runs: %+v", runs)
		}
		if jobs.started() != 1 {
			t.Errorf("started %d times", jobs.started())
		}
	})
}

func TestWebhookSecretRoutes(t *testing.T) {
	hubtest.Run(t, func(t *testing.T, mode hubtest.Mode) {
		h := hubtest.Start(t, mode)
		u := h.Register(t)
		user := h.Client(t).As(u.AccessToken)
		key := h.Client(t).As(apiKey(t, h, u.AccessToken))
		var st struct {
			Configured bool
			CreatedAt  *time.Time `json:"created_at"`
		}
		r := key.Do("GET", "/v1/api/webhook-secret", nil).Want(t, 200, "")
		r.JSON(t, &st)
		if st.Configured || !strings.Contains(string(r.Body), `"created_at":null`) {
			t.Fatalf("before rotate: %s", r.Body)
		}
		var rot struct {
			Secret    string
			CreatedAt time.Time `json:"created_at"`
		}
		user.Do("POST", "/v1/user/webhook-secret/rotate", nil).Want(t, 200, "").JSON(t, &rot)
		if !strings.HasPrefix(rot.Secret, "whsec_") || len(rot.Secret) < 40 {
			t.Fatalf("rotated: %q", rot.Secret)
		}
		r = key.Do("GET", "/v1/api/webhook-secret", nil).Want(t, 200, "")
		r.JSON(t, &st)
		if !st.Configured || st.CreatedAt == nil || !st.CreatedAt.Equal(rot.CreatedAt) || strings.Contains(string(r.Body), rot.Secret) {
			t.Errorf("after rotate: %s", r.Body)
		}
		if s, _ := h.WebhookSecrets.WebhookSecret(t.Context(), u.User.ID); string(s) != rot.Secret {
			t.Error("the notifier's secret is not the one shown")
		}
		var again struct{ Secret string }
		key.Do("POST", "/v1/api/webhook-secret/rotate", nil).Want(t, 200, "").JSON(t, &again)
		if again.Secret == rot.Secret {
			t.Error("rotate kept the secret")
		}
		// Another user has none, and sees none of this user's deliveries.
		other := h.Client(t).As(h.Register(t).AccessToken)
		other.Do("GET", "/v1/user/webhook-secret", nil).Want(t, 200, "").JSON(t, &st)
		if st.Configured {
			t.Error("another user's secret is configured")
		}
		var page struct {
			Items []json.RawMessage
			Total int
		}
		user.Do("GET", "/v1/user/webhook-deliveries", nil).Want(t, 200, "").JSON(t, &page)
		if page.Total != 0 || page.Items == nil {
			t.Errorf("deliveries: %+v", page)
		}
		key.Do("POST", "/v1/api/webhook-deliveries/00000000-0000-4000-8000-000000000000/retry", nil).Want(t, 404, "not_found")
	})
}

func mustZone(t *testing.T, name string) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation(name)
	if err != nil {
		t.Fatal(err)
	}
	return loc
}
