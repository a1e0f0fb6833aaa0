package agentproto

import "time"

// HTTP endpoints the agent calls, under the hub's api_endpoint.
const (
	PathOnline    = "/v1/internal/agent/online"
	PathWS        = "/v1/internal/agent/ws"
	PathHeartbeat = "/v1/internal/agent/heartbeat"
	PathRefresh   = "/v1/internal/agent/token/refresh"
)

// OnlineRequest consumes an install token (POST PathOnline).
type OnlineRequest struct {
	HostID       string `json:"host_id"`
	InstallToken string `json:"install_token"`
}

// TokenResponse carries an agent token; online and the second refresh step
// answer it. The token goes in "Authorization: Bearer" on ws and heartbeat.
type TokenResponse struct {
	AgentToken string    `json:"agent_token"`
	ExpiresAt  time.Time `json:"expires_at"`
	HostID     string    `json:"host_id"`
}

// RefreshRequest is both steps of POST PathRefresh. Step one sends only
// HostID and gets a ChallengeResponse. Step two sends HostID, the Challenge
// and Signature = base64(ed25519.Sign(key, ChallengeMessage(HostID, Challenge)))
// and gets a TokenResponse. A challenge works once, for ChallengeTTL, for
// the host it was issued to.
type RefreshRequest struct {
	HostID    string `json:"host_id"`
	Challenge string `json:"challenge,omitempty"`
	Signature string `json:"signature,omitempty"`
}

// ChallengeResponse is step one of a token refresh.
type ChallengeResponse struct {
	Challenge string `json:"challenge"`
	ExpiresIn int    `json:"expires_in"`
}

// ChallengeTTL is how long a refresh challenge stays valid.
const ChallengeTTL = 60 * time.Second

// ChallengeMessage is what the agent signs. The fixed prefix keeps the
// signature from being valid for any other purpose the key might serve.
func ChallengeMessage(hostID, challenge string) []byte {
	return []byte("hostgate agent token refresh v1\n" + hostID + "\n" + challenge)
}

// HeartbeatRequest is the fallback heartbeat (POST PathHeartbeat) sent while
// the WebSocket is down.
type HeartbeatRequest struct {
	AgentVersion string `json:"agent_version,omitempty"`
}

// HeartbeatResponse answers a fallback heartbeat.
type HeartbeatResponse struct {
	OK         bool  `json:"ok"`
	ServerTime int64 `json:"server_time_ms"`
}

// RetryAfterHeader names the header of a 503 that sheds a handshake; the
// agent waits at least that many seconds before it tries again.
const RetryAfterHeader = "Retry-After"
