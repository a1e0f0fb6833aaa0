package hub

import (
	"context"
	"strings"

	"hostgate/internal/agentdist"
	"hostgate/internal/agentproto"
	"hostgate/internal/apperr"
	"hostgate/internal/audit"
	"hostgate/internal/installer"
	"hostgate/internal/paging"
	"hostgate/internal/versions"
)

// agentExe is the agent executable install credentials and installers
// hand out: GATEWAY_EXE_URL when set (a CDN, say), else the hub's own
// windows/amd64 download, which the exe installer reads without a request
// to the hub's own address. Both empty when there is neither.
func agentExe(cfg Config, dist *agentdist.Dist) (url, sum string, src *installer.ExeSource) {
	if cfg.ExeURL != "" {
		return cfg.ExeURL, cfg.ExeSHA256, &installer.ExeSource{URL: cfg.ExeURL, SHA256: cfg.ExeSHA256}
	}
	b, ok := dist.Binary("windows", "amd64")
	if !ok {
		return "", "", &installer.ExeSource{}
	}
	url = b.URL(cfg.PublicURL.String())
	return url, b.SHA256, &installer.ExeSource{URL: url, SHA256: b.SHA256,
		Local: func() ([]byte, error) { return dist.ReadFile(b.Name) }}
}

// HubActor is the audit actor of what the hub does by itself at start.
var HubActor = audit.Actor{AdminID: "hub", Role: "hub"}

// publishFirstVersion publishes the served windows/amd64 agent as the
// first gateway version when none is published yet (yanked ones count),
// so that a new installation can push upgrades without an admin first
// hosting a build. Instances starting together may race: the loser's
// version_exists is the winner's row. A failure is logged, not fatal.
func (h *Hub) publishFirstVersion(ctx context.Context) {
	b, ok := h.dist.Binary("windows", "amd64")
	if !ok {
		return
	}
	log := h.log.With("version", h.dist.Version(), "file", b.Name)
	if h.dist.Version() == "" {
		log.Info("not publishing the served agent as a gateway version: no VERSION file beside it")
		return
	}
	_, total, err := h.store.Versions.ListVersions(ctx, versions.Filter{IncludeYanked: true}, paging.Page{Limit: 1})
	if err != nil || total > 0 {
		if err != nil {
			log.Warn("first gateway version: listing versions failed", "err", err)
		}
		return
	}
	_, err = h.Versions.Publish(ctx, HubActor, versions.Publish{
		Version: h.dist.Version(), ExeURL: b.URL(h.cfg.PublicURL.String()), ExeSHA256: b.SHA256, ExeSizeBytes: b.Size,
		MinSupportedProtocol: agentproto.MinSupported, Changelog: "Published by the hub at first start: the agent built into it.",
	})
	switch {
	case err == nil:
		log.Info("published the served agent as the first gateway version")
	case apperr.Is(err, versions.CodeVersionExists):
	default:
		log.Warn("first gateway version not published", "err", err)
	}
}

// downloadsReady is the agent_downloads field of /readyz.
func downloadsReady(dist *agentdist.Dist) string {
	bins := dist.List()
	if len(bins) == 0 {
		if dist.Source() == agentdist.BuiltIn {
			return "none built: run make build"
		}
		return "none built: HOSTGATE_AGENT_DIR " + dist.Source() + " holds no hostgate-agent-<os>-<arch> file"
	}
	var platforms []string
	for _, b := range bins {
		platforms = append(platforms, b.OS+"/"+b.Arch)
	}
	s := strings.Join(platforms, ", ")
	if v := dist.Version(); v != "" {
		s += " (" + v + ")"
	}
	return s
}

// openDist opens the agent downloads, naming the setting on failure.
func openDist(cfg Config) (*agentdist.Dist, error) {
	d, err := agentdist.Open(cfg.AgentDir)
	if err != nil {
		return nil, &SettingError{Setting: "HOSTGATE_AGENT_DIR", Err: err, Problem: message(err),
			Fix: "point it at a directory of agent binaries (docs/agent.md, Downloads), or unset it to serve the agents built into the hub"}
	}
	return d, nil
}
