package httpapi

import (
	"context"
	"net/http"

	"github.com/danielgtaylor/huma/v2"

	"hostgate/internal/hosts"
	"hostgate/internal/paging"
)

// HostTags is hosts' tags and saved filters (hosts.Service), part of
// Hosts.
type HostTags interface {
	SetTags(ctx context.Context, owner, id string, tags hosts.Tags) (hosts.Tags, error)
	BulkTags(ctx context.Context, owner string, ids []string, add hosts.Tags, remove []string) (int, error)
	TagCounts(ctx context.Context, owner string, p paging.Page) (paging.Result[hosts.TagCount], error)
	CreateFilter(ctx context.Context, owner, name string, q hosts.FilterQuery) (hosts.SavedFilter, error)
	Filter(ctx context.Context, owner, id string) (hosts.SavedFilter, error)
	Filters(ctx context.Context, owner string, p paging.Page) (paging.Result[hosts.SavedFilter], error)
	UpdateFilter(ctx context.Context, owner, id string, name *string, q *hosts.FilterQuery) (hosts.SavedFilter, error)
	DeleteFilter(ctx context.Context, owner, id string) error
}

// HostFilterParams are the host lists' filters beyond q and status, the
// admin list's meaning (docs/hosts.md, "Searching and filtering hosts"
// and "Tags and saved filters").
type HostFilterParams struct {
	Online       string   `query:"online" enum:"true,false" doc:"Only hosts whose stored status is online (true) or is not (false)"`
	OS           string   `query:"os" maxLength:"64" doc:"Only hosts of this OS family: the reported OS or its first word (linux, windows)"`
	AgentVersion string   `query:"agent_version" maxLength:"64" doc:"Only hosts whose agent reported exactly this version"`
	Tag          []string `query:"tag,explode" maxItems:"32" doc:"Repeatable: key=value (the tag with this value), key= (with the empty value) or key (any value); every one must match. A bad expression is 400 invalid_query"`
	FilterID     string   `query:"filter_id" maxLength:"64" doc:"Apply this saved filter of mine (404 not_found otherwise); the other parameters narrow it further"`
}

// hostFilterQuery names HostFilterParams' parameters.
var hostFilterQuery = []string{"online", "os", "agent_version", "tag", "filter_id"}

// ownedFilter is the hosts.OwnedFilter of a list's parameters.
func ownedFilter(q, status, sort string, p HostFilterParams) hosts.OwnedFilter {
	f := hosts.OwnedFilter{Query: q, Status: hosts.Status(status), Sort: hosts.Sort(sort),
		OS: p.OS, AgentVersion: p.AgentVersion, Tags: p.Tag, FilterID: p.FilterID}
	if p.Online != "" {
		on := p.Online == "true"
		f.Online = &on
	}
	return f
}

type setTagsIn struct {
	HostIDParam
	Body struct {
		Tags hosts.Tags `json:"tags" doc:"The host's new tags, key to value: replaces them all. Keys 1 to 64 of [A-Za-z0-9_.-] starting alphanumeric; values 0 to 128 of [A-Za-z0-9_.:/@+-]; at most 32"`
	}
}

type setTagsOut struct {
	Body struct {
		HostID string     `json:"host_id"`
		Tags   hosts.Tags `json:"tags"`
	}
}

type bulkTagsIn struct {
	Body struct {
		HostIDs []string   `json:"host_ids" minItems:"1" maxItems:"1000" doc:"The hosts, each mine and undeleted, else 404 not_found and nothing changes"`
		Add     hosts.Tags `json:"add,omitempty" doc:"Tags to set (replacing the value of a key a host has)"`
		Remove  []string   `json:"remove,omitempty" maxItems:"32" doc:"Keys to remove (before add is applied)"`
	}
}

type bulkTagsOut struct {
	Body struct {
		Updated int `json:"updated" doc:"Hosts updated"`
	}
}

type tagCountsIn struct {
	Limit  int `query:"limit" minimum:"1" maximum:"1000" default:"200" doc:"Items per page (default 200, at most 1000)"`
	Offset int `query:"offset" minimum:"0" maximum:"100000" default:"0" doc:"Items to skip (at most 100000)"`
}

// FilterIDParam is a saved filter's id in the path.
type FilterIDParam struct {
	ID string `path:"id" doc:"Saved filter id"`
}

type filterIn struct {
	Body struct {
		Name  string            `json:"name" minLength:"1" maxLength:"100" doc:"1 to 100 characters, unique among my filters (409 name_taken)"`
		Query hosts.FilterQuery `json:"query"`
	}
}

type filterPatchIn struct {
	FilterIDParam
	Body struct {
		Name  *string            `json:"name,omitempty" maxLength:"100" doc:"New name"`
		Query *hosts.FilterQuery `json:"query,omitempty" doc:"New query (replaces the whole query)"`
	}
}

type filterOut struct {
	Status int
	Body   hosts.SavedFilter
}

func (s *Server) tagRoutes() {
	for _, side := range []struct {
		prefix, id string
		security   []map[string][]string
		tag        string
	}{{"/v1/api", "api", apiKeySecurity, "client-api"}, {"/v1/user", "user", userSecurity, "hosts"}} {
		o := func(method, path, id, summary string) huma.Operation {
			return huma.Operation{OperationID: side.id + id, Method: method, Path: side.prefix + path, Summary: summary,
				Tags: []string{side.tag}, Security: side.security}
		}
		put := o(http.MethodPut, "/hosts/{id}/tags", "SetHostTags", "Replace a host's tags (free)")
		put.Description = "400 invalid_body names the first bad key; 404 not_found for a host that is not mine."
		op(s, put, s.setTags)
		bulk := o(http.MethodPost, "/hosts/tags", "BulkHostTags", "Add and remove tags on up to 1000 hosts at once, all or nothing (free)")
		bulk.Description = "Refused whole: 404 not_found when any id is not my undeleted host; 400 invalid_body when a host would have more than 32 tags."
		op(s, bulk, s.bulkTags)
		op(s, o(http.MethodGet, "/tags", "ListTags", "My hosts' distinct tags by key and value, each with its host count"), s.listTags)
		op(s, o(http.MethodGet, "/filters", "ListFilters", "My saved host filters, by name"), s.listFilters)
		c := o(http.MethodPost, "/filters", "CreateFilter", "Save a named host query")
		c.DefaultStatus = http.StatusCreated
		c.Description = "409 name_taken for a name I use; 409 limit_reached beyond 100 filters."
		op(s, c, s.createFilter)
		op(s, o(http.MethodGet, "/filters/{id}", "GetFilter", "A saved filter with the number of hosts it matches now"), s.getFilter)
		op(s, o(http.MethodPatch, "/filters/{id}", "UpdateFilter", "Rename a saved filter and/or replace its query"), s.updateFilter)
		d := o(http.MethodDelete, "/filters/{id}", "DeleteFilter", "Delete a saved filter")
		d.DefaultStatus = http.StatusNoContent
		op(s, d, s.deleteFilter)
	}
}

func (s *Server) setTags(ctx context.Context, in *setTagsIn) (*setTagsOut, error) {
	tags, err := s.cfg.Hosts.SetTags(ctx, ownerOf(ctx), in.ID, in.Body.Tags)
	if err != nil {
		return nil, err
	}
	out := &setTagsOut{}
	out.Body.HostID, out.Body.Tags = in.ID, tags
	return out, nil
}

func (s *Server) bulkTags(ctx context.Context, in *bulkTagsIn) (*bulkTagsOut, error) {
	n, err := s.cfg.Hosts.BulkTags(ctx, ownerOf(ctx), in.Body.HostIDs, in.Body.Add, in.Body.Remove)
	if err != nil {
		return nil, err
	}
	out := &bulkTagsOut{}
	out.Body.Updated = n
	return out, nil
}

func (s *Server) listTags(ctx context.Context, in *tagCountsIn) (*pagedOut[hosts.TagCount], error) {
	res, err := s.cfg.Hosts.TagCounts(ctx, ownerOf(ctx), paging.Page{Limit: in.Limit, Offset: in.Offset})
	if err != nil {
		return nil, err
	}
	return &pagedOut[hosts.TagCount]{Body: res}, nil
}

func (s *Server) listFilters(ctx context.Context, in *PageParams) (*pagedOut[hosts.SavedFilter], error) {
	res, err := s.cfg.Hosts.Filters(ctx, ownerOf(ctx), in.page())
	if err != nil {
		return nil, err
	}
	return &pagedOut[hosts.SavedFilter]{Body: res}, nil
}

func (s *Server) createFilter(ctx context.Context, in *filterIn) (*filterOut, error) {
	f, err := s.cfg.Hosts.CreateFilter(ctx, ownerOf(ctx), in.Body.Name, in.Body.Query)
	if err != nil {
		return nil, err
	}
	return &filterOut{Status: http.StatusCreated, Body: f}, nil
}

func (s *Server) getFilter(ctx context.Context, in *FilterIDParam) (*filterOut, error) {
	f, err := s.cfg.Hosts.Filter(ctx, ownerOf(ctx), in.ID)
	if err != nil {
		return nil, err
	}
	return &filterOut{Status: http.StatusOK, Body: f}, nil
}

func (s *Server) updateFilter(ctx context.Context, in *filterPatchIn) (*filterOut, error) {
	f, err := s.cfg.Hosts.UpdateFilter(ctx, ownerOf(ctx), in.ID, in.Body.Name, in.Body.Query)
	if err != nil {
		return nil, err
	}
	return &filterOut{Status: http.StatusOK, Body: f}, nil
}

func (s *Server) deleteFilter(ctx context.Context, in *FilterIDParam) (*noContent, error) {
	if err := s.cfg.Hosts.DeleteFilter(ctx, ownerOf(ctx), in.ID); err != nil {
		return nil, err
	}
	return &noContent{Status: http.StatusNoContent}, nil
}

// The tag and filter routes' errors beyond their kind's (extraErrors): a
// bulk change or a list naming a host or filter not the caller's is 404
// (their paths have no {id}); a filter's name or count is 409.
func init() {
	for _, side := range []string{"api", "user"} {
		extraErrors[side+"BulkHostTags"] = []int{404}
		extraErrors[side+"CreateFilter"] = []int{409}
		extraErrors[side+"UpdateFilter"] = []int{409}
		extraErrors[side+"ListHosts"] = append(extraErrors[side+"ListHosts"], 404)
	}
}
