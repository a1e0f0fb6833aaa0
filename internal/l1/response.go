package l1

import "encoding/json"

// Answer codes of the legacy protocol. There are exactly two.
const (
	CodeOK      = 0
	CodeFailure = 7
)

// MsgInvalid is the one msg for a message that was refused before it was
// carried out: bad body, wrong key, stale ts, replayed nonce.
const MsgInvalid = "invalid message"

// Response is the plain JSON answer to an L1 request. Data is the
// operation's result on success and null on failure; all three fields are
// always present.
type Response struct {
	Code int             `json:"code"`
	Data json.RawMessage `json:"data"`
	Msg  string          `json:"msg"`
}

// OK answers a request that was carried out; nil data is sent as null.
func OK(data json.RawMessage) Response {
	return Response{Code: CodeOK, Data: data, Msg: "ok"}
}

// Fail answers a request that failed. msg is shown to the sender: it must
// hold no secret and, before a request has been decoded, must be
// MsgInvalid (use Invalid).
func Fail(msg string) Response {
	return Response{Code: CodeFailure, Msg: msg}
}

// Invalid is the uniform answer to a refused message.
func Invalid() Response { return Fail(MsgInvalid) }
