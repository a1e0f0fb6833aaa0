package installer

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"math/big"
	"slices"
	"strings"
	"unicode"

	"github.com/danielgtaylor/huma/v2"

	"hostgate/internal/agentproto"
	"hostgate/internal/apperr"
	"hostgate/internal/hosts"
)

// The provisioning payload as a file (spec section 2): what a host created
// from a cloud template is handed as user data. It is the payload the .exe
// installer carries (PayloadFor), with an optional autologon section for
// the self-managed-logon variant of the first-boot installer.

// MaxPayloadBytes bounds an encoded payload: the spec says under 1 KB.
const MaxPayloadBytes = agentproto.MaxPayloadSize

// DefaultAutologonUser is the autologon account when the request names none.
const DefaultAutologonUser = agentproto.DefaultAutologonUser

// Autologon password bounds. A generated password has GeneratedPasswordLen
// characters.
const (
	MinAutologonPassword = agentproto.MinAutologonPassword
	MaxAutologonPassword = 128
	MaxAutologonUser     = 64
	GeneratedPasswordLen = 24
)

// ProvisioningPayload is a provisioning payload: schema_version 1, the hub
// section, and autologon when asked for.
type ProvisioningPayload struct {
	SchemaVersion int                    `json:"schema_version" doc:"Always 1"`
	Hub           agentproto.PayloadHub  `json:"hub" doc:"The host's install credentials (agent_pubkey as bare base64, without the ed25519: prefix)"`
	Autologon     *ProvisioningAutologon `json:"autologon,omitempty" doc:"Present when asked for: the Windows account the self-managed-logon installer logs on automatically"`
}

// TransformSchema documents the hub section (agentproto.PayloadHub, which
// embeds agentproto.Issued) as the spec's payload has it: ws_url,
// api_endpoint and listen_port are optional there, and the field notes
// Issued carries are those of the install credentials.
func (ProvisioningPayload) TransformSchema(r huma.Registry, s *huma.Schema) *huma.Schema {
	hub := s.Properties["hub"]
	if hub == nil || hub.Ref == "" {
		return s
	}
	h := r.SchemaFromRef(hub.Ref)
	if h == nil {
		return s
	}
	h.Required = slices.DeleteFunc(h.Required, func(name string) bool {
		return name == "ws_url" || name == "api_endpoint" || name == "listen_port"
	})
	for _, p := range h.Properties {
		p.Description = ""
	}
	h.PrecomputeMessages()
	return s
}

// ProvisioningAutologon is the payload's autologon section.
type ProvisioningAutologon struct {
	Username string `json:"username" doc:"The Windows account (default Administrator)"`
	Password string `json:"password" doc:"16 or more characters; the hub generates one when the request leaves it out, and does not keep it"`
}

// AutologonRequest asks for an autologon section. An empty Username is
// DefaultAutologonUser; a nil Password is generated. The lengths are
// checked by Resolve, not by the schema, so that a refusal never echoes
// the password back.
type AutologonRequest struct {
	Username string  `json:"username,omitempty" doc:"The Windows account to log on automatically: at most 64 characters (default Administrator)"`
	Password *string `json:"password,omitempty" doc:"16 to 128 characters; left out, the hub generates a 24-character one (returned in the payload only, never stored)"`
}

// Issuer is the part of the hosts service a payload needs.
type Issuer interface {
	IssueInstallToken(ctx context.Context, owner, id string) (hosts.Credentials, error)
	WSURL() string
	APIEndpoint() string
}

// ProvisioningFor builds the payload of c with the autologon section al
// (nil: none).
func ProvisioningFor(c hosts.Credentials, al *ProvisioningAutologon) ProvisioningPayload {
	p := PayloadFor(c)
	return ProvisioningPayload{SchemaVersion: p.SchemaVersion, Hub: p.Hub, Autologon: al}
}

// Encode is p as the hub sends it: JSON without HTML escaping, with a
// final newline.
func Encode(p ProvisioningPayload) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(p)
	return b.Bytes()
}

// EncodedSize is the size of Encode(p).
func EncodedSize(p ProvisioningPayload) int { return len(Encode(p)) }

// Provision carries out install-token for the owner's host id (spec 4.5
// rule 2: a new key pair and install token, the previous token void, the
// secret key kept) and returns the host's provisioning payload, with an
// autologon section when al is not nil. A refused request (a bad
// autologon, or one that would make the payload 1 KB or more) changes
// nothing; another owner's host is not_found, as for install-token.
func Provision(ctx context.Context, is Issuer, owner, id string, al *AutologonRequest) (ProvisioningPayload, error) {
	a, err := al.Resolve()
	if err != nil {
		return ProvisioningPayload{}, err
	}
	if n := EncodedSize(ProvisioningFor(longest(is), a)); n >= MaxPayloadBytes {
		return ProvisioningPayload{}, apperr.New(apperr.CodeInvalidBody, fmt.Sprintf(
			"the provisioning payload would be %d bytes, and it must stay under 1 KB: shorten autologon.username or autologon.password", n))
	}
	c, err := is.IssueInstallToken(ctx, owner, id)
	if err != nil {
		return ProvisioningPayload{}, err
	}
	p := ProvisioningFor(c, a)
	// The agent's own validator has the last word: the hub never hands out
	// a payload the first-boot installer would refuse.
	if _, err := agentproto.ParsePayload(Encode(p)); err != nil {
		return ProvisioningPayload{}, fmt.Errorf("installer: provisioning payload of %s: %w", id, err)
	}
	return p, nil
}

// longest is the longest credentials a host can be issued, so the size
// is checked before anything is issued.
func longest(is Issuer) hosts.Credentials {
	return hosts.Credentials{Issued: agentproto.Issued{
		HostID: strings.Repeat("0", 36), BID: 1 << 53, SecretKey: strings.Repeat("0", 32),
		InstallToken: strings.Repeat("0", 43), AgentPrivkeySeed: strings.Repeat("0", 44),
		AgentPubkey: strings.Repeat("0", 44), WSURL: is.WSURL(), APIEndpoint: is.APIEndpoint(), ListenPort: 65535,
	}}
}

// Resolve checks r and fills in its defaults: nil is no autologon; an
// empty username is Administrator; a missing password is generated.
func (r *AutologonRequest) Resolve() (*ProvisioningAutologon, error) {
	if r == nil {
		return nil, nil
	}
	user := strings.TrimSpace(r.Username)
	if user == "" {
		user = DefaultAutologonUser
	}
	if n := len([]rune(user)); n > MaxAutologonUser || hasControl(user) {
		return nil, apperr.New(apperr.CodeInvalidBody, fmt.Sprintf(
			"autologon.username must be at most %d characters without control characters", MaxAutologonUser))
	}
	if r.Password == nil {
		return &ProvisioningAutologon{Username: user, Password: GeneratePassword()}, nil
	}
	pw := *r.Password
	if n := len([]rune(pw)); n < MinAutologonPassword || n > MaxAutologonPassword {
		return nil, apperr.New(apperr.CodeInvalidBody, fmt.Sprintf(
			"autologon.password must be %d to %d characters (it has %d); leave it out and the hub generates one",
			MinAutologonPassword, MaxAutologonPassword, n))
	}
	if hasControl(pw) {
		return nil, apperr.New(apperr.CodeInvalidBody, "autologon.password must not contain control characters")
	}
	return &ProvisioningAutologon{Username: user, Password: pw}, nil
}

func hasControl(s string) bool { return strings.ContainsFunc(s, unicode.IsControl) }

// Password alphabet: letters without the look-alikes I, O, l, digits
// without 0 and 1, and symbols that need no quoting in JSON, the
// registry, cmd or PowerShell.
const (
	pwUpper  = "ABCDEFGHJKLMNPQRSTUVWXYZ"
	pwLower  = "abcdefghijkmnopqrstuvwxyz"
	pwDigit  = "23456789"
	pwSymbol = "-_.@#"
)

// GeneratePassword returns a random GeneratedPasswordLen-character
// password with an upper-case letter, a lower-case letter, a digit and a
// symbol, so it meets Windows' complexity rule.
func GeneratePassword() string {
	const all = pwUpper + pwLower + pwDigit + pwSymbol
	n := big.NewInt(int64(len(all)))
	for {
		b := make([]byte, GeneratedPasswordLen)
		for i := range b {
			i64, err := rand.Int(rand.Reader, n)
			if err != nil {
				panic(err) // crypto/rand does not fail
			}
			b[i] = all[i64.Int64()]
		}
		s := string(b)
		if strings.ContainsAny(s, pwUpper) && strings.ContainsAny(s, pwLower) &&
			strings.ContainsAny(s, pwDigit) && strings.ContainsAny(s, pwSymbol) {
			return s
		}
	}
}
