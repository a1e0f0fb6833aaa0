package main

import (
	"bytes"
	"crypto/ed25519"
	"encoding/base64"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"hostgate/internal/agent/install"
	"hostgate/internal/agentproto"
)

func TestPayloadArgs(t *testing.T) {
	dir := t.TempDir()
	plain := filepath.Join(dir, "plain.exe")
	os.WriteFile(plain, make([]byte, 20000), 0o755)
	if _, err := payloadArgs(plain); !errors.Is(err, agentproto.ErrNoPayload) {
		t.Errorf("a plain executable: err %v, want ErrNoPayload", err)
	}
	seed, pub := testKeyPair()
	p := agentproto.Payload{SchemaVersion: 1, Hub: agentproto.PayloadHub{Issued: agentproto.Issued{
		HostID: "0b8f6a52-2d0e-4d3e-9a57-1f8c2d9e7b11", BID: 7, SecretKey: "00112233445566778899aabbccddeeff",
		InstallToken: "tok", AgentPrivkeySeed: seed, AgentPubkey: pub, APIEndpoint: "https://hub.example.com", ListenPort: 24000,
	}}}
	b, err := agentproto.Bundle(make([]byte, 20000), p)
	if err != nil {
		t.Fatal(err)
	}
	bundled := filepath.Join(dir, "install.exe")
	os.WriteFile(bundled, b, 0o755)
	args, err := payloadArgs(bundled)
	if err != nil {
		t.Fatalf("payload not read: %v", err)
	}
	want := []string{"--host-id", p.Hub.HostID, "--bid", "7", "--secret-key", p.Hub.SecretKey, "--install-token", "tok",
		"--agent-privkey-seed", seed, "--agent-pubkey", pub, "--api-endpoint", "https://hub.example.com", "--listen-port", "24000"}
	if !slices.Equal(args, want) {
		t.Errorf("args = %q\nwant %q", args, want)
	}

	// A payload that is there but refused says why, naming the field.
	p.Hub.SecretKey = ""
	b, err = agentproto.Bundle(make([]byte, 20000), p)
	if err != nil {
		t.Fatal(err)
	}
	broken := filepath.Join(dir, "broken.exe")
	os.WriteFile(broken, b, 0o755)
	if _, err := payloadArgs(broken); err == nil || errors.Is(err, agentproto.ErrNoPayload) || !strings.Contains(err.Error(), "hub.secret_key") {
		t.Errorf("a payload without secret_key: err %v, want a refusal naming hub.secret_key", err)
	}
}

func TestInstallFromPayloadElevates(t *testing.T) {
	args := []string{"--host-id", "x"}
	var gotExe string
	var gotArgs []string
	relaunch := func(exe string, a []string) (int, error) { gotExe, gotArgs = exe, a; return 23, nil }
	var out, errb bytes.Buffer
	if code := installFromPayload(`C:\dl\install.exe`, args, &out, &errb, false, relaunch); code != 23 {
		t.Fatalf("not elevated: exit %d, want the elevated copy's 23", code)
	}
	if gotExe != `C:\dl\install.exe` || len(gotArgs) != 0 {
		t.Fatalf("relaunched %q %q; want the installer itself with no arguments (secrets stay off command lines)", gotExe, gotArgs)
	}

	declined := func(string, []string) (int, error) { return 0, errors.New("The operation was canceled by the user.") }
	errb.Reset()
	if code := installFromPayload("i.exe", args, &out, &errb, false, declined); code != exitInternal ||
		!strings.Contains(errb.String(), "administrator rights") || !strings.Contains(errb.String(), "canceled") {
		t.Fatalf("declined prompt: exit %d, stderr %q", code, errb.String())
	}

	never := func(string, []string) (int, error) { t.Fatal("an elevated installer relaunched itself"); return 0, nil }
	errb.Reset()
	code := installFromPayload("i.exe", args, &out, &errb, true, never)
	// install.Main ran: its JSON error about the incomplete arguments
	// (about the platform outside Windows).
	want := `"code":"missing_argument"`
	if runtime.GOOS != "windows" {
		want = `"code":"unsupported"`
	}
	if code != install.ExitInternal || !strings.Contains(errb.String(), want) {
		t.Fatalf("elevated: exit %d, stderr %q; want install's %s error", code, errb.String(), want)
	}
}

// testKeyPair is a fixed ed25519 seed and its public key, in base64.
func testKeyPair() (seed, pub string) {
	b := bytes.Repeat([]byte{9}, ed25519.SeedSize)
	return base64.StdEncoding.EncodeToString(b), base64.StdEncoding.EncodeToString(ed25519.NewKeyFromSeed(b).Public().(ed25519.PublicKey))
}
