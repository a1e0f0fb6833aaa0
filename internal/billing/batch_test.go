package billing

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"
)

// batchStore charges from one in-memory balance and records batch sizes;
// each batch takes a millisecond, like a commit.
type batchStore struct {
	Store
	mu      sync.Mutex
	balance Units
	sizes   []int
	fail    bool
}

func (s *batchStore) ChargeCalls(_ context.Context, cs []Charge) ([]ChargeResult, error) {
	time.Sleep(time.Millisecond)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sizes = append(s.sizes, len(cs))
	if s.fail {
		return nil, errors.New("db down")
	}
	out := make([]ChargeResult, len(cs))
	for i := range cs {
		if s.balance < 5 {
			out[i].Err = ErrInsufficient
			continue
		}
		s.balance -= 5
		out[i].Charged = Charged{Charged: true, Units: 5, BalanceAfter: s.balance}
	}
	return out, nil
}

func TestBatcherSharesTransactionsAndAnswersEach(t *testing.T) {
	st := &batchStore{balance: 100}
	b := newChargeBatcher(st)
	if r, err := b.Do(Charge{UserID: "u"}); err != nil || !r.Charged.Charged || r.BalanceAfter != 95 {
		t.Fatalf("lone charge: %+v, %v", r, err)
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	ok, refused := 0, 0
	for range 500 {
		wg.Go(func() {
			r, err := b.Do(Charge{UserID: "u"})
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err != nil:
				t.Errorf("charge: %v", err)
			case r.Err == nil && r.Charged.Charged:
				ok++
			case errors.Is(r.Err, ErrInsufficient):
				refused++
			}
		})
	}
	wg.Wait()
	if ok != 19 || refused != 481 {
		t.Fatalf("%d charged, %d refused; want 19 and 481", ok, refused)
	}
	st.mu.Lock()
	batches, biggest := len(st.sizes), 0
	for _, n := range st.sizes {
		biggest = max(biggest, n)
	}
	st.mu.Unlock()
	if batches >= 500 || biggest < 2 || biggest > maxBatch {
		t.Fatalf("%d batches, the biggest %d: want charges sharing batches of at most %d", batches, biggest, maxBatch)
	}

	st.fail = true
	if _, err := b.Do(Charge{UserID: "u"}); err == nil {
		t.Fatal("charge with the store down: got nil error")
	}
}
