package agentproto

import (
	"context"
	"encoding/json"
	"fmt"
)

// Handler carries out one operation on the agent: args are the command's
// args (ControlArgs for the controls operations); the result is sent back
// as JSON. An *Error keeps its code in the response.
type Handler = func(ctx context.Context, args json.RawMessage) (any, error)

// OpName is the op of controls value ctl. An unknown value is a
// programming error and panics.
func OpName(ctl int64) string {
	c, ok := ControlByValue(ctl)
	if !ok {
		panic(fmt.Sprintf("agentproto: no control with value %d", ctl))
	}
	return c.Op
}

// DecodeArgs parses a controls command's args and validates them with
// ValidateArgs, so the agent is exactly as strict as the hub.
func DecodeArgs(ctl int64, raw json.RawMessage) (ControlArgs, error) {
	var a ControlArgs
	if len(raw) > 0 && string(raw) != "null" {
		if err := json.Unmarshal(raw, &a); err != nil {
			return a, ArgsError("args: %v", err)
		}
	}
	return a, ValidateArgs(ctl, a)
}

// ControlFunc carries out one controls operation with its args decoded
// and validated.
type ControlFunc func(ctx context.Context, a ControlArgs) (any, error)

// ControlHandlers keys ops by op name, each wrapped to decode and
// validate its args first (DecodeArgs) and to refuse to start once ctx
// has ended.
func ControlHandlers(ops map[int64]ControlFunc) map[string]Handler {
	hs := make(map[string]Handler, len(ops))
	for ctl, f := range ops {
		hs[OpName(ctl)] = func(ctx context.Context, raw json.RawMessage) (any, error) {
			a, err := DecodeArgs(ctl, raw)
			if err != nil {
				return nil, err
			}
			if err := ctx.Err(); err != nil {
				return nil, &Error{Code: CodeFailed, Message: "cancelled before start: " + err.Error()}
			}
			return f(ctx, a)
		}
	}
	return hs
}
