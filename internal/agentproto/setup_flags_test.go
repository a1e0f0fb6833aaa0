package agentproto

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"
)

// Every option names a member of Setup and a field of the right kind, and
// no flag or key appears twice.
func TestSetupOptionsNameSetupMembers(t *testing.T) {
	members := Setup{}.members()
	full, _ := json.Marshal(testSetup())
	var set map[string]json.RawMessage
	_ = json.Unmarshal(full, &set)
	flags, keys := map[string]bool{}, map[string]bool{}
	for _, o := range SetupOptions {
		if flags[o.Flag] || keys[o.Key] {
			t.Errorf("%s / %s appears twice", o.Flag, o.Key)
		}
		flags[o.Flag], keys[o.Key] = true, true
		if _, ok := set[o.Key]; !ok {
			if _, ok := members[o.Key]; !ok {
				t.Errorf("--%s sets %s, which is not a member of agentproto.Setup", o.Flag, o.Key)
			}
		}
		switch o.field(&Setup{}).(type) {
		case *string, *int64, *int, *Duration:
		default:
			t.Errorf("--%s: field of an unknown kind", o.Flag)
		}
		if o.Usage == "" {
			t.Errorf("--%s has no help", o.Flag)
		}
	}
}

// Each option's flag sets its own member, and Override copies exactly the
// flags given.
func TestSetupFlagsAndOverride(t *testing.T) {
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	var flags Setup
	RegisterFlags(fs, &flags, nil)
	args := []string{"--bid", "9", "--report-url", "https://flag.example/r", "--listen-port", "24001",
		"--upgrade-confirm-timeout", "5m", "--secret-key", ""}
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	file := testSetup()
	got := file
	Override(fs, &got, flags)
	want := file
	want.BID, want.ReportURL, want.ListenPort = 9, "https://flag.example/r", 24001
	want.UpgradeConfirmTimeout, want.SecretKey = Duration(5*time.Minute), ""
	if got != want {
		t.Errorf("got %#v\nwant %#v", got, want)
	}

	fs = flag.NewFlagSet("t", flag.ContinueOnError)
	RegisterFlags(fs, &flags, map[string]string{"bid": "custom help"}, "bid", "host-id")
	if fs.Lookup("bid") == nil || fs.Lookup("bid").Usage != "custom help" || fs.Lookup("host-id") == nil || fs.Lookup("ws-url") != nil {
		t.Error("RegisterFlags did not register only the options named, with the help given")
	}
}

func TestSetupRedactAndString(t *testing.T) {
	s := testSetup()
	msg := fmt.Sprintf("key %s token %s seed %s host %s", s.SecretKey, s.InstallToken+"-long", s.AgentPrivkeySeed, s.HostID)
	s.InstallToken += "-long"
	got := s.Redact(msg)
	for _, secret := range []string{s.SecretKey, s.InstallToken, s.AgentPrivkeySeed} {
		if strings.Contains(got, secret) {
			t.Errorf("Redact left %q in %q", secret, got)
		}
	}
	if !strings.Contains(got, s.HostID) {
		t.Errorf("Redact masked the host id: %q", got)
	}
	for _, out := range []string{s.String(), fmt.Sprintf("%v %+v %#v", s, s, s)} {
		if strings.Contains(out, s.SecretKey) || strings.Contains(out, s.InstallToken) || strings.Contains(out, s.AgentPrivkeySeed) ||
			!strings.Contains(out, s.HostID) {
			t.Errorf("printed setup: %s", out)
		}
	}
}

// docs/agent.md's flag table has a row for every option, with its key.
func TestSetupOptionsDocumented(t *testing.T) {
	b, err := os.ReadFile("../../docs/agent.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range SetupOptions {
		row := "| `--" + o.Flag + "` | `" + o.Key + "` |"
		if !bytes.Contains(b, []byte(row)) {
			t.Errorf("docs/agent.md has no row %q", row)
		}
	}
}
