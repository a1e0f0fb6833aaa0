//go:build linux

package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"hostgate/internal/eventually"
)

// TestHubKilledDuringJobDispatch: a job of four hosts is created and the
// (embedded) hub is killed with SIGKILL at once, while its driver claims,
// charges and sends the runs; the hub is restarted on the same store. The
// job (offline=queue: hosts still reconnecting wait for their run) ends,
// every host's run ends exactly once, run (succeeded, or failed
// "interrupted"), no command ran twice (each
// appends a line to one file), each run is charged at most once
// and a succeeded one exactly once (docs/jobs.md "Decision on crashes": a
// run sent before the crash may end failed "interrupted" and keep its
// charge).
func TestHubKilledDuringJobDispatch(t *testing.T) {
	t.Parallel()
	e := NewEnv(t, false)
	h := e.StartHub(freeAddr(t))
	c := NewCustomer(t, h)
	c.Fund(h, 100)
	out := t.TempDir()
	var ids []string
	for i := range 4 {
		cr := c.CreateHost(h, "job-crash-"+string(rune('a'+i)))
		e.StartAgent(cr, t.TempDir())
		ids = append(ids, cr.HostID)
	}
	for _, id := range ids {
		eventually.True(t, 15*time.Second, "agents connected", func() bool { return c.Connected(h, id) })
	}
	body := shellJob(ids, "sleep 1; echo run >> "+out+"/ran")
	body["offline"] = "queue" // hosts still reconnecting after the restart wait for their run
	j := createJob(t, h, c, body)
	h.kill9()
	h = e.StartHub(h.addr)
	for _, id := range ids {
		eventually.True(t, 20*time.Second, "agents back", func() bool { return c.Connected(h, id) })
	}
	var fin e2eJob
	eventually.True(t, 90*time.Second, "the job ends", func() bool {
		call(t, "GET", h.URL+"/v1/api/jobs/"+j.ID, c.Key, nil, &fin)
		return fin.FinishedAt != nil
	})
	total := 0
	for _, n := range fin.Totals {
		total += n
	}
	if total != 4 || fin.Totals["succeeded"]+fin.Totals["failed"] != 4 {
		t.Fatalf("job totals %v: want 4 runs, each run once (succeeded, or failed interrupted)", fin.Totals)
	}
	charges := chargesByHost(t, h, c)
	nCharges := 0
	for _, id := range ids {
		if charges[id] > 1 {
			t.Errorf("host %s charged %d times", id, charges[id])
		}
		nCharges += charges[id]
	}
	if fin.Totals["succeeded"] > nCharges || fin.Charged != float64(5*nCharges) {
		t.Errorf("%d succeeded, %d charges, job charged %v", fin.Totals["succeeded"], nCharges, fin.Charged)
	}
	b, _ := os.ReadFile(filepath.Join(out, "ran"))
	ran := strings.Count(string(b), "run\n")
	if ran > nCharges || ran < fin.Totals["succeeded"] {
		t.Errorf("%d commands ran for %d charges and %d succeeded runs", ran, nCharges, fin.Totals["succeeded"])
	}
	if bal := c.Balance(h); bal != 100-float64(5*nCharges) {
		t.Errorf("balance %v after %d charges of 5", bal, nCharges)
	}
	t.Logf("hub killed during dispatch: runs %v, %d charges, %d commands ran, balance consistent", fin.Totals, nCharges, ran)
}
