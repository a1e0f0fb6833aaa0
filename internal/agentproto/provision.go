package agentproto

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
)

// The exe installer is the agent executable with the spec's provisioning
// payload appended after it, followed by a fixed trailer:
//
//	<agent.exe bytes> <payload JSON> <uint32 little-endian payload length> "HGPROV01"
//
// Windows ignores bytes after a PE image, so the file still runs; the agent,
// started without arguments, reads the trailer of its own file and installs
// itself with the payload. The payload is the JSON "provisioning payload" of
// spec section 2 (schema_version 1).
const (
	Magic      = "HGPROV01"
	maxPayload = 4 << 10
)

// Payload is the provisioning payload.
type Payload struct {
	SchemaVersion int        `json:"schema_version"`
	Hub           PayloadHub `json:"hub"`
}

// PayloadHub is the payload's required hub section.
type PayloadHub struct {
	HostID           string `json:"host_id"`
	BID              int64  `json:"bid"`
	SecretKey        string `json:"secret_key"`
	InstallToken     string `json:"install_token"`
	AgentPrivkeySeed string `json:"agent_privkey_seed"`
	AgentPubkey      string `json:"agent_pubkey"`
	WSURL            string `json:"ws_url,omitempty"`
	APIEndpoint      string `json:"api_endpoint,omitempty"`
	ListenPort       int    `json:"listen_port,omitempty"`
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

// ReadPayload reads the payload from the end of an executable's contents.
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
	var p Payload
	dec := json.NewDecoder(bytes.NewReader(file[start : start+size]))
	if err := dec.Decode(&p); err != nil {
		return Payload{}, fmt.Errorf("installer: payload: %w", err)
	}
	if p.SchemaVersion != 1 || p.Hub.HostID == "" {
		return Payload{}, fmt.Errorf("installer: unsupported payload")
	}
	return p, nil
}
