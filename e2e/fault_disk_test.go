//go:build linux

package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestFullDataDisk: an embedded hub's data directory is a small tmpfs,
// filled to the last byte while the hub runs. Writes are refused with
// 507 storage_full (no panic, the hub stays up), reads go on; once space is freed
// writes work again, and every host whose creation was answered 2xx —
// before, during or after — is still there.
func TestFullDataDisk(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=8m", "tmpfs", dir).CombinedOutput(); err != nil {
		skipOrFail(t, "mount tmpfs: %v %s", err, out)
	}
	t.Cleanup(func() { _ = exec.Command("umount", "-l", dir).Run() })
	e := NewEnv(t, false)
	e.env["HOSTGATE_DATA_DIR"] = dir
	h := e.StartHub(freeAddr(t)) // an address given: the hub keeps e's data directory
	cust := NewCustomer(t, h)

	created := map[string]bool{}
	create := func(name string) (int, []byte) {
		b, _ := json.Marshal(map[string]any{"name": name})
		ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
		defer cancel()
		req, _ := http.NewRequestWithContext(ctx, "POST", h.URL+"/v1/api/hosts", bytes.NewReader(b))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+cust.Key)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatalf("create host %s: %v", name, err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		if resp.StatusCode < 300 {
			var out struct{ Host struct{ ID string } }
			if err := json.Unmarshal(body, &out); err != nil || out.Host.ID == "" {
				t.Fatalf("create host %s: %d %s", name, resp.StatusCode, body)
			}
			created[out.Host.ID] = true
		}
		return resp.StatusCode, body
	}
	for i := range 5 {
		if s, b := create(fmt.Sprintf("before-%d", i)); s != 201 {
			t.Fatalf("create before the disk fills: %d %s", s, b)
		}
	}

	// Fill the disk.
	filler := filepath.Join(dir, "filler")
	f, err := os.Create(filler)
	if err != nil {
		t.Fatal(err)
	}
	chunk := make([]byte, 64<<10)
	for {
		if _, err := f.Write(chunk); err != nil {
			if !errors.Is(err, syscall.ENOSPC) {
				t.Fatalf("fill: %v", err)
			}
			break
		}
	}
	for _, n := range []int{4096, 512, 1} { // the last few bytes too
		for {
			if _, err := f.Write(chunk[:n]); err != nil {
				break
			}
		}
	}
	f.Close()

	refused := 0
	var sample string
	for i := range 30 {
		s, b := create(fmt.Sprintf("full-%d", i))
		if s < 300 {
			continue
		}
		refused++
		var p struct{ Error string }
		if s != http.StatusInsufficientStorage || json.Unmarshal(b, &p) != nil || p.Error != "storage_full" {
			t.Errorf("a write on a full disk: %d %s; want 507 storage_full", s, b)
		}
		sample = fmt.Sprintf("%d %s", s, bytes.TrimSpace(b))
	}
	if refused == 0 {
		t.Errorf("30 writes on a full disk all succeeded")
	}
	if h.cmd.ProcessState != nil {
		t.Fatal("the hub exited on a full disk")
	}
	var list struct{ Items []struct{ ID string } }
	if s := call(t, "GET", h.URL+"/v1/api/hosts?limit=200", cust.Key, nil, &list); s != 200 || len(list.Items) < 5 {
		t.Fatalf("read on a full disk: %d, %d hosts", s, len(list.Items))
	}

	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		if s, b := create(fmt.Sprintf("after-%d", i)); s != 201 {
			t.Fatalf("create after freeing space: %d %s", s, b)
		}
	}
	h = h.Restart()
	list.Items = nil
	if s := call(t, "GET", h.URL+"/v1/api/hosts?limit=200", cust.Key, nil, &list); s != 200 {
		t.Fatalf("list after restart: %d", s)
	}
	have := map[string]bool{}
	for _, it := range list.Items {
		have[it.ID] = true
	}
	for id := range created {
		if !have[id] {
			t.Errorf("host %s, answered 2xx, is gone", id)
		}
	}
	t.Logf("full disk: %d of 30 writes refused (%s); %d hosts answered 2xx all kept across freeing space and a restart", refused, firstN(sample, 120), len(created))
}
