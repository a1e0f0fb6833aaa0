package pty

import (
	"io"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/windows"
)

// underWine reports whether the test runs under Wine, whose ConPTY runs
// programs but delivers none of their output.
func underWine() bool {
	return windows.NewLazySystemDLL("ntdll.dll").NewProc("wine_get_version").Find() == nil
}

// TestConPTYSmoke starts cmd.exe under ConPTY and checks that its exit
// code comes back, that the output stream then ends, and that Close
// returns. On real Windows it also checks the output.
func TestConPTYSmoke(t *testing.T) {
	p, err := Start(Options{Command: []string{"cmd.exe", "/c", "echo smoke& exit 3"}})
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	defer p.Close()
	out := make(chan []byte, 1)
	go func() { b, _ := io.ReadAll(p); out <- b }()

	exited := make(chan struct{})
	var code int
	var werr error
	go func() { code, werr = p.Wait(); close(exited) }()
	select {
	case <-exited:
	case <-time.After(30 * time.Second):
		t.Fatal("cmd.exe did not exit within 30s")
	}
	if code != 3 || werr != nil {
		t.Errorf("Wait = %d, %v; want 3, nil", code, werr)
	}
	select {
	case b := <-out:
		if !underWine() && !strings.Contains(string(b), "smoke") {
			t.Errorf("output %q lacks %q", b, "smoke")
		}
	case <-time.After(10 * time.Second):
		t.Error("output did not end within 10s of the exit")
	}
	if err := p.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
}

func TestConPTYCloseEndsShell(t *testing.T) {
	p, err := Start(Options{})
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	go func() { _, _ = io.Copy(io.Discard, p) }()
	if err := p.Resize(100, 30); err != nil {
		if !underWine() {
			t.Errorf("Resize: %v", err)
		}
		t.Logf("Resize under Wine: %v", err) // ResizePseudoConsole is a stub in Wine 8
	}
	closed := make(chan struct{})
	go func() { _ = p.Close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(30 * time.Second):
		t.Fatal("Close did not return within 30s")
	}
	if _, err := p.Wait(); err != nil {
		t.Errorf("Wait after Close: %v", err)
	}
}
