package agent

import (
	"context"

	"hostgate/internal/agent/sysops"
	"hostgate/internal/agentproto"
)

// Sampler produces one metrics sample. Sample is called once per metrics
// interval and should return well within it.
type Sampler interface {
	Sample(ctx context.Context) (agentproto.Metrics, error)
}

// SamplerFunc adapts a function to Sampler.
type SamplerFunc func(ctx context.Context) (agentproto.Metrics, error)

// Sample calls f.
func (f SamplerFunc) Sample(ctx context.Context) (agentproto.Metrics, error) { return f(ctx) }

// newDefaultSampler is the sampler used when Settings.Sampler is nil: the
// process's shared sysops sampler, which SYSTEM_METRICS also uses, so the
// periodic push and the operation report rates over the same intervals.
func newDefaultSampler() Sampler { return sysops.Default() }
