//go:build linux

package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"hostgate/internal/battery"
	"hostgate/internal/eventually"
)

// TestHubKilledDuringChargeBatch: 32 workers keep charged calls in flight
// (so charges share group-commit batches) while the hub is killed with
// SIGKILL twice and restarted on the same store. Afterwards every 2xx the
// clients saw has its debit, no charge lacks its call (rule, host, API
// key), none is applied twice, balance = Σ events, and the agent ran no
// call that was not charged. On SQLite and on PostgreSQL + Redis.
func TestHubKilledDuringChargeBatch(t *testing.T) {
	t.Parallel()
	for _, scaled := range []bool{false, true} {
		t.Run(map[bool]string{false: "sqlite", true: "postgres"}[scaled], func(t *testing.T) {
			t.Parallel()
			e := NewEnv(t, scaled)
			h := e.StartHub()
			cust := NewCustomer(t, h)
			creds := cust.CreateHost(h, "crash")
			e.StartAgent(creds, t.TempDir())
			eventually.True(t, 10*time.Second, "agent connected", func() bool { return cust.Connected(h, creds.HostID) })
			cust.Fund(h, 100000)
			var cur atomic.Pointer[Hub]
			cur.Store(h)
			dir := t.TempDir()
			load := startChargeLoad(func() []string { return []string{cur.Load().URL} }, cust.Key, creds.HostID, dir, 32, 10*time.Second)
			for round := range 2 {
				base := load.count(ok2xx)
				eventually.True(t, 30*time.Second, "charged calls before the kill", func() bool { return load.count(ok2xx) >= base+100 })
				h := cur.Load()
				h.kill9()
				h = h.e.StartHub(h.addr)
				cur.Store(h)
				eventually.True(t, 20*time.Second, fmt.Sprintf("agent back after kill %d", round+1), func() bool { return cust.Connected(h, creds.HostID) })
			}
			base := load.count(ok2xx)
			eventually.True(t, 30*time.Second, "charged calls after the last restart", func() bool { return load.count(ok2xx) >= base+50 })
			outcomes := load.end()
			r := checkLedger(t, cur.Load(), cust.UserID, outcomes, int(load.sent.Load()))
			ran := madeDirs(t, dir)
			if ran > r.Charges {
				t.Errorf("the agent ran %d calls for %d charges", ran, r.Charges)
			}
			t.Logf("hub SIGKILLed twice under 32 workers of charged calls (%s): %d sent, %d 2xx, %d charges, %d ran; every 2xx in the ledger, none twice, balance %v = Σ events",
				map[bool]string{false: "sqlite", true: "postgres"}[scaled], load.sent.Load(), load.count(ok2xx), r.Charges, ran, r.Balance)
		})
	}
}

// TestMixedLoadWithKills (battery T59, CI size): two instances on
// PostgreSQL + Redis, a host on each, carry charged calls through both,
// duplicate payment notifications (3 per order, to either instance, each
// retried until answered), L1 configuration changes (each a webhook
// delivery) and sign-ins, while one instance or the other is
// killed with SIGKILL every 3–6 s and restarted, for about 30 s. Then: the
// ledger invariants (checkLedger), every order notified is paid and
// credited exactly once, every committed change has one delivery that
// ends success and reached the receiver, and a correct password was never
// refused.
func TestMixedLoadWithKills(t *testing.T) {
	t.Parallel()
	e := NewEnv(t, true)
	e.env["HOSTGATE_PAYMENT_DUMMY"] = "1"
	e.env["HOSTGATE_WEBHOOK_ALLOW_PRIVATE"] = "1"
	e.env["HOSTGATE_WEBHOOK_SCHEDULE_SCALE"] = "0.1"
	hubs := []*Hub{e.StartHub(), e.StartHub()}
	var mu sync.Mutex
	urls := func() []string {
		mu.Lock()
		defer mu.Unlock()
		return []string{hubs[0].URL, hubs[1].URL}
	}
	cust := NewCustomer(t, hubs[0])
	hosts := []Credentials{cust.CreateHost(hubs[0], "on-a"), cust.CreateHost(hubs[1], "on-b")}
	for _, c := range hosts {
		e.StartAgent(c, t.TempDir())
	}
	for _, c := range hosts {
		eventually.True(t, 10*time.Second, "agents connected", func() bool { return cust.Connected(hubs[0], c.HostID) })
	}
	cust.Fund(hubs[0], 100000)

	// Orders to notify, opened before the run.
	const orders = 15
	email := fmt.Sprintf("t59-%d@example.com", time.Now().UnixNano())
	var payer struct {
		AccessToken string `json:"access_token"`
		User        struct{ ID string }
	}
	if s := call(t, "POST", hubs[0].URL+"/v1/public/auth/register", "", map[string]string{"email": email, "password": "t59 password ok"}, &payer); s != 200 {
		t.Fatalf("register: %d", s)
	}
	var orderNos []string
	for range orders {
		var o struct {
			OrderNo string `json:"order_no"`
		}
		if s := call(t, "POST", hubs[0].URL+"/v1/user/billing/recharge", payer.AccessToken, map[string]any{"amount_cny": 1}, &o); s != 200 {
			t.Fatalf("recharge order: %d", s)
		}
		orderNos = append(orderNos, o.OrderNo)
	}

	dirs := []string{t.TempDir(), t.TempDir()}
	loads := []*chargeLoad{
		startChargeLoad(urls, cust.Key, hosts[0].HostID, dirs[0], 6, 10*time.Second),
		startChargeLoad(urls, cust.Key, hosts[1].HostID, dirs[1], 6, 10*time.Second),
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	client := &http.Client{Timeout: 10 * time.Second}
	post := func(url string, body any) (int, []byte) {
		b, _ := json.Marshal(body)
		resp, err := client.Post(url, "application/json", bytes.NewReader(b))
		if err != nil {
			return 0, nil
		}
		defer resp.Body.Close()
		out, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, out
	}
	// Notifications: each order 3 times, spread over the run, to either
	// instance, each retried until answered as a provider would.
	var notifies, credited atomic.Int64
	var badNotify atomic.Value
	creditedPer := make([]atomic.Int64, orders)
	for i, no := range orderNos {
		for d := range 3 {
			wg.Go(func() {
				select {
				case <-stop:
				case <-time.After(time.Duration(rand.IntN(20000)) * time.Millisecond):
				}
				for attempt := 0; ; attempt++ {
					u := urls()[(i+d+attempt)%2]
					s, b := post(u+"/v1/public/webhooks/payment/dummy", map[string]any{"order_no": no, "amount_cny": 1})
					if s == 200 {
						var r struct{ OK, Credited bool }
						_ = json.Unmarshal(b, &r)
						notifies.Add(1)
						if r.Credited {
							credited.Add(1)
							creditedPer[i].Add(1)
						}
						return
					}
					if s != 0 && s < 500 {
						badNotify.Store(fmt.Sprintf("notify %s: %d %s", no, s, b))
						return
					}
					select { // a provider's retry interval
					case <-stop:
						return
					case <-time.After(100 * time.Millisecond):
					}
				}
			})
		}
	}
	// Configuration changes: an L1 change of a third host every 300 ms
	// through either instance; each committed one names its delivery.
	cfg := cust.CreateHost(hubs[0], "config")
	var rmu sync.Mutex
	received := map[string]int{}
	rcv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		rmu.Lock()
		received[r.Header.Get("X-Gateway-Delivery")]++
		rmu.Unlock()
	}))
	t.Cleanup(rcv.Close)
	var committed sync.Map // delivery id → true
	var badChange atomic.Value
	wg.Go(func() {
		for i := 1; ; i++ {
			select {
			case <-stop:
				return
			case <-time.After(300 * time.Millisecond):
			}
			body := map[string]any{"bid": cfg.BID + int64(i), "secret_key": fmt.Sprintf("%032x", i), "url": rcv.URL + "/hook"}
			b, _ := json.Marshal(body)
			req, _ := http.NewRequest("PUT", urls()[i%2]+"/v1/user/hosts/"+cfg.HostID+"/l1-config", bytes.NewReader(b))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Authorization", "Bearer "+cust.Token)
			resp, err := client.Do(req)
			if err != nil {
				continue
			}
			out, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			var put struct {
				DeliveryID string `json:"delivery_id"`
			}
			switch {
			case resp.StatusCode == 200 && json.Unmarshal(out, &put) == nil && put.DeliveryID != "":
				committed.Store(put.DeliveryID, true)
			case resp.StatusCode >= 500:
			default:
				badChange.Store(fmt.Sprintf("l1-config: %d %s", resp.StatusCode, out))
			}
		}
	})
	// Sign-ins with the right password: never refused.
	var logins atomic.Int64
	var badLogin atomic.Value
	wg.Go(func() {
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			case <-time.After(200 * time.Millisecond):
			}
			s, b := post(urls()[i%2]+"/v1/public/auth/login", map[string]string{"email": email, "password": "t59 password ok"})
			switch {
			case s == 200:
				logins.Add(1)
			case s == 0 || s >= 500:
			default:
				badLogin.Store(fmt.Sprintf("login: %d %s", s, b))
			}
		}
	})

	began := time.Now()
	kills := 0
	for time.Since(began) < 30*time.Second {
		select {
		case <-time.After(time.Duration(3000+rand.IntN(3000)) * time.Millisecond):
		case <-t.Context().Done():
			return
		}
		i := kills % 2
		mu.Lock()
		h := hubs[i]
		mu.Unlock()
		h.kill9()
		kills++
		nh := e.StartHub(h.addr)
		mu.Lock()
		hubs[i] = nh
		mu.Unlock()
	}
	// Every notification answered, then the load ends.
	eventually.True(t, 30*time.Second, "every notification answered", func() bool { return notifies.Load() == 3*orders })
	for _, c := range hosts {
		eventually.True(t, 20*time.Second, "agents back", func() bool { return cust.Connected(hubs[0], c.HostID) })
	}
	close(stop)
	wg.Wait()
	var outcomes []chargeOutcome
	sent := 0
	for _, l := range loads {
		outcomes = append(outcomes, l.end()...)
		sent += int(l.sent.Load())
	}
	if v := badNotify.Load(); v != nil {
		t.Error(v)
	}
	if v := badLogin.Load(); v != nil {
		t.Error(v)
	}
	if v := badChange.Load(); v != nil {
		t.Error(v)
	}
	// Deliveries: each change the hub recorded ends success, once; every
	// committed answer's delivery among them; the receiver saw each.
	type delivery struct {
		ID     string `json:"id"`
		Status string `json:"status"`
	}
	var history []delivery
	eventually.True(t, 30*time.Second, "every delivery ends success", func() bool {
		var out struct{ Items []delivery }
		call(t, "GET", hubs[0].URL+"/v1/user/hosts/"+cfg.HostID+"/webhook-deliveries?limit=200", cust.Token, nil, &out)
		history = out.Items
		for _, d := range history {
			if d.Status != "success" {
				return false
			}
		}
		return len(history) > 0
	})
	inHistory := map[string]int{}
	for _, d := range history {
		inHistory[d.ID]++
	}
	changes := 0
	committed.Range(func(k, _ any) bool {
		changes++
		if inHistory[k.(string)] != 1 {
			t.Errorf("committed change %s has %d deliveries", k, inHistory[k.(string)])
		}
		return true
	})
	rmu.Lock()
	redelivered := 0
	for _, d := range history {
		if received[d.ID] == 0 {
			t.Errorf("delivery %s ended success but the receiver never saw it", d.ID)
		}
		if received[d.ID] > 1 {
			redelivered++
		}
	}
	rmu.Unlock()
	r := checkLedger(t, hubs[0], cust.UserID, outcomes, sent)
	ran := madeDirs(t, dirs[0]) + madeDirs(t, dirs[1])
	if ran > r.Charges {
		t.Errorf("the agents ran %d calls for %d charges", ran, r.Charges)
	}
	// Payments: every order paid, credited once.
	var paid struct {
		Items []struct {
			OrderNo string `json:"order_no"`
			Status  string `json:"status"`
		} `json:"items"`
	}
	call(t, "GET", hubs[1].URL+"/v1/user/billing/recharges?limit=100", payer.AccessToken, nil, &paid)
	nPaid := 0
	for _, o := range paid.Items {
		if o.Status == "paid" {
			nPaid++
		}
	}
	pr := checkLedger(t, hubs[1], payer.User.ID, nil, 0)
	if nPaid != orders || pr.Credits != 100*orders || pr.Balance != 100*orders {
		t.Errorf("%d of %d orders paid, %v credited, balance %v; want all paid, %d each once", nPaid, orders, pr.Credits, pr.Balance, 100*orders)
	}
	for i := range creditedPer {
		if n := creditedPer[i].Load(); n > 1 {
			t.Errorf("order %s: %d answers said credited", orderNos[i], n)
		}
	}
	battery.Report(t, "T59", "%v of mixed load on 2 instances (PG+Redis), %d kill -9s: %d charged calls sent, %d 2xx, %d charges, %d ran, every 2xx in the ledger, none twice; %d notifies (3 × %d orders) → %d paid, %v tokens credited once each (%d answers said credited); %d sign-ins, none refused; %d config changes answered → %d deliveries, all success, one each (%d received more than once)",
		time.Since(began).Round(time.Second), kills, sent, countOK(outcomes), r.Charges, ran, notifies.Load(), orders, nPaid, pr.Credits, credited.Load(), logins.Load(), changes, len(history), redelivered)
}

func countOK(os []chargeOutcome) int {
	n := 0
	for _, o := range os {
		if ok2xx(o) {
			n++
		}
	}
	return n
}
