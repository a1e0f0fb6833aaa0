package storetest

import (
	"bytes"
	"fmt"
	"slices"
	"testing"

	"hostgate/internal/store"
)

var keysTests = []test{
	{"FirstStoredWins", testServerKeyFirstWins},
	{"Race", testServerKeyRace},
}

func testServerKeyFirstWins(t *testing.T, s store.Store) {
	for _, c := range []struct {
		name      string
		candidate string
		want      string
	}{
		{"jwt", "first", "first"},
		{"jwt", "second", "first"},
		{"cookie", "other", "other"},
	} {
		got, err := s.Keys.ServerKey(t.Context(), c.name, []byte(c.candidate))
		must(t, "ServerKey", err)
		if string(got) != c.want {
			t.Errorf("ServerKey(%q, %q): got %q, want %q", c.name, c.candidate, got, c.want)
		}
	}
}

func testServerKeyRace(t *testing.T, s store.Store) {
	const n = 20
	keys := make([][]byte, n)
	candidates := make([][]byte, n)
	errs := race(n, func(i int) error {
		candidates[i] = fmt.Appendf(nil, "candidate %d", i)
		var err error
		keys[i], err = s.Keys.ServerKey(t.Context(), "jwt", candidates[i])
		return err
	})
	countRace(t, errs)
	for i, k := range keys {
		if !bytes.Equal(k, keys[0]) {
			t.Errorf("racing ServerKey %d: got %q, want %q like the first", i, k, keys[0])
		}
	}
	if !slices.ContainsFunc(candidates, func(c []byte) bool { return bytes.Equal(c, keys[0]) }) {
		t.Errorf("racing ServerKey: got %q, want one of the candidates", keys[0])
	}
}
