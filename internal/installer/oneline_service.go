package installer

import (
	"context"
	"log/slog"
	"strings"

	"hostgate/internal/agentdist"
	"hostgate/internal/apperr"
	"hostgate/internal/hosts"
)

// OneLineHosts is what the one-line installer asks of the hosts service.
type OneLineHosts interface {
	// Exe is the Windows agent's download address and SHA-256.
	Exe() (url, sha256 string)
	// APIEndpoint is the hub's public base address.
	APIEndpoint() string
	// RedeemInstallToken spends an install token and issues new install
	// credentials for its host; not_found for an unknown, spent or
	// expired token.
	RedeemInstallToken(ctx context.Context, installToken, from string) (hosts.Credentials, error)
}

// AgentBinaries are the agent binaries the hub serves at /download/.
type AgentBinaries interface {
	Binary(goos, goarch string) (agentdist.Binary, bool)
}

// RateLimiter counts an event for a key: ok is false past the limit,
// first true for the first refused event of its window.
type RateLimiter interface {
	Allow(ctx context.Context, key string) (ok, first bool, err error)
}

// OneLine is the one-line install's use case (docs/hosts.md): GET
// /install/<install token>.ps1 or .sh, with no other credential. The
// token is spent by the fetch, which issues new install credentials for
// its host (as install-token does) and answers the installer embedding
// them. Unknown, spent and expired tokens all get one short script
// (Refused), which says the line was used or has expired and how to get a
// new one, and exits non-zero. A refused fetch (rate, no agent to
// install) spends nothing. The token is never logged.
type OneLine struct {
	Hosts     OneLineHosts
	Downloads AgentBinaries
	// Limit bounds the fetches per source address.
	Limit RateLimiter
	Log   *slog.Logger
}

// Fetch answers the one-line installer file (<install token>.ps1 or
// <install token>.sh) fetched from clientIP. refused is true when the
// script is the refusal (Refused) for an unknown, spent or expired token.
// Errors: not_found for another file name, rate_limited past the limit
// (retry in a minute), exe_not_configured when the hub has no agent to
// install for that script (the token is not spent).
func (o *OneLine) Fetch(ctx context.Context, file, clientIP string) (sc Script, refused bool, err error) {
	token, kind, ok := strings.Cut(file, ".")
	if !ok || (kind != PS1 && kind != "sh") {
		return Script{}, false, apperr.NotFound("installer")
	}
	allowed, first, err := o.Limit.Allow(ctx, clientIP)
	if err != nil {
		return Script{}, false, err
	}
	if !allowed {
		if first {
			o.Log.InfoContext(ctx, "one-line installer rate limited", "client_ip", clientIP)
		}
		return Script{}, false, apperr.New(apperr.CodeRateLimited, "too many installer requests from this address; retry in a minute")
	}
	// Check what the script needs before the token is spent.
	var bins []Binary
	if kind == "sh" {
		bins = o.linuxBinaries()
		err = CheckShell(bins)
	} else {
		url, sum := o.Hosts.Exe()
		err = Check(PS1, url, sum)
	}
	if err != nil {
		return Script{}, false, err
	}
	c, err := o.Hosts.RedeemInstallToken(ctx, token, clientIP)
	if apperr.Code(err) == apperr.CodeNotFound {
		o.Log.InfoContext(ctx, "one-line installer refused: the token is unknown, spent or expired",
			"client_ip", clientIP, "script", kind)
		return Refused(kind), true, nil
	}
	if err != nil {
		return Script{}, false, err
	}
	o.Log.InfoContext(ctx, "one-line installer fetched", "host_id", c.HostID, "client_ip", clientIP, "script", kind)
	if kind == "sh" {
		sc, err = Shell(c, bins)
	} else {
		sc, err = Piped(c)
	}
	return sc, false, err
}

// linuxBinaries lists the Linux agent binaries the hub serves at
// /download/, with the addresses the script fetches them from.
func (o *OneLine) linuxBinaries() []Binary {
	var bins []Binary
	for _, arch := range LinuxArchs {
		if b, ok := o.Downloads.Binary("linux", arch); ok {
			bins = append(bins, Binary{Arch: arch, URL: b.URL(o.Hosts.APIEndpoint()), SHA256: b.SHA256})
		}
	}
	return bins
}
