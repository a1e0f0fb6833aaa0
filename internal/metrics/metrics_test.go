package metrics

import (
	"context"
	"database/sql"
	"errors"
	"io"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
)

func TestObservers(t *testing.T) {
	m := New()
	m.DeliveryAttempt("retrying", 20*time.Millisecond, time.Second)
	m.DeliveryAttempt("success", 10*time.Millisecond, 3*time.Second)
	m.RedisRoundTrip(time.Millisecond, nil)
	m.RedisRoundTrip(time.Millisecond, errors.New("boom"))
	m.CommandDone("agent.ping", "agent_timeout", time.Second)
	for name, c := range map[string]struct {
		got, want float64
	}{
		"retrying":          {testutil.ToFloat64(m.deliveries.WithLabelValues("retrying")), 1},
		"success":           {testutil.ToFloat64(m.deliveries.WithLabelValues("success")), 1},
		"redis ok":          {testutil.ToFloat64(m.redisCalls.WithLabelValues("ok")), 1},
		"redis error":       {testutil.ToFloat64(m.redisCalls.WithLabelValues("error")), 1},
		"timed-out command": {testutil.ToFloat64(m.commands.WithLabelValues("agent.ping", "agent_timeout")), 1},
	} {
		if c.got != c.want {
			t.Errorf("%s: %v, want %v", name, c.got, c.want)
		}
	}
	// End-to-end latency is observed for successes only.
	if n := testutil.CollectAndCount(m.deliverySeconds); n != 2 {
		t.Errorf("delivery histograms: %d series, want attempt and end_to_end", n)
	}
}

func TestScrapedGauges(t *testing.T) {
	m := New()
	m.CountGauge("queue_depth", "Depth.", func(context.Context) (int64, error) { return 7, nil })
	m.CountGauge("broken", "A source that fails.", func(context.Context) (int64, error) { return 0, errors.New("db down") })
	m.DBPools(func() map[string]sql.DBStats {
		return map[string]sql.DBStats{"main": {OpenConnections: 3, InUse: 1, Idle: 2, MaxOpenConnections: 10, WaitCount: 4}}
	})
	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	b, _ := io.ReadAll(rec.Body)
	body := string(b)
	for _, line := range []string{
		"hostgate_queue_depth 7",
		`hostgate_db_connections_open{pool="main"} 3`,
		`hostgate_db_connections_in_use{pool="main"} 1`,
		`hostgate_db_waits_total{pool="main"} 4`,
	} {
		if !strings.Contains(body, line+"\n") {
			t.Errorf("scrape lacks %q", line)
		}
	}
	if strings.Contains(body, "hostgate_broken ") {
		t.Error("a gauge whose source failed reported a value")
	}
}
