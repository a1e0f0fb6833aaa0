package apikeys

import (
	"context"
	"encoding/base64"
	"slices"
	"strings"
	"testing"
	"time"

	"hostgate/internal/battery"
)

// mapStore keeps keys in memory; the embedded nil Store panics on
// anything a test does not expect.
type mapStore struct {
	Store
	owner map[string]string
	hash  map[string][]byte
}

func (m *mapStore) CreateKey(_ context.Context, k Key, h []byte) error {
	m.owner[k.ID], m.hash[k.ID] = k.UserID, h
	return nil
}

func (m *mapStore) KeyForAuth(_ context.Context, id string) (string, []byte, error) {
	h, ok := m.hash[id]
	if !ok {
		return "", nil, ErrNotFound
	}
	return m.owner[id], h, nil
}

// TestKeyRefusalsLookAlike (T37): the secret is 256 random bits; malformed
// keys, a right id with a wrong secret and an unknown id give the same
// error; the two well-formed failures take the same time (medians of
// interleaved batches within 10 %; 20 % under the race detector, whose
// instrumentation of the cache's lock and maps weighs on one path).
func TestKeyRefusalsLookAlike(t *testing.T) {
	s := NewService(&mapStore{owner: map[string]string{}, hash: map[string][]byte{}}, nil)
	ctx := t.Context()
	k, err := s.Create(ctx, "u1", "ci")
	if err != nil {
		t.Fatal(err)
	}
	id, secret, ok := Parse(k.Secret)
	raw, derr := base64.RawURLEncoding.DecodeString(secret)
	if !ok || derr != nil || len(raw)*8 < 128 {
		t.Fatalf("secret %q: %d bits", secret, len(raw)*8)
	}
	if p, err := s.Authenticate(ctx, k.Secret); err != nil || p.UserID != "u1" {
		t.Fatalf("good key: %+v %v", p, err)
	}
	wrongSecret := "ak_" + id + "." + strings.Repeat("A", 43)
	unknownID := "ak_0123456789abcdef." + secret
	var msgs []string
	for _, bad := range []string{"xx_" + id + "." + secret, "ak_" + id + secret, "ak_" + id + ".", strings.Repeat("k", 10_000), wrongSecret, unknownID} {
		_, err := s.Authenticate(ctx, bad)
		if err == nil {
			t.Fatalf("%.30q accepted", bad)
		}
		msgs = append(msgs, err.Error())
	}
	for _, m := range msgs[1:] {
		if m != msgs[0] {
			t.Fatalf("refusals differ: %q vs %q", m, msgs[0])
		}
	}

	const samples, batch = 301, 200
	timeOf := func(key string) time.Duration {
		start := time.Now()
		for range batch {
			_, _ = s.Authenticate(ctx, key)
		}
		return time.Since(start)
	}
	var wrong, unknown []time.Duration
	for i := range samples {
		if i%2 == 0 {
			wrong, unknown = append(wrong, timeOf(wrongSecret)), append(unknown, timeOf(unknownID))
		} else {
			unknown, wrong = append(unknown, timeOf(unknownID)), append(wrong, timeOf(wrongSecret))
		}
	}
	slices.Sort(wrong)
	slices.Sort(unknown)
	mw, mu := wrong[samples/2], unknown[samples/2]
	delta := float64(mu-mw) / float64(min(mw, mu))
	if delta < 0 {
		delta = -delta
	}
	bound := 0.10 // RELIABILITY.md T37
	if raceOn {
		bound = 0.20
	}
	if delta >= bound {
		t.Fatalf("median per %d checks: wrong secret %v, unknown id %v (Δ %.1f %%), want < %.0f %%", batch, mw, mu, delta*100, bound*100)
	}
	battery.Report(t, "T37", "secret %d bits; 6 malformed or wrong keys → one error; wrong secret vs unknown id: medians %.2f µs vs %.2f µs per check (Δ %.1f %%, bound %.0f %%, race detector %v; %d × %d interleaved, in-memory store)",
		len(raw)*8, float64(mw.Nanoseconds())/batch/1000, float64(mu.Nanoseconds())/batch/1000, delta*100, bound*100, raceOn, samples, batch)
}
