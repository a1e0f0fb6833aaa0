package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"hostgate/internal/fleet"
	"hostgate/internal/hubtest"
)

func TestProvisionThenRun(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	env := map[string]string{"HOSTGATE_ADDR": addr, "HOSTGATE_PUBLIC_URL": "http://" + addr,
		"HOSTGATE_DATA_DIR": t.TempDir(), "HOSTGATE_LOG_LEVEL": "warn"}
	out := filepath.Join(t.TempDir(), "fleet.jsonl")
	var stdout, stderr bytes.Buffer
	err = run(t.Context(), []string{"provision", "--count", "5", "--out", out}, func(k string) string { return env[k] }, &stdout, &stderr)
	if err != nil {
		t.Fatalf("provision: %v %s", err, stderr.String())
	}
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	creds, err := fleet.ReadCredentials(f)
	f.Close()
	if err != nil || len(creds) != 5 || !strings.HasPrefix(creds[0].WSURL, "ws://"+addr) {
		t.Fatalf("credentials: %d %v", len(creds), err)
	}

	h := hubtest.StartEnv(t, env)
	stdout.Reset()
	err = run(context.Background(), []string{"run", "--creds", out, "--from", "1", "--duration", "3s", "--every", "200ms", "--sources", "2"},
		nil, &stdout, &stderr)
	if err != nil {
		t.Fatalf("run: %v %s", err, stderr.String())
	}
	var sawAll bool
	sc := bufio.NewScanner(&stdout)
	for sc.Scan() {
		var line struct {
			Event string
			Stats fleet.Stats
		}
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			t.Fatalf("status line %q: %v", sc.Text(), err)
		}
		if line.Event == "all_connected" {
			sawAll = line.Stats.Agents == 4 && line.Stats.Welcomed == 4
		}
	}
	if !sawAll {
		t.Fatalf("no all_connected line for 4 agents in %s", stdout.String())
	}
	if on, _ := h.Dispatch.Online(t.Context(), creds[0].HostID); on {
		t.Fatal("the agent left out by --from connected")
	}

	for _, bad := range [][]string{{"run", "--creds", out}, {"run", "--creds", out, "--duration", "3h"},
		{"run", "--creds", out, "--duration", "1s", "--from", "9"}, {"provision", "--count", "0"}, {"nope"}} {
		if err := run(t.Context(), bad, func(string) string { return "" }, &stdout, &stderr); err == nil {
			t.Errorf("%v: accepted", bad)
		}
	}
}
