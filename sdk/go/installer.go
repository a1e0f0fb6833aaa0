package hostgate

import (
	"context"
	"encoding/json"
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"strings"
)

// Installer formats.
const (
	InstallerEXE = "exe" // the agent executable with its provisioning payload (the default)
	InstallerPS1 = "ps1" // a PowerShell script
	InstallerCMD = "cmd" // a .cmd embedding the PowerShell script
)

// Installer is a downloaded installer: the file's bytes and its name.
type Installer struct {
	Content     []byte
	FileName    string // install-<host id>.<format>
	ContentType string
}

// Installer downloads an installer of the host: format InstallerEXE ("" is
// the same), InstallerPS1 or InstallerCMD. Like InstallToken it issues new
// install credentials (the previous ones stop working), so it is never
// retried. Not charged.
func (c *Client) Installer(ctx context.Context, hostID, format string) (Installer, error) {
	p := hostPath(hostID) + "/installer"
	if format != "" {
		p += "?format=" + url.QueryEscape(format)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.base+p, nil)
	if err != nil {
		return Installer{}, fmt.Errorf("hostgate: %w", err)
	}
	req.Header.Set("Authorization", "Bearer "+c.key)
	resp, b, err := c.send(ctx, req)
	if err != nil {
		return Installer{}, err
	}
	in := Installer{Content: b, ContentType: resp.Header.Get("Content-Type")}
	if strings.HasPrefix(in.ContentType, "application/json") {
		// A JSON string of base64 bytes, as a generic JSON proxy may make it.
		if err := json.Unmarshal(b, &in.Content); err != nil {
			return Installer{}, fmt.Errorf("hostgate: decode installer: %w", err)
		}
	}
	if _, params, err := mime.ParseMediaType(resp.Header.Get("Content-Disposition")); err == nil {
		in.FileName = params["filename"]
	}
	return in, nil
}
