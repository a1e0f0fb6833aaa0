package installer

import (
	"context"

	"hostgate/internal/hosts"
)

// DownloadHosts is what an installer download asks of the hosts service.
type DownloadHosts interface {
	// Get returns owner's host id; not_found for another user's.
	Get(ctx context.Context, owner, id string) (hosts.Host, error)
	// Exe is the Windows agent's download address and SHA-256.
	Exe() (url, sha256 string)
	// IssueInstallToken issues new install credentials for owner's host.
	IssueInstallToken(ctx context.Context, owner, id string) (hosts.Credentials, error)
}

// ExeGetter gives the Windows agent executable an .exe installer wraps.
type ExeGetter interface {
	Get(ctx context.Context) ([]byte, error)
}

// Downloads is the installer download's use case (GET …/hosts/{id}/installer).
type Downloads struct {
	Hosts DownloadHosts
	Exe   ExeGetter
}

// Installer renders the installer of format (PS1, CMD, EXE; "" for EXE)
// for owner's host id, embedding new install credentials. It checks first
// and issues after, so a refused request leaves the host's current
// credentials working.
func (d *Downloads) Installer(ctx context.Context, owner, id, format string) (Script, error) {
	if _, err := d.Hosts.Get(ctx, owner, id); err != nil {
		return Script{}, err
	}
	url, sum := d.Hosts.Exe()
	if err := Check(format, url, sum); err != nil {
		return Script{}, err
	}
	var exe []byte
	if format == EXE || format == "" {
		var err error
		if exe, err = d.Exe.Get(ctx); err != nil {
			return Script{}, err
		}
	}
	c, err := d.Hosts.IssueInstallToken(ctx, owner, id)
	if err != nil {
		return Script{}, err
	}
	if exe != nil {
		return RenderExe(exe, c)
	}
	return Render(format, c)
}
