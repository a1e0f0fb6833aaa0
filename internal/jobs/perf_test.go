package jobs_test

import (
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/google/uuid"

	"hostgate/internal/hosts"
	"hostgate/internal/jobs"
)

func TestPerfJob(t *testing.T) {
	if os.Getenv("JOBS_PERF") == "" {
		t.Skip("JOBS_PERF unset")
	}
	engines(t, func(t *testing.T, w *world) {
		if t.Name() != "TestPerfJob/sqlite" {
			t.Skip()
		}
		w.fund(t, 1e12)
		for i := range 2000 {
			h := hosts.Host{ID: uuid.NewString(), UserID: w.user, Name: fmt.Sprint("p", i), BID: time.Now().UnixNano()>>8 + int64(i+10)<<20,
				ListenPort: hosts.DefaultListenPort, Status: hosts.StatusPending, CreatedAt: time.Now(), WebhookFormat: hosts.DefaultWebhookFormat}
			if err := w.st.Hosts.CreateHost(t.Context(), h, hosts.Secrets{SecretSealed: []byte("s")}, nil); err != nil {
				t.Fatal(err)
			}
			w.hosts = append(w.hosts, h.ID)
			w.disp.online[h.ID] = true
		}
		s := w.service("a", nil, nil)
		run(t, s)
		start := time.Now()
		c, err := s.Create(t.Context(), jobs.Creator{UserID: w.user}, jobs.Request{Target: jobs.Target{HostIDs: w.hosts}, Operation: shell(), Concurrency: 50})
		if err != nil {
			t.Fatal(err)
		}
		j := waitFinished(t, s, w.user, c.Job.ID)
		t.Logf("%d runs in %v (%+v)", len(w.hosts), time.Since(start), j.Totals)
	})
}
