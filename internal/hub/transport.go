package hub

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"time"

	"hostgate/internal/accounts"
	"hostgate/internal/admin"
	"hostgate/internal/agentdist"
	"hostgate/internal/agentgw"
	"hostgate/internal/agentproto"
	"hostgate/internal/audit"
	"hostgate/internal/dashboard"
	"hostgate/internal/dispatch"
	"hostgate/internal/hosts"
	"hostgate/internal/httpapi"
	"hostgate/internal/installer"
	"hostgate/internal/l1"
	"hostgate/internal/l1config"
	"hostgate/internal/l1gate"
	"hostgate/internal/paging"
	"hostgate/internal/upgrades"
	"hostgate/internal/versions"
)

// The services httpapi's Config names that no one service provides are
// put together here, each method handing on to the service that acts.

// adminConsole is httpapi.Admins: the admin service, the audit log and
// the dashboard's figures.
type adminConsole struct {
	*admin.Service
	audit interface {
		ListAudit(ctx context.Context, f audit.Filter, p paging.Page) ([]audit.Entry, int, error)
	}
	dashboard *dashboard.Service
}

func (a adminConsole) Series(ctx context.Context, bucket string, points int) (dashboard.Series, error) {
	return a.dashboard.Series(ctx, bucket, points)
}

func (a adminConsole) Live(ctx context.Context) (dashboard.Sample, error) {
	return a.dashboard.Live(ctx)
}

func (a adminConsole) ListAudit(ctx context.Context, f audit.Filter, p paging.Page) ([]audit.Entry, int, error) {
	return a.audit.ListAudit(ctx, f, p)
}

// agents is httpapi.Agents.
type agents struct {
	hosts  *hosts.Service
	charge interface {
		Charge(ctx context.Context, userID, apiKeyID, hostID, code string) error
	}
	dispatch  *dispatch.Dispatcher
	live      *hosts.Liveness
	gw        *agentgw.Gateway
	upgrades  *upgrades.Service
	versions  *versions.Service
	l1config  *l1config.Service
	l1charged *l1config.Charged
	l1gate    *l1gate.Service
}

var _ httpapi.Agents = agents{}

func (a agents) CountOnline(ctx context.Context) (int64, error) { return a.dispatch.CountOnline(ctx) }

func (a agents) Send(ctx context.Context, hostID, op string, args json.RawMessage, timeout time.Duration) (agentproto.Response, error) {
	return a.dispatch.Send(ctx, hostID, op, args, timeout)
}

func (a agents) Seen(hostID string) { a.live.Seen(hostID) }

func (a agents) Admit() (done func(), retryAfter time.Duration, ok bool) { return a.gw.Admit() }

func (a agents) Upgrade(w http.ResponseWriter, r *http.Request, ag hosts.Agent, publicIP string) {
	a.gw.Upgrade(w, r, ag, publicIP)
}

func (a agents) PushUpgrade(ctx context.Context, actor audit.Actor, hostID, version string) (upgrades.Result, error) {
	return a.upgrades.Push(ctx, actor, hostID, version)
}

func (a agents) ListVersions(ctx context.Context, f versions.Filter, p paging.Page) (paging.Result[versions.Version], error) {
	return a.versions.List(ctx, f, p)
}

func (a agents) PublishVersion(ctx context.Context, actor audit.Actor, p versions.Publish) (versions.Version, error) {
	return a.versions.Publish(ctx, actor, p)
}

func (a agents) YankVersion(ctx context.Context, actor audit.Actor, version string) (versions.Version, error) {
	return a.versions.Yank(ctx, actor, version)
}

func (a agents) UpdateL1Config(ctx context.Context, owner, hostID string, who l1config.Who, r l1config.Request) (l1config.L1ConfigPutResp, error) {
	return a.l1config.Update(ctx, owner, hostID, who, r)
}

func (a agents) ChargedUpdateL1Config(ctx context.Context, owner, apiKeyID, hostID string, who l1config.Who, r l1config.Request) (l1config.L1ConfigPutResp, error) {
	return a.l1charged.Update(ctx, owner, apiKeyID, hostID, who, r)
}

func (a agents) ServeL1(ctx context.Context, ip, bidParam string, body io.Reader) (int, l1.Response, bool) {
	if a.l1gate == nil {
		return 0, l1.Response{}, false
	}
	status, resp := a.l1gate.Serve(ctx, ip, bidParam, body)
	return status, resp, true
}

// installs is httpapi.Installs.
type installs struct {
	downloads *installer.Downloads
	dist      *agentdist.Dist
	oneLine   *installer.OneLine
}

var _ httpapi.Installs = installs{}

func (i installs) Installer(ctx context.Context, owner, id, format string) (installer.Script, error) {
	return i.downloads.Installer(ctx, owner, id, format)
}
func (i installs) Downloads() []agentdist.Binary { return i.dist.List() }
func (i installs) SHA256SUMS() []byte            { return i.dist.SHA256SUMS() }
func (i installs) OpenDownload(name string) (agentdist.File, agentdist.Binary, error) {
	return i.dist.Open(name)
}

func (i installs) OneLine(ctx context.Context, file, clientIP string) (installer.Script, bool, error) {
	return i.oneLine.Fetch(ctx, file, clientIP)
}

// logins is terminals.Logins: the user sessions and the admins.
type logins struct {
	accounts *accounts.Service
	admins   *admin.Service
}

func (l logins) SessionRevoked(ctx context.Context, sessionID string) (bool, error) {
	return l.accounts.SessionRevoked(ctx, sessionID)
}

func (l logins) AdminSessionEnded(ctx context.Context, adminID, sessionID string) (bool, error) {
	return l.admins.SessionEnded(ctx, adminID, sessionID)
}
