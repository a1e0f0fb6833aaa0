package hosts

import (
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"math/big"
	"time"

	"hostgate/internal/agentproto"
)

// Credentials is the spec's InstallCredentials: everything an installer
// needs, shown once. The secret key and the seed appear nowhere else.
type Credentials struct {
	// Issued is the agent setup the hub issues (agentproto.Issued):
	// host_id, bid, secret_key, install_token, agent_privkey_seed,
	// agent_pubkey, ws_url, api_endpoint and listen_port.
	agentproto.Issued
	URL                   string    `json:"url" doc:"Host report URL; empty when unset"`
	InstallTokenExpiresAt time.Time `json:"install_token_expires_at"`
	ExeURL                string    `json:"exe_url"`
	ExeSHA256             string    `json:"exe_sha256"`
	// InstallCommand is a hostgate addition: the one-line installs that
	// spend InstallToken.
	InstallCommand InstallCommand `json:"install_command" doc:"The lines to paste on the host to install the agent with this install token (hostgate addition; docs/hosts.md, One-line install)"`
}

// InstallCommand holds the one-line installs of an install token. Each
// fetches the installer from the hub once (the fetch spends the token).
type InstallCommand struct {
	PowerShell string `json:"powershell" doc:"For an elevated PowerShell on Windows: irm <hub>/install/<token>.ps1 | iex"`
	Shell      string `json:"shell" doc:"For Linux, as root or as a user who may sudo (the script elevates its own steps): curl -fsSL <hub>/install/<token>.sh | sh"`
}

// newSecretKey returns a 32-hex-character L1 secret (128 random bits).
func newSecretKey() string {
	b := make([]byte, 16)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// newInstallToken returns a token (32 random bytes, base64url, 43
// characters) and the SHA-256 the store keeps.
func newInstallToken() (string, []byte) {
	b := make([]byte, 32)
	rand.Read(b)
	tok := base64.RawURLEncoding.EncodeToString(b)
	return tok, hashToken(tok)
}

func hashToken(tok string) []byte {
	h := sha256.Sum256([]byte(tok))
	return h[:]
}

// newKeyPair returns a fresh ed25519 seed and its public key.
func newKeyPair() (seed []byte, pub ed25519.PublicKey) {
	seed = make([]byte, ed25519.SeedSize)
	rand.Read(seed)
	return seed, ed25519.NewKeyFromSeed(seed).Public().(ed25519.PublicKey)
}

// FormatPubKey renders a public key as the spec's "ed25519:<base64>".
func FormatPubKey(pub []byte) string { return "ed25519:" + base64.StdEncoding.EncodeToString(pub) }

// maxBID keeps bids within 2^53, so JavaScript clients read them exactly.
var maxBID = big.NewInt(1 << 53)

// newBID returns a random positive bid.
func newBID() int64 {
	n, _ := rand.Int(rand.Reader, maxBID)
	return n.Int64() + 1
}
