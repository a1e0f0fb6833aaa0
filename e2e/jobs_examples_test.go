package e2e

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"hostgate/internal/eventually"
)

// TestJobExamples runs the jobs example of each SDK as written
// (sdk/go/examples/jobs, sdk/python/examples/jobs.py,
// sdk/typescript/examples/jobs.mjs) against a hub and a real agent: each
// tags the host, runs a job on the tag and prints the same lines.
func TestJobExamples(t *testing.T) {
	e := NewEnv(t, false)
	h := e.StartHub()
	c := NewCustomer(t, h)
	c.Fund(h, 30)
	creds := c.CreateHost(h, "example-host")
	e.StartAgent(creds, t.TempDir())
	eventually.True(t, 30*time.Second, "agent online", func() bool { return c.Connected(h, creds.HostID) })
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), "HOSTGATE_URL="+h.URL, "HOSTGATE_API_KEY="+c.Key, "HOSTGATE_HOST_ID="+creds.HostID,
		"PYTHONPATH="+filepath.Join(root, "sdk/python/src"))
	const want = "example-host succeeded 0 Linux\nevery host succeeded: true\n"
	for _, ex := range []struct {
		name    string
		prepare func(*testing.T)
		argv    []string
	}{
		{"go", func(*testing.T) {}, []string{"go", "run", "./sdk/go/examples/jobs"}},
		{"python", xlNeed("python3", ""), []string{"python3", "sdk/python/examples/jobs.py"}},
		{"typescript", xlNeedTS, []string{"node", "sdk/typescript/examples/jobs.mjs"}},
	} {
		t.Run(ex.name, func(t *testing.T) {
			ex.prepare(t)
			if got := string(readmeRun(t, root, env, ex.argv[0], ex.argv[1:]...)); got != want {
				t.Fatalf("the example printed %q, want %q", got, want)
			}
		})
	}
}
