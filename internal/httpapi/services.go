package httpapi

import (
	"context"
	"encoding/json"
	"io"
	"io/fs"
	"net/http"
	"net/netip"
	"time"

	"hostgate/internal/accounts"
	"hostgate/internal/admin"
	"hostgate/internal/agentdist"
	"hostgate/internal/agentproto"
	"hostgate/internal/apikeys"
	"hostgate/internal/audit"
	"hostgate/internal/billing"
	"hostgate/internal/dashboard"
	"hostgate/internal/hosts"
	"hostgate/internal/installer"
	"hostgate/internal/l1"
	"hostgate/internal/l1config"
	"hostgate/internal/operations"
	"hostgate/internal/paging"
	"hostgate/internal/terminals"
	"hostgate/internal/upgrades"
	"hostgate/internal/versions"
)

// The services the handlers call: each interface is the few methods of
// one service (or, for Admins, Agents and Installs, of the few the hub
// wiring puts together) that the transport uses, and nothing else.

// Accounts is users' sign-up, sign-in and profile (accounts.Service).
type Accounts interface {
	Authenticate(ctx context.Context, token string) (accounts.Principal, error)
	CountByStatus(ctx context.Context) (map[accounts.Status]int, error)
	ChangePassword(ctx context.Context, userID, current, next string) (accounts.Auth, error)
	Get(ctx context.Context, id string) (accounts.User, error)
	List(ctx context.Context, f accounts.UserFilter, p paging.Page) (paging.Result[accounts.User], error)
	Login(ctx context.Context, email, password string) (accounts.Auth, error)
	Logout(ctx context.Context, refreshToken string) error
	Refresh(ctx context.Context, refreshToken string) (accounts.Auth, error)
	Register(ctx context.Context, email, password string) (accounts.Auth, error)
	SetStatus(ctx context.Context, actor audit.Actor, id string, st accounts.Status) error
	UpdateDisplayName(ctx context.Context, id, name string) (accounts.User, error)
}

// Admins is the admins' sign-in and step-up (admin.Service) and the
// audit log they read.
type Admins interface {
	Authenticate(ctx context.Context, token string) (admin.Principal, error)
	ConsumeStepUp(ctx context.Context, p admin.Principal, token string) error
	Login(ctx context.Context, username, password string) (admin.Auth, error)
	Refresh(ctx context.Context, refreshToken string) (admin.Auth, error)
	Logout(ctx context.Context, refreshToken string) error
	EndSession(ctx context.Context, p admin.Principal) error
	StepUp(ctx context.Context, p admin.Principal, password string) (string, error)
	ListAudit(ctx context.Context, f audit.Filter, p paging.Page) ([]audit.Entry, int, error)
	Get(ctx context.Context, id string) (admin.Admin, error)
	List(ctx context.Context, f admin.Filter, p paging.Page) (paging.Result[admin.Admin], error)
	Add(ctx context.Context, p admin.Principal, actor audit.Actor, stepUp string, n admin.NewAdmin) (admin.Admin, error)
	SetRole(ctx context.Context, p admin.Principal, actor audit.Actor, stepUp, id string, role admin.Role) (admin.Admin, error)
	SetStatusByID(ctx context.Context, actor audit.Actor, id, status string) (admin.Admin, error)
	Dashboard
}

// Dashboard is the admin dashboard's figures (dashboard.Service).
type Dashboard interface {
	// Series is the figures per bucket ("hour" or "day") of the last
	// points buckets; bad values are invalid_query.
	Series(ctx context.Context, bucket string, points int) (dashboard.Series, error)
	// Live is the fleet's figures now.
	Live(ctx context.Context) (dashboard.Sample, error)
}

// APIKeys is users' API keys (apikeys.Service).
type APIKeys interface {
	Authenticate(ctx context.Context, raw string) (apikeys.Principal, error)
	AdminList(ctx context.Context, owner string) ([]apikeys.AdminKey, error)
	Count(ctx context.Context, owner string) (int, error)
	Create(ctx context.Context, owner, name string) (apikeys.Created, error)
	Delete(ctx context.Context, owner, id string) error
	List(ctx context.Context, owner string) ([]apikeys.Key, error)
}

// Hosts is hosts, their credentials and the agents' sign-in
// (hosts.Service).
type Hosts interface {
	installer.Issuer
	HostTags
	AdminDelete(ctx context.Context, actor audit.Actor, id string) error
	AdminGet(ctx context.Context, id string) (hosts.Host, error)
	AdminList(ctx context.Context, q hosts.AdminQuery, p paging.Page) (paging.Result[hosts.AdminHost], error)
	AgentVersions(ctx context.Context) ([]hosts.VersionCount, error)
	AuthenticateAgent(ctx context.Context, token string) (hosts.Agent, error)
	Challenge(ctx context.Context, hostID string) (agentproto.ChallengeResponse, error)
	Commandable(ctx context.Context, owner, id string) error
	CountByStatus(ctx context.Context) (map[hosts.Status]int, error)
	CountOwned(ctx context.Context, owner string) (int, error)
	Create(ctx context.Context, owner, name string, listenPort *int, withCredentials bool) (hosts.Host, *hosts.Credentials, error)
	Delete(ctx context.Context, owner, id string) error
	Events(ctx context.Context, id string, limit int) ([]hosts.Event, error)
	Flaps(ctx context.Context, id string) (hosts.Flaps, error)
	Get(ctx context.Context, owner, id string) (hosts.Host, error)
	HostsByVersion(ctx context.Context, versions []string) (map[string]int, error)
	List(ctx context.Context, owner string) ([]hosts.Host, error)
	Metrics(ctx context.Context, id string, limit int) ([]hosts.Metrics, error)
	Online(ctx context.Context, hostID, installToken string) (agentproto.TokenResponse, error)
	OwnedMetrics(ctx context.Context, owner, id string, limit int) ([]hosts.Metrics, error)
	Page(ctx context.Context, owner string, f hosts.OwnedFilter, p paging.Page) (paging.Result[hosts.Host], error)
	Refresh(ctx context.Context, hostID, challenge, signature string) (agentproto.TokenResponse, error)
	RotateSecret(ctx context.Context, owner, id string, by hosts.ChangedBy) (hosts.Credentials, error)
	RotateSecretView(ctx context.Context, owner, id string, by hosts.ChangedBy) (hosts.Host, hosts.Credentials, error)
	SetBanned(ctx context.Context, actor audit.Actor, id string, ban bool) (hosts.Host, error)
	Update(ctx context.Context, owner, id string, name *string, listenPort *int) (hosts.Host, error)
}

// Agents is the agents' side of the hub: their connections (presence,
// the gateway, liveness), what runs on them (a ping, upgrades, the
// published versions), their L1 configuration and the L1 gateway.
type Agents interface {
	CountOnline(ctx context.Context) (int64, error)
	Send(ctx context.Context, hostID, op string, args json.RawMessage, timeout time.Duration) (agentproto.Response, error)
	// Seen notes an agent's sign-in (liveness).
	Seen(hostID string)
	// Admit and Upgrade are the agent WebSocket's admission and upgrade.
	Admit() (done func(), retryAfter time.Duration, ok bool)
	Upgrade(w http.ResponseWriter, r *http.Request, a hosts.Agent, publicIP string)
	// HostState is the owner's host, its presence and its latest
	// upgrade; AdminHostState the same for any host.
	HostState(ctx context.Context, owner, id string) (HostState, error)
	AdminHostState(ctx context.Context, id string) (HostState, error)
	// ChargedHostState is the client API's host query: the owner's host
	// and its presence, then the call charged host.query (nothing is
	// charged when the host is not found). Upgrade is not read.
	ChargedHostState(ctx context.Context, owner, apiKeyID, id string) (HostState, error)
	// LiveHosts is all the owner's hosts, LiveHostPage one page of them
	// and AdminLiveHostPage one page of all hosts, each with the live
	// presence of its hosts (host id → connected) read in one batch.
	// ChargedLiveHosts is the client API's list: charged host.query
	// first, then LiveHosts.
	LiveHosts(ctx context.Context, owner string) ([]hosts.Host, map[string]bool, error)
	ChargedLiveHosts(ctx context.Context, owner, apiKeyID string) ([]hosts.Host, map[string]bool, error)
	LiveHostPage(ctx context.Context, owner string, f hosts.OwnedFilter, p paging.Page) (paging.Result[hosts.Host], map[string]bool, error)
	// ChargedLiveHostPage is the client API's paged list: the page (so a
	// bad query is refused free), then the call charged host.query.
	ChargedLiveHostPage(ctx context.Context, owner, apiKeyID string, f hosts.OwnedFilter, p paging.Page) (paging.Result[hosts.Host], map[string]bool, error)
	AdminLiveHostPage(ctx context.Context, q hosts.AdminQuery, p paging.Page) (paging.Result[hosts.AdminHost], map[string]bool, error)
	PushUpgrade(ctx context.Context, actor audit.Actor, hostID, version string) (upgrades.Result, error)
	ListVersions(ctx context.Context, f versions.Filter, p paging.Page) (paging.Result[versions.Version], error)
	PublishVersion(ctx context.Context, actor audit.Actor, p versions.Publish) (versions.Version, error)
	YankVersion(ctx context.Context, actor audit.Actor, version string) (versions.Version, error)
	UpdateL1Config(ctx context.Context, owner, hostID string, who l1config.Who, r l1config.Request) (l1config.L1ConfigPutResp, error)
	// ChargedUpdateL1Config is the client API's write: validated, the
	// host checked, then charged and written (l1config.Charged.Update).
	ChargedUpdateL1Config(ctx context.Context, owner, apiKeyID, hostID string, who l1config.Who, r l1config.Request) (l1config.L1ConfigPutResp, error)
	// ServeL1 answers POST /gateway; ok is false when the hub has no L1
	// gateway (404).
	ServeL1(ctx context.Context, ip, bidParam string, body io.Reader) (status int, resp l1.Response, ok bool)
}

// HostState is a host as its views show it: the row, whether its agent
// is connected and its latest upgrade (nil when none or not read).
type HostState struct {
	Host    hosts.Host
	Online  bool
	Upgrade *upgrades.Upgrade
}

// Billing is balances, prices, recharges and the billing mode
// (billing.Service).
type Billing interface {
	Adjust(ctx context.Context, actor audit.Actor, userID string, tokens float64, reason, key string) (after billing.Units, replayed bool, err error)
	AllRecharges(ctx context.Context, userID, status string, p paging.Page) (paging.Result[billing.Recharge], error)
	ApplyPayment(ctx context.Context, provider, orderNo string, amountFen int64) (billing.Recharge, bool, error)
	Balance(ctx context.Context, userID string) (billing.Units, error)
	CheckLedger(ctx context.Context, userID string) (balance, sum billing.Units, err error)
	CreateRecharge(ctx context.Context, userID string, amountCNY float64) (billing.Recharge, error)
	CreateRule(ctx context.Context, actor audit.Actor, n billing.NewRule) (billing.Rule, error)
	Events(ctx context.Context, userID string, p paging.Page) (paging.Result[billing.Event], error)
	Mode(ctx context.Context) (string, error)
	Prices(ctx context.Context) ([]billing.Rule, error)
	RechargeByOrderNo(ctx context.Context, orderNo string) (billing.Recharge, error)
	Recharges(ctx context.Context, userID, status string, p paging.Page) (paging.Result[billing.Recharge], error)
	RefundRecharge(ctx context.Context, actor audit.Actor, id, reason string) (billing.Recharge, billing.Units, error)
	Rules(ctx context.Context, includeExpired bool) ([]billing.Rule, error)
	SetMode(ctx context.Context, actor audit.Actor, mode string) error
	Today(ctx context.Context) (billing.Summary, error)
	UpdateRule(ctx context.Context, actor audit.Actor, id string, u billing.RuleUpdate) (billing.Rule, error)
}

// Operations carries out the client API's charged operations
// (operations.Service).
type Operations interface {
	Charge(ctx context.Context, userID, apiKeyID, hostID, code string) error
	Run(ctx context.Context, c operations.Call) (json.RawMessage, error)
	Ping(ctx context.Context, userID, apiKeyID, hostID string) (operations.Pong, error)
	Jobs
}

// Terminals is terminal tickets and shell sessions (terminals.Service).
type Terminals interface {
	UserTicket(ctx context.Context, p terminals.Principal, hostID string) (string, error)
	AdminTicket(ctx context.Context, p terminals.Principal, a audit.Actor, hostID string) (string, error)
	RedeemTicket(ctx context.Context, t, kind, hostID string) (terminals.Principal, error)
	Usable(ctx context.Context, p terminals.Principal, hostID string) error
	// Browser drives a browser terminal over its WebSocket.
	Browser(ctx context.Context, p terminals.Principal, hostID, sid string, sock terminals.Socket) *terminals.Browser
	Open(ctx context.Context, p terminals.Principal, hostID string, cols, rows int) (string, error)
	Write(ctx context.Context, p terminals.Principal, hostID, sid string, input []byte) error
	Read(ctx context.Context, p terminals.Principal, hostID, sid string, o terminals.ReadOptions) (terminals.Chunk, error)
	Resize(ctx context.Context, p terminals.Principal, hostID, sid string, cols, rows int) error
	Close(ctx context.Context, p terminals.Principal, hostID, sid string) error
}

// Installs is what the hub hands out to install agents: installers, the
// agent binaries at /download/ and the one-line installer.
type Installs interface {
	// Installer renders an installer of format for owner's host id,
	// issuing new install credentials (installer.Downloads).
	Installer(ctx context.Context, owner, id, format string) (installer.Script, error)
	Downloads() []agentdist.Binary
	SHA256SUMS() []byte
	OpenDownload(name string) (agentdist.File, agentdist.Binary, error)
	// OneLine answers the one-line installer (installer.OneLine.Fetch).
	OneLine(ctx context.Context, file, clientIP string) (sc installer.Script, refused bool, err error)
}

// Options are the transport's own settings.
type Options struct {
	// Payments are the payment providers' settings.
	Payments Payments
	// AllowedOrigins may open terminal WebSockets (a browser's Origin),
	// which must come over TLS when RequireTLS.
	AllowedOrigins []string
	RequireTLS     bool
	// Ready lists the dependencies /readyz probes; ReadyDownloads is its
	// agent_downloads field.
	Ready          []ReadyCheck
	ReadyDownloads string
	// TrustedProxies may set X-Forwarded-For and X-Forwarded-Proto.
	TrustedProxies []netip.Prefix
	// Requests, if set, learns every request (metrics).
	Requests RequestObserver
	// Console is the browser console's build (index.html, assets/),
	// served on every GET path the API does not claim; nil serves the
	// page saying it is not built (docs/console.md).
	Console fs.FS
	Version string
	// Limits are the abuse limits of the credential and payment routes
	// (ratelimit.go).
	Limits RateLimits
	// BodyTimeout bounds how long a request may take to send its body
	// (bodydeadline.go); zero is no bound.
	BodyTimeout time.Duration
}
