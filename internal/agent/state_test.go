package agent

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

func TestStateTokenRoundTrip(t *testing.T) {
	st := stateStore{dir: t.TempDir()}
	if tok, err := st.loadToken("h", "k"); tok != nil || err != nil {
		t.Fatalf("empty state: %v %v", tok, err)
	}
	want := &savedToken{HostID: "h", Pubkey: "k", Token: "t1", ExpiresAt: time.Now().Add(time.Hour).UTC().Truncate(time.Second)}
	if err := st.saveToken(want); err != nil {
		t.Fatal(err)
	}
	if err := st.saveToken(&savedToken{HostID: "h", Pubkey: "k", Token: "t2"}); err != nil {
		t.Fatal(err) // replacing an existing file
	}
	got, err := st.loadToken("h", "k")
	if err != nil || got == nil || got.Token != "t2" {
		t.Fatalf("load = %+v, %v", got, err)
	}
	if tok, _ := st.loadToken("h", "other key"); tok != nil {
		t.Error("a token for other credentials was used")
	}
	if tok, _ := st.loadToken("other host", "k"); tok != nil {
		t.Error("a token for another host was used")
	}
	if runtime.GOOS != "windows" {
		fi, _ := os.Stat(st.path(tokenFile))
		if fi.Mode().Perm() != 0o600 {
			t.Errorf("mode %v", fi.Mode().Perm())
		}
	}
	if err := st.dropToken(); err != nil {
		t.Fatal(err)
	}
	if err := st.dropToken(); err != nil {
		t.Errorf("dropping twice: %v", err)
	}
}

func TestStateCorruptTokenIsAnError(t *testing.T) {
	st := stateStore{dir: t.TempDir()}
	if err := os.WriteFile(st.path(tokenFile), []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := st.loadToken("h", "k"); err == nil {
		t.Error("corrupt file accepted")
	}
}

func TestStateConsumedMarker(t *testing.T) {
	st := stateStore{dir: t.TempDir()}
	if spent, err := st.consumed("h", "tok"); spent || err != nil {
		t.Fatalf("fresh state: %v %v", spent, err)
	}
	if err := st.markConsumed("h", "tok", time.Now()); err != nil {
		t.Fatal(err)
	}
	if spent, _ := st.consumed("h", "tok"); !spent {
		t.Error("marked token not spent")
	}
	if spent, _ := st.consumed("h", "new token"); spent {
		t.Error("another install token counted as spent")
	}
	b, _ := os.ReadFile(st.path(consumedFile))
	if len(b) == 0 || strings.Contains(string(b), `"tok"`) {
		t.Errorf("marker keeps the token itself: %s", b)
	}
}

func TestPrepareStateDirKeepsExistingDirAlone(t *testing.T) {
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	got, err := PrepareStateDir(dir)
	if err != nil || got != dir {
		t.Fatalf("PrepareStateDir = %q, %v", got, err)
	}
	fi, _ := os.Stat(dir)
	if runtime.GOOS != "windows" && fi.Mode().Perm() != 0o755 {
		t.Errorf("an existing dir was changed to %v", fi.Mode().Perm())
	}
	fresh := filepath.Join(dir, "a", "b")
	if _, err := PrepareStateDir(fresh); err != nil {
		t.Fatal(err)
	}
	fi, _ = os.Stat(fresh)
	if runtime.GOOS != "windows" && fi.Mode().Perm() != 0o700 {
		t.Errorf("new dir mode %v", fi.Mode().Perm())
	}
}
