package installer

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"hostgate/internal/agentproto"
	"net/http"
	"net/http/httptest"
	"testing"

	"hostgate/internal/apperr"
	"hostgate/internal/hosts"
)

func TestBundleRoundTripAndSize(t *testing.T) {
	exe := []byte("MZ\x90\x00 fake pe image")
	p := PayloadFor(keyedCreds())
	if n := encodedSize(p); n >= 1024 {
		t.Errorf("payload is %d bytes; the spec requires under 1 KB", n)
	}
	b, err := agentproto.Bundle(exe, p)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(b, exe) {
		t.Fatal("bundle does not start with the executable")
	}
	got, err := agentproto.ReadPayload(b)
	if err != nil || got != p {
		t.Fatalf("ReadPayload = %+v, %v; want %+v", got, err, p)
	}
	if got.Hub.AgentPubkey == "" || got.Hub.AgentPubkey[0] == 'e' {
		t.Errorf("agent_pubkey %q should be bare base64 in the payload", got.Hub.AgentPubkey)
	}
	for _, bad := range [][]byte{exe, b[:len(b)-1], append(append([]byte{}, exe...), "\xff\xff\xff\x7fHGPROV01"...)} {
		if _, err := agentproto.ReadPayload(bad); err == nil {
			t.Errorf("ReadPayload accepted %q", bad)
		}
	}
}

func TestExeSourceVerifiesAndCaches(t *testing.T) {
	exe := []byte("MZ agent")
	hits := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits++; w.Write(exe) }))
	defer srv.Close()
	sum := sha256.Sum256(exe)
	src := &ExeSource{URL: srv.URL, SHA256: hex.EncodeToString(sum[:])}
	for range 3 {
		got, err := src.Get(context.Background())
		if err != nil || !bytes.Equal(got, exe) {
			t.Fatalf("Get = %q, %v", got, err)
		}
	}
	if hits != 1 {
		t.Errorf("fetched %d times, want once", hits)
	}
	bad := &ExeSource{URL: srv.URL, SHA256: hex.EncodeToString(make([]byte, 32))}
	if _, err := bad.Get(context.Background()); apperr.Code(err) != CodeExeUnavailable {
		t.Errorf("checksum mismatch: %v, want exe_unavailable", err)
	}
}

func FuzzReadPayload(f *testing.F) {
	good, _ := agentproto.Bundle([]byte("MZ"), PayloadFor(keyedCreds()))
	f.Add(good)
	f.Add([]byte("HGPROV01"))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := agentproto.ReadPayload(b)
		if err == nil && (p.SchemaVersion != 1 || p.Hub.HostID == "") {
			t.Fatalf("accepted an invalid payload %+v", p)
		}
	})
}

// keyedCreds is creds with a real key pair, as the payload's validator
// (agentproto.ParsePayload, which ReadPayload applies) requires.
func keyedCreds() hosts.Credentials {
	c := creds()
	seed := bytes.Repeat([]byte{7}, ed25519.SeedSize)
	c.AgentPrivkeySeed = base64.StdEncoding.EncodeToString(seed)
	c.AgentPubkey = hosts.FormatPubKey(ed25519.NewKeyFromSeed(seed).Public().(ed25519.PublicKey))
	return c
}
