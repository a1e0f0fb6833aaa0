package jobs

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"hostgate/internal/agentproto"
	"hostgate/internal/apperr"
)

func pct(n int) *int { return &n }

func TestNormalize(t *testing.T) {
	ok := Request{Target: Target{HostIDs: []string{"a"}}}
	r, err := Normalize(ok, 10)
	if err != nil || r.Offline != OfflineSkip || r.ExpiresInS != DefaultExpiresInS || r.Concurrency != DefaultConcurrency {
		t.Fatalf("defaults: %+v %v", r, err)
	}
	bad := map[string]func(*Request){
		"two targets":  func(r *Request) { r.Target.Tags = []string{"env=prod"} },
		"no target":    func(r *Request) { r.Target = Target{} },
		"too many":     func(r *Request) { r.Target.HostIDs = make([]string, 11) },
		"offline":      func(r *Request) { r.Offline = "later" },
		"expiry short": func(r *Request) { r.ExpiresInS = 59 },
		"expiry long":  func(r *Request) { r.ExpiresInS = MaxExpiresInS + 1 },
		"concurrency":  func(r *Request) { r.Concurrency = 1001 },
		"wave size":    func(r *Request) { r.Waves = &Waves{Size: 0} },
		"pause":        func(r *Request) { r.Waves = &Waves{Size: 1, PauseS: -1} },
		"pct":          func(r *Request) { r.Waves = &Waves{Size: 1, StopIfFailedPct: pct(101)} },
		"url scheme":   func(r *Request) { r.NotifyURL = "ftp://example.com" },
		"url long":     func(r *Request) { r.NotifyURL = "https://example.com/" + strings.Repeat("a", 2048) },
		"name":         func(r *Request) { r.Name = strings.Repeat("n", 101) },
	}
	for name, change := range bad {
		r := ok
		change(&r)
		if _, err := Normalize(r, 10); apperr.Code(err) != apperr.CodeInvalidBody {
			t.Errorf("%s: %v, want invalid_body", name, err)
		}
	}
}

func TestWaves(t *testing.T) {
	w := &Waves{Size: 2}
	for i, want := range []int{1, 1, 2, 2, 3} {
		if got := WaveOf(i, w); got != want {
			t.Errorf("WaveOf(%d) = %d, want %d", i, got, want)
		}
	}
	if WaveOf(7, nil) != 1 || WaveCount(5, w) != 3 || WaveCount(4, w) != 2 || WaveCount(9, nil) != 1 {
		t.Fatal("wave counts")
	}
	now := time.Now()
	j := Job{HostCount: 5, Wave: 1, Spec: Spec{Waves: &Waves{Size: 2, PauseS: 30, StopIfFailedPct: pct(20)}}}
	j.Totals = Totals{Succeeded: 2, Queued: 3}
	if s := NextWave(j, now, now); s != WaveWait {
		t.Fatalf("in the pause: %v", s)
	}
	if s := NextWave(j, now.Add(-30*time.Second), now); s != WaveRelease {
		t.Fatalf("after the pause: %v", s)
	}
	j.Totals = Totals{Succeeded: 4, Failed: 1} // 20%: not over
	if s := NextWave(j, now.Add(-time.Minute), now); s != WaveRelease {
		t.Fatalf("at the threshold: %v", s)
	}
	j.Totals = Totals{Succeeded: 3, Failed: 1} // 25%
	if s := NextWave(j, now, now); s != WaveStop {
		t.Fatalf("over the threshold: %v", s)
	}
	j.Totals, j.Wave = Totals{Succeeded: 5}, 3
	if s := NextWave(j, now.Add(-time.Hour), now); s != WaveLast {
		t.Fatalf("last wave: %v", s)
	}
}

func TestTransitions(t *testing.T) {
	j := Job{State: JobRunning, Totals: Totals{Queued: 3}}
	j.Totals.Move(RunQueued, RunRunning, 2)
	j.Totals.Move(RunRunning, RunSucceeded, 1)
	if j.Finish(time.Now()) {
		t.Fatal("finished with runs left")
	}
	j.Stop(StopCanceled)
	j.Totals.Move(RunQueued, RunCanceled, 1)
	j.Totals.Move(RunRunning, RunFailed, 1)
	if !j.Finish(time.Now()) || j.State != JobCanceled || j.FinishedAt == nil || j.StopReason != StopCanceled {
		t.Fatalf("canceled job %+v", j)
	}
	if j.Finish(time.Now()) {
		t.Fatal("finished twice")
	}
	k := Job{State: JobRunning}
	k.Stop(StopFailureThreshold)
	if !k.Stopped() || k.State != JobRunning || !k.Finish(time.Now()) || k.State != JobFinished {
		t.Fatalf("stopped job %+v", k)
	}
}

func TestExcerpt(t *testing.T) {
	s := strings.Repeat("a", 4095) + "é" // é straddles byte 4096
	got, cut := Excerpt(s, ExcerptBytes)
	if !cut || len(got) != 4095 || !utf8.ValidString(got) {
		t.Fatalf("excerpt %d bytes cut=%v", len(got), cut)
	}
	if got, cut := Excerpt("hi", ExcerptBytes); got != "hi" || cut {
		t.Fatal("short text")
	}
}

func TestOutcome(t *testing.T) {
	res, _ := json.Marshal(agentproto.ShellResult{Stdout: "hi\n", ExitCode: 0})
	o := Outcome("process.shell", agentproto.Response{OK: true, Result: res}, nil)
	if o.run.State != RunSucceeded || *o.run.ExitCode != 0 || o.run.Stdout != "hi\n" {
		t.Fatalf("ok shell %+v", o.run)
	}
	res, _ = json.Marshal(agentproto.ShellResult{ExitCode: 2})
	if o := Outcome("process.shell", agentproto.Response{OK: true, Result: res}, nil); o.run.State != RunFailed || o.run.Error != ErrNonzeroExit {
		t.Fatalf("non-zero exit %+v", o.run)
	}
	if o := Outcome("files.dir", agentproto.Response{OK: true, Result: json.RawMessage(`{"a":1}`)}, nil); o.run.State != RunSucceeded ||
		o.run.ExitCode != nil || o.run.Stdout != `{"a":1}` {
		t.Fatalf("non-process %+v", o.run)
	}
	if o := Outcome("files.dir", agentproto.Response{Error: &agentproto.Error{Code: "not_found", Message: "x"}}, nil); o.run.Error != "target_not_found" {
		t.Fatalf("agent failure %+v", o.run)
	}
	if o := Outcome("files.dir", agentproto.Response{}, apperr.New("agent_timeout", "late")); o.run.State != RunFailed || o.run.Error != "agent_timeout" {
		t.Fatalf("timeout %+v", o.run)
	}
	if o := Outcome("files.dir", agentproto.Response{}, errors.New("boom")); o.run.Error != apperr.CodeInternal {
		t.Fatalf("internal %+v", o.run)
	}
}

func TestDecodeRequest(t *testing.T) {
	r, err := DecodeRequest(json.RawMessage(`{"name":"n","target":{"tags":["env=prod"]},"operation":{"controls":8192,"path":"/bin/sh","data":{"args":"-c true"}},"offline":"queue","waves":{"size":2}}`))
	if err != nil || r.Name != "n" || r.Target.Tags[0] != "env=prod" || r.Operation.Controls != 8192 || string(r.Operation.Data) != `{"args":"-c true"}` ||
		r.Offline != OfflineQueue || r.Waves.Size != 2 {
		t.Fatalf("decoded %+v %v", r, err)
	}
	for _, bad := range []string{`{"dry_run":true}`, `{"name":5}`, `nope`} {
		if _, err := DecodeRequest(json.RawMessage(bad)); apperr.Code(err) != apperr.CodeInvalidBody {
			t.Errorf("%s: %v", bad, err)
		}
	}
}
