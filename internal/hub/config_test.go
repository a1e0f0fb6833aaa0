package hub

import (
	"bytes"
	"encoding/base64"
	"errors"
	"os"
	"strings"
	"testing"
	"time"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestParseDefaults(t *testing.T) {
	c, err := Parse(env(nil))
	if err != nil {
		t.Fatal(err)
	}
	if c.Addr != ":8080" || c.DataDir != "./data" || c.PublicURL.String() != "http://localhost:8080" ||
		c.DatabaseURL != "" || c.RedisURL != "" || c.LogFormat != "json" {
		t.Errorf("defaults = %+v", c)
	}
}

// TestParseRateLimits: the abuse limits' production defaults are on, and
// "N/M" sets a limit per address and per account.
func TestParseRateLimits(t *testing.T) {
	c, err := Parse(env(nil))
	if err != nil {
		t.Fatal(err)
	}
	l := c.RateLimits
	if l.Window != time.Minute || l.Login.PerAddress != 30 || l.Login.PerAccount != 10 || l.Register.PerAddress != 5 ||
		l.Register.PerAccount != 3 || l.Refresh.PerAddress != 60 || l.Ticket.PerAccount != 30 || l.Notify.PerAddress != 600 ||
		l.Checkout.PerAddress != 30 || c.HeaderTimeout != 10*time.Second || c.BodyTimeout != 10*time.Second {
		t.Errorf("defaults = %+v, header %v, body %v", l, c.HeaderTimeout, c.BodyTimeout)
	}
	c, err = Parse(env(map[string]string{"HOSTGATE_RATE_LOGIN": "7", "HOSTGATE_RATE_TICKET": "4/2", "HOSTGATE_RATE_WINDOW": "2s"}))
	if err != nil {
		t.Fatal(err)
	}
	if l := c.RateLimits; l.Login.PerAddress != 7 || l.Login.PerAccount != 0 || l.Ticket.PerAddress != 4 || l.Ticket.PerAccount != 2 || l.Window != 2*time.Second {
		t.Errorf("parsed %+v", l)
	}
}

func TestParseRejects(t *testing.T) {
	tests := []struct{ name, key, value string }{
		{"mysql url", "HOSTGATE_DATABASE_URL", "mysql://x"},
		{"memcache url", "HOSTGATE_REDIS_URL", "memcache://x"},
		{"public url without scheme", "HOSTGATE_PUBLIC_URL", "example.com"},
		{"bad proxy", "HOSTGATE_TRUSTED_PROXIES", "10.0.0.0/8,nonsense"},
		{"bad level", "HOSTGATE_LOG_LEVEL", "loud"},
		{"admin without password", "HOSTGATE_ADMIN_USERNAME", "root"},
		{"exe url without checksum", "GATEWAY_EXE_URL", "https://cdn.example.com/agent.exe"},
		{"exe checksum without url", "GATEWAY_EXE_SHA256", strings.Repeat("ab", 32)},
		{"bad billing mode", "HOSTGATE_BILLING_MODE", "sometimes"},
		{"rate limit zero", "HOSTGATE_RATE_LOGIN", "0/5"},
		{"rate limit not a number", "HOSTGATE_RATE_REGISTER", "five"},
		{"per-account limit where no account is known", "HOSTGATE_RATE_NOTIFY", "600/10"},
		{"rate window too short", "HOSTGATE_RATE_WINDOW", "1ms"},
		{"body timeout not a duration", "HOSTGATE_HTTP_BODY_TIMEOUT", "30"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse(env(map[string]string{tt.key: tt.value}))
			if err == nil || !strings.Contains(err.Error(), tt.key) {
				t.Errorf("Parse(%s=%q) = %v, want an error naming the variable", tt.key, tt.value, err)
			}
			if err != nil && tt.value != "root" && strings.Contains(err.Error(), tt.value) && strings.Contains(tt.key, "URL") {
				t.Errorf("error %q echoes the value", err)
			}
		})
	}
}

func TestMaskedHidesSecrets(t *testing.T) {
	kv := Masked(env(map[string]string{"HOSTGATE_DATABASE_URL": "postgres://u:hunter2@db/x", "HOSTGATE_ADMIN_PASSWORD": "hunter2"}))
	for _, v := range kv {
		if strings.Contains(v.(string), "hunter2") {
			t.Errorf("masked settings contain a secret: %v", kv)
		}
	}
}

// TestConfigurationDocCoversEveryOption keeps docs/configuration.md in step
// with the option table.
func TestConfigurationDocCoversEveryOption(t *testing.T) {
	doc, err := os.ReadFile("../../docs/configuration.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range options {
		if !strings.Contains(string(doc), "`"+o.Name+"`") {
			t.Errorf("docs/configuration.md does not describe %s", o.Name)
		}
		if !strings.Contains(Help(), o.Name) {
			t.Errorf("--help does not list %s", o.Name)
		}
	}
}

func TestParseChecksTheBootstrapAdmin(t *testing.T) {
	for pw, want := range map[string]string{
		"short":         "HOSTGATE_ADMIN_PASSWORD: password must be at least 8 bytes; choose one of 8 to 1024 bytes",
		"password1":     "HOSTGATE_ADMIN_PASSWORD: password is too common",
		"Administrator": "HOSTGATE_ADMIN_PASSWORD: password is too common",
	} {
		_, err := Parse(env(map[string]string{"HOSTGATE_ADMIN_USERNAME": "admin", "HOSTGATE_ADMIN_PASSWORD": pw}))
		if err == nil || !strings.HasPrefix(err.Error(), want) || strings.Contains(err.Error(), pw) {
			t.Errorf("password %q: %v, want an error beginning %q that does not echo it", pw, err, want)
		}
	}
	_, err := Parse(env(map[string]string{"HOSTGATE_ADMIN_USERNAME": "a", "HOSTGATE_ADMIN_PASSWORD": "long enough secret"}))
	if err == nil || !strings.HasPrefix(err.Error(), "HOSTGATE_ADMIN_USERNAME: ") {
		t.Errorf("username %q: %v, want an error naming HOSTGATE_ADMIN_USERNAME", "a", err)
	}
	_, err = Parse(env(map[string]string{"HOSTGATE_SIGNING_KEY": "c2hvcnQ="}))
	if err == nil || !strings.HasPrefix(err.Error(), "HOSTGATE_SIGNING_KEY: ") || strings.Contains(err.Error(), "c2hvcnQ=") {
		t.Errorf("short signing key: %v, want an error naming HOSTGATE_SIGNING_KEY", err)
	}
}

func TestParseAcceptedKeys(t *testing.T) {
	good := base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{1}, 32))
	good2 := base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{2}, 32))
	c, err := Parse(env(map[string]string{
		"HOSTGATE_SIGNING_KEYS_ACCEPTED": good + "," + good2,
		"HOSTGATE_SEALING_KEYS_ACCEPTED": good2,
	}))
	if err != nil || len(c.SigningKeysAccepted) != 2 || len(c.SealingKeysAccepted) != 1 {
		t.Fatalf("Parse: got %d, %d keys, %v, want 2, 1, nil", len(c.SigningKeysAccepted), len(c.SealingKeysAccepted), err)
	}
	short := base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{3}, 31))
	for _, name := range []string{"HOSTGATE_SIGNING_KEYS_ACCEPTED", "HOSTGATE_SEALING_KEYS_ACCEPTED"} {
		for _, v := range []string{"s3cr3t-not-base64!", good + "," + short, short + "," + good} {
			e := env(map[string]string{name: v})
			_, err := Parse(e)
			if err == nil || !strings.HasPrefix(err.Error(), name+": ") {
				t.Errorf("%s bad list: %v, want an error naming it", name, err)
				continue
			}
			line := Describe(err, e)
			if strings.Contains(line, "\n") {
				t.Errorf("%s: Describe = %q, want one line", name, line)
			}
			for _, part := range append(strings.Split(v, ","), v) {
				if strings.Contains(err.Error(), part) || strings.Contains(line, part) {
					t.Errorf("%s: error %q echoes the value", name, line)
				}
			}
		}
	}
	masked := Masked(env(map[string]string{"HOSTGATE_SIGNING_KEYS_ACCEPTED": good, "HOSTGATE_SEALING_KEYS_ACCEPTED": good2}))
	for _, kv := range masked {
		if s, _ := kv.(string); strings.Contains(s, good) || strings.Contains(s, good2) {
			t.Errorf("Masked shows an accepted key: %v", masked)
		}
	}
}

func TestDescribeHidesSecrets(t *testing.T) {
	e := env(map[string]string{
		"HOSTGATE_DATABASE_URL":   "postgres://app:p%40ss-word@db/x",
		"HOSTGATE_REDIS_URL":      "redis://:r3dis-pw@cache:6379/0",
		"HOSTGATE_ADMIN_PASSWORD": "admin-pw-123",
	})
	err := errors.New("dial postgres://app:p%40ss-word@db/x (password p@ss-word)\nredis r3dis-pw, admin admin-pw-123")
	got := Describe(err, e)
	for _, s := range []string{"p%40ss-word", "p@ss-word", "r3dis-pw", "admin-pw-123", "\n"} {
		if strings.Contains(got, s) {
			t.Errorf("Describe = %q, contains %q", got, s)
		}
	}
	if !strings.Contains(got, "postgres://app:xxxxx@db/x") {
		t.Errorf("Describe = %q, want the URL kept with its password blanked", got)
	}
}
