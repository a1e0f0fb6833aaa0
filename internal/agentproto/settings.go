package agentproto

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"strconv"
)

// PathSettings is where an agent reports an L1 configuration change it
// made locally (POST, agent token): the body is SettingsRequest, the
// answer SettingsResponse. The hub validates and stores it and queues the
// host's webhook delivery (source agent).
const PathSettings = "/v1/internal/agent/settings"

// SettingsUpdate is the args of the settings.update command
// (CtlSettingsUpdate, 1<<30) the hub sends an online agent after an L1
// configuration change made elsewhere: the agent writes its setup file
// atomically and restarts softly with the new settings. URL may be empty
// (no report URL).
type SettingsUpdate struct {
	BID       int64  `json:"bid"`
	SecretKey string `json:"secret_key"`
	URL       string `json:"url"`
}

// Fingerprint names these settings without revealing them: HMAC-SHA256
// keyed by the secret over the bid and URL, the first 16 bytes in hex. An
// agent sends its fingerprint in hello; the hub compares it with the
// host's stored settings and sends settings.update when they differ, so a
// change made while the agent was offline reaches it at its next
// connection.
func (u SettingsUpdate) Fingerprint() string {
	m := hmac.New(sha256.New, []byte(u.SecretKey))
	m.Write([]byte(strconv.FormatInt(u.BID, 10) + "\n" + u.URL))
	return hex.EncodeToString(m.Sum(nil)[:16])
}

// SettingsRequest is the body of POST PathSettings. WebhookFormat is
// optional: "" keeps the host's format.
type SettingsRequest struct {
	BID           int64  `json:"bid"`
	SecretKey     string `json:"secret_key"`
	URL           string `json:"url"`
	WebhookFormat string `json:"webhook_format,omitempty"`
}

// SettingsResponse answers POST PathSettings. DeliveryID is the queued
// webhook delivery.
type SettingsResponse struct {
	OK         bool   `json:"ok"`
	DeliveryID string `json:"delivery_id,omitempty"`
}
