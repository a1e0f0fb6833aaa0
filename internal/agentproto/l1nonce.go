package agentproto

import (
	"bytes"
	"encoding/json"
)

// OpL1Nonce asks the agent to record the nonce of an L1 message the hub
// accepted on /gateway, in the replay memory its local L1 listener checks,
// before the hub charges and sends the message's control (docs/l1.md §3).
// It makes the two receivers of a host's L1 messages share one nonce
// memory: a frame carried out by one is refused by the other. The agent
// serves it itself; an agent older than it answers unknown_op.
const OpL1Nonce = "l1.nonce"

// L1Nonce is the argument of OpL1Nonce: the message's bid (the agent
// records the nonce under the scope its listener uses for that bid),
// nonce, and the unix second from which every receiver refuses the
// message as stale (l1.Request.NonceExpiry).
type L1Nonce struct {
	BID       int64  `json:"bid"`
	Nonce     string `json:"nonce"`
	ExpiresAt int64  `json:"expires_at"`
}

// L1NonceResult is the result of OpL1Nonce. Recorded is true when the
// nonce was new and is now recorded; false when the agent already holds it
// (its listener or an earlier /gateway request used it): the hub must then
// refuse the message as a replay. A missing result reads as false.
type L1NonceResult struct {
	Recorded bool `json:"recorded"`
}

// DecodeL1Nonce parses the args of OpL1Nonce strictly: unknown keys, a
// bid or expiry that is not positive are invalid_args. The nonce's own
// syntax is the nonce store's to check.
func DecodeL1Nonce(raw json.RawMessage) (L1Nonce, error) {
	var n L1Nonce
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&n); err != nil {
		return L1Nonce{}, ArgsError("args: %v", err)
	}
	if dec.More() {
		return L1Nonce{}, ArgsError("args: more than one JSON value")
	}
	switch {
	case n.BID <= 0:
		return L1Nonce{}, ArgsError("bid must be a positive integer")
	case n.ExpiresAt <= 0:
		return L1Nonce{}, ArgsError("expires_at must be positive unix seconds")
	case n.Nonce == "":
		return L1Nonce{}, ArgsError("nonce is required")
	}
	return n, nil
}
