package agentproto

import (
	"bytes"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/google/uuid"
)

// The provisioning payload (spec section 2) is the JSON document that
// hands a new machine its host's credentials: appended to the exe
// installer, or given to a machine made from a template image as its
// cloud user data (docs/provisioning.md). ParsePayload is its one
// validator, used by the hub before it hands a payload out and by the
// agent before it installs from one.
//
// The exe installer is the agent executable with the payload appended
// after it, followed by a fixed trailer:
//
//	<agent.exe bytes> <payload JSON> <uint32 little-endian payload length> "HGPROV01"
//
// Windows ignores bytes after a PE image, so the file still runs; the agent,
// started without arguments, reads the trailer of its own file and installs
// itself with the payload.
const (
	Magic = "HGPROV01"
	// maxPayload bounds the length a trailer may announce; the payload
	// itself must then pass ParsePayload, which is stricter.
	maxPayload = 4 << 10

	// MaxPayloadSize is the spec's size bound: a payload must be under
	// 1 KB, so a document of MaxPayloadSize bytes or more is refused.
	MaxPayloadSize = 1024
	// PayloadSchemaVersion is the only schema_version understood.
	PayloadSchemaVersion = 1
	// DefaultAutologonUser is autologon.username when the payload has none.
	DefaultAutologonUser = "Administrator"
	// MinAutologonPassword is the shortest autologon.password, in characters.
	MinAutologonPassword = 16
)

// Payload is the provisioning payload. Values are comparable with == as
// long as Autologon is nil (a pointer compares by identity).
type Payload struct {
	SchemaVersion int        `json:"schema_version"`
	Hub           PayloadHub `json:"hub"`
	// Autologon is set when the payload carries the optional autologon
	// section (needed by the self-managed-logon first-boot variant).
	Autologon *PayloadAutologon `json:"autologon,omitempty"`
	// Extra holds the document's other top-level members as the text of a
	// JSON object ("" when there are none). The installer ignores them;
	// MarshalJSON writes them back, so they pass through unchanged.
	Extra string `json:"-"`
}

// PayloadHub is the payload's required hub section: the issued agent
// setup. WSURL, APIEndpoint and ListenPort are optional: "" or 0 means the
// defaults, and MarshalJSON leaves them out then, as the spec's payload
// does.
type PayloadHub struct {
	Issued
	// Extra holds the section's unknown members, as Payload.Extra.
	Extra string `json:"-"`
}

// payloadOptional are the hub section's optional members, left out when
// zero.
var payloadOptional = map[string]string{"ws_url": `""`, "api_endpoint": `""`, "listen_port": "0"}

// PayloadAutologon is the optional autologon section: the account the
// self-managed-logon variant logs on automatically.
type PayloadAutologon struct {
	Username string `json:"username,omitempty"`
	Password string `json:"password"`
	// Extra holds the section's unknown members, as Payload.Extra.
	Extra string `json:"-"`
}

// User is the account name, DefaultAutologonUser when none is given.
func (a *PayloadAutologon) User() string {
	if a == nil || a.Username == "" {
		return DefaultAutologonUser
	}
	return a.Username
}

// String describes the section without the password.
func (a PayloadAutologon) String() string {
	return fmt.Sprintf("{username=%s password=%s}", a.User(), redact(a.Password))
}

// GoString is String, so %#v does not print the password either.
func (a PayloadAutologon) GoString() string { return a.String() }

// String describes the section without its secrets.
func (h PayloadHub) String() string {
	return fmt.Sprintf("{host_id=%s bid=%d ws_url=%s api_endpoint=%s listen_port=%d secret_key=%s install_token=%s agent_privkey_seed=%s}",
		h.HostID, h.BID, h.WSURL, h.APIEndpoint, h.ListenPort, redact(h.SecretKey), redact(h.InstallToken), redact(h.AgentPrivkeySeed))
}

// GoString is String, so %#v does not print secrets either.
func (h PayloadHub) GoString() string { return h.String() }

func redact(s string) string {
	if s == "" {
		return "unset"
	}
	return "[redacted]"
}

// Sentinel errors of ParsePayload; every error it returns is a
// *PayloadError that matches exactly one of them with errors.Is.
var (
	// ErrPayloadTooLarge: the document is MaxPayloadSize bytes or more.
	ErrPayloadTooLarge = errors.New("provisioning payload too large")
	// ErrPayloadNotJSON: the document is not one JSON object (it begins
	// with '#', is empty, is not JSON, or has data after the object).
	ErrPayloadNotJSON = errors.New("provisioning payload is not a JSON object")
	// ErrPayloadMissingField: a required field is absent, null or empty.
	ErrPayloadMissingField = errors.New("provisioning payload field missing")
	// ErrPayloadInvalidField: a field is present with a wrong type or value
	// (including an unsupported schema_version).
	ErrPayloadInvalidField = errors.New("provisioning payload field invalid")
)

// PayloadError is a refused payload. Its message names the problem and
// the field but never a field's value, so it is safe to print.
type PayloadError struct {
	Kind   error  // one of the ErrPayload sentinels
	Field  string // dotted field path ("hub.secret_key"); "" for the document
	Reason string // what is wrong, without values
}

func (e *PayloadError) Error() string {
	if e.Field == "" {
		return "provisioning payload: " + e.Reason
	}
	return "provisioning payload: " + e.Field + " " + e.Reason
}

// Unwrap returns Kind, for errors.Is.
func (e *PayloadError) Unwrap() error { return e.Kind }

func missing(field string) error {
	return &PayloadError{Kind: ErrPayloadMissingField, Field: field, Reason: "is missing"}
}

func invalid(field, reason string) error {
	return &PayloadError{Kind: ErrPayloadInvalidField, Field: field, Reason: reason}
}

// utf8BOM is accepted (and skipped) before the document: Windows tools
// such as PowerShell 5's Out-File write one.
const utf8BOM = "\xef\xbb\xbf"

// ParsePayload validates a provisioning payload and returns it. The rules
// (spec section 2):
//
//   - the document is under 1 KB: len(b) < MaxPayloadSize, counted on the
//     bytes as given;
//   - it is pure JSON: exactly one JSON object, with only whitespace after
//     it; an optional UTF-8 byte order mark and whitespace may precede it,
//     and its first other character must not be '#' (a "#cloud-config" or
//     "#!" script is refused as such);
//   - schema_version is 1;
//   - hub.host_id is a UUID, hub.bid a positive integer, hub.secret_key 32
//     characters, hub.install_token non-empty, hub.agent_privkey_seed the
//     base64 of a 32-byte ed25519 seed and hub.agent_pubkey the base64 of
//     its public key, bare (the spec's form) or with the "ed25519:" prefix
//     (the install credentials' form);
//   - hub.ws_url (ws or wss) and hub.api_endpoint (http or https) are
//     optional absolute URLs, hub.listen_port an optional TCP port;
//   - autologon is optional; when present its password has 16 or more
//     characters and its username defaults to DefaultAutologonUser;
//   - other members, at the top level and in the sections, are kept in
//     the Extra fields and passed through.
//
// An absent, null or empty required field is ErrPayloadMissingField; the
// first problem found is returned, as a *PayloadError.
func ParsePayload(b []byte) (Payload, error) {
	if len(b) >= MaxPayloadSize {
		return Payload{}, &PayloadError{Kind: ErrPayloadTooLarge,
			Reason: fmt.Sprintf("is %d bytes; it must be under %d bytes (1 KB)", len(b), MaxPayloadSize)}
	}
	doc := bytes.TrimLeft(bytes.TrimPrefix(b, []byte(utf8BOM)), " \t\r\n")
	switch {
	case len(doc) == 0:
		return Payload{}, &PayloadError{Kind: ErrPayloadNotJSON, Reason: "is empty"}
	case doc[0] == '#':
		return Payload{}, &PayloadError{Kind: ErrPayloadNotJSON,
			Reason: "begins with '#' (a #cloud-config document or a script?); it must be pure JSON, beginning with '{'"}
	case doc[0] != '{':
		return Payload{}, &PayloadError{Kind: ErrPayloadNotJSON, Reason: "is not a JSON object; it must begin with '{'"}
	}
	if !utf8.Valid(doc) {
		return Payload{}, &PayloadError{Kind: ErrPayloadNotJSON, Reason: "is not valid UTF-8"}
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(doc, &top); err != nil {
		return Payload{}, &PayloadError{Kind: ErrPayloadNotJSON, Reason: syntaxReason(err, len(b)-len(doc))}
	}
	var p Payload
	if err := p.parse(top); err != nil {
		return Payload{}, err
	}
	return p, nil
}

// syntaxReason describes a JSON error by its position only: encoding/json
// messages quote input characters, which may belong to a secret.
func syntaxReason(err error, skipped int) string {
	if se, ok := errors.AsType[*json.SyntaxError](err); ok {
		return fmt.Sprintf("is not valid JSON (error at byte %d)", int(se.Offset)+skipped)
	}
	return "is not one valid JSON object"
}

func (p *Payload) parse(top map[string]json.RawMessage) error {
	raw, ok := present(top, "schema_version")
	if !ok {
		return missing("schema_version")
	}
	if err := json.Unmarshal(raw, &p.SchemaVersion); err != nil || p.SchemaVersion != PayloadSchemaVersion {
		return invalid("schema_version", fmt.Sprintf("must be %d", PayloadSchemaVersion))
	}
	raw, ok = present(top, "hub")
	if !ok {
		return missing("hub")
	}
	hub, err := object(raw, "hub")
	if err != nil {
		return err
	}
	if err := p.Hub.parse(hub); err != nil {
		return err
	}
	if raw, ok := present(top, "autologon"); ok {
		sec, err := object(raw, "autologon")
		if err != nil {
			return err
		}
		p.Autologon = &PayloadAutologon{}
		if err := p.Autologon.parse(sec); err != nil {
			return err
		}
	}
	p.Extra = extra(top, "schema_version", "hub", "autologon")
	return nil
}

func (h *PayloadHub) parse(m map[string]json.RawMessage) error {
	var err error
	if h.HostID, err = str(m, "hub", "host_id", true); err != nil {
		return err
	}
	if _, perr := uuid.Parse(h.HostID); perr != nil {
		return invalid("hub.host_id", "is not a UUID")
	}
	raw, ok := present(m, "bid")
	if !ok {
		return missing("hub.bid")
	}
	if json.Unmarshal(raw, &h.BID) != nil || h.BID <= 0 {
		return invalid("hub.bid", "must be a positive 64-bit integer")
	}
	if h.SecretKey, err = str(m, "hub", "secret_key", true); err != nil {
		return err
	}
	if n := utf8.RuneCountInString(h.SecretKey); n != 32 {
		return invalid("hub.secret_key", fmt.Sprintf("has %d characters; it must have 32", n))
	}
	if h.InstallToken, err = str(m, "hub", "install_token", true); err != nil {
		return err
	}
	if h.AgentPrivkeySeed, err = str(m, "hub", "agent_privkey_seed", true); err != nil {
		return err
	}
	if h.AgentPubkey, err = str(m, "hub", "agent_pubkey", true); err != nil {
		return err
	}
	seed, derr := decodeBase64(h.AgentPrivkeySeed)
	if derr != nil || len(seed) != ed25519.SeedSize {
		return invalid("hub.agent_privkey_seed", "must be the base64 of a 32-byte ed25519 seed")
	}
	pub, derr := decodeBase64(strings.TrimPrefix(h.AgentPubkey, "ed25519:"))
	if derr != nil || len(pub) != ed25519.PublicKeySize {
		return invalid("hub.agent_pubkey", "must be the base64 of a 32-byte ed25519 public key, bare or after \"ed25519:\"")
	}
	if !ed25519.NewKeyFromSeed(seed).Public().(ed25519.PublicKey).Equal(ed25519.PublicKey(pub)) {
		return invalid("hub.agent_pubkey", "does not match hub.agent_privkey_seed")
	}
	if h.WSURL, err = str(m, "hub", "ws_url", false); err != nil {
		return err
	}
	if h.WSURL != "" && !absURL(h.WSURL, "ws", "wss") {
		return invalid("hub.ws_url", "must be an absolute ws:// or wss:// URL")
	}
	if h.APIEndpoint, err = str(m, "hub", "api_endpoint", false); err != nil {
		return err
	}
	if h.APIEndpoint != "" && !absURL(h.APIEndpoint, "http", "https") {
		return invalid("hub.api_endpoint", "must be an absolute http:// or https:// URL")
	}
	if raw, ok := present(m, "listen_port"); ok {
		if json.Unmarshal(raw, &h.ListenPort) != nil || h.ListenPort < 0 || h.ListenPort > 65535 {
			return invalid("hub.listen_port", "must be a TCP port, 1 to 65535 (0 for the default)")
		}
	}
	h.Extra = extra(m, "host_id", "bid", "secret_key", "install_token", "agent_privkey_seed",
		"agent_pubkey", "ws_url", "api_endpoint", "listen_port")
	return nil
}

func (a *PayloadAutologon) parse(m map[string]json.RawMessage) error {
	var err error
	if a.Username, err = str(m, "autologon", "username", false); err != nil {
		return err
	}
	if a.Password, err = str(m, "autologon", "password", true); err != nil {
		return err
	}
	if n := utf8.RuneCountInString(a.Password); n < MinAutologonPassword {
		return invalid("autologon.password", fmt.Sprintf("has %d characters; it must have %d or more", n, MinAutologonPassword))
	}
	a.Extra = extra(m, "username", "password")
	return nil
}

// present returns m[key] unless it is absent or null.
func present(m map[string]json.RawMessage, key string) (json.RawMessage, bool) {
	raw, ok := m[key]
	if !ok || string(raw) == "null" {
		return nil, false
	}
	return raw, true
}

func object(raw json.RawMessage, field string) (map[string]json.RawMessage, error) {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return nil, invalid(field, "must be a JSON object")
	}
	return m, nil
}

// str reads a string member; an absent, null or empty required one is
// missing.
func str(m map[string]json.RawMessage, section, key string, required bool) (string, error) {
	field := section + "." + key
	raw, ok := present(m, key)
	var s string
	if ok && json.Unmarshal(raw, &s) != nil {
		return "", invalid(field, "must be a string")
	}
	if s == "" && required {
		return "", missing(field)
	}
	for _, r := range s {
		if r < 0x20 || r == 0x7f {
			return "", invalid(field, "must not contain control characters")
		}
	}
	return s, nil
}

// extra renders the members of m other than known as a JSON object, ""
// when there are none.
func extra(m map[string]json.RawMessage, known ...string) string {
	rest := maps.Clone(m)
	for _, k := range known {
		delete(rest, k)
	}
	if len(rest) == 0 {
		return ""
	}
	b, err := json.Marshal(rest) // sorted keys; the values are valid JSON
	if err != nil {
		return ""
	}
	return string(b)
}

// withExtra appends the members of extra (a JSON object's text) that are
// not already in obj (a JSON object's encoding) to obj.
func withExtra(obj []byte, extraJSON string) ([]byte, error) {
	if extraJSON == "" {
		return obj, nil
	}
	var add, have map[string]json.RawMessage
	if err := json.Unmarshal([]byte(extraJSON), &add); err != nil {
		return nil, fmt.Errorf("provisioning payload: Extra is not a JSON object: %w", err)
	}
	if err := json.Unmarshal(obj, &have); err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	buf.Write(obj[:len(obj)-1])
	first := len(have) == 0
	for _, k := range slices.Sorted(maps.Keys(add)) {
		if _, dup := have[k]; dup {
			continue
		}
		if !first {
			buf.WriteByte(',')
		}
		first = false
		kb, _ := json.Marshal(k)
		buf.Write(kb)
		buf.WriteByte(':')
		buf.Write(add[k])
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

// MarshalJSON writes the payload with its Extra members.
func (p Payload) MarshalJSON() ([]byte, error) {
	type plain Payload
	b, err := json.Marshal(plain(p))
	if err != nil {
		return nil, err
	}
	return withExtra(b, p.Extra)
}

// MarshalJSON writes the section without its zero optional members and
// with its Extra members.
func (h PayloadHub) MarshalJSON() ([]byte, error) {
	b, err := json.Marshal(h.Issued)
	if err != nil {
		return nil, err
	}
	if b, err = dropMembers(b, payloadOptional); err != nil {
		return nil, err
	}
	return withExtra(b, h.Extra)
}

// dropMembers removes from obj (a JSON object's encoding) each member
// whose key is in drop with the value drop[key], keeping the order of the
// others.
func dropMembers(obj []byte, drop map[string]string) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(obj))
	if _, err := dec.Token(); err != nil { // {
		return nil, err
	}
	var buf bytes.Buffer
	buf.WriteByte('{')
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		k, _ := tok.(string)
		if z, ok := drop[k]; ok && string(v) == z {
			continue
		}
		if buf.Len() > 1 {
			buf.WriteByte(',')
		}
		kb, _ := json.Marshal(k)
		buf.Write(kb)
		buf.WriteByte(':')
		buf.Write(v)
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

// MarshalJSON writes the section with its Extra members.
func (a PayloadAutologon) MarshalJSON() ([]byte, error) {
	type plain PayloadAutologon
	b, err := json.Marshal(plain(a))
	if err != nil {
		return nil, err
	}
	return withExtra(b, a.Extra)
}

func absURL(s string, schemes ...string) bool {
	u, err := url.Parse(s)
	return err == nil && slices.Contains(schemes, u.Scheme) && u.Host != ""
}

// decodeBase64 accepts standard or URL-safe base64, padded or not, as the
// agent's configuration does.
func decodeBase64(s string) ([]byte, error) {
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		if b, err := enc.DecodeString(s); err == nil {
			return b, nil
		}
	}
	return nil, errors.New("not base64")
}

// Bundle appends p to exe with the trailer.
func Bundle(exe []byte, p Payload) ([]byte, error) {
	js, err := json.Marshal(p)
	if err != nil {
		return nil, err
	}
	out := make([]byte, 0, len(exe)+len(js)+4+len(Magic))
	out = append(append(out, exe...), js...)
	out = binary.LittleEndian.AppendUint32(out, uint32(len(js)))
	return append(out, Magic...), nil
}

// ErrNoPayload is returned for a file without a payload trailer.
var ErrNoPayload = errors.New("installer: no provisioning payload")

// ReadPayload reads the payload from the end of an executable's contents
// and validates it with ParsePayload. A file without the trailer is
// ErrNoPayload; a trailer announcing an impossible length is another
// error; a payload refused by ParsePayload is its *PayloadError.
func ReadPayload(file []byte) (Payload, error) {
	n := len(file)
	if n < len(Magic)+4 || string(file[n-len(Magic):]) != Magic {
		return Payload{}, ErrNoPayload
	}
	size := int(binary.LittleEndian.Uint32(file[n-len(Magic)-4:]))
	start := n - len(Magic) - 4 - size
	if size <= 0 || size > maxPayload || start < 0 {
		return Payload{}, fmt.Errorf("installer: bad payload length %d", size)
	}
	return ParsePayload(file[start : start+size])
}
