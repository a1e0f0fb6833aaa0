package accounts_test

import (
	"strings"
	"testing"

	"hostgate/internal/accounts"
	"hostgate/internal/apperr"
)

func TestNormalizeEmail(t *testing.T) {
	// local@domain of exactly 254 and 255 bytes.
	at254 := strings.Repeat("a", 64) + "@" + strings.Repeat("b", 63) + "." + strings.Repeat("c", 63) + "." + strings.Repeat("d", 57) + ".com"
	at255 := "e" + at254
	tests := []struct {
		name    string
		in      string
		want    string
		wantErr bool
	}{
		{name: "plain", in: "alice@example.com", want: "alice@example.com"},
		{name: "trims and lower-cases", in: "  Alice@Example.COM\t\n", want: "alice@example.com"},
		{name: "plus addressing", in: "Alice+Hostgate@example.com", want: "alice+hostgate@example.com"},
		{name: "dots in local part", in: "first.last@mail.example.org", want: "first.last@mail.example.org"},
		{name: "254 bytes", in: at254, want: at254},
		{name: "empty", in: "", wantErr: true},
		{name: "blank", in: "   ", wantErr: true},
		{name: "no at", in: "a", wantErr: true},
		{name: "no domain", in: "a@", wantErr: true},
		{name: "no local part", in: "@example.com", wantErr: true},
		{name: "two ats", in: "a@b@example.com", wantErr: true},
		{name: "display name", in: "Name <a@b.c>", wantErr: true},
		{name: "angle brackets only", in: "<a@b.c>", wantErr: true},
		{name: "quoted display name", in: `"Name" <a@b.c>`, wantErr: true},
		{name: "comment", in: "a@b.c (work)", wantErr: true},
		{name: "255 bytes", in: at255, wantErr: true},
		{name: "space in local part", in: "al ice@example.com", wantErr: true},
		{name: "space in domain", in: "alice@exa mple.com", wantErr: true},
		{name: "space around at", in: "alice @ example.com", wantErr: true},
		{name: "quoted local part with space", in: `"al ice"@example.com`, wantErr: true},
		{name: "two addresses", in: "a@b.c, d@e.f", wantErr: true},
		{name: "newline inside", in: "alice@example.com\nbcc@evil.example", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if len(at254) != 254 {
				t.Fatalf("test setup: got a %d-byte address, want 254", len(at254))
			}
			got, err := accounts.NormalizeEmail(tt.in)
			if tt.wantErr {
				if err == nil {
					t.Fatalf("NormalizeEmail(%q): got %q, want an error", tt.in, got)
				}
				if code := apperr.Code(err); code != accounts.CodeInvalidEmail {
					t.Errorf("NormalizeEmail(%q) code: got %s, want %s", tt.in, code, accounts.CodeInvalidEmail)
				}
				if got != "" {
					t.Errorf("NormalizeEmail(%q) on error: got %q, want \"\"", tt.in, got)
				}
				return
			}
			if err != nil {
				t.Fatalf("NormalizeEmail(%q): got %v, want nil", tt.in, err)
			}
			if got != tt.want {
				t.Errorf("NormalizeEmail(%q): got %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}
