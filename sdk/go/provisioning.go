package hostgate

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
)

// Autologon asks for the provisioning payload's autologon section, for
// the first-boot installer that logs a Windows account on by itself
// (docs/provisioning.md). An empty Username is Administrator; an empty
// Password asks the hub to generate one (24 characters; the hub keeps
// none). A given Password has 16 to 128 characters.
type Autologon struct {
	Username string `json:"username,omitempty"`
	Password string `json:"password,omitempty"`
}

// ProvisioningPayload is a host's provisioning payload (spec section 2):
// what a machine made from a template image reads as its user data.
type ProvisioningPayload struct {
	SchemaVersion int        `json:"schema_version"`
	Hub           PayloadHub `json:"hub"`
	// Autologon is there when it was asked for.
	Autologon *PayloadAutologon `json:"autologon,omitempty"`
	// Raw is the payload exactly as the hub sent it (JSON, under 1 KB):
	// hand this to the machine as its user data.
	Raw json.RawMessage `json:"-"`
}

// PayloadHub is the payload's hub section: the host's install credentials,
// with AgentPubkey as bare base64 (no "ed25519:" prefix).
type PayloadHub struct {
	HostID           string `json:"host_id"`
	BID              int64  `json:"bid"`
	SecretKey        string `json:"secret_key"`
	InstallToken     string `json:"install_token"`
	AgentPrivkeySeed string `json:"agent_privkey_seed"`
	AgentPubkey      string `json:"agent_pubkey"`
	WSURL            string `json:"ws_url"`
	APIEndpoint      string `json:"api_endpoint"`
	ListenPort       int    `json:"listen_port,omitempty"`
}

// PayloadAutologon is the payload's autologon section.
type PayloadAutologon struct {
	Username string `json:"username"`
	Password string `json:"password"`
}

// ProvisioningPayload returns the host's provisioning payload, with an
// autologon section when autologon is not nil. Like InstallToken it
// issues new install credentials (a new key pair and install token, the
// secret key kept), and is free.
func (c *Client) ProvisioningPayload(ctx context.Context, hostID string, autologon *Autologon) (ProvisioningPayload, error) {
	var body any
	if autologon != nil {
		body = map[string]any{"autologon": autologon}
	}
	var raw json.RawMessage
	if err := c.do(ctx, http.MethodPost, hostPath(hostID)+"/provisioning-payload", body, &raw); err != nil {
		return ProvisioningPayload{}, err
	}
	var p ProvisioningPayload
	if err := json.Unmarshal(raw, &p); err != nil {
		return ProvisioningPayload{}, fmt.Errorf("hostgate: decode answer: %w", err)
	}
	p.Raw = raw
	return p, nil
}
