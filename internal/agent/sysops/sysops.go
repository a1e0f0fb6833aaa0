// Package sysops carries out the agent's system operations: SYSTEM_INFO
// (op "system.info"), a description of the host, and SYSTEM_METRICS (op
// "system.metrics"), one load sample. Its Sampler also feeds the agent's
// periodic metrics push, so both report the same numbers.
//
// Readings come from gopsutil's native calls (procfs and sysfs on Linux,
// Win32 and NT calls on Windows); the packages that query WMI on Windows
// (load, sensors) are not used, because WMI can take seconds to answer.
// Where one part of a reading fails (a disk that cannot be stat'ed, a
// counter the OS refuses) the answer carries the rest with that part empty.
package sysops

import (
	"context"

	"hostgate/internal/agentproto"
)

// Handler is an agent operation handler.
type Handler = agentproto.Handler

// Handlers returns the operations of this package keyed by op name.
// agentVersion is reported in SYSTEM_INFO's agent_version. SYSTEM_METRICS
// shares Default's sampler with the agent's periodic push, so its rates
// cover the time since the most recent sample of either.
func Handlers(agentVersion string) map[string]Handler {
	return handlers(agentVersion, systemSource(), Default())
}

func handlers(agentVersion string, src *source, s *Sampler) map[string]Handler {
	return agentproto.ControlHandlers(map[int64]agentproto.ControlFunc{
		agentproto.CtlSystemInfo: func(ctx context.Context, _ agentproto.ControlArgs) (any, error) {
			return collectInfo(ctx, src, agentVersion), nil
		},
		agentproto.CtlSystemMetrics: func(ctx context.Context, _ agentproto.ControlArgs) (any, error) {
			m, err := s.Sample(ctx)
			if err != nil {
				return nil, &agentproto.Error{Code: agentproto.CodeFailed, Message: "metrics: " + err.Error()}
			}
			return m, nil
		},
	})
}
