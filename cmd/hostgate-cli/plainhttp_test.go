package main

import (
	"context"
	"net"
	"net/http"
	"strings"
	"testing"
)

func TestPlainHTTP(t *testing.T) {
	for raw, want := range map[string]bool{
		"http://hub.example.com":         true,
		"http://hub.example.com:8080/":   true,
		"HTTP://hub.example.com":         true,
		"http://10.0.0.5:8080":           true,
		"http://192.0.2.1":               true,
		"http://[2001:db8::1]:8080":      true,
		"http://localhost.example.com":   true,
		"http://app.localhost":           true,
		"http://128.0.0.1":               true,
		"http://localhost":               false,
		"http://LOCALHOST.:8080":         false,
		"http://127.0.0.1:8080":          false,
		"http://127.200.3.4":             false,
		"http://[::1]:8080":              false,
		"http://[::ffff:127.0.0.1]:8080": false,
		"https://hub.example.com":        false,
		"https://10.0.0.5":               false,
		"::not a url":                    false,
	} {
		if got := plainHTTP(raw); got != want {
			t.Errorf("plainHTTP(%q) = %v, want %v", raw, got, want)
		}
	}
}

const plainWarning = "warning: the hub connection is not encrypted (http://)"

// TestCLIWarnsOfPlainHTTP: a run against an http:// hub that is not on
// loopback warns once on stderr, however many calls it makes; on
// loopback it does not.
func TestCLIWarnsOfPlainHTTP(t *testing.T) {
	f := newFakeHub(t)
	hubAddr := f.srv.Listener.Addr().String()
	// Every connection goes to the fake hub, whatever name the URL holds.
	var d net.Dialer
	client := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
		return d.DialContext(ctx, network, hubAddr)
	}}}
	run := func(url string, args ...string) result {
		e, out, errb := testEnv(map[string]string{"HOSTGATE_URL": url, "HOSTGATE_API_KEY": testKey}, "")
		e.httpClient = client
		return runEnv(t, e, out, errb, args...)
	}

	before := len(f.calls)
	r := run("http://hub.example.test:8080", "hosts", "show", hostName)
	if r.code != exitOK {
		t.Fatalf("hosts show: %+v", r)
	}
	f.mu.Lock()
	calls := len(f.calls) - before
	f.mu.Unlock()
	if calls < 2 {
		t.Fatalf("hosts show made %d calls, want several", calls)
	}
	if n := strings.Count(r.stderr, plainWarning); n != 1 || !strings.Contains(r.stderr, "in clear text to hub.example.test:8080") {
		t.Errorf("stderr over %d calls has the warning %d times, want once naming the hub: %q", calls, n, r.stderr)
	}
	if strings.Contains(r.stderr, testKey) || strings.Contains(r.stdout, plainWarning) {
		t.Errorf("the warning leaked the key or went to stdout: %+v", r)
	}

	for _, url := range []string{"http://localhost:8080", "http://127.0.0.2:8080", "http://[::1]:8080", f.srv.URL} {
		if r := run(url, "hosts", "show", hostName); r.code != exitOK || strings.Contains(r.stderr, "warning") {
			t.Errorf("%s: %+v, want no warning", url, r)
		}
	}
}
