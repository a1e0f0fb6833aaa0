package l1

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"hostgate/internal/battery"
)

// opensslVector is one line of testdata/openssl-vectors.tsv: a plaintext
// and the ciphertext OpenSSL made of it under key (AES-256-CBC, PKCS7, the
// key's 32 characters as the key and its first 16 as the IV).
type opensslVector struct {
	key   string
	plain []byte
	ct    string
}

func readOpenSSLVectors(t *testing.T) []opensslVector {
	t.Helper()
	f, err := os.Open("testdata/openssl-vectors.tsv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var vs []opensslVector
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fields := strings.Split(line, "\t")
		if len(fields) != 3 {
			t.Fatalf("vector line %q: want 3 tab-separated fields", line)
		}
		plain, err := hex.DecodeString(fields[1])
		if err != nil {
			t.Fatalf("vector line %q: %v", line, err)
		}
		vs = append(vs, opensslVector{key: fields[0], plain: plain, ct: fields[2]})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return vs
}

// TestOpenSSLVectors (battery T53): the codec's cipher is OpenSSL's
// `enc -aes-256-cbc` with the key's characters as the key and their first
// 16 as the IV, byte for byte in both directions: on the committed vectors
// OpenSSL made, and, where openssl is installed, on fresh random
// plaintexts run through the tool now.
func TestOpenSSLVectors(t *testing.T) {
	vs := readOpenSSLVectors(t)
	if len(vs) < 10 {
		t.Fatalf("%d vectors in testdata/openssl-vectors.tsv, want at least 10", len(vs))
	}
	decodedFrame := 0
	for i, v := range vs {
		c := mustCodec(t, vectorBID, v.key)
		if got := c.seal(v.plain); got != v.ct {
			t.Errorf("vector %d: seal = %s, OpenSSL made %s", i, got, v.ct)
		}
		ct, err := base64.StdEncoding.DecodeString(v.ct)
		if err != nil {
			t.Fatalf("vector %d: %v", i, err)
		}
		plain, ok := c.open(ct)
		if ok != 1 || !bytes.Equal(plain, v.plain) {
			t.Errorf("vector %d: open(OpenSSL's ciphertext) = %q, padding ok %d; want %q", i, plain, ok, v.plain)
		}
		if bytes.HasPrefix(v.plain, []byte(`{"bid":`)) {
			if _, err := c.Decode([]byte(v.ct), time.Unix(1767268800, 0)); err != nil {
				t.Errorf("vector %d: Decode(OpenSSL's frame) = %v", i, err)
			}
			decodedFrame++
		}
	}
	if decodedFrame == 0 {
		t.Error("no vector holds a frame: Decode was not checked against OpenSSL")
	}
	live := 0
	if _, err := exec.LookPath("openssl"); err == nil {
		for _, key := range []string{testKey, "Zq8#mW2!xR5@tY7$uI9%oP1^aS3&dF4*"} {
			c := mustCodec(t, testBID, key)
			for _, n := range []int{0, 1, 15, 16, 17, 31, 32, 100, 1000} {
				plain := make([]byte, n)
				_, _ = rand.Read(plain)
				ours := c.seal(plain)
				if got := openssl(t, key, ours, "-d"); !bytes.Equal(got, plain) {
					t.Errorf("openssl -d of our %d-byte ciphertext = %x, want %x", n, got, plain)
				}
				theirs := strings.TrimSpace(string(openssl(t, key, string(plain), "-e")))
				if theirs != ours {
					t.Errorf("%d bytes: openssl made %s, we made %s", n, theirs, ours)
				}
				live++
			}
		}
	} else {
		t.Log("openssl is not installed: only the committed vectors were checked")
	}
	battery.Report(t, "T53", "%d committed OpenSSL vectors (%d with a frame Decode accepts) and %d live openssl round trips: ciphertext and plaintext identical byte for byte, both directions",
		len(vs), decodedFrame, live)
}

// openssl runs `openssl enc -aes-256-cbc` in mode (-e or -d, base64) with
// key as the key and its first 16 characters as the IV, on in.
func openssl(t *testing.T, key, in, mode string) []byte {
	t.Helper()
	args := []string{"enc", "-aes-256-cbc", mode, "-K", hex.EncodeToString([]byte(key)),
		"-iv", hex.EncodeToString([]byte(key[:16])), "-nosalt", "-base64", "-A"}
	cmd := exec.Command("openssl", args...)
	cmd.Stdin = strings.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("openssl %s: %v %s", mode, err, stderr.String())
	}
	return out
}
