package passwords

import (
	"testing"
)

// fuzzPassword is the password every FuzzVerify input is checked against. No
// seed is a hash of it, so a random string that verifies would be a forgery.
const fuzzPassword = "fuzz-password-never-hashed"

// maxFuzzCost bounds memory×time (KiB×passes) of the inputs FuzzVerify
// actually derives, so the fuzzer does not spend its time on hashes that
// decode accepts but that take seconds (m up to 1 GiB, t unbounded).
const maxFuzzCost = 64 * 1024

func FuzzVerify(f *testing.F) {
	weak := NewHasher(Params{Memory: 64, Time: 1, Threads: 1})
	// Seeds live in testdata/fuzz/FuzzVerify.
	f.Fuzz(func(t *testing.T, encoded string) {
		if p, _, _, err := decode(encoded); err == nil && uint64(p.Memory)*uint64(p.Time) > maxFuzzCost {
			t.Skip("decodes, but too costly to derive while fuzzing")
		}
		ok, rehash, err := weak.Verify(t.Context(), fuzzPassword, encoded)
		if ok {
			t.Fatalf("Verify(%q): got ok=true for a string that is no hash of the password, want false", encoded)
		}
		if rehash {
			t.Fatalf("Verify(%q): got rehash=true with ok=false, want false", encoded)
		}
		if err != nil {
			return
		}
		// Whatever Verify accepted as a hash must also decode on its own.
		if _, _, _, err := decode(encoded); err != nil {
			t.Fatalf("decode(%q): got %v after Verify accepted it, want nil", encoded, err)
		}
	})
}
