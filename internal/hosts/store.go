package hosts

import (
	"context"
	"errors"
	"time"

	"hostgate/internal/audit"
	"hostgate/internal/paging"
)

// Errors a Store returns.
var (
	// ErrNotFound: no such host, it is deleted, or it belongs to another user.
	ErrNotFound = errors.New("hosts: host not found")
	// ErrBIDTaken: the owner already has a host with this bid.
	ErrBIDTaken = errors.New("hosts: bid taken")
	// ErrTokenInvalid: the install token is unknown, used, superseded or expired.
	ErrTokenInvalid = errors.New("hosts: install token invalid")
	// ErrFilterNotFound: no such saved filter of the user.
	ErrFilterNotFound = errors.New("hosts: saved filter not found")
	// ErrFilterNameTaken: the user has a saved filter of this name.
	ErrFilterNameTaken = errors.New("hosts: saved filter name taken")
	// ErrFilterLimit: the user has the most saved filters allowed.
	ErrFilterLimit = errors.New("hosts: saved filter limit reached")
)

// Filter narrows and orders the admin host listing, as the service
// built it from an AdminQuery. Query matches, case-insensitively, a part
// of the owner's email, the host name, the host id or the public IP or,
// when QueryPrefix (a query shorter than paging.MinSubstring), the start
// of one of them. Statuses matches any of them (empty: every status); OS
// matches the OS family (the first word of the reported OS); the rest
// match exactly. Empty fields match everything; an empty Sort is
// DefaultAdminSort.
type Filter struct {
	Query        string
	QueryPrefix  bool
	Statuses     []Status
	OS           string
	AgentVersion string
	UserID       string
	// Tags must all match.
	Tags []TagExpr
	Sort AdminSort
}

// AdminQuery is what an admin asks of the host list (GET /v1/admin/hosts).
// Online, when set, keeps the hosts whose stored status is online (true)
// or any other (false): the persisted liveness, which trails the agents'
// connections by at most the liveness flush (docs/hosts.md, "Searching
// and filtering hosts"), and unlike the live presence is one indexed
// column, so that a page and its total are exact at any fleet size.
type AdminQuery struct {
	Query        string
	Status       Status
	Online       *bool
	OS           string
	AgentVersion string
	UserID       string
	// Tags are tag expressions, all of which must match.
	Tags []string
	Sort AdminSort
}

// AdminSort orders the admin host list: a field of AdminSortFields,
// descending with a leading "-". Ties break on the id in the same
// direction; a host never seen sorts as the oldest by last_seen_at.
type AdminSort string

// AdminSortFields are the fields the admin host list sorts by: the
// service's validation and the OpenAPI enum of GET /v1/admin/hosts?sort
// (through AdminSorts) come from it.
var AdminSortFields = []string{"name", "created_at", "last_seen_at", "status", "agent_version", "user_email"}

// AdminSorts is every AdminSort value.
var AdminSorts = paging.Sorts(AdminSortFields)

// DefaultAdminSort is the order of an empty AdminSort: newest first.
const DefaultAdminSort AdminSort = "-created_at"

// Field returns s's field and direction; ok is false for a sort of no
// field of AdminSortFields.
func (s AdminSort) Field() (field string, desc, ok bool) {
	return paging.SortField(string(s), string(DefaultAdminSort), AdminSortFields)
}

// OwnedFilter narrows and orders one user's host list. Query matches a
// part of the name, case-insensitively, or the id exactly; when
// QueryPrefix (set by the service for a query shorter than
// paging.MinSubstring) the start of the name instead of a part. Status
// matches the stored status exactly. Empty fields match everything; an
// empty Sort is DefaultSort.
//
// Online, OS, AgentVersion, Tags and FilterID are the rest of the host
// list's query (the admin list's meaning): the service resolves them, and
// a saved filter's query, into the fields a store reads: Statuses (any of
// them; replacing Status), OS (lower case), AgentVersion, TagExprs (all
// must match), Queries (more queries that must match too, each by the
// rule of Query) and None (nothing can match).
type OwnedFilter struct {
	Query       string
	QueryPrefix bool
	Status      Status
	Sort        Sort

	Online       *bool
	OS           string
	AgentVersion string
	Tags         []string
	FilterID     string

	Statuses []Status
	TagExprs []TagExpr
	Queries  []string
	None     bool
}

// Narrowed reports whether f keeps out any of the owner's hosts (as a
// store reads it).
func (f OwnedFilter) Narrowed() bool {
	return f.Query != "" || f.Status != "" || len(f.Statuses) > 0 || f.OS != "" || f.AgentVersion != "" ||
		len(f.TagExprs) > 0 || len(f.Queries) > 0 || f.None
}

// Sort orders a user's host list: a column, descending with a leading "-".
// Ties break on the id in the same direction. A host never seen sorts as
// the oldest by last_seen_at.
type Sort string

// The orders of a user's host list.
const (
	SortName         Sort = "name"
	SortNameDesc     Sort = "-name"
	SortCreated      Sort = "created_at"
	SortNewest       Sort = "-created_at"
	SortLastSeen     Sort = "last_seen_at"
	SortLastSeenDesc Sort = "-last_seen_at"
)

// SortOrder is one order of a user's host list as a store applies it.
type SortOrder struct {
	Sort Sort
	// Column is the hosts column sorted by, also Host's JSON field.
	Column string
	// Desc sorts descending; ties break on the id in the same direction.
	Desc bool
	// Nullable: the column may be NULL (last_seen_at of a host never
	// seen), and a NULL sorts as the least value: first ascending, last
	// descending.
	Nullable bool
}

// SortOrders is every order of a user's host list, the one place its sort
// values are listed: the service's validation, the OpenAPI enum of
// GET /v1/user/hosts?sort (and so the console's type) and the store's
// ORDER BY all come from it.
var SortOrders = []SortOrder{
	{Sort: SortName, Column: "name"},
	{Sort: SortNameDesc, Column: "name", Desc: true},
	{Sort: SortCreated, Column: "created_at"},
	{Sort: SortNewest, Column: "created_at", Desc: true},
	{Sort: SortLastSeen, Column: "last_seen_at", Nullable: true},
	{Sort: SortLastSeenDesc, Column: "last_seen_at", Desc: true, Nullable: true},
}

// DefaultSort is the order of an empty Sort.
const DefaultSort = SortNewest

// Sorts lists every Sort of SortOrders, in its order.
var Sorts = sortsOf(SortOrders)

func sortsOf(os []SortOrder) []Sort {
	out := make([]Sort, len(os))
	for i, o := range os {
		out[i] = o.Sort
	}
	return out
}

// Order returns s's SortOrder, DefaultSort's for an empty s; false when
// s is no order of SortOrders.
func (s Sort) Order() (SortOrder, bool) {
	if s == "" {
		s = DefaultSort
	}
	for _, o := range SortOrders {
		if o.Sort == s {
			return o, true
		}
	}
	return SortOrder{}, false
}

// AdminHost is a host with its owner's email, for the admin console.
type AdminHost struct {
	Host
	UserEmail string `json:"user_email"`
}

// Seen is one batched liveness fact: the host was heard from at At.
type Seen struct {
	HostID string
	At     time.Time
}

// Store is what package hosts needs from storage. Methods taking an owner
// see only that user's undeleted hosts; methods without one are for the
// hub itself (agents, sweeper, admins) and still never see deleted hosts.
// Each method is one transaction.
type Store interface {
	// CreateHost inserts h with its secrets and, when iss is not nil, its
	// first issuance. ErrBIDTaken on a (user, bid) clash.
	CreateHost(ctx context.Context, h Host, sec Secrets, iss *Issuance) error
	// OwnedHost returns the owner's host; ErrNotFound.
	OwnedHost(ctx context.Context, owner, id string) (Host, error)
	// ListOwnedHosts returns all the owner's hosts, newest first.
	ListOwnedHosts(ctx context.Context, owner string) ([]Host, error)
	// PageOwnedHosts returns a page of the owner's hosts that match f, in
	// f's order, and the count of all matches, from one snapshot.
	PageOwnedHosts(ctx context.Context, owner string, f OwnedFilter, p paging.Page) ([]Host, int, error)
	// UpdateHost sets name and listen port of the owner's host and returns it.
	UpdateHost(ctx context.Context, owner, id, name string, listenPort int) (Host, error)
	// Tx runs fn in one unit of work: everything fn does through its Tx
	// commits when fn returns nil and nothing does when it returns an
	// error, which Tx returns.
	Tx(ctx context.Context, fn func(Tx) error) error

	// HostByID returns any undeleted host with its secrets; ErrNotFound.
	HostByID(ctx context.Context, id string) (Host, Secrets, error)
	// Issue applies an issuance to the owner's host: it replaces the agent
	// public key and the install token (so an unconsumed earlier token dies),
	// replaces the sealed secret when iss.SecretSealed is set, increments the
	// credential generation, and returns the host with its new secrets.
	Issue(ctx context.Context, owner, id string, iss Issuance) (Host, Secrets, error)
	// ConsumeInstallToken atomically clears the host's install token if it
	// hashes to tokenHash and has not expired at now, and returns the host
	// and secrets; of concurrent callers at most one succeeds. ErrTokenInvalid
	// otherwise (also for a deleted host).
	ConsumeInstallToken(ctx context.Context, id string, tokenHash []byte, now time.Time) (Host, Secrets, error)
	// ExchangeInstallToken atomically applies iss (as Issue does) to the
	// host, of any owner, whose install token hashes to tokenHash and has
	// not expired at now, and returns the host with its new secrets: the
	// old token is spent and the new one issued in one step; of concurrent
	// callers at most one succeeds. ErrTokenInvalid otherwise (also for a
	// deleted host).
	ExchangeInstallToken(ctx context.Context, tokenHash []byte, now time.Time, iss Issuance) (Host, Secrets, error)

	// RecordHandshake stores what an agent reported when its socket opened:
	// public IP, OS, agent version, last_seen/last_online at now and,
	// unless the host is banned, status online.
	RecordHandshake(ctx context.Context, id, publicIP, os, version string, now time.Time) error
	// MarkSeen writes a batch of liveness facts: last_seen_at (never moved
	// back) and status online for hosts that are not banned.
	MarkSeen(ctx context.Context, seen []Seen) error
	// SweepStatus moves online hosts last seen before staleBefore to stale,
	// and online or stale hosts last seen before offlineBefore to offline.
	SweepStatus(ctx context.Context, staleBefore, offlineBefore time.Time) error

	// ListHosts pages the undeleted hosts that match f for admins, in
	// f's order, with their owners' emails and the count of all matches,
	// from one snapshot.
	ListHosts(ctx context.Context, f Filter, p paging.Page) ([]AdminHost, int, error)
	// CountHosts counts undeleted hosts by status.
	CountHosts(ctx context.Context) (map[Status]int, error)
	// CountOwnedHosts counts the owner's undeleted hosts.
	CountOwnedHosts(ctx context.Context, owner string) (int, error)
	// CountByVersion counts undeleted hosts by agent version in one
	// grouped query, most hosts first (then by version), at most limit
	// versions; only the versions in only when it is not empty.
	CountByVersion(ctx context.Context, only []string, limit int) ([]VersionCount, error)
	// CountEvents counts the host's events of each of kinds at or after
	// since (every kind present, zero for none).
	CountEvents(ctx context.Context, hostID string, kinds []string, since time.Time) (map[string]int, error)

	// AppendMetrics stores a batch of samples in one transaction, skipping
	// those of unknown or deleted hosts, and keeps only the newest keep
	// samples of each host whose sample asks for a trim.
	AppendMetrics(ctx context.Context, batch []Sample, keep int) error
	// ListMetrics returns up to limit newest samples.
	ListMetrics(ctx context.Context, hostID string, limit int) ([]Metrics, error)
	// AppendEvent stores an event (the store fills ID) and keeps only the newest keep.
	AppendEvent(ctx context.Context, hostID string, e Event, keep int) error
	// AppendEvents stores a batch of events in one transaction, in order,
	// skipping those of unknown or deleted hosts, then keeps only the newest
	// keep events of each host one of whose events asks for a trim.
	AppendEvents(ctx context.Context, batch []HostEvent, keep int) error
	// ListEvents returns up to limit newest events.
	ListEvents(ctx context.Context, hostID string, limit int) ([]Event, error)

	// HostTags returns the tags of each of the hosts that has any, in one
	// query.
	HostTags(ctx context.Context, hostIDs []string) (map[string]Tags, error)
	// CountTags pages the distinct tags of the owner's undeleted hosts by
	// key, value, each with its number of hosts, and the count of
	// distinct tags.
	CountTags(ctx context.Context, owner string, p paging.Page) ([]TagCount, int, error)
	// SelectOwnedHosts returns the ids of the owner's undeleted hosts that
	// match f (Sort ignored), by created_at then id, at most limit.
	SelectOwnedHosts(ctx context.Context, owner string, f OwnedFilter, limit int) ([]string, error)
	// FindOwnedHosts returns those of ids that are the owner's undeleted
	// hosts, by created_at then id, each once.
	FindOwnedHosts(ctx context.Context, owner string, ids []string) ([]string, error)

	// CreateFilter stores f unless its owner has max filters already
	// (ErrFilterLimit) or one of its name (ErrFilterNameTaken).
	CreateFilter(ctx context.Context, f SavedFilter, max int) error
	// SavedFilter returns the owner's filter; ErrFilterNotFound.
	SavedFilter(ctx context.Context, owner, id string) (SavedFilter, error)
	// ListFilters pages the owner's filters by name, and counts them.
	ListFilters(ctx context.Context, owner string, p paging.Page) ([]SavedFilter, int, error)
	// UpdateFilter writes name, query and updated_at of the owner's
	// filter f; ErrFilterNotFound, ErrFilterNameTaken.
	UpdateFilter(ctx context.Context, f SavedFilter) error
	// DeleteFilter deletes the owner's filter; ErrFilterNotFound.
	DeleteFilter(ctx context.Context, owner, id string) error
}

// Tx is the plain storage operations of a change to hosts, inside one
// unit of work (Store.Tx).
type Tx interface {
	audit.Appender
	// DeleteHost soft-deletes the undeleted host (the owner's; any
	// owner's for owner "") at now, clearing its install token;
	// ErrNotFound.
	DeleteHost(ctx context.Context, owner, id string, now time.Time) error
	// LockHost reads any undeleted host and locks it until the unit of
	// work ends; ErrNotFound.
	LockHost(ctx context.Context, id string) (Host, error)
	// SetStatus writes a host's status and returns the host.
	SetStatus(ctx context.Context, id string, status Status) (Host, error)

	// LockOwnedHosts locks those of ids (distinct) that are the owner's
	// undeleted hosts until the unit of work ends, and counts them.
	LockOwnedHosts(ctx context.Context, owner string, ids []string) (int, error)
	// TxHostTags is HostTags inside the unit of work.
	TxHostTags(ctx context.Context, hostIDs []string) (map[string]Tags, error)
	// ReplaceTags makes tags the whole of the owner's host's tags.
	ReplaceTags(ctx context.Context, owner, hostID string, tags Tags) error
	// RemoveTags removes the keys from each of the hosts.
	RemoveTags(ctx context.Context, hostIDs, keys []string) error
	// PutTags sets each of tags on each of the owner's hosts, replacing
	// the value of a key a host has.
	PutTags(ctx context.Context, owner string, hostIDs []string, tags Tags) error
}

// DeleteHost soft-deletes the host (owner "" means any owner, for
// admins) and writes rec, stamped now, when it is not nil, in one unit of
// work of st; ErrNotFound, and no audit entry, when there is no such
// undeleted host.
func DeleteHost(ctx context.Context, st Store, owner, id string, now time.Time, rec *audit.Entry) error {
	return st.Tx(ctx, func(tx Tx) error {
		if err := tx.DeleteHost(ctx, owner, id, now); err != nil || rec == nil {
			return err
		}
		return tx.AppendAudit(ctx, rec.At(now))
	})
}

// SetBanned bans the undeleted host, or unbans it (BanStatus), and writes
// rec, in one unit of work of st; ErrNotFound, and no audit entry, when
// there is no such host.
func SetBanned(ctx context.Context, st Store, id string, banned bool, rec audit.Entry) (Host, error) {
	var h Host
	err := st.Tx(ctx, func(tx Tx) error {
		cur, err := tx.LockHost(ctx, id)
		if err != nil {
			return err
		}
		if h, err = tx.SetStatus(ctx, id, BanStatus(cur.Status, banned)); err != nil {
			return err
		}
		return tx.AppendAudit(ctx, rec)
	})
	if err != nil {
		return Host{}, err
	}
	return h, nil
}

// BanStatus is the status of a host of status cur once banned, or
// unbanned: a banned host becomes offline (its agent reconnects to come
// online), any other keeps its status.
func BanStatus(cur Status, banned bool) Status {
	switch {
	case banned:
		return StatusBanned
	case cur == StatusBanned:
		return StatusOffline
	}
	return cur
}
