package admin

import (
	"sync"
	"sync/atomic"
	"testing"
)

// TestStepUpTokenIsOnlyItsSessions: admin B presenting admin A's step-up
// token is refused and leaves it intact, as does A from another session;
// A's token then works once, and a reuse is refused.
func TestStepUpTokenIsOnlyItsSessions(t *testing.T) {
	e := newTestEnv(t)
	e.create(t, "alice", Owner)
	e.create(t, "bob", Owner)
	_, pa := e.login(t, "alice")
	_, pb := e.login(t, "bob")
	_, pa2 := e.login(t, "alice") // alice's second session
	ctx := t.Context()
	tok, err := e.s.StepUp(ctx, pa, testPassword)
	must(t, "StepUp", err)

	wantCode(t, "bob with alice's token", e.s.ConsumeStepUp(ctx, pb, tok), CodeStepUpRequired)
	wantCode(t, "bob with alice's token again", e.s.ConsumeStepUp(ctx, pb, tok), CodeStepUpRequired)
	wantCode(t, "alice's other session", e.s.ConsumeStepUp(ctx, pa2, tok), CodeStepUpRequired)
	// Through a sensitive change, too: bob's failed grant spends nothing.
	_, err = e.s.Add(ctx, pb, owner, tok, NewAdmin{Username: "mallory", Password: testPassword, Role: Owner})
	wantCode(t, "bob's grant with alice's token", err, CodeStepUpRequired)

	must(t, "alice with her token", e.s.ConsumeStepUp(ctx, pa, tok))
	wantCode(t, "alice's token reused", e.s.ConsumeStepUp(ctx, pa, tok), CodeStepUpRequired)
	if n := len(e.s.coord.(*fakeTickets).m); n != 0 {
		t.Errorf("%d step-up tickets left after the one was used", n)
	}
}

// TestStepUpTokenRaceWithAnotherAdmin: while another admin hammers the
// token, the owner's 50 concurrent uses of it succeed exactly once.
func TestStepUpTokenRaceWithAnotherAdmin(t *testing.T) {
	e := newTestEnv(t)
	e.create(t, "alice", Owner)
	e.create(t, "bob", Owner)
	_, pa := e.login(t, "alice")
	_, pb := e.login(t, "bob")
	ctx := t.Context()
	tok, err := e.s.StepUp(ctx, pa, testPassword)
	must(t, "StepUp", err)
	var ok, bobOK atomic.Int32
	var wg sync.WaitGroup
	for range 50 {
		wg.Go(func() {
			if e.s.ConsumeStepUp(ctx, pb, tok) == nil {
				bobOK.Add(1)
			}
		})
		wg.Go(func() {
			if e.s.ConsumeStepUp(ctx, pa, tok) == nil {
				ok.Add(1)
			}
		})
	}
	wg.Wait()
	if ok.Load() != 1 || bobOK.Load() != 0 {
		t.Errorf("alice's uses that passed: %d (want 1); bob's: %d (want 0)", ok.Load(), bobOK.Load())
	}
}
