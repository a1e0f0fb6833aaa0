package hub_test

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"hostgate/internal/eventually"
	"hostgate/internal/hubtest"
)

// TestMetrics scrapes the metrics listener after real traffic: an agent, a
// charged command, a refused charge, requests.
func TestMetrics(t *testing.T) {
	hubtest.Run(t, func(t *testing.T, mode hubtest.Mode) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := ln.Addr().String()
		ln.Close()
		h := hubtest.Start(t, mode, hubtest.WithEnv("HOSTGATE_METRICS_ADDR", addr))
		u := h.Register(t)
		var key struct{ Secret string }
		h.Client(t).As(u.AccessToken).Do("POST", "/v1/user/api-keys", map[string]string{"name": "m"}).Want(t, 200, "").JSON(t, &key)
		host := h.ConnectAgent(t, u.User.ID, nil)
		c := h.Client(t).As(key.Secret)
		c.Do("POST", "/v1/api/hosts/"+host+"/system/info", nil).Want(t, 402, "insufficient_balance")
		fin, _ := h.Admin(t, "finance")
		h.Client(t).As(fin).Do("POST", "/v1/admin/users/"+u.User.ID+"/balance/adjust",
			map[string]any{"tokens": 5, "reason": "metrics"}).Want(t, 200, "")
		c.Do("POST", "/v1/api/hosts/"+host+"/system/info", nil).Want(t, 200, "")

		var body string
		eventually.Error(t, 10*time.Second, "metrics listener", func() error {
			resp, err := http.Get("http://" + addr + "/metrics")
			if err != nil {
				return err
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			body = string(b)
			if resp.StatusCode != 200 {
				return fmt.Errorf("status %d: %s", resp.StatusCode, body)
			}
			return nil
		})
		want := map[string]func(float64) bool{
			`hostgate_agents_connected`:                                                                  eq(1),
			`hostgate_agents_online`:                                                                     eq(1),
			`hostgate_terminals_open`:                                                                    eq(0),
			`hostgate_webhook_queue_depth`:                                                               eq(0),
			`hostgate_commands_total{op="system.info",outcome="ok"}`:                                     eq(1),
			`hostgate_command_duration_seconds_count{op="system.info"}`:                                  eq(1),
			`hostgate_charges_total{outcome="charged",rule="control.system_info.per_call"}`:              eq(1),
			`hostgate_charges_total{outcome="insufficient_balance",rule="control.system_info.per_call"}`: eq(1),
			`hostgate_http_requests_total{code="402",route="POST /v1/api/hosts/{id}/system/info"}`:       eq(1),
			`hostgate_http_requests_total{code="200",route="POST /v1/api/hosts/{id}/system/info"}`:       eq(1),
			`hostgate_db_connections_max{pool=`:                                                          func(v float64) bool { return v >= 0 },
			`go_goroutines`:                                                                              func(v float64) bool { return v > 0 },
		}
		if mode == hubtest.Scaled {
			want[`hostgate_redis_round_trips_total{outcome="ok"}`] = func(v float64) bool { return v > 0 }
		}
		for series, ok := range want {
			v, found := sample(body, series)
			if !found || !ok(v) {
				t.Errorf("%s = %v (found %v)", series, v, found)
			}
		}
	})
}

func eq(want float64) func(float64) bool { return func(v float64) bool { return v == want } }

// sample finds the first line of the exposition starting with series
// (a name with, optionally, the start of its labels) and returns its value.
func sample(body, series string) (float64, bool) {
	re := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(series) + `[^ ]* (\S+)$`)
	m := re.FindStringSubmatch(body)
	if m == nil {
		return 0, false
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(m[1]), 64)
	return v, err == nil
}
