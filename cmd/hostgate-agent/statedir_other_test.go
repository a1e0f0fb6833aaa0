//go:build !windows

package main

import (
	"bytes"
	"crypto/ed25519"
	"encoding/base64"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestReadOnlyStateDirFailsAtStart: an existing state directory the agent
// may not write ends the real binary at once with exit 1 and one line,
// instead of retrying "permission denied" for ever. As root (who may
// write anywhere) the binary runs as nobody.
func TestReadOnlyStateDirFailsAtStart(t *testing.T) {
	// Outside t.TempDir, whose parent only its owner may enter.
	base, err := os.MkdirTemp("", "hostgate-statedir-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	if err := os.Chmod(base, 0o755); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(base, "hostgate-agent")
	if b, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, b)
	}
	dir := filepath.Join(base, "state")
	if err := os.Mkdir(dir, 0o500); err != nil {
		t.Fatal(err)
	}
	seed := bytes.Repeat([]byte{3}, 32)
	pub := ed25519.NewKeyFromSeed(seed).Public().(ed25519.PublicKey)
	cmd := exec.Command(bin, "run", "--host-id", "0b5e3c1e-8d4f-4f0e-9a51-3f2c8d7e6a10",
		"--agent-privkey-seed", base64.StdEncoding.EncodeToString(seed),
		"--agent-pubkey", base64.StdEncoding.EncodeToString(pub),
		"--ws-url", "ws://127.0.0.1:1/ws", "--api-endpoint", "http://127.0.0.1:1", "--state-dir", dir)
	if os.Geteuid() == 0 {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		cmd.Process.Kill()
		<-done
		t.Fatalf("the agent still ran after 10 s; stderr %q", stderr.String())
	}
	if code := cmd.ProcessState.ExitCode(); code != exitInternal {
		t.Errorf("exit %d, want %d (stderr %q)", code, exitInternal, stderr.String())
	}
	checkStateDirMessage(t, stderr.String(), dir)
}
