package agent

import (
	"os/exec"
	"runtime"
	"strings"
	"testing"
)

// TestAgentLinksNothingOfTheHub: the agent binary may use agentproto and
// l1 and nothing else of the hub, so it never links database drivers, Redis or
// the HTTP API, on any platform it ships for.
func TestAgentLinksNothingOfTheHub(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	if runtime.GOOS == "windows" {
		// Under Wine there is no Windows go toolchain; the Linux run checks
		// both platforms' dependency lists.
		t.Skip("checked by the Linux run for both platforms")
	}
	allowed := map[string]bool{
		"hostgate/cmd/hostgate-agent":  true,
		"hostgate/internal/agent":      true,
		"hostgate/internal/agentproto": true,
		"hostgate/internal/l1":         true, // the L1 codec, for the local listener and reverse reporting
		"hostgate/internal/streams":    true, // stream frames over the WebSocket (standard library only)
		"hostgate/internal/clip":       true, // shortening text on a character boundary (standard library only)
	}
	forbidden := []string{"github.com/jackc/pgx", "github.com/redis/go-redis", "modernc.org/sqlite", "github.com/danielgtaylor/huma"}
	for _, goos := range []string{"linux", "windows"} {
		cmd := exec.Command("go", "list", "-deps", "hostgate/cmd/hostgate-agent")
		cmd.Env = append(cmd.Environ(), "GOOS="+goos)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("go list (%s): %v", goos, err)
		}
		for _, dep := range strings.Fields(string(out)) {
			if strings.HasPrefix(dep, "hostgate/") && !allowed[dep] && !strings.HasPrefix(dep, "hostgate/internal/agent/") {
				t.Errorf("%s: the agent depends on %s", goos, dep)
			}
			for _, f := range forbidden {
				if dep == f || strings.HasPrefix(dep, f+"/") {
					t.Errorf("%s: the agent depends on %s", goos, dep)
				}
			}
		}
	}
}
