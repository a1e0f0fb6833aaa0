//go:build !windows

package winops

import (
	"runtime"

	"hostgate/internal/agentproto"
)

// registryOp: the registry exists on Windows only.
func registryOp(regRequest) (any, error) {
	return nil, agentproto.UnsupportedPlatform(agentproto.OpName(agentproto.CtlRegistryRW), runtime.GOOS)
}
