package hostgate

import (
	"context"
	"iter"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// Tags and saved filters: labels on hosts, and named queries over them,
// both usable as a job's target (docs/tags.md).

// TagCount is one key=value pair in use and how many hosts carry it.
type TagCount struct {
	Key       string `json:"key"`
	Value     string `json:"value"`
	HostCount int    `json:"host_count"`
}

// SetTags replaces a host's tags (at most 32; key 1-64 characters of
// A-Z a-z 0-9 _ . -, value 0-128 characters) and returns them. Free.
func (c *Client) SetTags(ctx context.Context, hostID string, tags map[string]string) (map[string]string, error) {
	if tags == nil {
		tags = map[string]string{}
	}
	var out struct {
		Tags map[string]string `json:"tags"`
	}
	err := c.do(ctx, http.MethodPut, hostPath(hostID)+"/tags", map[string]any{"tags": tags}, &out)
	return out.Tags, err
}

// UpdateTags adds (or overwrites) add and removes the keys of remove on
// every host of hostIDs, all or none (at most 1000 hosts); it returns the
// number of hosts updated. Free.
func (c *Client) UpdateTags(ctx context.Context, hostIDs []string, add map[string]string, remove []string) (int, error) {
	body := map[string]any{"host_ids": hostIDs}
	if len(add) > 0 {
		body["add"] = add
	}
	if len(remove) > 0 {
		body["remove"] = remove
	}
	var out struct {
		Updated int `json:"updated"`
	}
	err := c.do(ctx, http.MethodPost, "/v1/api/hosts/tags", body, &out)
	return out.Updated, err
}

// SearchHosts returns one page of the key holder's hosts that match query
// (every member given must match; Tags all of them) and, when filterID is
// not "", the saved filter too; limit 0 is the hub's default of 50, at most
// 200. A cursor (a page's NextCursor) continues after that page, with
// the same query and filterID; AllHosts walks every page so.
func (c *Client) SearchHosts(ctx context.Context, query FilterQuery, filterID string, limit, offset int, cursor ...string) (Page[Host], error) {
	q := url.Values{}
	for k, v := range map[string]string{"q": query.Q, "status": query.Status, "os": query.OS, "agent_version": query.AgentVersion, "filter_id": filterID} {
		if v != "" {
			q.Set(k, v)
		}
	}
	if query.Online != nil {
		q.Set("online", strconv.FormatBool(*query.Online))
	}
	for _, t := range query.Tags {
		q.Add("tag", t)
	}
	q.Set("limit", strconv.Itoa(limit))
	if limit <= 0 {
		q.Set("limit", "50")
	}
	if offset > 0 {
		q.Set("offset", strconv.Itoa(offset))
	}
	if cur := first(cursor); cur != "" {
		q.Set("cursor", cur)
	}
	var p Page[Host]
	err := c.do(ctx, http.MethodGet, "/v1/api/hosts?"+q.Encode(), nil, &p)
	return p, err
}

// AllHosts iterates over every host SearchHosts finds for query and
// filterID, fetching pages of 200 by cursor as it goes: each host once,
// however many there are; an error ends the iteration after being
// yielded.
//
//	for h, err := range c.AllHosts(ctx, hostgate.FilterQuery{Status: "online"}, "") { … }
func (c *Client) AllHosts(ctx context.Context, query FilterQuery, filterID string) iter.Seq2[Host, error] {
	return pages(func(limit, offset int, cursor string) (Page[Host], error) {
		return c.SearchHosts(ctx, query, filterID, limit, offset, cursor)
	})
}

// ListTags lists the key=value pairs on the key holder's hosts, ordered by
// key and value, with their host counts.
func (c *Client) ListTags(ctx context.Context) ([]TagCount, error) {
	return collect(pages(func(limit, offset int, cursor string) (Page[TagCount], error) {
		var p Page[TagCount]
		err := c.do(ctx, http.MethodGet, "/v1/api/tags"+pageQuery(limit, offset, "cursor", cursor), nil, &p)
		return p, err
	}))
}

// FilterQuery is a saved filter's criteria, those of the host list.
type FilterQuery struct {
	Q            string   `json:"q,omitempty"`
	Status       string   `json:"status,omitempty"`
	Online       *bool    `json:"online,omitempty"`
	OS           string   `json:"os,omitempty"`
	AgentVersion string   `json:"agent_version,omitempty"`
	Tags         []string `json:"tags,omitempty"`
}

// Filter is a saved filter. HostCount is set by GetFilter only.
type Filter struct {
	ID        string      `json:"id"`
	Name      string      `json:"name"`
	Query     FilterQuery `json:"query"`
	HostCount *int        `json:"host_count,omitempty"`
	CreatedAt time.Time   `json:"created_at"`
	UpdatedAt time.Time   `json:"updated_at"`
}

func filterPath(id string) string { return "/v1/api/filters/" + url.PathEscape(id) }

// ListFilters lists the key holder's saved filters.
func (c *Client) ListFilters(ctx context.Context) ([]Filter, error) {
	return collect(pages(func(limit, offset int, cursor string) (Page[Filter], error) {
		var p Page[Filter]
		err := c.do(ctx, http.MethodGet, "/v1/api/filters"+pageQuery(limit, offset, "cursor", cursor), nil, &p)
		return p, err
	}))
}

// GetFilter returns a saved filter with the number of hosts it matches now.
func (c *Client) GetFilter(ctx context.Context, filterID string) (Filter, error) {
	var f Filter
	err := c.do(ctx, http.MethodGet, filterPath(filterID), nil, &f)
	return f, err
}

// CreateFilter saves a filter (name 1-100 characters, unique: 409
// name_taken; at most 100: 409 limit_reached).
func (c *Client) CreateFilter(ctx context.Context, name string, query FilterQuery) (Filter, error) {
	var f Filter
	err := c.do(ctx, http.MethodPost, "/v1/api/filters", map[string]any{"name": name, "query": query}, &f)
	return f, err
}

// UpdateFilter renames a saved filter (name "" keeps it) and replaces its
// query (nil keeps it).
func (c *Client) UpdateFilter(ctx context.Context, filterID, name string, query *FilterQuery) (Filter, error) {
	body := map[string]any{}
	if name != "" {
		body["name"] = name
	}
	if query != nil {
		body["query"] = query
	}
	var f Filter
	err := c.do(ctx, http.MethodPatch, filterPath(filterID), body, &f)
	return f, err
}

// DeleteFilter deletes a saved filter.
func (c *Client) DeleteFilter(ctx context.Context, filterID string) error {
	return c.do(ctx, http.MethodDelete, filterPath(filterID), nil, nil)
}
