package hosts

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/fnv"
	"log/slog"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"

	"hostgate/internal/agentproto"
	"hostgate/internal/apperr"
	"hostgate/internal/audit"
	"hostgate/internal/clip"
	"hostgate/internal/keyring"
	"hostgate/internal/names"
	"hostgate/internal/paging"
	"hostgate/internal/recent"
)

// Error codes owned by this package (spec section 7).
const (
	CodeInvalidName  = "invalid_name"
	CodeNameTooLong  = "name_too_long"
	CodeInvalidPort  = "invalid_port"
	CodeBIDCollision = "bid_collision"
	CodeHostBanned   = "host_banned"
)

// bidAttempts is how often a bid clash is retried with a fresh bid before
// the clash reaches the caller; with 2^53 bids a second clash is unheard of.
const bidAttempts = 5

// Config holds the host settings the hub is configured with.
type Config struct {
	PublicURL       *url.URL
	InstallTokenTTL time.Duration
	AgentTokenTTL   time.Duration
	ExeURL          string
	ExeSHA256       string
}

// Disconnecter drops a host's agent connection wherever it is held.
type Disconnecter interface {
	Disconnect(ctx context.Context, hostID, reason string)
}

// ChangedBy says through which entry and by whom a host's L1
// configuration changed: Source is the webhook source ("web",
// "client_api"), Kind the actor kind ("user", "api_key"), ID the user's or
// key's id, IP the client address.
type ChangedBy struct{ Source, Kind, ID, IP string }

// SecretRotator applies rotate-secret issuances in place of Store.Issue,
// so that the change of secret is reported in the same transaction
// (package l1config queues its webhook delivery: every change of the
// secret is an L1 configuration change).
type SecretRotator interface {
	RotateIssue(ctx context.Context, owner, id string, iss Issuance, by ChangedBy) (Host, Secrets, error)
}

// Service carries out host operations.
type Service struct {
	store   Store
	coord   Tickets
	keys    *keyring.Keyring
	cfg     Config
	log     *slog.Logger
	now     func() time.Time
	drop    Disconnecter
	rotator SecretRotator
	metrics *metricsBatch
	events  *eventBatch
	targets *recent.Cache[target] // host id → what Commandable needs
}

// target is the part of a host that decides whether it takes commands.
type target struct {
	owner  string
	banned bool
}

// Tickets is what hosts use of coordination (coord.Coord): the agents'
// sign-in challenges.
type Tickets interface {
	PutTicket(ctx context.Context, key string, value []byte, ttl time.Duration) error
	TakeTicket(ctx context.Context, key string) (value []byte, ok bool, err error)
}

// NewService wires the host service; bus carries the invalidation of
// kept command targets to other instances. drop ends an agent's
// connection when its host is deleted, banned or has its secret rotated;
// rotator applies every rotation together with its webhook delivery. Both
// are required, so that no Service can rotate a secret without reporting
// it: NewService panics when either is nil (a wiring mistake), and the
// hub builds them first (*dispatch.Dispatcher and *l1config.Service).
func NewService(st Store, c Tickets, keys *keyring.Keyring, cfg Config, bus *recent.Bus,
	drop Disconnecter, rotator SecretRotator, log *slog.Logger) *Service {
	if drop == nil || rotator == nil {
		panic("hosts: NewService needs a Disconnecter and a SecretRotator")
	}
	return &Service{store: st, coord: c, keys: keys, cfg: cfg, log: log, now: time.Now, drop: drop, rotator: rotator,
		metrics: newMetricsBatch(st), events: &eventBatch{store: st}, targets: recent.New[target]("hosts", bus)}
}

// checkName applies the names rule to the name as given (a control or
// bidirectional character anywhere is refused, even one trimming would
// drop), then trims it and checks its length.
func checkName(name string) (string, error) {
	if p := names.Problem("name", name); p != "" {
		return "", apperr.New(CodeInvalidName, p)
	}
	name = strings.TrimSpace(name)
	switch {
	case name == "":
		return "", apperr.New(CodeInvalidName, "name is required")
	case utf8.RuneCountInString(name) > MaxNameLen:
		return "", apperr.New(CodeNameTooLong, fmt.Sprintf("name must be at most %d characters", MaxNameLen))
	}
	return name, nil
}

func checkPort(p int) error {
	if p < MinListenPort || p > MaxListenPort {
		return apperr.New(CodeInvalidPort, fmt.Sprintf("listen_port must be %d to %d", MinListenPort, MaxListenPort))
	}
	return nil
}

func notFound() error { return apperr.NotFound("host") }

func mapNotFound(err error) error {
	if errors.Is(err, ErrNotFound) {
		return notFound()
	}
	return err
}

// Create adds a host for owner. With withCredentials it also issues the
// first install credentials and returns them.
func (s *Service) Create(ctx context.Context, owner, name string, listenPort *int, withCredentials bool) (Host, *Credentials, error) {
	name, err := checkName(name)
	if err != nil {
		return Host{}, nil, err
	}
	port := DefaultListenPort
	if listenPort != nil {
		port = *listenPort
	}
	if err := checkPort(port); err != nil {
		return Host{}, nil, err
	}
	secret := newSecretKey()
	id := uuid.NewString()
	h := Host{ID: id, UserID: owner, Name: name, ListenPort: port, Status: StatusPending, WebhookFormat: DefaultWebhookFormat,
		CreatedAt: s.now().UTC().Truncate(time.Microsecond)}
	sec := Secrets{SecretSealed: s.keys.Seal([]byte(secret), []byte(id))}
	var iss *Issuance
	var seed []byte
	var token string
	if withCredentials {
		var i Issuance
		i, seed, token = s.newIssuance(nil)
		iss = &i
	}
	for attempt := 1; ; attempt++ {
		h.BID = newBID()
		err = s.store.CreateHost(ctx, h, sec, iss)
		if !errors.Is(err, ErrBIDTaken) {
			break
		}
		if attempt == bidAttempts {
			return Host{}, nil, apperr.New(CodeBIDCollision, "could not pick a unique bid; retry")
		}
	}
	if err != nil {
		return Host{}, nil, err
	}
	if !withCredentials {
		return h, nil, nil
	}
	c := s.credentials(h, secret, seed, token, iss)
	return h, &c, nil
}

// newIssuance makes a key pair and install token; sealed is the new sealed
// secret for a rotation (nil keeps the current one).
func (s *Service) newIssuance(sealed []byte) (Issuance, []byte, string) {
	seed, pub := newKeyPair()
	token, hash := newInstallToken()
	return Issuance{
		AgentPubKey: pub, InstallTokenHash: hash, SecretSealed: sealed,
		InstallExpiresAt: s.now().UTC().Add(s.cfg.InstallTokenTTL).Truncate(time.Microsecond),
	}, seed, token
}

func (s *Service) credentials(h Host, secret string, seed []byte, token string, iss *Issuance) Credentials {
	return Credentials{
		Issued: agentproto.Issued{
			HostID: h.ID, BID: h.BID, SecretKey: secret, InstallToken: token,
			AgentPrivkeySeed: base64.StdEncoding.EncodeToString(seed),
			AgentPubkey:      FormatPubKey(iss.AgentPubKey),
			APIEndpoint:      s.APIEndpoint(), WSURL: s.WSURL(), ListenPort: h.ListenPort,
		},
		URL: h.ReportURL, InstallTokenExpiresAt: iss.InstallExpiresAt,
		ExeURL: s.cfg.ExeURL, ExeSHA256: s.cfg.ExeSHA256,
		InstallCommand: s.InstallCommand(token),
	}
}

// InstallPath is the route prefix of the one-line installers:
// <public URL>/install/<install token>.ps1 and .sh.
const InstallPath = "/install/"

// InstallCommand returns the lines to paste on a new host to install the
// agent with installToken (the one-line install, docs/hosts.md).
func (s *Service) InstallCommand(installToken string) InstallCommand {
	base := strings.TrimRight(s.cfg.PublicURL.String(), "/") + InstallPath + installToken
	return InstallCommand{
		PowerShell: "irm " + base + ".ps1 | iex",
		Shell:      "curl -fsSL " + base + ".sh | sh",
	}
}

// Exe returns the configured agent executable address and checksum.
func (s *Service) Exe() (url, sha256 string) { return s.cfg.ExeURL, s.cfg.ExeSHA256 }

// APIEndpoint is the base address agents call, from HOSTGATE_PUBLIC_URL.
func (s *Service) APIEndpoint() string { return s.cfg.PublicURL.String() }

// WSURL is the agent WebSocket address: wss for an https public URL.
func (s *Service) WSURL() string {
	u := *s.cfg.PublicURL
	u.Scheme = map[string]string{"https": "wss", "http": "ws"}[u.Scheme]
	u.Path = strings.TrimRight(u.Path, "/") + agentproto.PathWS
	return u.String()
}

// List returns the owner's hosts.
func (s *Service) List(ctx context.Context, owner string) ([]Host, error) {
	hs, err := s.store.ListOwnedHosts(ctx, owner)
	if hs == nil {
		hs = []Host{}
	}
	if err == nil {
		err = s.withTags(ctx, hs)
	}
	return hs, err
}

// Page returns a page of the owner's hosts matching f, in f's order, with
// the count of all matches and each host's tags; invalid_query names a
// bad status, sort or tag expression, not_found a FilterID that is not
// one of owner's saved filters.
func (s *Service) Page(ctx context.Context, owner string, f OwnedFilter, p paging.Page) (paging.Result[Host], error) {
	if _, ok := f.Sort.Order(); !ok {
		return paging.Result[Host]{}, apperr.New(apperr.CodeInvalidQuery, "sort: unknown order")
	}
	r, err := s.resolve(ctx, owner, f, apperr.CodeInvalidQuery)
	if err != nil || r.None {
		return paging.NewResult[Host](nil, 0, p), err
	}
	items, total, err := s.store.PageOwnedHosts(ctx, owner, r, p)
	if err == nil {
		err = s.withTags(ctx, items)
	}
	return paging.NewResult(items, total, p), err
}

// Get returns the owner's host, with its tags.
func (s *Service) Get(ctx context.Context, owner, id string) (Host, error) {
	h, err := s.store.OwnedHost(ctx, owner, id)
	if err != nil {
		return Host{}, mapNotFound(err)
	}
	return s.withTagsOne(ctx, h)
}

// Commandable returns nil when id is owner's undeleted host and not
// banned; not_found or host_banned otherwise. The host's owner and ban are
// kept for at most recent.TTL (a command's hot path); deleting, banning or
// unbanning the host forgets them on every instance.
func (s *Service) Commandable(ctx context.Context, owner, id string) error {
	t, err := s.targets.Get(ctx, id, func(ctx context.Context) (target, error) {
		h, err := s.store.OwnedHost(ctx, owner, id)
		return target{owner: h.UserID, banned: h.Status == StatusBanned}, err
	})
	switch {
	case err != nil:
		return mapNotFound(err)
	case t.owner != owner: // kept from another user's call
		return notFound()
	case t.banned:
		return apperr.New(CodeHostBanned, "this host is banned")
	}
	return nil
}

// Update changes name and/or listen port of the owner's host.
func (s *Service) Update(ctx context.Context, owner, id string, name *string, listenPort *int) (Host, error) {
	h, err := s.Get(ctx, owner, id)
	if err != nil {
		return Host{}, err
	}
	if name != nil {
		if h.Name, err = checkName(*name); err != nil {
			return Host{}, err
		}
	}
	if listenPort != nil {
		if err := checkPort(*listenPort); err != nil {
			return Host{}, err
		}
		h.ListenPort = *listenPort
	}
	tags := h.Tags
	h, err = s.store.UpdateHost(ctx, owner, id, h.Name, h.ListenPort)
	h.Tags = tags
	return h, mapNotFound(err)
}

// Delete soft-deletes the owner's host and drops its agent at once.
func (s *Service) Delete(ctx context.Context, owner, id string) error {
	if err := mapNotFound(DeleteHost(ctx, s.store, owner, id, s.now().UTC(), nil)); err != nil {
		return err
	}
	s.targets.Forget(ctx, id)
	s.drop.Disconnect(ctx, id, "host deleted")
	return nil
}

// AdminDelete soft-deletes any host on an admin's behalf, audited.
func (s *Service) AdminDelete(ctx context.Context, actor audit.Actor, id string) error {
	rec := actor.Entry(audit.ActionHostDelete, "host", id)
	if err := mapNotFound(DeleteHost(ctx, s.store, "", id, s.now().UTC(), &rec)); err != nil {
		return err
	}
	s.targets.Forget(ctx, id)
	s.drop.Disconnect(ctx, id, "host deleted")
	return nil
}

// IssueInstallToken issues fresh install credentials (spec 4.5 rule 2):
// a new key pair and install token; the secret key is kept. Older agent
// tokens and the previous key stop working; a connected agent is not told.
func (s *Service) IssueInstallToken(ctx context.Context, owner, id string) (Credentials, error) {
	return s.issue(ctx, "", nil, func(iss Issuance) (Host, Secrets, error) {
		h, sec, err := s.store.Issue(ctx, owner, id, iss)
		return h, sec, mapNotFound(err)
	})
}

// RedeemInstallToken spends installToken and, in the same step, carries
// out the install-token operation for its host (IssueInstallToken): the
// one-line installer (GET /install/{token}.ps1|.sh) embeds the fresh
// credentials it returns. An unknown, spent, superseded or expired token,
// or one of a deleted host, is not_found and changes nothing. from is the
// caller's address, for the host's history.
func (s *Service) RedeemInstallToken(ctx context.Context, installToken, from string) (Credentials, error) {
	if installToken == "" || len(installToken) > 128 {
		return Credentials{}, notFound()
	}
	now := s.now().UTC()
	c, err := s.issue(ctx, "", nil, func(iss Issuance) (Host, Secrets, error) {
		h, sec, err := s.store.ExchangeInstallToken(ctx, hashToken(installToken), now, iss)
		if errors.Is(err, ErrTokenInvalid) {
			return h, sec, notFound()
		}
		return h, sec, err
	})
	if err == nil {
		s.event(context.WithoutCancel(ctx), c.HostID, "installer", "install token redeemed for the one-line installer from "+from)
	}
	return c, err
}

// RotateSecret does what IssueInstallToken does and also replaces the
// secret key (rule 3); the old agent's connection is dropped at once. by
// says who rotated, for the webhook that reports the new secret.
func (s *Service) RotateSecret(ctx context.Context, owner, id string, by ChangedBy) (Credentials, error) {
	secret := newSecretKey()
	sealed := s.keys.Seal([]byte(secret), []byte(id))
	c, err := s.issue(ctx, secret, sealed, func(iss Issuance) (Host, Secrets, error) {
		h, sec, err := s.rotator.RotateIssue(ctx, owner, id, iss, by)
		return h, sec, mapNotFound(err)
	})
	if err == nil {
		s.drop.Disconnect(ctx, id, "secret rotated")
	}
	return c, err
}

// issue makes an issuance (with sealed, the new sealed secret, for a
// rotation; nil keeps the current one), stores it with apply and returns
// the credentials. secret is the new plaintext secret of a rotation; ""
// opens the host's current one.
func (s *Service) issue(ctx context.Context, secret string, sealed []byte, apply func(Issuance) (Host, Secrets, error)) (Credentials, error) {
	iss, seed, token := s.newIssuance(sealed)
	h, sec, err := apply(iss)
	if err != nil {
		return Credentials{}, err
	}
	if secret == "" {
		plain, err := s.keys.Open(sec.SecretSealed, []byte(h.ID))
		if err != nil {
			return Credentials{}, fmt.Errorf("hosts: open secret of %s: %w", h.ID, err)
		}
		secret = string(plain)
	}
	return s.credentials(h, secret, seed, token, &iss), nil
}

// Agent is an authenticated agent request.
type Agent struct {
	Host    Host
	CredGen int64
	// CheckedAt is when AuthenticateAgent began, before it read the host
	// (the process's clock): the dispatcher refuses to register a
	// connection whose host was dropped (deleted, banned, rotated) after
	// it, so a change that commits while an agent is connecting still
	// ends that connection.
	CheckedAt time.Time
}

func invalidAgentToken() error {
	return apperr.New(apperr.CodeInvalidToken, "agent credentials are invalid, expired or superseded")
}

func banned() error { return apperr.New(CodeHostBanned, "this host is banned") }

// Online consumes an install token, once, and returns an agent token.
func (s *Service) Online(ctx context.Context, hostID, installToken string) (agentproto.TokenResponse, error) {
	if _, err := uuid.Parse(hostID); err != nil || installToken == "" || len(installToken) > 128 {
		return agentproto.TokenResponse{}, invalidAgentToken()
	}
	h, sec, err := s.store.ConsumeInstallToken(ctx, hostID, hashToken(installToken), s.now().UTC())
	if errors.Is(err, ErrTokenInvalid) {
		return agentproto.TokenResponse{}, invalidAgentToken()
	}
	if err != nil {
		return agentproto.TokenResponse{}, err
	}
	if h.Status == StatusBanned {
		return agentproto.TokenResponse{}, banned()
	}
	// The token is spent: its event is recorded even if the caller has
	// gone meanwhile.
	s.event(context.WithoutCancel(ctx), h.ID, "enrolled", "install token consumed")
	return s.agentToken(h.ID, sec.CredGen)
}

func (s *Service) agentToken(hostID string, gen int64) (agentproto.TokenResponse, error) {
	tok, c, err := s.keys.SignToken(keyring.Claims{Kind: keyring.KindAgent, Subject: hostID,
		SessionID: strconv.FormatInt(gen, 10)}, s.cfg.AgentTokenTTL)
	if err != nil {
		return agentproto.TokenResponse{}, err
	}
	return agentproto.TokenResponse{AgentToken: tok, ExpiresAt: c.ExpiresAt, HostID: hostID}, nil
}

// AuthenticateAgent checks an agent token against the host's current
// credential generation, so any later issuance, deletion or ban refuses it.
func (s *Service) AuthenticateAgent(ctx context.Context, token string) (Agent, error) {
	checked := time.Now()
	c, err := s.keys.ParseToken(token, keyring.KindAgent)
	if err != nil {
		return Agent{}, invalidAgentToken()
	}
	gen, err := strconv.ParseInt(c.SessionID, 10, 64)
	if err != nil {
		return Agent{}, invalidAgentToken()
	}
	h, sec, err := s.store.HostByID(ctx, c.Subject)
	if errors.Is(err, ErrNotFound) || (err == nil && sec.CredGen != gen) {
		return Agent{}, invalidAgentToken()
	}
	if err != nil {
		return Agent{}, err
	}
	if h.Status == StatusBanned {
		return Agent{}, banned()
	}
	return Agent{Host: h, CredGen: gen, CheckedAt: checked}, nil
}

func challengeKey(challenge string) string {
	return "agentchal:" + hex.EncodeToString(hashToken(challenge))
}

// Challenge starts a token refresh: a random nonce, valid once for
// ChallengeTTL, bound to this host.
func (s *Service) Challenge(ctx context.Context, hostID string) (agentproto.ChallengeResponse, error) {
	if _, err := uuid.Parse(hostID); err != nil {
		return agentproto.ChallengeResponse{}, invalidAgentToken()
	}
	b := make([]byte, 32)
	rand.Read(b)
	ch := base64.RawURLEncoding.EncodeToString(b)
	if err := s.coord.PutTicket(ctx, challengeKey(ch), []byte(hostID), agentproto.ChallengeTTL); err != nil {
		return agentproto.ChallengeResponse{}, err
	}
	return agentproto.ChallengeResponse{Challenge: ch, ExpiresIn: int(agentproto.ChallengeTTL.Seconds())}, nil
}

// Refresh finishes a token refresh: the challenge is consumed whatever the
// outcome, then the signature must verify under the host's current key.
func (s *Service) Refresh(ctx context.Context, hostID, challenge, signature string) (agentproto.TokenResponse, error) {
	if len(challenge) > 128 || len(signature) > 256 {
		return agentproto.TokenResponse{}, invalidAgentToken()
	}
	bound, ok, err := s.coord.TakeTicket(ctx, challengeKey(challenge))
	if err != nil {
		return agentproto.TokenResponse{}, err
	}
	sig, decErr := base64.StdEncoding.DecodeString(signature)
	if !ok || string(bound) != hostID || decErr != nil || len(sig) != ed25519.SignatureSize {
		return agentproto.TokenResponse{}, invalidAgentToken()
	}
	h, sec, err := s.store.HostByID(ctx, hostID)
	if errors.Is(err, ErrNotFound) {
		return agentproto.TokenResponse{}, invalidAgentToken()
	}
	if err != nil {
		return agentproto.TokenResponse{}, err
	}
	if len(sec.AgentPubKey) != ed25519.PublicKeySize ||
		!ed25519.Verify(sec.AgentPubKey, agentproto.ChallengeMessage(hostID, challenge), sig) {
		return agentproto.TokenResponse{}, invalidAgentToken()
	}
	if h.Status == StatusBanned {
		return agentproto.TokenResponse{}, banned()
	}
	return s.agentToken(h.ID, sec.CredGen)
}

// SetBanned bans or unbans a host on an admin's behalf; a ban drops the
// agent at once and refuses it on every agent route.
func (s *Service) SetBanned(ctx context.Context, actor audit.Actor, id string, ban bool) (Host, error) {
	action := audit.ActionHostUnban
	if ban {
		action = audit.ActionHostBan
	}
	h, err := SetBanned(ctx, s.store, id, ban, actor.Entry(action, "host", id))
	if err != nil {
		return Host{}, mapNotFound(err)
	}
	s.targets.Forget(ctx, id)
	if ban {
		s.drop.Disconnect(ctx, id, "host banned")
	}
	s.event(ctx, id, action, "by admin "+actor.AdminID)
	return s.withTagsOne(ctx, h)
}

// AdminGet returns any undeleted host, with its tags.
func (s *Service) AdminGet(ctx context.Context, id string) (Host, error) {
	h, _, err := s.store.HostByID(ctx, id)
	if err != nil {
		return Host{}, mapNotFound(err)
	}
	return s.withTagsOne(ctx, h)
}

// AdminList pages the hosts matching q for the admin console, in q's
// order; invalid_query names a bad status or sort.
func (s *Service) AdminList(ctx context.Context, q AdminQuery, p paging.Page) (paging.Result[AdminHost], error) {
	f, none, err := q.filter()
	if err != nil || none {
		return paging.NewResult[AdminHost](nil, 0, p), err
	}
	items, total, err := s.store.ListHosts(ctx, f, p)
	if err == nil && len(items) > 0 {
		hs := make([]Host, len(items))
		for i, a := range items {
			hs[i] = a.Host
		}
		err = s.withTags(ctx, hs)
		for i := range items {
			items[i].Host = hs[i]
		}
	}
	return paging.NewResult(items, total, p), err
}

// allStatuses is every host status.
var allStatuses = []Status{StatusPending, StatusOnline, StatusStale, StatusOffline, StatusBanned}

// filter is the store's filter of q; none when no host can match (a
// status that is not online asked to be online).
func (q AdminQuery) filter() (f Filter, none bool, err error) {
	if q.Status != "" && !slices.Contains(allStatuses, q.Status) {
		return Filter{}, false, apperr.New(apperr.CodeInvalidQuery, "status: unknown status")
	}
	if _, _, ok := q.Sort.Field(); !ok {
		return Filter{}, false, apperr.New(apperr.CodeInvalidQuery, "sort: unknown order")
	}
	exprs, err := ParseTagExprs(q.Tags)
	if err != nil {
		return Filter{}, false, apperr.New(apperr.CodeInvalidQuery, "tag: "+err.Error())
	}
	statuses := allStatuses
	if q.Status != "" {
		statuses = []Status{q.Status}
	}
	if q.Online != nil {
		statuses = slices.DeleteFunc(slices.Clone(statuses), func(st Status) bool { return (st == StatusOnline) != *q.Online })
		if len(statuses) == 0 {
			return Filter{}, true, nil
		}
	}
	if len(statuses) == len(allStatuses) {
		statuses = nil
	}
	return Filter{Query: q.Query, QueryPrefix: paging.PrefixOnly(q.Query), Statuses: statuses,
		OS: strings.ToLower(q.OS), AgentVersion: q.AgentVersion, UserID: q.UserID, Tags: exprs, Sort: q.Sort}, false, nil
}

// History limits: each host keeps this many metrics samples and events.
const (
	KeepMetrics = 1440
	KeepEvents  = 500
)

// Metrics returns a host's newest metrics samples.
func (s *Service) Metrics(ctx context.Context, id string, limit int) ([]Metrics, error) {
	if _, err := s.AdminGet(ctx, id); err != nil {
		return nil, err
	}
	return s.listMetrics(ctx, id, limit)
}

// OwnedMetrics returns the newest metrics samples of owner's host;
// another user's host is not_found.
func (s *Service) OwnedMetrics(ctx context.Context, owner, id string, limit int) ([]Metrics, error) {
	if _, err := s.Get(ctx, owner, id); err != nil {
		return nil, err
	}
	return s.listMetrics(ctx, id, limit)
}

func (s *Service) listMetrics(ctx context.Context, id string, limit int) ([]Metrics, error) {
	m, err := s.store.ListMetrics(ctx, id, limit)
	if m == nil {
		m = []Metrics{}
	}
	return m, err
}

// Events returns a host's newest events.
func (s *Service) Events(ctx context.Context, id string, limit int) ([]Event, error) {
	if _, err := s.AdminGet(ctx, id); err != nil {
		return nil, err
	}
	e, err := s.store.ListEvents(ctx, id, limit)
	if e == nil {
		e = []Event{}
	}
	return e, err
}

// RecordMetrics keeps a sample an agent pushed for the next batch write
// (RunMetrics).
func (s *Service) RecordMetrics(hostID string, m agentproto.Metrics) {
	s.metrics.add(hostID, Metrics{
		At: s.now().UTC().Truncate(time.Microsecond), CPUPct: m.CPUPct, MemPct: m.MemPct, DiskPct: m.DiskPct,
		NetRxBps: m.NetRxBps, NetTxBps: m.NetTxBps, TCPConns: m.TCPConns, UptimeS: m.UptimeS,
	})
}

// maxEventMessage bounds a host event's message, in bytes; a longer one
// is cut at the last whole character within it.
const maxEventMessage = 1000

func (s *Service) event(ctx context.Context, hostID, kind, message string) {
	message = clip.String(message, maxEventMessage)
	e := Event{At: s.now().UTC().Truncate(time.Microsecond), Kind: kind, Message: message}
	if err := s.store.AppendEvent(ctx, hostID, e, KeepEvents); err != nil {
		s.log.WarnContext(ctx, "host event not recorded", "host_id", hostID, "kind", kind, "err", err)
	}
}

// RecordHandshake notes what a connecting agent reported, and that it is
// online: the one status change written as it happens (the others follow
// the liveness flush and sweep).
func (s *Service) RecordHandshake(ctx context.Context, hostID, publicIP, os, version string) error {
	return s.store.RecordHandshake(ctx, hostID, publicIP, clip.String(os, 128), clip.String(version, 64), s.now().UTC().Truncate(time.Microsecond))
}

// HandshakeDigest digests what RecordHandshake stores. An agent that
// reconnects from the same address with the same OS and version (nearly
// every reconnection, and all of a reconnect storm) changes nothing, so
// the gateway compares digests and skips the write; its liveness still
// reaches the store with the next flush.
func HandshakeDigest(publicIP, os, version string) uint64 {
	h := fnv.New64a()
	for _, v := range []string{publicIP, clip.String(os, 128), clip.String(version, 64)} {
		h.Write([]byte(v))
		h.Write([]byte{0})
	}
	return h.Sum64()
}

// FlapWindow is the window Flaps counts over.
const FlapWindow = time.Hour

// MaxVersionCounts bounds AgentVersions.
const MaxVersionCounts = 50

// Flaps counts the host's connects and disconnects of the last
// FlapWindow, from its stored events (written in batches: an event is
// counted once flushed, within EventFlushInterval).
func (s *Service) Flaps(ctx context.Context, id string) (Flaps, error) {
	n, err := s.store.CountEvents(ctx, id, []string{EventConnected, EventDisconnected}, s.now().UTC().Add(-FlapWindow))
	if err != nil {
		return Flaps{}, err
	}
	return Flaps{Connects: n[EventConnected], Disconnects: n[EventDisconnected]}, nil
}

// CountOwned counts the owner's hosts.
func (s *Service) CountOwned(ctx context.Context, owner string) (int, error) {
	return s.store.CountOwnedHosts(ctx, owner)
}

// AgentVersions counts hosts by the agent version they report, most
// hosts first, at most MaxVersionCounts versions.
func (s *Service) AgentVersions(ctx context.Context) ([]VersionCount, error) {
	v, err := s.store.CountByVersion(ctx, nil, MaxVersionCounts)
	if v == nil {
		v = []VersionCount{}
	}
	return v, err
}

// HostsByVersion counts the hosts that report each of versions (zero for
// none), in one query.
func (s *Service) HostsByVersion(ctx context.Context, versions []string) (map[string]int, error) {
	out := make(map[string]int, len(versions))
	if len(versions) == 0 {
		return out, nil
	}
	counts, err := s.store.CountByVersion(ctx, versions, len(versions))
	if err != nil {
		return nil, err
	}
	for _, c := range counts {
		out[c.Version] = c.Hosts
	}
	return out, nil
}

// CountByStatus counts hosts by persisted status, for the dashboard.
func (s *Service) CountByStatus(ctx context.Context) (map[Status]int, error) {
	return s.store.CountHosts(ctx)
}
