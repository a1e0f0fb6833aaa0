package httpapi

import "testing"

func TestLogPathMasksInstallTokens(t *testing.T) {
	for in, want := range map[string]string{
		"/install/abcDEF_-123.ps1": "/install/[token].ps1",
		"/install/abcDEF_-123.sh":  "/install/[token].sh",
		"/install/abc":             "/install/[token]",
		"/install/":                "/install/",
		"/v1/user/hosts":           "/v1/user/hosts",
	} {
		if got := logPath(in); got != want {
			t.Errorf("logPath(%q) = %q, want %q", in, got, want)
		}
	}
}
