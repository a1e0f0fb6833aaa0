package agent

import (
	"context"
	"encoding/json"

	"hostgate/internal/agentproto"
)

// opChangeWatchDir is the op of CHANGE_WATCH_DIR, which the agent serves
// itself: the watched directory is the agent's own state.
var opChangeWatchDir = agentproto.OpName(agentproto.CtlChangeWatchDir)

// lookup returns the handler of op among the operations carried out by
// controls value: the agent's own (CHANGE_WATCH_DIR, control.raw), then
// its registry. The ops served per session (agent.upgrade, shell.resize,
// settings.update) are not among them.
func (a *Agent) lookup(op string) (Handler, bool) {
	switch op {
	case opChangeWatchDir:
		return a.changeWatchDir, true
	case agentproto.OpRawControl:
		return a.rawControl, true
	}
	return a.reg.Lookup(op)
}

// rawControl serves agentproto.OpRawControl: a controls value the hub has
// no operation for. A value of this agent's table whose operation it
// carries out by value (a newer agent's operation an older hub does not
// know) is carried out; any other value is answered unsupported_control,
// naming it.
func (a *Agent) rawControl(ctx context.Context, raw json.RawMessage) (any, error) {
	var rc agentproto.RawControl
	if err := json.Unmarshal(raw, &rc); err != nil {
		return nil, agentproto.ArgsError("args: %v", err)
	}
	c, ok := agentproto.ControlByValue(rc.Controls)
	if !ok {
		return nil, agentproto.UnsupportedControl(rc.Controls)
	}
	if c.Carry == agentproto.NotImplemented {
		return nil, agentproto.NotImplementedError(c)
	}
	h, ok := a.lookup(c.Op)
	if !ok || c.Op == agentproto.OpRawControl {
		return nil, agentproto.UnsupportedControl(rc.Controls)
	}
	args, err := json.Marshal(agentproto.ControlArgs{Path: rc.Path, Data: rc.Data})
	if err != nil {
		return nil, agentproto.ArgsError("args: %v", err)
	}
	return h(ctx, args)
}
