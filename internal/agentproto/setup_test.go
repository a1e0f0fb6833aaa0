package agentproto

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

func testSetup() Setup {
	return Setup{
		Issued: Issued{
			HostID: "0b8f6a52-2d0e-4d3e-9a57-1f8c2d9e7b11", BID: 42, SecretKey: "00112233445566778899aabbccddeeff",
			InstallToken: "tok", AgentPrivkeySeed: testSeed, AgentPubkey: "ed25519:" + testPub,
			WSURL: "wss://hub.example.com/v1/internal/agent/ws", APIEndpoint: "https://hub.example.com", ListenPort: 24000,
		},
		StateDir: "/var/lib/hostgate-agent", ReportURL: "https://report.example.com/r", L1Listen: "0.0.0.0:24000",
		UpgradeConfirmTimeout: Duration(90 * time.Second),
	}
}

func readMembers(t *testing.T, path string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("%v:\n%s", err, b)
	}
	return m
}

func TestSetupSaveLoadRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "agent.json")
	want := testSetup()
	if err := want.Save(path); err != nil {
		t.Fatal(err)
	}
	got, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if got != want {
		t.Errorf("loaded %+v\nwant %+v", got, want)
	}
	if fi, _ := os.Stat(path); runtime.GOOS != "windows" && fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600", fi.Mode())
	}
	m := readMembers(t, path)
	if m["l1_listen"] != "0.0.0.0:24000" || m["upgrade_confirm_timeout"] != "1m30s" || m["report_url"] != want.ReportURL {
		t.Errorf("file %v", m)
	}
	if _, ok := m["agent_privkey_sealed"]; ok {
		t.Errorf("an empty optional member was written: %v", m)
	}
	if left, _ := filepath.Glob(filepath.Join(filepath.Dir(path), ".*.tmp")); len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

// An unknown member survives Load and Save; a byte order mark is skipped.
func TestSetupKeepsUnknownMembers(t *testing.T) {
	path := filepath.Join(t.TempDir(), "agent.json")
	doc := "\xef\xbb\xbf" + `{"host_id":"0b8f6a52-2d0e-4d3e-9a57-1f8c2d9e7b11","bid":7,"comment":{"a":[1,2]},"zz":"kept"}`
	if err := os.WriteFile(path, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := Load(path)
	if err != nil || s.BID != 7 {
		t.Fatalf("Load: %+v, %v", s, err)
	}
	if err := s.Save(path); err != nil {
		t.Fatal(err)
	}
	m := readMembers(t, path)
	if m["zz"] != "kept" || m["comment"] == nil || m["bid"] != 7.0 {
		t.Errorf("file after save: %v", m)
	}
	s.DropUnknown()
	b, _ := json.Marshal(s)
	if strings.Contains(string(b), "comment") {
		t.Errorf("DropUnknown kept them: %s", b)
	}
}

// The install credentials call the report URL "url", and may serve as
// the setup file as they are: a file with "url" and no report_url still
// loads its report URL; report_url wins when both are there.
func TestSetupLoadsTheOlderURLSpelling(t *testing.T) {
	for _, tc := range []struct{ doc, want string }{
		{`{"url":"https://old.example.com/r"}`, "https://old.example.com/r"},
		{`{"url":"https://old.example.com/r","report_url":"https://new.example.com/r"}`, "https://new.example.com/r"},
		{`{"url":"https://old.example.com/r","report_url":""}`, ""},
		{`{"url":null}`, ""},
	} {
		s, err := ParseSetup([]byte(tc.doc))
		if err != nil || s.ReportURL != tc.want {
			t.Errorf("%s: report URL %q (%v), want %q", tc.doc, s.ReportURL, err, tc.want)
		}
	}
	if _, err := ParseSetup([]byte(`{"url":5}`)); err == nil {
		t.Error("a url that is not a string was accepted")
	}
}

func TestSetupRefusesNonObjects(t *testing.T) {
	for _, doc := range []string{``, `null`, `[]`, `"x"`, `{"bid":"7"}`, `{"upgrade_confirm_timeout":"-1s"}`} {
		if _, err := ParseSetup([]byte(doc)); err == nil {
			t.Errorf("%q: accepted", doc)
		}
	}
}

// Rewrite changes only what the function changed and keeps every other
// member of the file as it was, known or not.
func TestSetupRewriteKeepsTheRest(t *testing.T) {
	path := filepath.Join(t.TempDir(), "agent.json")
	doc := `{"host_id":"0b8f6a52-2d0e-4d3e-9a57-1f8c2d9e7b11","bid":7,"secret_key":"aa","url":"https://old.example.com/r",` +
		`"agent_privkey_seed":"` + testSeed + `","comment":"kept"}`
	if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	err := Rewrite(path, func(s *Setup) error {
		if s.ReportURL != "https://old.example.com/r" {
			t.Errorf("report URL %q", s.ReportURL)
		}
		s.BID, s.SecretKey, s.ReportURL = 77, "00112233445566778899aabbccddeeff", ""
		s.AgentPrivkeySeed, s.AgentPrivkeySealed, s.KeyProtection = "", "c2VhbGVk", "test"
		return nil
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	m := readMembers(t, path)
	want := map[string]any{"host_id": "0b8f6a52-2d0e-4d3e-9a57-1f8c2d9e7b11", "bid": 77.0, "secret_key": "00112233445566778899aabbccddeeff",
		"url": "https://old.example.com/r", "report_url": "", "agent_privkey_sealed": "c2VhbGVk", "key_protection": "test", "comment": "kept"}
	if len(m) != len(want) {
		t.Errorf("file %v, want %v", m, want)
	}
	for k, v := range want {
		if m[k] != v {
			t.Errorf("%s = %v, want %v", k, m[k], v)
		}
	}
	if s, _ := Load(path); s.ReportURL != "" {
		t.Errorf("the older url came back: %q", s.ReportURL)
	}
	if fi, _ := os.Stat(path); runtime.GOOS != "windows" && fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600", fi.Mode())
	}
}

func TestSetupRewriteLeavesTheFileOnError(t *testing.T) {
	path := filepath.Join(t.TempDir(), "agent.json")
	doc := `{"bid":7,"comment":"kept"}`
	if err := os.WriteFile(path, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	if err := Rewrite(path, func(s *Setup) error { s.BID = 8; return boom }, nil); err != boom {
		t.Errorf("err %v, want the function's", err)
	}
	err := Rewrite(path, func(s *Setup) error { s.WSURL = "ftp://x"; return nil }, nil)
	if !errors.Is(err, ErrInvalidSetup) || !strings.Contains(err.Error(), "ws_url") {
		t.Errorf("invalid result: %v", err)
	}
	if b, _ := os.ReadFile(path); string(b) != doc {
		t.Errorf("file changed: %s", b)
	}
	if err := Rewrite(filepath.Join(t.TempDir(), "none.json"), func(*Setup) error { return nil }, nil); err == nil {
		t.Error("a missing file was rewritten")
	}
}

func TestSetupValidate(t *testing.T) {
	if err := testSetup().Validate(); err != nil {
		t.Fatal(err)
	}
	if err := (Setup{}).Validate(); err != nil {
		t.Errorf("an empty setup: %v (Validate checks only what is set)", err)
	}
	for _, tc := range []struct {
		field  string
		change func(*Setup)
	}{
		{"host_id", func(s *Setup) { s.HostID = "nope" }},
		{"bid", func(s *Setup) { s.BID = -1 }},
		{"agent_privkey_seed", func(s *Setup) { s.AgentPrivkeySeed = "c2hvcnQ=" }},
		{"agent_pubkey", func(s *Setup) { s.AgentPubkey = "ed25519:c2hvcnQ=" }},
		{"agent_pubkey", func(s *Setup) { s.AgentPubkey = testSeed }},
		{"ws_url", func(s *Setup) { s.WSURL = "https://hub.example.com" }},
		{"api_endpoint", func(s *Setup) { s.APIEndpoint = "hub.example.com" }},
		{"report_url", func(s *Setup) { s.ReportURL = "ftp://x/y" }},
		{"listen_port", func(s *Setup) { s.ListenPort = 70000 }},
		{"l1_listen", func(s *Setup) { s.L1Listen = "nope" }},
	} {
		s := testSetup()
		tc.change(&s)
		err := s.Validate()
		if !errors.Is(err, ErrInvalidSetup) || !strings.Contains(err.Error(), tc.field) {
			t.Errorf("%s: %v", tc.field, err)
		}
		if err != nil && strings.Contains(err.Error(), s.SecretKey) {
			t.Errorf("%s: the error carries the secret key", tc.field)
		}
	}
	s := testSetup()
	s.L1Listen = "off"
	if err := s.Validate(); err != nil {
		t.Errorf("l1_listen off: %v", err)
	}
}
