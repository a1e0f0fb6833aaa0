//go:build !windows

package winops

import (
	"context"
	"strings"
	"testing"
	"time"
)

// The exec runner on a real program: exit code, both streams, the cap.
func TestExecRunner(t *testing.T) {
	r := execRunner{decode: func(b []byte) string { return strings.ToUpper(string(b)) }}
	out, err := r.run(context.Background(), "/bin/sh", "-c", "printf out; printf err >&2; exit 3")
	if err != nil || out.Stdout != "OUT" || out.Stderr != "ERR" || out.ExitCode != 3 {
		t.Fatalf("out %+v, err %v", out, err)
	}
	// A grandchild keeping the pipes open does not hide the result.
	start := time.Now()
	out, err = r.run(context.Background(), "/bin/sh", "-c", "printf done; sleep 5 & exit 2")
	if err != nil || out.Stdout != "DONE" || out.ExitCode != 2 || time.Since(start) > 4*time.Second {
		t.Errorf("with a lingering grandchild: %+v, %v after %v", out, err, time.Since(start))
	}
	if _, err := r.run(context.Background(), "/nonexistent/schtasks.exe"); err == nil {
		t.Error("missing program: no error")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start = time.Now()
	if _, err := r.run(ctx, "/bin/sh", "-c", "sleep 5"); err == nil {
		t.Error("cancelled run: no error")
	}
	if d := time.Since(start); d > 4*time.Second {
		t.Errorf("cancelled run returned after %v", d)
	}
}

func TestCappedBuffer(t *testing.T) {
	c := &cappedBuffer{max: 5}
	for _, p := range []string{"abc", "def", "gh"} {
		if n, err := c.Write([]byte(p)); n != len(p) || err != nil {
			t.Fatalf("Write = %d, %v", n, err)
		}
	}
	if string(c.b) != "abcde" || !c.over {
		t.Errorf("kept %q, over %v", c.b, c.over)
	}
}
