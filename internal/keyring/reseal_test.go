package keyring

import (
	"bytes"
	"context"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// sealedStore is an in-memory ResealStore; before runs before each
// ReplaceSealed, to change rows as a serving hub would meanwhile.
type sealedStore struct {
	rows   map[string]map[string][]byte
	before func()
}

func (s *sealedStore) SealedValues(_ context.Context, kind, after string, limit int) ([]Sealed, error) {
	var ids []string
	for id := range s.rows[kind] {
		if id > after {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	var out []Sealed
	for _, id := range ids[:min(limit, len(ids))] {
		out = append(out, Sealed{ID: id, Value: s.rows[kind][id]})
	}
	return out, nil
}

func (s *sealedStore) ReplaceSealed(_ context.Context, kind string, rs []Replacement) (int, error) {
	if s.before != nil {
		s.before()
	}
	n := 0
	for _, r := range rs {
		if bytes.Equal(s.rows[kind][r.ID], r.Old) {
			s.rows[kind][r.ID] = r.New
			n++
		}
	}
	return n, nil
}

func TestResealWalk(t *testing.T) {
	sign := randomKey(t)
	oldKey, newKey, lostKey := randomKey(t), randomKey(t), randomKey(t)
	old := rotated(t, sign, oldKey, nil, nil)
	lost := rotated(t, sign, lostKey, nil, nil)
	k := rotated(t, sign, newKey, nil, [][]byte{oldKey})
	alone := rotated(t, sign, newKey, nil, nil)

	st := &sealedStore{rows: map[string]map[string][]byte{SealedHostSecret: {}, SealedDeliverySecrets: {}}}
	// More hosts than a batch, so the walk pages.
	for i := range ResealBatch + 5 {
		id := "host-" + strconv.Itoa(1000+i)
		st.rows[SealedHostSecret][id] = old.Seal([]byte("s "+id), []byte(id))
	}
	st.rows[SealedHostSecret]["host-current"] = k.Seal([]byte("current"), []byte("host-current"))
	st.rows[SealedHostSecret]["host-lost"] = lost.Seal([]byte("lost"), []byte("host-lost"))
	st.rows[SealedDeliverySecrets]["d-1"] = old.Seal([]byte("d"), []byte("d-1"))
	// A serving hub rewrites host-1000 under the new key meanwhile.
	st.before = func() {
		st.rows[SealedHostSecret]["host-1000"] = k.Seal([]byte("rewritten"), []byte("host-1000"))
		st.before = nil
	}
	counts, err := Reseal(t.Context(), st, k)
	if err != nil {
		t.Fatalf("Reseal: %v", err)
	}
	want := ResealCounts{Resealed: ResealBatch + 4, Current: 1, Changed: 1, Unopenable: 1}
	if got := counts[SealedHostSecret]; got != want {
		t.Errorf("host secrets: got %+v, want %+v", got, want)
	}
	if got := counts[SealedDeliverySecrets]; got != (ResealCounts{Resealed: 1}) {
		t.Errorf("delivery secrets: got %+v, want 1 resealed", got)
	}
	for kind, rows := range st.rows {
		for id, v := range rows {
			plain, err := alone.Open(v, []byte(id))
			switch {
			case id == "host-lost":
				if err == nil {
					t.Errorf("%s %s: opens under the new key, want it left untouched", kind, id)
				}
			case err != nil:
				t.Errorf("%s %s: does not open under the new key alone: %v", kind, id, err)
			case id == "host-1000" && string(plain) != "rewritten":
				t.Errorf("%s %s: got %q, want the hub's concurrent value kept", kind, id, plain)
			case strings.HasPrefix(id, "host-1") && id != "host-1000" && string(plain) != "s "+id:
				t.Errorf("%s %s: got %q", kind, id, plain)
			}
		}
	}
}
