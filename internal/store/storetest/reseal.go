package storetest

import (
	"bytes"
	"fmt"
	"slices"
	"testing"

	"hostgate/internal/hosts"
	"hostgate/internal/keyring"
	"hostgate/internal/store"
)

var resealTests = []test{
	{"SealedValuesPaging", testSealedValuesPaging},
	{"ReplaceSealedConditional", testReplaceSealedConditional},
	{"ReplaceSealedRace", testReplaceSealedRace},
	{"UnknownKind", testSealedUnknownKind},
}

// sealedRows stores hosts and deliveries and returns, by kind, their
// sealed values by id.
func sealedRows(t *testing.T, s store.Store, nHosts, nDeliveries int) map[string]map[string][]byte {
	t.Helper()
	u := owner(t, s, "reseal@example.com")
	out := map[string]map[string][]byte{keyring.SealedHostSecret: {}, keyring.SealedDeliverySecrets: {}, keyring.SealedUserWebhookSecret: {}}
	must(t, "PutUserSecret", s.Deliveries.PutUserSecret(t.Context(), u, []byte("sealed secret of "+u), t0))
	out[keyring.SealedUserWebhookSecret][u] = []byte("sealed secret of " + u)
	var first = createHost(t, s, newHost(u, "h0", t0))
	out[keyring.SealedHostSecret][first.ID] = sealed(first, 1)
	for i := 1; i < nHosts; i++ {
		h := createHost(t, s, newHost(u, fmt.Sprintf("h%d", i), t0))
		out[keyring.SealedHostSecret][h.ID] = sealed(h, 1)
	}
	for _, d := range enqueue(t, s, first, nDeliveries, t0) {
		out[keyring.SealedDeliverySecrets][d.ID] = d.SealedSecrets
	}
	return out
}

// allSealed walks kind with SealedValues limit at a time.
func allSealed(t *testing.T, s store.Store, kind string, limit int) []keyring.Sealed {
	t.Helper()
	var out []keyring.Sealed
	after := ""
	for {
		vals, err := s.Reseal.SealedValues(t.Context(), kind, after, limit)
		must(t, "SealedValues", err)
		if len(vals) > limit {
			t.Fatalf("SealedValues(limit %d): got %d values", limit, len(vals))
		}
		if len(vals) == 0 {
			return out
		}
		out = append(out, vals...)
		after = vals[len(vals)-1].ID
	}
}

func testSealedValuesPaging(t *testing.T, s store.Store) {
	rows := sealedRows(t, s, 5, 3)
	// A deleted host's secret is still a sealed value to re-seal.
	for id := range rows[keyring.SealedHostSecret] {
		h, _ := hostNow(t, s, id)
		must(t, "DeleteHost", hosts.DeleteHost(t.Context(), s.Hosts, h.UserID, h.ID, t0, nil))
		break
	}
	for kind, want := range rows {
		got := allSealed(t, s, kind, 2)
		if len(got) != len(want) {
			t.Errorf("%s: got %d values, want %d", kind, len(got), len(want))
		}
		if !slices.IsSortedFunc(got, func(a, b keyring.Sealed) int { return bytes.Compare([]byte(a.ID), []byte(b.ID)) }) {
			t.Errorf("%s: values not in id order", kind)
		}
		for _, v := range got {
			if !bytes.Equal(v.Value, want[v.ID]) {
				t.Errorf("%s %s: got %q, want %q", kind, v.ID, v.Value, want[v.ID])
			}
		}
	}
}

func testReplaceSealedConditional(t *testing.T, s store.Store) {
	rows := sealedRows(t, s, 2, 2)
	for kind, vals := range rows {
		var rs []keyring.Replacement
		var stale string
		for id, v := range vals {
			if stale == "" {
				// Changed meanwhile: Old is no longer the stored value.
				stale = id
				rs = append(rs, keyring.Replacement{ID: id, Old: []byte("something else"), New: []byte("lost " + id)})
				continue
			}
			rs = append(rs, keyring.Replacement{ID: id, Old: v, New: []byte("new " + id)})
		}
		n, err := s.Reseal.ReplaceSealed(t.Context(), kind, rs)
		must(t, "ReplaceSealed", err)
		if n != len(vals)-1 {
			t.Errorf("%s: ReplaceSealed replaced %d, want %d", kind, n, len(vals)-1)
		}
		got := map[string][]byte{}
		for _, v := range allSealed(t, s, kind, 10) {
			got[v.ID] = v.Value
		}
		for id, old := range vals {
			want := []byte("new " + id)
			if id == stale {
				want = old
			}
			if !bytes.Equal(got[id], want) {
				t.Errorf("%s %s: got %q, want %q", kind, id, got[id], want)
			}
		}
	}
	// The host's own reads see the new value.
	for id := range rows[keyring.SealedHostSecret] {
		_, sec := hostNow(t, s, id)
		all := allSealed(t, s, keyring.SealedHostSecret, 10)
		i := slices.IndexFunc(all, func(v keyring.Sealed) bool { return v.ID == id })
		if !bytes.Equal(sec.SecretSealed, all[i].Value) {
			t.Errorf("HostByID %s: got %q, want %q", id, sec.SecretSealed, all[i].Value)
		}
	}
}

// testReplaceSealedRace: of racing replacements of one value read once,
// exactly one wins; none is lost half-way.
func testReplaceSealedRace(t *testing.T, s store.Store) {
	rows := sealedRows(t, s, 1, 0)
	var id string
	var old []byte
	for id, old = range rows[keyring.SealedHostSecret] {
	}
	const n = 8
	counts := make([]int, n)
	errs := race(n, func(i int) error {
		var err error
		counts[i], err = s.Reseal.ReplaceSealed(t.Context(), keyring.SealedHostSecret,
			[]keyring.Replacement{{ID: id, Old: old, New: fmt.Appendf(nil, "racer %d", i)}})
		return err
	})
	countRace(t, errs)
	winners := 0
	for i, c := range counts {
		if errs[i] == nil {
			winners += c
		}
	}
	if winners != 1 {
		t.Errorf("racing ReplaceSealed: %d replaced, want exactly 1", winners)
	}
	_, sec := hostNow(t, s, id)
	if !bytes.HasPrefix(sec.SecretSealed, []byte("racer ")) {
		t.Errorf("after the race: got %q, want a racer's value", sec.SecretSealed)
	}
}

func testSealedUnknownKind(t *testing.T, s store.Store) {
	if _, err := s.Reseal.SealedValues(t.Context(), "users; DROP TABLE users", "", 1); err == nil {
		t.Errorf("SealedValues of an unknown kind: got nil error, want one")
	}
	if _, err := s.Reseal.ReplaceSealed(t.Context(), "nope", nil); err == nil {
		t.Errorf("ReplaceSealed of an unknown kind: got nil error, want one")
	}
}
