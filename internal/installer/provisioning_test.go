package installer

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"strings"
	"testing"

	"hostgate/internal/agentproto"
	"hostgate/internal/apperr"
	"hostgate/internal/hosts"
)

// fakeIssuer issues credentials shaped as the hosts service's are.
type fakeIssuer struct {
	ws, api string
	issued  int
}

func (f *fakeIssuer) WSURL() string       { return f.ws }
func (f *fakeIssuer) APIEndpoint() string { return f.api }

func (f *fakeIssuer) IssueInstallToken(_ context.Context, owner, id string) (hosts.Credentials, error) {
	if owner != "owner" {
		return hosts.Credentials{}, apperr.NotFound("host")
	}
	f.issued++
	seed := make([]byte, 32)
	rand.Read(seed)
	tok := make([]byte, 32)
	rand.Read(tok)
	sec := make([]byte, 16)
	rand.Read(sec)
	return hosts.Credentials{
		Issued: agentproto.Issued{
			HostID: id, BID: 1<<53 - 1, SecretKey: hex.EncodeToString(sec),
			InstallToken: base64.RawURLEncoding.EncodeToString(tok), AgentPrivkeySeed: base64.StdEncoding.EncodeToString(seed),
			AgentPubkey: hosts.FormatPubKey(ed25519.NewKeyFromSeed(seed).Public().(ed25519.PublicKey)),
			WSURL:       f.ws, APIEndpoint: f.api, ListenPort: 65535,
		},
		URL: "https://not.in.the.payload/" + strings.Repeat("u", 500),
	}, nil
}

const hostID = "0b8f6a52-2d0e-4d3e-9a57-1f8c2d9e7b11"

func str(s string) *string { return &s }

func TestProvisionShapeAndAutologon(t *testing.T) {
	is := &fakeIssuer{ws: "wss://hub.example.com/v1/internal/agent/ws", api: "https://hub.example.com"}
	p, err := Provision(t.Context(), is, "owner", hostID, nil)
	if err != nil {
		t.Fatal(err)
	}
	if p.SchemaVersion != 1 || p.Autologon != nil || p.Hub.HostID != hostID || strings.HasPrefix(p.Hub.AgentPubkey, "ed25519:") ||
		p.Hub.WSURL != is.ws || p.Hub.APIEndpoint != is.api || p.Hub.ListenPort != 65535 {
		t.Errorf("payload %+v", p)
	}
	if _, err := agentproto.ParsePayload(Encode(p)); err != nil {
		t.Errorf("ParsePayload: %v", err)
	}
	b, _ := json.Marshal(p)
	if strings.Contains(string(b), "autologon") || strings.Contains(string(b), "not.in.the.payload") {
		t.Errorf("payload %s", b)
	}

	p, err = Provision(t.Context(), is, "owner", hostID, &AutologonRequest{})
	if err != nil || p.Autologon == nil || p.Autologon.Username != "Administrator" || len(p.Autologon.Password) != GeneratedPasswordLen {
		t.Fatalf("generated autologon %+v, %v", p.Autologon, err)
	}
	p, err = Provision(t.Context(), is, "owner", hostID, &AutologonRequest{Username: "  ops ", Password: str("ünïcödé-pässwörd")})
	if err != nil || p.Autologon == nil || p.Autologon.Username != "ops" || p.Autologon.Password != "ünïcödé-pässwörd" {
		t.Fatalf("given autologon %+v, %v (16 characters, more bytes)", p.Autologon, err)
	}
	if ap, err := agentproto.ParsePayload(Encode(p)); err != nil || ap.Autologon == nil || ap.Autologon.Password != "ünïcödé-pässwörd" {
		t.Errorf("ParsePayload: %+v, %v", ap.Autologon, err)
	}
	if is.issued != 3 {
		t.Errorf("issued %d times, want 3", is.issued)
	}
}

// TestProvisionRefusesBeforeIssuing: a bad autologon, or one that would
// make the payload 1 KB or more, is invalid_body and issues nothing; the
// size is that of the answer the hub writes.
func TestProvisionRefusesBeforeIssuing(t *testing.T) {
	long := "https://hub.example.com/" + strings.Repeat("p", 150)
	is := &fakeIssuer{ws: strings.Replace(long, "https", "wss", 1) + "/v1/internal/agent/ws", api: long}
	for _, al := range []*AutologonRequest{
		{Password: str(strings.Repeat("x", 15))},
		{Password: str(strings.Repeat("x", 129))},
		{Password: str("")},
		{Username: strings.Repeat("u", 65)},
		{Username: "a\x00b"},
		{Password: str(strings.Repeat("x", 16) + "\r")},
		{Username: strings.Repeat(`"`, 64), Password: str(strings.Repeat(`\`, 128))},
	} {
		if _, err := Provision(t.Context(), is, "owner", hostID, al); !apperr.Is(err, apperr.CodeInvalidBody) {
			t.Errorf("%+v: err %v, want invalid_body", al, err)
		}
	}
	if is.issued != 0 {
		t.Errorf("issued %d times for refused requests", is.issued)
	}
	if _, err := Provision(t.Context(), is, "stranger", hostID, nil); !apperr.Is(err, apperr.CodeNotFound) {
		t.Errorf("another owner: %v, want not_found", err)
	}
	// Without autologon the same hub fits, and the size is measured as sent.
	p, err := Provision(t.Context(), is, "owner", hostID, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(p)
	if n := EncodedSize(p); n != len(b)+1 || n >= MaxPayloadBytes {
		t.Errorf("EncodedSize %d, json %d bytes", n, len(b))
	}
}

func TestGeneratePassword(t *testing.T) {
	seen := map[string]bool{}
	for range 200 {
		pw := GeneratePassword()
		if len(pw) != GeneratedPasswordLen || strings.Trim(pw, pwUpper+pwLower+pwDigit+pwSymbol) != "" ||
			!strings.ContainsAny(pw, pwUpper) || !strings.ContainsAny(pw, pwLower) || !strings.ContainsAny(pw, pwDigit) || !strings.ContainsAny(pw, pwSymbol) {
			t.Fatalf("password %q", pw)
		}
		if seen[pw] {
			t.Fatalf("password %q twice", pw)
		}
		seen[pw] = true
	}
}
