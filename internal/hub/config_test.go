package hub

import (
	"os"
	"strings"
	"testing"
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
