//go:build !windows

package winops

import (
	"context"
	"runtime"

	"hostgate/internal/agentproto"
)

// serviceOp: services exist on Windows only.
func serviceOp(context.Context, serviceRequest) (any, error) {
	return nil, agentproto.UnsupportedPlatform(agentproto.OpName(agentproto.CtlServiceCtl), runtime.GOOS)
}
