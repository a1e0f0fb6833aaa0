package webhooks_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"time"

	"hostgate/internal/webhooks"
)

// receiver is what a customer runs for one host: it holds the current
// secret and the delivery ids it has processed.
type receiver struct {
	mu     sync.Mutex
	secret string
	seen   map[string]bool
}

func (rc *receiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, 64<<10))
	if err != nil {
		http.Error(w, "body too large", http.StatusRequestEntityTooLarge)
		return
	}
	rc.mu.Lock()
	defer rc.mu.Unlock()
	// A repeat was signed with a secret we have since replaced: answer 200
	// before verifying, and change nothing.
	if rc.seen[r.Header.Get(webhooks.HeaderDelivery)] {
		w.WriteHeader(http.StatusOK)
		return
	}
	ev, err := webhooks.VerifyA(r.Header, body, rc.secret, time.Now(), webhooks.Window)
	if err != nil {
		http.Error(w, "refused", http.StatusUnauthorized)
		return
	}
	// Record the id and adopt the new secret together (one transaction in
	// a real receiver), only after the delivery verified.
	rc.seen[ev.DeliveryID] = true
	rc.secret = string(ev.Data.SecretKey)
	w.WriteHeader(http.StatusOK)
}

// Example_receiver shows the receiver's rules: verify with the secret you
// hold, then adopt the new one; answer 200 to repeats.
func Example_receiver() {
	rc := &receiver{secret: "3f9a1c7e5b2d4086a1e3c5b7d9f02468", seen: map[string]bool{}}
	e := webhooks.Event{
		DeliveryID: "6f1c2a9e-8d4b-4e3a-9c51-2b7f0d8e4a13",
		UserID:     "0b8e5c3a-1f2d-4a6b-8c9e-7d3f1a2b4c5d",
		HostID:     "9a7b3c1d-2e4f-4a5b-8c6d-1e2f3a4b5c6d",
		Source:     webhooks.SourceWeb,
		OccurredAt: time.Now(),
		After:      webhooks.After{BID: 42, SecretKey: "8c2e4a6b0d1f3e5a7c9b2d4f6a8e0c1b", ReportURL: "https://hooks.example.com/l1"},
		TargetURL:  "https://hooks.example.com/l1",
		SigningKey: "3f9a1c7e5b2d4086a1e3c5b7d9f02468",
	}
	send := func() int {
		req, err := webhooks.NewRequest(context.Background(), webhooks.FormatA, e, time.Now())
		if err != nil {
			panic(err)
		}
		w := httptest.NewRecorder()
		rc.ServeHTTP(w, req)
		return w.Code
	}
	fmt.Println("first:", send(), "secret now", rc.secret)
	fmt.Println("repeat:", send())
	e.DeliveryID = "7a2d3b0f-9e5c-4f4b-8d62-3c8a1e9f5b24" // a new change still signed with the replaced secret
	fmt.Println("stale chain:", send())
	// Output:
	// first: 200 secret now 8c2e4a6b0d1f3e5a7c9b2d4f6a8e0c1b
	// repeat: 200
	// stale chain: 401
}
