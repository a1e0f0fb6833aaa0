package l1config

import (
	"context"
	"errors"
	"testing"

	"hostgate/internal/hosts"
)

type fakeHosts struct {
	calls int
	err   error
}

func (f *fakeHosts) Get(ctx context.Context, owner, id string) (hosts.Host, error) {
	f.calls++
	return hosts.Host{ID: id}, f.err
}

type fakeCharger struct {
	calls int
	err   error
}

func (f *fakeCharger) Charge(ctx context.Context, userID, apiKeyID, hostID, code string) error {
	f.calls++
	return f.err
}

// TestChargedChecksBeforeCharging: an invalid request is refused before
// the host is looked up, a missing host before the charge, and a refused
// charge before the write.
func TestChargedChecksBeforeCharging(t *testing.T) {
	valid := Request{BID: 1, SecretKey: "00112233445566778899aabbccddeeff"}
	errHost, errCharge := errors.New("no host"), errors.New("no balance")
	for _, tc := range []struct {
		name                  string
		r                     Request
		hostErr, chargeErr    error
		want                  error
		wantGets, wantCharges int
	}{
		{name: "invalid", r: Request{}, wantGets: 0, wantCharges: 0},
		{name: "no host", r: valid, hostErr: errHost, want: errHost, wantGets: 1, wantCharges: 0},
		{name: "charge refused", r: valid, chargeErr: errCharge, want: errCharge, wantGets: 1, wantCharges: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h, c := &fakeHosts{err: tc.hostErr}, &fakeCharger{err: tc.chargeErr}
			_, err := NewCharged(&Service{}, h, c).Update(t.Context(), "u", "k", "h", Who{}, tc.r)
			if err == nil || (tc.want != nil && !errors.Is(err, tc.want)) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
			if h.calls != tc.wantGets || c.calls != tc.wantCharges {
				t.Errorf("gets, charges = %d, %d; want %d, %d", h.calls, c.calls, tc.wantGets, tc.wantCharges)
			}
		})
	}
}
