// Package hosts manages customers' remote hosts: creation with a unique
// L1 bid, install credentials (one-time install token, ed25519 agent key
// pair, sealed L1 secret key), agent enrolment and token renewal by
// challenge-response, the status lifecycle, bans, soft deletion, and the
// metrics and events history agents report.
package hosts

import "time"

// Status is a host's lifecycle state (docs/hosts.md has the table).
type Status string

// Host statuses (spec section 3).
const (
	StatusPending Status = "pending"
	StatusOnline  Status = "online"
	StatusStale   Status = "stale"
	StatusOffline Status = "offline"
	StatusBanned  Status = "banned"
)

// Limits on host fields.
const (
	MaxNameLen        = 64
	DefaultListenPort = 23456
	MinListenPort     = 1024
	MaxListenPort     = 65535
)

// Host is a managed machine.
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
	Status           Status     `json:"status"`
	LastSeenAt       *time.Time `json:"last_seen_at,omitempty"`
	LastOnlineAt     *time.Time `json:"last_online_at,omitempty"`
	CreatedAt        time.Time  `json:"created_at"`
	// WebhookFormat is the format of the host's L1 change webhooks: "A"
	// (the default) or "B" (docs/webhooks.md).
	WebhookFormat string `json:"webhook_format" enum:"A,B"`
	// Tags are the host's labels (docs/hosts.md, "Tags and saved
	// filters"); {} when none.
	Tags Tags `json:"tags" doc:"The host's tags, key to value ({} when none)"`
}

// DefaultWebhookFormat is the webhook format of a new host.
const DefaultWebhookFormat = "A"

// Secrets are a host's stored credentials. SecretSealed is the L1 secret key
// sealed by the keyring (aad = host id); AgentPubKey is the raw ed25519
// public key of the current agent key pair (nil before the first issuance);
// CredGen counts issuances, and agent tokens carry the generation they were
// issued under, so an issuance ends every older token.
type Secrets struct {
	SecretSealed []byte
	AgentPubKey  []byte
	CredGen      int64
}

// Issuance is what one install-token or rotate-secret operation stores: a
// new agent public key, the hash of a new install token and its expiry, and
// for rotate-secret a new sealed secret (nil keeps the current one).
type Issuance struct {
	AgentPubKey      []byte
	InstallTokenHash []byte
	InstallExpiresAt time.Time
	SecretSealed     []byte
}

// Metrics is one metrics sample an agent pushed (spec MetricsResult).
type Metrics struct {
	At       time.Time `json:"at"`
	CPUPct   float64   `json:"cpu_pct"`
	MemPct   float64   `json:"mem_pct"`
	DiskPct  float64   `json:"disk_pct"`
	NetRxBps float64   `json:"net_rx_bps"`
	NetTxBps float64   `json:"net_tx_bps"`
	TCPConns int64     `json:"tcp_conns"`
	UptimeS  int64     `json:"uptime_s"`
}

// Sample is one host's metrics sample on its way to the store. Trim asks
// the store to cut the host's history to the newest samples it keeps.
type Sample struct {
	HostID string
	Metrics
	Trim bool
}

// Event is one entry of a host's history: connects, disconnects, bans,
// credential issuance, agent-reported events.
type Event struct {
	ID      string    `json:"id"`
	At      time.Time `json:"at"`
	Kind    string    `json:"kind"`
	Message string    `json:"message"`
}

// The kinds of the events the hub records when an agent's socket opens and
// when it closes.
const (
	EventConnected    = "connected"
	EventDisconnected = "disconnected"
)

// Flaps counts a host's connects and disconnects over a recent window
// (FlapWindow).
type Flaps struct {
	Connects    int `json:"connects"`
	Disconnects int `json:"disconnects"`
}

// VersionCount is how many undeleted hosts report an agent version, and
// how many of those are online (their stored status). Version "" is hosts
// whose agent has not reported one yet.
type VersionCount struct {
	Version string `json:"version"`
	Hosts   int    `json:"hosts"`
	Online  int    `json:"online"`
}

// HostEvent is an event of one host, in a batch. Trim asks the store to
// cut the host's history to the newest events it keeps.
type HostEvent struct {
	HostID string
	Event
	Trim bool
}
