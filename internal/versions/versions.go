// Package versions keeps the published agent ("gateway") versions that
// hosts can be upgraded to: publish, list and yank, with the spec's
// errors version_required, version_exists, version_not_found and
// version_yanked. A yanked version stays listed for the record but can
// no longer be installed.
package versions

import (
	"context"
	"errors"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	"hostgate/internal/apperr"
	"hostgate/internal/audit"
	"hostgate/internal/paging"
)

// Channels a version is published on.
var Channels = []string{"stable", "beta", "canary"}

// Version is a published agent build.
type Version struct {
	ID                   string     `json:"id"`
	Version              string     `json:"version"`
	Channel              string     `json:"channel" enum:"stable,beta,canary"`
	ExeURL               string     `json:"exe_url"`
	ExeSHA256            string     `json:"exe_sha256"`
	ExeSizeBytes         int64      `json:"exe_size_bytes"`
	MinSupportedProtocol int        `json:"min_supported_protocol"`
	Changelog            string     `json:"changelog,omitempty"`
	ReleasedAt           time.Time  `json:"released_at"`
	YankedAt             *time.Time `json:"yanked_at,omitempty"`
}

// Filter narrows a listing.
type Filter struct {
	Channel       string
	IncludeYanked bool
}

// Store keeps versions.
type Store interface {
	// Tx runs fn in one unit of work: everything fn does through its Tx
	// commits when fn returns nil and nothing does when it returns an
	// error, which Tx returns.
	Tx(ctx context.Context, fn func(Tx) error) error
	ListVersions(ctx context.Context, f Filter, p paging.Page) ([]Version, int, error)
	// GetVersion finds a version by its dotted name; ErrNotFound.
	GetVersion(ctx context.Context, version string) (Version, error)
}

// Tx is the plain storage operations of a change to versions, inside one
// unit of work (Store.Tx).
type Tx interface {
	audit.Appender
	// InsertVersion stores a new version; ErrExists.
	InsertVersion(ctx context.Context, v Version) error
	// LockVersion reads a version by its dotted name and locks it until
	// the unit of work ends; ErrNotFound.
	LockVersion(ctx context.Context, version string) (Version, error)
	// SetYankedAt writes the moment a version was yanked and returns the
	// version as stored.
	SetYankedAt(ctx context.Context, id string, at time.Time) (Version, error)
}

// PublishVersion stores v with rec, stamped at its release, in one unit
// of work of st; ErrExists.
func PublishVersion(ctx context.Context, st Store, v Version, rec audit.Entry) error {
	return st.Tx(ctx, func(tx Tx) error {
		if err := tx.InsertVersion(ctx, v); err != nil {
			return err
		}
		return tx.AppendAudit(ctx, rec.At(v.ReleasedAt))
	})
}

// YankVersion yanks a version at at with rec, in one unit of work of st,
// and returns it yanked; ErrNotFound, or ErrYanked when it was yanked
// before (a version is yanked once).
func YankVersion(ctx context.Context, st Store, version string, at time.Time, rec audit.Entry) (Version, error) {
	var v Version
	err := st.Tx(ctx, func(tx Tx) error {
		var err error
		switch v, err = tx.LockVersion(ctx, version); {
		case err != nil:
			return err
		case v.YankedAt != nil:
			return ErrYanked
		}
		if v, err = tx.SetYankedAt(ctx, v.ID, at); err != nil {
			return err
		}
		return tx.AppendAudit(ctx, rec.At(at))
	})
	if err != nil {
		return Version{}, err
	}
	return v, nil
}

// Storage errors.
var (
	ErrExists   = errors.New("versions: version exists")
	ErrNotFound = errors.New("versions: no such version")
	ErrYanked   = errors.New("versions: version yanked")
)

// Spec error codes.
const (
	CodeVersionRequired = "version_required"
	CodeVersionExists   = "version_exists"
	CodeVersionNotFound = "version_not_found"
	CodeVersionYanked   = "version_yanked"
	CodeInvalidVersion  = "invalid_version"
)

// versionRE is a dotted version: 1.2, 1.2.3, 1.2.3.4, with an optional
// pre-release or build suffix (1.2.3-rc.1).
var versionRE = regexp.MustCompile(`^[0-9]+(\.[0-9]+){1,3}([-+][0-9A-Za-z.-]{1,32})?$`)

var sha256RE = regexp.MustCompile(`^[0-9a-f]{64}$`)

// MaxChangelog bounds a changelog.
const MaxChangelog = 10_000

// Service publishes, lists and yanks versions.
type Service struct {
	store Store
	now   func() time.Time
}

// NewService wires the versions service.
func NewService(st Store) *Service { return &Service{store: st, now: time.Now} }

// Publish is PublishVersionReq.
type Publish struct {
	Version              string `json:"version" required:"false" doc:"Dotted version, e.g. 0.4.0 (required, unique; missing or empty is 400 version_required)"`
	Channel              string `json:"channel,omitempty" enum:"stable,beta,canary" doc:"Default stable"`
	ExeURL               string `json:"exe_url" doc:"http(s) address of the agent executable"`
	ExeSHA256            string `json:"exe_sha256" doc:"64 hexadecimal characters"`
	ExeSizeBytes         int64  `json:"exe_size_bytes" doc:"Exact size of the executable"`
	MinSupportedProtocol int    `json:"min_supported_protocol,omitempty" doc:"Oldest hub protocol the build speaks (default 1)"`
	Changelog            string `json:"changelog,omitempty"`
}

func invalid(code, msg string) error { return apperr.New(code, msg) }

func (p *Publish) check() error {
	p.Version = strings.TrimSpace(p.Version)
	switch {
	case p.Version == "":
		return invalid(CodeVersionRequired, "version is required")
	case !versionRE.MatchString(p.Version):
		return invalid(CodeInvalidVersion, "version must be dotted numbers such as 0.4.0, with an optional -suffix")
	}
	if p.Channel == "" {
		p.Channel = "stable"
	}
	if !slices.Contains(Channels, p.Channel) {
		return invalid(apperr.CodeInvalidBody, "channel must be stable, beta or canary")
	}
	if u, err := url.Parse(p.ExeURL); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return invalid(apperr.CodeInvalidBody, "exe_url must be an http(s) URL")
	}
	p.ExeSHA256 = strings.ToLower(p.ExeSHA256)
	if !sha256RE.MatchString(p.ExeSHA256) {
		return invalid(apperr.CodeInvalidBody, "exe_sha256 must be 64 hexadecimal characters")
	}
	if p.ExeSizeBytes <= 0 {
		return invalid(apperr.CodeInvalidBody, "exe_size_bytes must be positive")
	}
	if p.MinSupportedProtocol == 0 {
		p.MinSupportedProtocol = 1
	}
	if p.MinSupportedProtocol < 0 || len(p.Changelog) > MaxChangelog {
		return invalid(apperr.CodeInvalidBody, "min_supported_protocol must be positive and changelog at most 10000 bytes")
	}
	return nil
}

// Publish records a new version, audited as gw_version.publish.
func (s *Service) Publish(ctx context.Context, actor audit.Actor, p Publish) (Version, error) {
	if err := p.check(); err != nil {
		return Version{}, err
	}
	v := Version{ID: uuid.NewString(), Version: p.Version, Channel: p.Channel, ExeURL: p.ExeURL, ExeSHA256: p.ExeSHA256,
		ExeSizeBytes: p.ExeSizeBytes, MinSupportedProtocol: p.MinSupportedProtocol, Changelog: p.Changelog,
		ReleasedAt: s.now().UTC().Truncate(time.Microsecond)}
	rec := actor.Entry(audit.ActionVersionPublish, "gw_version", v.Version).WithDetail(map[string]string{"channel": v.Channel})
	err := PublishVersion(ctx, s.store, v, rec)
	if errors.Is(err, ErrExists) {
		return Version{}, invalid(CodeVersionExists, "version "+v.Version+" is already published")
	}
	return v, err
}

// List pages versions, newest first.
func (s *Service) List(ctx context.Context, f Filter, p paging.Page) (paging.Result[Version], error) {
	items, total, err := s.store.ListVersions(ctx, f, p)
	return paging.NewResult(items, total, p), err
}

// Usable returns a version that may be installed: version_not_found or
// version_yanked otherwise.
func (s *Service) Usable(ctx context.Context, version string) (Version, error) {
	v, err := s.store.GetVersion(ctx, version)
	if errors.Is(err, ErrNotFound) {
		return Version{}, invalid(CodeVersionNotFound, "no version "+version)
	}
	if err == nil && v.YankedAt != nil {
		return Version{}, invalid(CodeVersionYanked, "version "+version+" was yanked")
	}
	return v, err
}

// Yank withdraws a version, audited as gw_version.yank.
func (s *Service) Yank(ctx context.Context, actor audit.Actor, version string) (Version, error) {
	rec := actor.Entry(audit.ActionVersionYank, "gw_version", version)
	v, err := YankVersion(ctx, s.store, version, s.now().UTC(), rec)
	switch {
	case errors.Is(err, ErrNotFound):
		return Version{}, invalid(CodeVersionNotFound, "no version "+version)
	case errors.Is(err, ErrYanked):
		return Version{}, invalid(CodeVersionYanked, "version "+version+" was already yanked")
	}
	return v, err
}
