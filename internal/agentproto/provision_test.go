package agentproto

import (
	"bytes"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// testSeed is a fixed ed25519 seed; testPub its public key, both base64.
var (
	testSeedBytes = bytes.Repeat([]byte{7}, 32)
	testSeed      = base64.StdEncoding.EncodeToString(testSeedBytes)
	testPub       = base64.StdEncoding.EncodeToString(ed25519.NewKeyFromSeed(testSeedBytes).Public().(ed25519.PublicKey))
)

// validDoc is a payload as the hub makes it, with its members in order.
func validDoc() map[string]any {
	return map[string]any{
		"schema_version": 1,
		"hub": map[string]any{
			"host_id":            "0b8f6a52-2d0e-4d3e-9a57-1f8c2d9e7b11",
			"bid":                42,
			"secret_key":         "00112233445566778899aabbccddeeff",
			"install_token":      "Yt3ZDoZ1m0w8kq1Y2gQv0r2Xw5wV9b5gq8jv2kH4f1A",
			"agent_privkey_seed": testSeed,
			"agent_pubkey":       testPub,
			"ws_url":             "wss://hub.example.com/v1/internal/agent/ws",
			"api_endpoint":       "https://hub.example.com",
		},
	}
}

func enc(t testing.TB, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func hubOf(d map[string]any) map[string]any { return d["hub"].(map[string]any) }

func TestParsePayloadAccepts(t *testing.T) {
	for _, tc := range []struct {
		name  string
		edit  func(d map[string]any)
		check func(t *testing.T, p Payload)
	}{
		{name: "as the hub makes it", check: func(t *testing.T, p Payload) {
			want := PayloadHub{Issued: Issued{HostID: "0b8f6a52-2d0e-4d3e-9a57-1f8c2d9e7b11", BID: 42, SecretKey: "00112233445566778899aabbccddeeff",
				InstallToken: "Yt3ZDoZ1m0w8kq1Y2gQv0r2Xw5wV9b5gq8jv2kH4f1A", AgentPrivkeySeed: testSeed, AgentPubkey: testPub,
				WSURL: "wss://hub.example.com/v1/internal/agent/ws", APIEndpoint: "https://hub.example.com"}}
			if p.SchemaVersion != 1 || p.Hub != want || p.Autologon != nil || p.Extra != "" {
				t.Errorf("got %+v", p)
			}
		}},
		{name: "ed25519: prefixed public key", edit: func(d map[string]any) { hubOf(d)["agent_pubkey"] = "ed25519:" + testPub }},
		{name: "unpadded url-safe seed", edit: func(d map[string]any) {
			hubOf(d)["agent_privkey_seed"] = base64.RawURLEncoding.EncodeToString(testSeedBytes)
		}},
		{name: "no addresses", edit: func(d map[string]any) {
			delete(hubOf(d), "ws_url")
			hubOf(d)["api_endpoint"] = ""
		}, check: func(t *testing.T, p Payload) {
			if p.Hub.WSURL != "" || p.Hub.APIEndpoint != "" {
				t.Errorf("addresses %q %q, want empty (the caller's defaults)", p.Hub.WSURL, p.Hub.APIEndpoint)
			}
		}},
		{name: "autologon with default user", edit: func(d map[string]any) {
			d["autologon"] = map[string]any{"password": "correct horse battery"}
		}, check: func(t *testing.T, p Payload) {
			if p.Autologon == nil || p.Autologon.User() != "Administrator" || p.Autologon.Password != "correct horse battery" {
				t.Errorf("autologon %+v", p.Autologon)
			}
		}},
		{name: "autologon with user", edit: func(d map[string]any) {
			d["autologon"] = map[string]any{"username": "ops", "password": "0123456789abcdef"}
		}, check: func(t *testing.T, p Payload) {
			if p.Autologon.User() != "ops" {
				t.Errorf("user %q", p.Autologon.User())
			}
		}},
		{name: "null autologon is absent", edit: func(d map[string]any) { d["autologon"] = nil }, check: func(t *testing.T, p Payload) {
			if p.Autologon != nil {
				t.Errorf("autologon %+v", p.Autologon)
			}
		}},
		{name: "unknown sections and fields pass through", edit: func(d map[string]any) {
			d["cloud"] = map[string]any{"region": "eu-1"}
			d["note"] = "x"
			hubOf(d)["future"] = []int{1, 2}
		}, check: func(t *testing.T, p Payload) {
			if p.Extra != `{"cloud":{"region":"eu-1"},"note":"x"}` || p.Hub.Extra != `{"future":[1,2]}` {
				t.Errorf("extra %q, hub extra %q", p.Extra, p.Hub.Extra)
			}
			out, err := json.Marshal(p)
			if err != nil {
				t.Fatal(err)
			}
			again, err := ParsePayload(out)
			if err != nil || again.Extra != p.Extra || again.Hub != p.Hub {
				t.Errorf("round trip %s: %+v, %v", out, again, err)
			}
		}},
		{name: "listen_port", edit: func(d map[string]any) { hubOf(d)["listen_port"] = 24000 }, check: func(t *testing.T, p Payload) {
			if p.Hub.ListenPort != 24000 {
				t.Errorf("listen_port %d", p.Hub.ListenPort)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := validDoc()
			if tc.edit != nil {
				tc.edit(d)
			}
			p, err := ParsePayload(enc(t, d))
			if err != nil {
				t.Fatalf("refused: %v", err)
			}
			if tc.check != nil {
				tc.check(t, p)
			}
		})
	}
}

func TestParsePayloadAcceptsBOMAndWhitespace(t *testing.T) {
	doc := append([]byte("\xef\xbb\xbf \r\n"), enc(t, validDoc())...)
	doc = append(doc, "\r\n"...)
	if _, err := ParsePayload(doc); err != nil {
		t.Fatal(err)
	}
}

func TestParsePayloadRefuses(t *testing.T) {
	good := enc(t, validDoc())
	big := validDoc()
	big["padding"] = strings.Repeat("x", MaxPayloadSize)
	edit := func(f func(d map[string]any)) []byte {
		d := validDoc()
		f(d)
		return enc(t, d)
	}
	for _, tc := range []struct {
		name   string
		doc    []byte
		kind   error
		field  string
		reason string // part of the message
	}{
		{"empty", nil, ErrPayloadNotJSON, "", "is empty"},
		{"whitespace", []byte(" \n"), ErrPayloadNotJSON, "", "is empty"},
		{"cloud-config", append([]byte("#cloud-config\n"), good...), ErrPayloadNotJSON, "", "begins with '#'"},
		{"script", []byte("#!/bin/sh\necho hi\n"), ErrPayloadNotJSON, "", "begins with '#'"},
		{"# after BOM", []byte("\xef\xbb\xbf#cloud-config"), ErrPayloadNotJSON, "", "begins with '#'"},
		{"array", []byte("[1]"), ErrPayloadNotJSON, "", "must begin with '{'"},
		{"trailing data", append(append([]byte{}, good...), `{}`...), ErrPayloadNotJSON, "", "not valid JSON"},
		{"truncated", good[:len(good)-1], ErrPayloadNotJSON, "", "not valid JSON"},
		{"invalid utf-8", []byte("{\"a\":\"\xff\"}"), ErrPayloadNotJSON, "", "UTF-8"},
		{"1024 bytes", append(good, bytes.Repeat([]byte(" "), MaxPayloadSize-len(good))...), ErrPayloadTooLarge, "", "1024 bytes"},
		{"over 1 KB", enc(t, big), ErrPayloadTooLarge, "", "must be under 1024 bytes"},
		{"no schema_version", edit(func(d map[string]any) { delete(d, "schema_version") }), ErrPayloadMissingField, "schema_version", "is missing"},
		{"schema_version 2", edit(func(d map[string]any) { d["schema_version"] = 2 }), ErrPayloadInvalidField, "schema_version", "must be 1"},
		{"schema_version string", edit(func(d map[string]any) { d["schema_version"] = "1" }), ErrPayloadInvalidField, "schema_version", "must be 1"},
		{"no hub", edit(func(d map[string]any) { delete(d, "hub") }), ErrPayloadMissingField, "hub", "is missing"},
		{"hub null", edit(func(d map[string]any) { d["hub"] = nil }), ErrPayloadMissingField, "hub", "is missing"},
		{"hub string", edit(func(d map[string]any) { d["hub"] = "x" }), ErrPayloadInvalidField, "hub", "must be a JSON object"},
		{"no host_id", edit(func(d map[string]any) { delete(hubOf(d), "host_id") }), ErrPayloadMissingField, "hub.host_id", "is missing"},
		{"bad host_id", edit(func(d map[string]any) { hubOf(d)["host_id"] = "host-1" }), ErrPayloadInvalidField, "hub.host_id", "not a UUID"},
		{"no bid", edit(func(d map[string]any) { delete(hubOf(d), "bid") }), ErrPayloadMissingField, "hub.bid", "is missing"},
		{"bid zero", edit(func(d map[string]any) { hubOf(d)["bid"] = 0 }), ErrPayloadInvalidField, "hub.bid", "positive"},
		{"bid string", edit(func(d map[string]any) { hubOf(d)["bid"] = "42" }), ErrPayloadInvalidField, "hub.bid", "positive"},
		{"bid fraction", edit(func(d map[string]any) { hubOf(d)["bid"] = 4.5 }), ErrPayloadInvalidField, "hub.bid", "positive"},
		{"no secret_key", edit(func(d map[string]any) { delete(hubOf(d), "secret_key") }), ErrPayloadMissingField, "hub.secret_key", "is missing"},
		{"empty secret_key", edit(func(d map[string]any) { hubOf(d)["secret_key"] = "" }), ErrPayloadMissingField, "hub.secret_key", "is missing"},
		{"short secret_key", edit(func(d map[string]any) { hubOf(d)["secret_key"] = "0011" }), ErrPayloadInvalidField, "hub.secret_key", "has 4 characters"},
		{"secret_key number", edit(func(d map[string]any) { hubOf(d)["secret_key"] = 5 }), ErrPayloadInvalidField, "hub.secret_key", "must be a string"},
		{"no install_token", edit(func(d map[string]any) { delete(hubOf(d), "install_token") }), ErrPayloadMissingField, "hub.install_token", "is missing"},
		{"control character", edit(func(d map[string]any) { hubOf(d)["install_token"] = "a\nb" }), ErrPayloadInvalidField, "hub.install_token", "control characters"},
		{"no seed", edit(func(d map[string]any) { delete(hubOf(d), "agent_privkey_seed") }), ErrPayloadMissingField, "hub.agent_privkey_seed", "is missing"},
		{"short seed", edit(func(d map[string]any) { hubOf(d)["agent_privkey_seed"] = "c2VlZA==" }), ErrPayloadInvalidField, "hub.agent_privkey_seed", "32-byte"},
		{"seed not base64", edit(func(d map[string]any) { hubOf(d)["agent_privkey_seed"] = "!!" }), ErrPayloadInvalidField, "hub.agent_privkey_seed", "base64"},
		{"no pubkey", edit(func(d map[string]any) { delete(hubOf(d), "agent_pubkey") }), ErrPayloadMissingField, "hub.agent_pubkey", "is missing"},
		{"short pubkey", edit(func(d map[string]any) { hubOf(d)["agent_pubkey"] = "ed25519:cHVi" }), ErrPayloadInvalidField, "hub.agent_pubkey", "32-byte"},
		{"other pubkey", edit(func(d map[string]any) {
			other := ed25519.NewKeyFromSeed(make([]byte, 32)).Public().(ed25519.PublicKey)
			hubOf(d)["agent_pubkey"] = base64.StdEncoding.EncodeToString(other)
		}), ErrPayloadInvalidField, "hub.agent_pubkey", "does not match"},
		{"ws_url http", edit(func(d map[string]any) { hubOf(d)["ws_url"] = "https://hub.example.com" }), ErrPayloadInvalidField, "hub.ws_url", "ws://"},
		{"api_endpoint relative", edit(func(d map[string]any) { hubOf(d)["api_endpoint"] = "/v1" }), ErrPayloadInvalidField, "hub.api_endpoint", "http://"},
		{"listen_port", edit(func(d map[string]any) { hubOf(d)["listen_port"] = 70000 }), ErrPayloadInvalidField, "hub.listen_port", "TCP port"},
		{"autologon string", edit(func(d map[string]any) { d["autologon"] = "pw" }), ErrPayloadInvalidField, "autologon", "JSON object"},
		{"autologon without password", edit(func(d map[string]any) { d["autologon"] = map[string]any{"username": "ops"} }), ErrPayloadMissingField, "autologon.password", "is missing"},
		{"autologon short password", edit(func(d map[string]any) { d["autologon"] = map[string]any{"password": "fifteen-chars.."} }), ErrPayloadInvalidField, "autologon.password", "has 15 characters; it must have 16 or more"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParsePayload(tc.doc)
			pe, ok := errors.AsType[*PayloadError](err)
			if !ok {
				t.Fatalf("error %v (%T), want a *PayloadError", err, err)
			}
			if !errors.Is(err, tc.kind) || pe.Field != tc.field || !strings.Contains(err.Error(), tc.reason) {
				t.Errorf("error %q (field %q), want kind %q, field %q, reason containing %q", err, pe.Field, tc.kind, tc.field, tc.reason)
			}
			for _, secret := range []string{"00112233445566778899aabbccddeeff", testSeed, "Yt3ZDoZ1m0w8"} {
				if strings.Contains(err.Error(), secret) {
					t.Errorf("error %q shows a secret", err)
				}
			}
		})
	}
}

// The hub's own payload with the largest field values it makes stays
// well under the bound, with autologon.
func TestParsePayloadHubSizedPayloadFits(t *testing.T) {
	d := validDoc()
	hubOf(d)["bid"] = int64(1) << 62
	hubOf(d)["listen_port"] = 65535
	hubOf(d)["ws_url"] = "wss://" + strings.Repeat("h", 60) + ".example.com/v1/internal/agent/ws"
	hubOf(d)["api_endpoint"] = "https://" + strings.Repeat("h", 60) + ".example.com"
	d["autologon"] = map[string]any{"username": strings.Repeat("u", 20), "password": strings.Repeat("p", 64)}
	b := enc(t, d)
	if len(b) >= MaxPayloadSize {
		t.Fatalf("%d bytes", len(b))
	}
	if _, err := ParsePayload(b); err != nil {
		t.Fatal(err)
	}
}

func TestPayloadStringsHideSecrets(t *testing.T) {
	p, err := ParsePayload(enc(t, validDoc()))
	if err != nil {
		t.Fatal(err)
	}
	p.Autologon = &PayloadAutologon{Password: "correct horse battery"}
	for _, s := range []string{
		fmtAll(p.Hub), fmtAll(p), fmtAll(*p.Autologon),
	} {
		for _, secret := range []string{p.Hub.SecretKey, p.Hub.InstallToken, p.Hub.AgentPrivkeySeed, "correct horse battery"} {
			if strings.Contains(s, secret) {
				t.Errorf("%q shows a secret", s)
			}
		}
	}
}

func TestReadPayloadValidates(t *testing.T) {
	d := validDoc()
	p, err := ParsePayload(enc(t, d))
	if err != nil {
		t.Fatal(err)
	}
	b, err := Bundle([]byte("MZ exe"), p)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := ReadPayload(b); err != nil || got != p {
		t.Fatalf("ReadPayload = %+v, %v", got, err)
	}
	delete(hubOf(d), "secret_key")
	js := enc(t, d)
	bad := binary.LittleEndian.AppendUint32(append([]byte("MZ exe"), js...), uint32(len(js)))
	bad = append(bad, Magic...)
	if _, err := ReadPayload(bad); !errors.Is(err, ErrPayloadMissingField) {
		t.Errorf("missing secret_key in a trailer: %v", err)
	}
	if _, err := ReadPayload([]byte("MZ exe")); !errors.Is(err, ErrNoPayload) {
		t.Errorf("plain exe: %v", err)
	}
}

func FuzzParsePayload(f *testing.F) {
	good := enc(f, validDoc())
	f.Add(good)
	d := validDoc()
	d["autologon"] = map[string]any{"username": "ops", "password": "0123456789abcdef"}
	d["extra"] = map[string]any{"a": []any{1, "x", nil}}
	hubOf(d)["agent_pubkey"] = "ed25519:" + testPub
	f.Add(enc(f, d))
	f.Add([]byte("#cloud-config\n"))
	f.Add([]byte("\xef\xbb\xbf{}"))
	f.Add([]byte(`{"schema_version":1,"hub":{"host_id":null}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := ParsePayload(b)
		if err != nil {
			pe, ok := errors.AsType[*PayloadError](err)
			if !ok || pe.Kind == nil || pe.Reason == "" {
				t.Fatalf("error %v (%T) is not a complete *PayloadError", err, err)
			}
			return
		}
		if len(b) >= MaxPayloadSize || p.SchemaVersion != 1 || p.Hub.HostID == "" || p.Hub.BID <= 0 ||
			p.Hub.InstallToken == "" || len([]rune(p.Hub.SecretKey)) != 32 {
			t.Fatalf("accepted an invalid payload %+v", p)
		}
		if p.Autologon != nil && len([]rune(p.Autologon.Password)) < MinAutologonPassword {
			t.Fatalf("accepted a short autologon password")
		}
		// What was accepted marshals to a payload that is accepted again
		// with the same values (growth past 1 KB aside).
		out, err := json.Marshal(p)
		if err != nil {
			t.Fatalf("marshal: %v", err)
		}
		if len(out) >= MaxPayloadSize {
			return
		}
		again, err := ParsePayload(out)
		if err != nil {
			t.Fatalf("re-parse of %s: %v", out, err)
		}
		if again.Hub != p.Hub || again.Extra != p.Extra || (again.Autologon == nil) != (p.Autologon == nil) ||
			(p.Autologon != nil && *again.Autologon != *p.Autologon) {
			t.Fatalf("round trip changed %+v into %+v", p, again)
		}
	})
}

func fmtAll(v any) string { return fmt.Sprintf("%v %+v %#v %s", v, v, v, v) }
