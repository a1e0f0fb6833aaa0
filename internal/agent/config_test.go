package agent

import (
	"crypto/ed25519"
	"encoding/base64"
	"errors"
	"strings"
	"testing"
	"time"
)

func validConfig() Config {
	seed := make([]byte, ed25519.SeedSize)
	for i := range seed {
		seed[i] = byte(i)
	}
	pub := ed25519.NewKeyFromSeed(seed).Public().(ed25519.PublicKey)
	return Config{
		HostID:           "0b5e3c1e-8d4f-4f0e-9a51-3f2c8d7e6a10",
		InstallToken:     "install",
		AgentPrivkeySeed: base64.StdEncoding.EncodeToString(seed),
		AgentPubkey:      "ed25519:" + base64.StdEncoding.EncodeToString(pub),
		WSURL:            "wss://hub.example/v1/internal/agent/ws",
		APIEndpoint:      "https://hub.example",
	}
}

func TestConfigValidation(t *testing.T) {
	otherSeed := make([]byte, ed25519.SeedSize)
	otherPub := ed25519.NewKeyFromSeed(otherSeed).Public().(ed25519.PublicKey)
	cases := []struct {
		name   string
		mutate func(*Config)
		want   string // substring of the error; "" means valid
	}{
		{"valid", func(*Config) {}, ""},
		{"bare base64 pubkey", func(c *Config) { c.AgentPubkey = strings.TrimPrefix(c.AgentPubkey, "ed25519:") }, ""},
		{"upper-case host id", func(c *Config) { c.HostID = strings.ToUpper(c.HostID) }, ""},
		{"no install token", func(c *Config) { c.InstallToken = "" }, ""},
		{"plain ws and http", func(c *Config) { c.WSURL, c.APIEndpoint = "ws://127.0.0.1:8080/ws", "http://127.0.0.1:8080/" }, ""},
		{"missing host id", func(c *Config) { c.HostID = "" }, "host_id: required"},
		{"host id not uuid", func(c *Config) { c.HostID = "host-1" }, "host_id: not a UUID"},
		{"seed not base64", func(c *Config) { c.AgentPrivkeySeed = "!!not base64!!" }, "agent_privkey_seed: not base64"},
		{"seed too short", func(c *Config) { c.AgentPrivkeySeed = base64.StdEncoding.EncodeToString(make([]byte, 16)) }, "agent_privkey_seed: decodes to 16 bytes"},
		{"missing seed", func(c *Config) { c.AgentPrivkeySeed = "" }, "agent_privkey_seed: required"},
		{"mismatched pubkey", func(c *Config) { c.AgentPubkey = "ed25519:" + base64.StdEncoding.EncodeToString(otherPub) }, "agent_pubkey: does not match"},
		{"short pubkey", func(c *Config) { c.AgentPubkey = "ed25519:AAAA" }, "agent_pubkey: does not match"},
		{"missing pubkey", func(c *Config) { c.AgentPubkey = "" }, "agent_pubkey: required"},
		{"listen port out of range", func(c *Config) { c.ListenPort = 70000 }, "listen_port: must be a TCP port"},
		{"ws url is https", func(c *Config) { c.WSURL = "https://hub.example/ws" }, `ws_url: scheme "https" is not ws or wss`},
		{"ws url without host", func(c *Config) { c.WSURL = "wss:///ws" }, "ws_url: no host"},
		{"ws url garbage", func(c *Config) { c.WSURL = "://" }, "ws_url: not a URL"},
		{"api endpoint is wss", func(c *Config) { c.APIEndpoint = "wss://hub.example" }, "api_endpoint: scheme"},
		{"api endpoint missing", func(c *Config) { c.APIEndpoint = "" }, "api_endpoint: required"},
		{"api endpoint with query", func(c *Config) { c.APIEndpoint = "https://hub.example/?a=b" }, "api_endpoint: must not have a query"},
		{"api endpoint with user", func(c *Config) { c.APIEndpoint = "https://u:p@hub.example" }, "api_endpoint: must not carry user info"},
		{"negative bid", func(c *Config) { c.BID = -1 }, "bid: must not be negative"},
		{"negative duration", func(c *Config) { c.BackoffBase = -time.Second }, "tuning:"},
		{"cap below base", func(c *Config) { c.BackoffBase, c.BackoffCap = time.Minute, time.Second }, "tuning: backoff cap"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := validConfig()
			tc.mutate(&c)
			err := c.Validate()
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("unexpected error: %v", err)
			case tc.want == "":
			case err == nil:
				t.Fatalf("no error, want %q", tc.want)
			case !errors.Is(err, ErrInvalidConfig) || !strings.Contains(err.Error(), tc.want):
				t.Fatalf("error %q, want %q wrapped in ErrInvalidConfig", err, tc.want)
			}
			if err != nil && strings.Contains(err.Error(), c.AgentPrivkeySeed) && c.AgentPrivkeySeed != "" {
				t.Error("the error quotes the seed")
			}
		})
	}
}

func TestConfigReportsEveryProblem(t *testing.T) {
	err := Config{WSURL: "http://x"}.Validate()
	for _, field := range []string{"host_id", "agent_privkey_seed", "ws_url", "api_endpoint"} {
		if err == nil || !strings.Contains(err.Error(), field) {
			t.Errorf("error %v does not mention %s", err, field)
		}
	}
}

func TestSettingsCanonicalise(t *testing.T) {
	c := validConfig()
	c.HostID = strings.ToUpper(c.HostID)
	c.APIEndpoint = "https://hub.example/prefix/"
	s, err := c.settings()
	if err != nil {
		t.Fatal(err)
	}
	if s.hostID != strings.ToLower(c.HostID) {
		t.Errorf("host id %q not canonical", s.hostID)
	}
	if s.apiBase != "https://hub.example/prefix" {
		t.Errorf("api base %q", s.apiBase)
	}
	if s.StateDir != DefaultStateDir() || s.BackoffCap != DefaultBackoffCap || s.AgentVersion != Version {
		t.Errorf("defaults not filled: %+v", s.Config)
	}
}

func TestConfigStringRedacts(t *testing.T) {
	c := validConfig()
	c.SecretKey = "0123456789abcdef0123456789abcdef"
	c.InstallToken = "qT7-install-token-value"
	for _, s := range []string{c.String(), c.GoString(), c.LogValue().String()} {
		for _, secret := range []string{c.SecretKey, c.InstallToken, c.AgentPrivkeySeed} {
			if strings.Contains(s, secret) {
				t.Errorf("%q shows a secret", s)
			}
		}
	}
}

func TestL1ListenFollowsListenPort(t *testing.T) {
	for _, tt := range []struct {
		port   int
		listen string
		want   string
	}{
		{0, "", "127.0.0.1:23456"},
		{24000, "", "127.0.0.1:24000"},
		{24000, "0.0.0.0:25000", "0.0.0.0:25000"},
		{24000, L1ListenOff, L1ListenOff},
	} {
		c := validConfig()
		c.ListenPort, c.L1Listen = tt.port, tt.listen
		s, err := c.settings()
		if err != nil {
			t.Fatal(err)
		}
		if s.L1Listen != tt.want {
			t.Errorf("listen_port %d, l1_listen %q: listener on %q, want %q", tt.port, tt.listen, s.L1Listen, tt.want)
		}
	}
}
