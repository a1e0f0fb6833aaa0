package l1

import (
	"encoding/json"
	"errors"
	"testing"
	"time"

	"hostgate/internal/agentproto"
)

func TestReportRoundTrip(t *testing.T) {
	c, err := NewCodec(77, "3f9a1c7e5b2d4086a1e3c5b7d9f02468")
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	r := NewReport("control", json.RawMessage(`{"control":8192,"code":0}`), now)
	body, err := c.EncodeReport(r)
	if err != nil {
		t.Fatalf("EncodeReport: %v", err)
	}
	got, err := c.DecodeReport([]byte(body), now)
	if err != nil {
		t.Fatalf("DecodeReport: %v", err)
	}
	if got.Event != r.Event || got.TS != r.TS || got.Nonce != r.Nonce || string(got.Detail) != string(r.Detail) {
		t.Fatalf("DecodeReport = %+v, want %+v", got, r)
	}
	other, _ := NewCodec(78, "3f9a1c7e5b2d4086a1e3c5b7d9f02468")
	if _, err := other.DecodeReport([]byte(body), now); !errors.Is(err, ErrInvalid) {
		t.Errorf("another bid's codec: err = %v, want ErrInvalid", err)
	}
	if _, err := c.DecodeReport([]byte(body), now.Add(2*MaxSkew)); !errors.Is(err, ErrInvalid) {
		t.Errorf("stale: err = %v, want ErrInvalid", err)
	}
}

// TestReportsAndRequestsDoNotMix: one frame kind never decodes as the other.
func TestReportsAndRequestsDoNotMix(t *testing.T) {
	c, _ := NewCodec(77, "3f9a1c7e5b2d4086a1e3c5b7d9f02468")
	now := time.Now()
	rep, err := c.EncodeReport(NewReport("online", nil, now))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Decode([]byte(rep), now); !errors.Is(err, ErrInvalid) {
		t.Errorf("report decoded as a request: %v", err)
	}
	req, err := c.Encode(NewRequest(agentproto.CtlDirMk, agentproto.ControlArgs{Path: "x"}, now))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.DecodeReport([]byte(req), now); !errors.Is(err, ErrInvalid) {
		t.Errorf("request decoded as a report: %v", err)
	}
}
