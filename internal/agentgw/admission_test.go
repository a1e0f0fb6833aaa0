package agentgw

import (
	"testing"
	"time"
)

func TestAdmissionBoundsConcurrencyAndRate(t *testing.T) {
	now := time.Unix(0, 0)
	a := NewAdmission(2, 10, 3)
	a.now = func() time.Time { return now }
	r1, _, ok1 := a.Acquire()
	r2, _, ok2 := a.Acquire()
	_, retry, ok3 := a.Acquire()
	if !ok1 || !ok2 || ok3 {
		t.Fatalf("with 2 slots: %v %v %v, want two admitted and the third shed", ok1, ok2, ok3)
	}
	if retry < time.Second || retry > 5*time.Second {
		t.Errorf("retry after %v, want 1-5 s", retry)
	}
	r1()
	r2()
	// The burst of 3 tokens is spent (the shed call took one too).
	if _, _, ok := a.Acquire(); ok {
		t.Error("admitted beyond the burst without time passing")
	}
	now = now.Add(200 * time.Millisecond) // 2 tokens at 10/s
	for i := range 2 {
		r, _, ok := a.Acquire()
		if !ok {
			t.Fatalf("refill: attempt %d shed", i)
		}
		r()
	}
	if adm, shed := a.Counts(); adm != 4 || shed != 2 {
		t.Errorf("counts = %d admitted, %d shed; want 4 and 2", adm, shed)
	}
}
