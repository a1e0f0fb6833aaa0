package hostgate

import (
	"context"
	"net/http"
	"net/url"
	"time"
)

// Host is a managed host.
type Host struct {
	ID               string     `json:"id"`
	UserID           string     `json:"user_id"`
	Name             string     `json:"name"`
	BID              int64      `json:"bid"`
	ListenPort       int        `json:"listen_port"`
	PublicIP         string     `json:"public_ip,omitempty"`
	OS               string     `json:"os,omitempty"`
	InstalledVersion string     `json:"installed_version,omitempty"`
	ReportURL        string     `json:"report_url,omitempty"`
	Status           string     `json:"status"`
	LastSeenAt       *time.Time `json:"last_seen_at,omitempty"`
	LastOnlineAt     *time.Time `json:"last_online_at,omitempty"`
	CreatedAt        time.Time  `json:"created_at"`
	// Online is whether the agent is connected now (lists and Get only).
	Online bool `json:"online"`
	// Tags are the host's labels, key → value ("" for a key alone).
	Tags map[string]string `json:"tags"`
}

// Credentials install an agent; the secrets in them are shown only once.
type Credentials struct {
	HostID                string    `json:"host_id"`
	BID                   int64     `json:"bid"`
	SecretKey             string    `json:"secret_key"`
	URL                   string    `json:"url"`
	InstallToken          string    `json:"install_token"`
	InstallTokenExpiresAt time.Time `json:"install_token_expires_at"`
	AgentPrivkeySeed      string    `json:"agent_privkey_seed"`
	AgentPubkey           string    `json:"agent_pubkey"`
	APIEndpoint           string    `json:"api_endpoint"`
	WSURL                 string    `json:"ws_url"`
	ListenPort            int       `json:"listen_port"`
	ExeURL                string    `json:"exe_url"`
	ExeSHA256             string    `json:"exe_sha256"`
	// InstallCommand holds the one-line installs of InstallToken: the
	// lines to paste on the new host (each spends the token).
	InstallCommand InstallCommand `json:"install_command"`
}

// InstallCommand is the one-line install of an install token.
type InstallCommand struct {
	PowerShell string `json:"powershell"` // irm <hub>/install/<token>.ps1 | iex (elevated PowerShell)
	Shell      string `json:"shell"`      // curl -fsSL <hub>/install/<token>.sh | sh (Linux)
}

func hostPath(id string) string { return "/v1/api/hosts/" + url.PathEscape(id) }

// ListHosts lists the key holder's hosts.
func (c *Client) ListHosts(ctx context.Context) ([]Host, error) {
	var out struct {
		Items []Host `json:"items"`
	}
	err := c.do(ctx, http.MethodGet, "/v1/api/hosts", nil, &out)
	return out.Items, err
}

// GetHost returns one host with its live connection state.
func (c *Client) GetHost(ctx context.Context, hostID string) (Host, error) {
	var h Host
	err := c.do(ctx, http.MethodGet, hostPath(hostID), nil, &h)
	return h, err
}

// CreateHost creates a host; listenPort 0 takes the default (23456). With
// withCredentials the answer carries install credentials too.
func (c *Client) CreateHost(ctx context.Context, name string, listenPort int, withCredentials bool) (Host, *Credentials, error) {
	body := map[string]any{"name": name, "with_credentials": withCredentials}
	if listenPort != 0 {
		body["listen_port"] = listenPort
	}
	var out struct {
		Host        Host         `json:"host"`
		Credentials *Credentials `json:"credentials"`
	}
	err := c.do(ctx, http.MethodPost, "/v1/api/hosts", body, &out)
	return out.Host, out.Credentials, err
}

// DeleteHost deletes a host; its agent is dropped at once.
func (c *Client) DeleteHost(ctx context.Context, hostID string) error {
	return c.do(ctx, http.MethodDelete, hostPath(hostID), nil, nil)
}

// InstallToken issues new install credentials, keeping the secret key.
func (c *Client) InstallToken(ctx context.Context, hostID string) (Credentials, error) {
	var cr Credentials
	err := c.do(ctx, http.MethodPost, hostPath(hostID)+"/install-token", nil, &cr)
	return cr, err
}

// RotateSecret issues install credentials with a new secret key; the
// running agent is dropped.
func (c *Client) RotateSecret(ctx context.Context, hostID string) (Credentials, error) {
	var cr Credentials
	err := c.do(ctx, http.MethodPost, hostPath(hostID)+"/rotate-secret", nil, &cr)
	return cr, err
}

// Ping round-trips a no-op command to the host's agent.
func (c *Client) Ping(ctx context.Context, hostID string) (rttMs int64, agentVersion string, err error) {
	var out struct {
		RTTMs        int64  `json:"rtt_ms"`
		AgentVersion string `json:"agent_version"`
	}
	err = c.do(ctx, http.MethodPost, hostPath(hostID)+"/ping", nil, &out)
	return out.RTTMs, out.AgentVersion, err
}
