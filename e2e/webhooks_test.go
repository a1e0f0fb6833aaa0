package e2e

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"hostgate/internal/eventually"
)

// TestWebhookSurvivesHubKill: an L1 write commits and its first attempt
// fails (the receiver is down); the hub is killed with SIGKILL before the
// delivery succeeds. The restarted hub, on the same data directory,
// delivers it, and the receiver, counting by delivery id, sees it once.
func TestWebhookSurvivesHubKill(t *testing.T) {
	env := NewEnv(t, false)
	env.env["HOSTGATE_WEBHOOK_ALLOW_PRIVATE"] = "1"
	env.env["HOSTGATE_WEBHOOK_SCHEDULE_SCALE"] = "0.1" // first retry after 3 s
	h := env.StartHub()
	c := NewCustomer(t, h)
	creds := c.CreateHost(h, "web-1")

	var mu sync.Mutex
	up := false
	byID := map[string]int{}
	bad := 0
	rcv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		defer mu.Unlock()
		if !up {
			http.Error(w, "down", http.StatusServiceUnavailable)
			return
		}
		// Format A (spec 6.2), signed with the secret before the change.
		var ts, v1 string
		for p := range strings.SplitSeq(r.Header.Get("X-Gateway-Signature"), ",") {
			k, v, _ := strings.Cut(p, "=")
			if k == "t" {
				ts = v
			} else if k == "v1" {
				v1 = v
			}
		}
		m := hmac.New(sha256.New, []byte(creds.SecretKey))
		m.Write([]byte(ts + "."))
		m.Write(body)
		got, _ := hex.DecodeString(v1)
		if !hmac.Equal(got, m.Sum(nil)) {
			bad++
			http.Error(w, "bad signature", http.StatusUnauthorized)
			return
		}
		byID[r.Header.Get("X-Gateway-Delivery")]++
		w.WriteHeader(http.StatusOK)
	}))
	defer rcv.Close()

	var put struct {
		DeliveryID string `json:"delivery_id"`
	}
	body := map[string]any{"bid": creds.BID + 1, "secret_key": "00112233445566778899aabbccddeeff", "url": rcv.URL + "/hook"}
	if s := call(t, "PUT", h.URL+"/v1/user/hosts/"+creds.HostID+"/l1-config", c.Token, body, &put); s != 200 || put.DeliveryID == "" {
		t.Fatalf("l1-config: %d %+v", s, put)
	}
	type row struct {
		ID       string
		Status   string
		Attempts int
	}
	history := func(h *Hub) []row {
		var out struct{ Items []row }
		call(t, "GET", h.URL+"/v1/user/hosts/"+creds.HostID+"/webhook-deliveries", c.Token, nil, &out)
		return out.Items
	}
	eventually.True(t, 20*time.Second, "first attempt failed", func() bool {
		rs := history(h)
		return len(rs) == 1 && rs[0].Status == "retrying" && rs[0].Attempts == 1
	})

	// SIGKILL: no shutdown, no lease released (the failed attempt has
	// already released its own).
	if err := h.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-h.done
	mu.Lock()
	up = true
	mu.Unlock()

	h2 := env.StartHub(h.addr)
	eventually.True(t, 30*time.Second, "delivered after restart", func() bool {
		rs := history(h2)
		return len(rs) == 1 && rs[0].Status == "success"
	})
	// An observation window, not a wait: a duplicate would be a second
	// attempt, which no event of the hub announces ahead of it.
	time.Sleep(2 * time.Second)
	mu.Lock()
	defer mu.Unlock()
	if byID[put.DeliveryID] != 1 || len(byID) != 1 || bad != 0 {
		t.Fatalf("receiver saw %v (bad signatures %d), want %s exactly once", byID, bad, put.DeliveryID)
	}
}

// TestWebhooksAcrossInstances: two hub processes share one PostgreSQL
// queue and Redis. 500 L1 changes (50 hosts × 10), written through both,
// reach one receiver each exactly once, never two at a time, and in each
// host's order: the receiver verifies every delivery with the secret it
// holds and then adopts the new one, so an out-of-order or lost delivery
// breaks its chain.
func TestWebhooksAcrossInstances(t *testing.T) {
	const hosts, changes = 50, 10
	env := NewEnv(t, true)
	env.env["HOSTGATE_WEBHOOK_ALLOW_PRIVATE"] = "1"
	env.env["HOSTGATE_WEBHOOK_SCHEDULE_SCALE"] = "0.01" // scan every 50 ms
	a, b := env.StartHub(), env.StartHub()
	c := NewCustomer(t, a)

	type chain struct {
		secret string // what the receiver holds now
		got    int
	}
	var (
		mu       sync.Mutex
		chains   = map[string]*chain{}
		seen     = map[string]int{}
		inFlight = map[string]bool{}
		problems []string
	)
	rcv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		id := r.Header.Get("X-Gateway-Delivery")
		hostID := strings.TrimPrefix(r.URL.Path, "/hook/")
		mu.Lock()
		if inFlight[id] {
			problems = append(problems, "delivery "+id+" sent twice at once")
		}
		inFlight[id] = true
		mu.Unlock()
		time.Sleep(2 * time.Millisecond) // the receiver's work: widens the window a concurrent duplicate would hit
		mu.Lock()
		defer mu.Unlock()
		delete(inFlight, id)
		seen[id]++
		if seen[id] > 1 {
			problems = append(problems, "delivery "+id+" received again")
			w.WriteHeader(http.StatusOK) // receivers answer 200 for repeats
			return
		}
		ch := chains[hostID]
		var ts, v1 string
		for p := range strings.SplitSeq(r.Header.Get("X-Gateway-Signature"), ",") {
			k, v, _ := strings.Cut(p, "=")
			switch k {
			case "t":
				ts = v
			case "v1":
				v1 = v
			}
		}
		m := hmac.New(sha256.New, []byte(ch.secret))
		m.Write([]byte(ts + "."))
		m.Write(body)
		got, _ := hex.DecodeString(v1)
		if !hmac.Equal(got, m.Sum(nil)) {
			problems = append(problems, "host "+hostID+": delivery "+id+" does not verify with the secret held (out of order?)")
			w.WriteHeader(http.StatusOK)
			return
		}
		var ev struct {
			Data struct {
				SecretKey string `json:"secret_key"`
			} `json:"data"`
		}
		_ = json.Unmarshal(body, &ev)
		ch.secret = ev.Data.SecretKey
		ch.got++
		w.WriteHeader(http.StatusOK)
	}))
	defer rcv.Close()

	ids := make([]Credentials, hosts)
	for i := range ids {
		ids[i] = c.CreateHost(a, fmt.Sprintf("fanout-%d", i))
		chains[ids[i].HostID] = &chain{secret: ids[i].SecretKey}
	}
	start := time.Now()
	var wg sync.WaitGroup
	sem := make(chan struct{}, 8)
	for i, cr := range ids {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			for n := range changes {
				hub := []*Hub{a, b}[(i+n)%2] // alternate the instance taking the write
				body := map[string]any{"bid": cr.BID, "secret_key": fmt.Sprintf("%016x%016x", i+1, n+1),
					"url": rcv.URL + "/hook/" + cr.HostID}
				if s := call(t, "PUT", hub.URL+"/v1/user/hosts/"+cr.HostID+"/l1-config", c.Token, body, nil); s != 200 {
					t.Errorf("l1-config %d of host %d: %d", n, i, s)
					return
				}
			}
		})
	}
	wg.Wait()
	eventually.True(t, 2*time.Minute, "all 500 delivered", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(seen) >= hosts*changes || len(problems) > 0
	})
	t.Logf("%d deliveries through two instances in %v", hosts*changes, time.Since(start).Round(time.Millisecond))
	time.Sleep(time.Second) // an observation window for a duplicate, as above
	mu.Lock()
	defer mu.Unlock()
	if len(problems) > 0 {
		t.Fatalf("%d problems, first: %s", len(problems), problems[0])
	}
	for hostID, ch := range chains {
		if ch.got != changes {
			t.Errorf("host %s: %d verified deliveries, want %d", hostID, ch.got, changes)
		}
	}
}
