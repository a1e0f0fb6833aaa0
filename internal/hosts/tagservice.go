package hosts

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"

	"hostgate/internal/apperr"
	"hostgate/internal/names"
	"hostgate/internal/paging"
)

// Error codes of tags and saved filters.
const (
	CodeNameTaken    = "name_taken"
	CodeLimitReached = "limit_reached"
)

func invalidBody(msg string) error { return apperr.New(apperr.CodeInvalidBody, msg) }

func filterNotFound() error { return apperr.NotFound("filter") }

// withTags fills in the tags of hs (Tags {} for none) in one read.
func (s *Service) withTags(ctx context.Context, hs []Host) error {
	if len(hs) == 0 {
		return nil
	}
	ids := make([]string, len(hs))
	for i, h := range hs {
		ids[i] = h.ID
	}
	tags, err := s.store.HostTags(ctx, ids)
	if err != nil {
		return err
	}
	for i := range hs {
		hs[i].Tags = tags[hs[i].ID]
		if hs[i].Tags == nil {
			hs[i].Tags = Tags{}
		}
	}
	return nil
}

// withTagsOne is withTags of one host.
func (s *Service) withTagsOne(ctx context.Context, h Host) (Host, error) {
	hs := []Host{h}
	err := s.withTags(ctx, hs)
	return hs[0], err
}

// SetTags replaces the tags of owner's host with tags (free): each tag
// valid, at most MaxTagsPerHost, else invalid_body naming the key;
// not_found for a host that is not owner's undeleted one.
func (s *Service) SetTags(ctx context.Context, owner, id string, tags Tags) (Tags, error) {
	if p := CheckTags(tags); p != "" {
		return nil, invalidBody(p)
	}
	if tags == nil {
		tags = Tags{}
	}
	err := s.store.Tx(ctx, func(tx Tx) error {
		n, err := tx.LockOwnedHosts(ctx, owner, []string{id})
		if err != nil {
			return err
		}
		if n != 1 {
			return notFound()
		}
		return tx.ReplaceTags(ctx, owner, id, tags)
	})
	if err != nil {
		return nil, err
	}
	return tags, nil
}

// BulkTags removes the keys of remove from, then adds the tags of add to,
// each of owner's hosts ids (1 to MaxBulkHosts), in one unit of work, and
// returns how many hosts it updated. It is refused whole, with nothing
// changed: not_found when any id is not owner's undeleted host,
// invalid_body for a bad tag or key, or when a host would have more than
// MaxTagsPerHost tags.
func (s *Service) BulkTags(ctx context.Context, owner string, ids []string, add Tags, remove []string) (int, error) {
	ids = distinct(ids)
	switch {
	case len(ids) == 0:
		return 0, invalidBody("host_ids: at least one host")
	case len(ids) > MaxBulkHosts:
		return 0, invalidBody(fmt.Sprintf("host_ids: at most %d hosts", MaxBulkHosts))
	}
	if p := CheckTags(add); p != "" {
		return 0, invalidBody(p)
	}
	remove = distinct(remove)
	if len(remove) > MaxTagsPerHost {
		return 0, invalidBody(fmt.Sprintf("remove: at most %d keys", MaxTagsPerHost))
	}
	for _, k := range remove {
		if p := TagKeyProblem(k); p != "" {
			return 0, invalidBody("remove: tag " + quoteKey(k) + ": " + p)
		}
	}
	for _, id := range ids {
		if _, err := uuid.Parse(id); err != nil {
			return 0, notFound()
		}
	}
	err := s.store.Tx(ctx, func(tx Tx) error {
		n, err := tx.LockOwnedHosts(ctx, owner, ids)
		if err != nil {
			return err
		}
		if n != len(ids) {
			return notFound()
		}
		cur, err := tx.TxHostTags(ctx, ids)
		if err != nil {
			return err
		}
		for _, id := range ids {
			if tagCountAfter(cur[id], add, remove) > MaxTagsPerHost {
				return invalidBody(fmt.Sprintf("host %s would have more than %d tags", id, MaxTagsPerHost))
			}
		}
		if err := tx.RemoveTags(ctx, ids, remove); err != nil {
			return err
		}
		return tx.PutTags(ctx, owner, ids, add)
	})
	if err != nil {
		return 0, err
	}
	return len(ids), nil
}

// tagCountAfter is the number of tags of a host of tags cur once remove's
// keys are removed and add's tags added.
func tagCountAfter(cur, add Tags, remove []string) int {
	n := len(cur)
	for k := range cur {
		if slices.Contains(remove, k) {
			n--
		}
	}
	for k := range add {
		if _, had := cur[k]; !had || slices.Contains(remove, k) {
			n++
		}
	}
	return n
}

// distinct is ss without repeats, in first-seen order.
func distinct(ss []string) []string {
	seen := make(map[string]bool, len(ss))
	out := make([]string, 0, len(ss))
	for _, s := range ss {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// TagCounts pages the distinct tags of owner's hosts by key, value, each
// with its number of hosts (limit 1 to MaxTagCountLimit).
func (s *Service) TagCounts(ctx context.Context, owner string, p paging.Page) (paging.Result[TagCount], error) {
	if p.Limit < 1 || p.Limit > MaxTagCountLimit || p.Offset < 0 || p.Offset > paging.MaxOffset {
		return paging.Result[TagCount]{}, apperr.New(apperr.CodeInvalidQuery, "limit or offset out of range")
	}
	items, total, err := s.store.CountTags(ctx, owner, p)
	return paging.NewResult(items, total, p), err
}

// checkFilterQuery validates q as a saved filter's query: its code is
// code (invalid_body for a body, invalid_query for a list's parameters).
func checkFilterQuery(q FilterQuery, code string) ([]TagExpr, error) {
	switch {
	case utf8.RuneCountInString(q.Q) > MaxQueryLen:
		return nil, apperr.New(code, fmt.Sprintf("q: at most %d characters", MaxQueryLen))
	case q.Status != "" && !slices.Contains(allStatuses, q.Status):
		return nil, apperr.New(code, "status: unknown status")
	case len(q.OS) > 64:
		return nil, apperr.New(code, "os: at most 64 characters")
	case len(q.AgentVersion) > 64:
		return nil, apperr.New(code, "agent_version: at most 64 characters")
	}
	exprs, err := ParseTagExprs(q.Tags)
	if err != nil {
		return nil, apperr.New(code, "tags: "+err.Error())
	}
	return exprs, nil
}

// resolve turns the list query of f (its own criteria, and the saved
// filter FilterID names, which they narrow further) into the fields the
// store reads; code is the error code of a bad criterion.
func (s *Service) resolve(ctx context.Context, owner string, f OwnedFilter, code string) (OwnedFilter, error) {
	own := FilterQuery{Q: f.Query, Status: f.Status, Online: f.Online, OS: f.OS, AgentVersion: f.AgentVersion, Tags: f.Tags}
	exprs, err := checkFilterQuery(own, code)
	if err != nil {
		return OwnedFilter{}, err
	}
	out := OwnedFilter{Query: f.Query, Sort: f.Sort, OS: strings.ToLower(f.OS), AgentVersion: f.AgentVersion, TagExprs: exprs}
	statuses := statusesOf(f.Status, f.Online)
	if f.FilterID != "" {
		saved, err := s.savedFilter(ctx, owner, f.FilterID)
		if err != nil {
			return OwnedFilter{}, err
		}
		sq := saved.Query
		more, err := ParseTagExprs(sq.Tags)
		if err != nil { // stored valid; a bad one matches nothing
			return OwnedFilter{None: true}, nil
		}
		out.TagExprs = append(out.TagExprs, more...)
		switch {
		case out.Query == "":
			out.Query = sq.Q
		case sq.Q != "" && sq.Q != out.Query:
			out.Queries = append(out.Queries, sq.Q)
		}
		if out.OS, out.None = both(out.OS, strings.ToLower(sq.OS)); out.None {
			return out, nil
		}
		if out.AgentVersion, out.None = both(out.AgentVersion, sq.AgentVersion); out.None {
			return out, nil
		}
		statuses = slices.DeleteFunc(statuses, func(st Status) bool {
			return !slices.Contains(statusesOf(sq.Status, sq.Online), st)
		})
	}
	switch {
	case len(statuses) == 0:
		out.None = true
	case len(statuses) < len(allStatuses):
		out.Statuses = statuses
	}
	out.QueryPrefix = paging.PrefixOnly(out.Query)
	return out, nil
}

// both is the one value a criterion set twice takes: either when the
// other is empty; none when they differ.
func both(a, b string) (string, bool) {
	switch {
	case a == "":
		return b, false
	case b == "" || a == b:
		return a, false
	}
	return "", true
}

// statusesOf is the statuses status and online allow.
func statusesOf(status Status, online *bool) []Status {
	out := slices.Clone(allStatuses)
	return slices.DeleteFunc(out, func(st Status) bool {
		return status != "" && st != status || online != nil && (st == StatusOnline) != *online
	})
}

// Select resolves sel to owner's undeleted host ids in a stable order (created_at, id),
// at most max (more → 400 invalid_body "target matches more than max hosts").
// Zero matches is not an error (returns an empty slice).
func (s *Service) Select(ctx context.Context, owner string, sel Selector, max int) ([]string, error) {
	set := 0
	if len(sel.HostIDs) > 0 {
		set++
	}
	if len(sel.Tags) > 0 {
		set++
	}
	if sel.FilterID != "" {
		set++
	}
	if set != 1 {
		return nil, invalidBody("target: exactly one of host_ids, tags and filter_id")
	}
	tooMany := func() error { return invalidBody(fmt.Sprintf("target matches more than %d hosts", max)) }
	var ids []string
	switch {
	case len(sel.HostIDs) > 0:
		want := distinct(sel.HostIDs)
		for _, id := range want {
			if _, err := uuid.Parse(id); err != nil {
				return nil, notFound()
			}
		}
		found, err := s.store.FindOwnedHosts(ctx, owner, want)
		if err != nil {
			return nil, err
		}
		if len(found) != len(want) {
			return nil, notFound()
		}
		ids = found
	default:
		f := OwnedFilter{Tags: sel.Tags, FilterID: sel.FilterID}
		r, err := s.resolve(ctx, owner, f, apperr.CodeInvalidBody)
		if err != nil {
			return nil, err
		}
		if r.None {
			return []string{}, nil
		}
		if ids, err = s.store.SelectOwnedHosts(ctx, owner, r, max+1); err != nil {
			return nil, err
		}
	}
	if len(ids) > max {
		return nil, tooMany()
	}
	if ids == nil {
		ids = []string{}
	}
	return ids, nil
}

// checkFilterName applies the names rule and the length of a filter's
// name; the trimmed name.
func checkFilterName(name string) (string, error) {
	if p := names.Problem("name", name); p != "" {
		return "", invalidBody(p)
	}
	name = strings.TrimSpace(name)
	if name == "" || utf8.RuneCountInString(name) > MaxFilterNameLen {
		return "", invalidBody(fmt.Sprintf("name: 1 to %d characters", MaxFilterNameLen))
	}
	return name, nil
}

// normQuery is q as stored: tags never null.
func normQuery(q FilterQuery) FilterQuery {
	if q.Tags == nil {
		q.Tags = []string{}
	}
	return q
}

func mapFilterErr(err error) error {
	switch {
	case errors.Is(err, ErrFilterNotFound):
		return filterNotFound()
	case errors.Is(err, ErrFilterNameTaken):
		return apperr.New(CodeNameTaken, "a saved filter of this name exists")
	case errors.Is(err, ErrFilterLimit):
		return apperr.New(CodeLimitReached, fmt.Sprintf("at most %d saved filters", MaxFiltersPerUser))
	}
	return err
}

// CreateFilter saves a named query of owner's: name 1 to
// MaxFilterNameLen characters, unique (name_taken), at most
// MaxFiltersPerUser filters (limit_reached).
func (s *Service) CreateFilter(ctx context.Context, owner, name string, q FilterQuery) (SavedFilter, error) {
	name, err := checkFilterName(name)
	if err != nil {
		return SavedFilter{}, err
	}
	if _, err := checkFilterQuery(q, apperr.CodeInvalidBody); err != nil {
		return SavedFilter{}, err
	}
	now := s.now().UTC().Truncate(time.Microsecond)
	f := SavedFilter{ID: uuid.NewString(), UserID: owner, Name: name, Query: normQuery(q), CreatedAt: now, UpdatedAt: now}
	if err := s.store.CreateFilter(ctx, f, MaxFiltersPerUser); err != nil {
		return SavedFilter{}, mapFilterErr(err)
	}
	return f, nil
}

func (s *Service) savedFilter(ctx context.Context, owner, id string) (SavedFilter, error) {
	if _, err := uuid.Parse(id); err != nil {
		return SavedFilter{}, filterNotFound()
	}
	f, err := s.store.SavedFilter(ctx, owner, id)
	if err != nil {
		return SavedFilter{}, mapFilterErr(err)
	}
	f.Query = normQuery(f.Query)
	return f, nil
}

// Filter returns owner's saved filter with the number of hosts it
// matches now.
func (s *Service) Filter(ctx context.Context, owner, id string) (SavedFilter, error) {
	f, err := s.savedFilter(ctx, owner, id)
	if err != nil {
		return SavedFilter{}, err
	}
	r, err := s.resolve(ctx, owner, OwnedFilter{FilterID: id}, apperr.CodeInvalidQuery)
	if err != nil {
		return SavedFilter{}, err
	}
	n := 0
	if !r.None {
		if _, n, err = s.store.PageOwnedHosts(ctx, owner, r, paging.Page{Limit: 1}); err != nil {
			return SavedFilter{}, err
		}
	}
	f.HostCount = &n
	return f, nil
}

// Filters pages owner's saved filters by name.
func (s *Service) Filters(ctx context.Context, owner string, p paging.Page) (paging.Result[SavedFilter], error) {
	items, total, err := s.store.ListFilters(ctx, owner, p)
	for i := range items {
		items[i].Query = normQuery(items[i].Query)
	}
	return paging.NewResult(items, total, p), err
}

// UpdateFilter renames owner's filter and/or replaces its query.
func (s *Service) UpdateFilter(ctx context.Context, owner, id string, name *string, q *FilterQuery) (SavedFilter, error) {
	f, err := s.savedFilter(ctx, owner, id)
	if err != nil {
		return SavedFilter{}, err
	}
	if name != nil {
		if f.Name, err = checkFilterName(*name); err != nil {
			return SavedFilter{}, err
		}
	}
	if q != nil {
		if _, err := checkFilterQuery(*q, apperr.CodeInvalidBody); err != nil {
			return SavedFilter{}, err
		}
		f.Query = normQuery(*q)
	}
	f.UpdatedAt = s.now().UTC().Truncate(time.Microsecond)
	if err := s.store.UpdateFilter(ctx, f); err != nil {
		return SavedFilter{}, mapFilterErr(err)
	}
	return f, nil
}

// DeleteFilter deletes owner's saved filter.
func (s *Service) DeleteFilter(ctx context.Context, owner, id string) error {
	if _, err := uuid.Parse(id); err != nil {
		return filterNotFound()
	}
	return mapFilterErr(s.store.DeleteFilter(ctx, owner, id))
}
