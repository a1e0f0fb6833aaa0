package hostgate

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"hostgate/internal/battery"
)

// TestBatteryReceiverRunsOnce (battery T14): the receiver of
// docs/webhooks.md built on the SDK's helpers (VerifyWebhook,
// DeliveryDedupe) gets one delivery id several times — the same request
// again, a re-signed retry with a fresh t, and 20 concurrent copies —
// and acts on it once (one id recorded, the secret replaced once); every
// copy is answered 200. Both formats.
func TestBatteryReceiverRunsOnce(t *testing.T) {
	for _, tc := range []struct {
		format string
		header func() http.Header
		body   string
		sign   func(secret string, t int64, body []byte) string
	}{
		{"A", goldenHeaderA, goldenBodyA, SignWebhookA},
		{"B", goldenHeaderB, goldenBodyB, nil},
	} {
		rc := &receiver{secret: goldenOldSecret, seen: NewDeliveryDedupe(10000, 0)}
		var mu sync.Mutex
		adopted := 0 // how many times the handler acted: replaced the secret
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			before := rc.seen.Len()
			rc.ServeHTTP(w, r)
			if rc.seen.Len() != before {
				mu.Lock()
				adopted++
				mu.Unlock()
			}
		}))
		signed := func(at int64) http.Header {
			h := tc.header()
			if tc.format == "A" {
				h.Set(HeaderWebhookSignature, tc.sign(goldenOldSecret, at, []byte(tc.body)))
			} else {
				h.Set(HeaderWebhookTimestamp, itoa(at))
				h.Set(HeaderWebhookSignature, "sha256="+independentMAC(goldenOldSecret, at, tc.body))
			}
			return h
		}
		post := func(h http.Header) int {
			req, _ := http.NewRequest(http.MethodPost, srv.URL, strings.NewReader(tc.body))
			req.Header = h
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Error(err)
				return 0
			}
			res.Body.Close()
			return res.StatusCode
		}
		now := time.Now().Unix()
		first := signed(now)
		statuses := map[int]int{}
		statuses[post(first)]++
		statuses[post(first)]++          // the same request again (a lost 200)
		statuses[post(signed(now+30))]++ // the hub's retry: re-signed, fresh t
		var wg sync.WaitGroup
		var smu sync.Mutex
		for range 20 {
			wg.Go(func() {
				s := post(signed(now + 90))
				smu.Lock()
				statuses[s]++
				smu.Unlock()
			})
		}
		wg.Wait()
		srv.Close()
		if statuses[200] != 23 || len(statuses) != 1 {
			t.Errorf("format %s: answers %v, want 23 × 200", tc.format, statuses)
		}
		if adopted != 1 || rc.seen.Len() != 1 || rc.secret != goldenNewSecret {
			t.Errorf("format %s: handler acted %d times, %d ids recorded, secret replaced %v; want once",
				tc.format, adopted, rc.seen.Len(), rc.secret == goldenNewSecret)
		}
		battery.Report(t, "T14", "format %s: 1 delivery id sent 23 times (repeat, fresh-t retry, 20 concurrent) → handler acted %d time, %d × 200",
			tc.format, adopted, statuses[200])
	}
}

func itoa(n int64) string {
	var b [20]byte
	i := len(b)
	for {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
		if n == 0 {
			return string(b[i:])
		}
	}
}
