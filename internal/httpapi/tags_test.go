package httpapi_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"hostgate/internal/apperr"
	"hostgate/internal/hosts"
	"hostgate/internal/hubtest"
)

type taggedHost struct {
	ID   string            `json:"id"`
	Name string            `json:"name"`
	Tags map[string]string `json:"tags"`
}

type tagHostPage struct {
	Items []taggedHost `json:"items"`
	Total *int         `json:"total"`
}

func (p tagHostPage) names() []string {
	out := []string{}
	for _, h := range p.Items {
		out = append(out, h.Name)
	}
	slices.Sort(out)
	return out
}

// tagFixture is a user with three hosts (a, b, c), an API key of theirs,
// and another user with one host.
type tagFixture struct {
	h                  *hubtest.Hub
	user, key, other   string
	ids                map[string]string
	othersHost, userID string
}

func newTagFixture(t *testing.T, h *hubtest.Hub) tagFixture {
	u, o := h.Register(t), h.Register(t)
	f := tagFixture{h: h, user: u.AccessToken, other: o.AccessToken, userID: u.User.ID, ids: map[string]string{}}
	c := h.Client(t)
	for _, n := range []string{"a", "b", "c"} {
		var host taggedHost
		c.As(f.user).Do("POST", "/v1/user/hosts", map[string]any{"name": n}).Want(t, 200, "").JSON(t, &host)
		if host.Tags == nil || len(host.Tags) != 0 {
			t.Fatalf("a new host's tags are %v, want {}", host.Tags)
		}
		f.ids[n] = host.ID
	}
	var oh taggedHost
	c.As(f.other).Do("POST", "/v1/user/hosts", map[string]any{"name": "theirs"}).Want(t, 200, "").JSON(t, &oh)
	f.othersHost = oh.ID
	c.As(f.other).Do("PUT", "/v1/user/hosts/"+oh.ID+"/tags", map[string]any{"tags": map[string]string{"env": "prod"}}).Want(t, 200, "")
	f.key = apiKey(t, h, f.user)
	return f
}

func (f tagFixture) list(t *testing.T, token, path string) tagHostPage {
	t.Helper()
	var p tagHostPage
	f.h.Client(t).As(token).Do("GET", path, nil).Want(t, 200, "").JSON(t, &p)
	return p
}

func TestHostTags(t *testing.T) {
	hubtest.Run(t, func(t *testing.T, mode hubtest.Mode) {
		h := hubtest.Start(t, mode)
		f := newTagFixture(t, h)
		c := h.Client(t)
		user, key := c.As(f.user), c.As(f.key)

		var set struct {
			HostID string            `json:"host_id"`
			Tags   map[string]string `json:"tags"`
		}
		user.Do("PUT", "/v1/user/hosts/"+f.ids["a"]+"/tags", map[string]any{"tags": map[string]string{"env": "prod", "role": ""}}).
			Want(t, 200, "").JSON(t, &set)
		if set.HostID != f.ids["a"] || set.Tags["env"] != "prod" || len(set.Tags) != 2 {
			t.Fatalf("PUT tags answered %+v", set)
		}
		// The client API's route is the same.
		key.Do("PUT", "/v1/api/hosts/"+f.ids["b"]+"/tags", map[string]any{"tags": map[string]string{"env": "staging"}}).Want(t, 200, "")

		// Every view shows the tags.
		var one struct{ Host taggedHost }
		user.Do("GET", "/v1/user/hosts/"+f.ids["a"], nil).Want(t, 200, "").JSON(t, &one)
		if one.Host.Tags["env"] != "prod" {
			t.Errorf("user view: %v", one.Host.Tags)
		}
		var apiOne taggedHost
		key.Do("GET", "/v1/api/hosts/"+f.ids["b"], nil).Want(t, 200, "").JSON(t, &apiOne)
		if apiOne.Tags["env"] != "staging" {
			t.Errorf("client API view: %v", apiOne.Tags)
		}
		all := f.list(t, f.user, "/v1/user/hosts")
		for _, it := range all.Items {
			if it.Tags == nil {
				t.Errorf("host %s has no tags object", it.Name)
			}
		}
		adm, _ := h.Admin(t, "owner")
		if p := f.list(t, adm, "/v1/admin/hosts?tag=env=prod"); !slices.Equal(p.names(), []string{"a", "theirs"}) {
			t.Errorf("admin tag=env=prod: %v", p.names())
		}
		if p := f.list(t, adm, "/v1/admin/hosts?tag=env=prod&user_id="+f.userID); len(p.Items) != 1 || p.Items[0].Tags["role"] != "" {
			t.Errorf("admin view of a's tags: %+v", p.Items)
		}

		// Bad tags: 400 naming the key, nothing changed.
		r := user.Do("PUT", "/v1/user/hosts/"+f.ids["a"]+"/tags", map[string]any{"tags": map[string]string{"bad key": "v", "env": "x"}}).Want(t, 400, "invalid_body")
		if !strings.Contains(string(r.Body), "bad key") {
			t.Errorf("the message does not name the key: %s", r.Body)
		}
		user.Do("PUT", "/v1/user/hosts/"+f.ids["a"]+"/tags", map[string]any{"tags": map[string]string{"env": "not valid!"}}).Want(t, 400, "invalid_body")
		many := map[string]string{}
		for i := range 33 {
			many[fmt.Sprintf("k%d", i)] = ""
		}
		user.Do("PUT", "/v1/user/hosts/"+f.ids["a"]+"/tags", map[string]any{"tags": many}).Want(t, 400, "invalid_body")
		user.Do("GET", "/v1/user/hosts/"+f.ids["a"], nil).Want(t, 200, "").JSON(t, &one)
		if len(one.Host.Tags) != 2 {
			t.Errorf("a refused PUT changed the tags: %v", one.Host.Tags)
		}

		// The tenant boundary: another user's host is not_found, unchanged.
		user.Do("PUT", "/v1/user/hosts/"+f.othersHost+"/tags", map[string]any{"tags": map[string]string{"x": "y"}}).Want(t, 404, "not_found")
		key.Do("PUT", "/v1/api/hosts/"+f.othersHost+"/tags", map[string]any{"tags": map[string]string{"x": "y"}}).Want(t, 404, "not_found")
		user.Do("POST", "/v1/user/hosts/tags", map[string]any{"host_ids": []string{f.ids["c"], f.othersHost}, "add": map[string]string{"x": "y"}}).
			Want(t, 404, "not_found")
		var theirs struct{ Host taggedHost }
		c.As(f.other).Do("GET", "/v1/user/hosts/"+f.othersHost, nil).Want(t, 200, "").JSON(t, &theirs)
		if len(theirs.Host.Tags) != 1 || theirs.Host.Tags["env"] != "prod" {
			t.Errorf("another user's host changed: %v", theirs.Host.Tags)
		}
		if p := f.list(t, f.user, "/v1/user/hosts?tag=x"); len(p.Items) != 0 {
			t.Errorf("a refused bulk change tagged %v", p.names())
		}

		// Bulk: add and remove on a selection.
		var upd struct{ Updated int }
		key.Do("POST", "/v1/api/hosts/tags", map[string]any{"host_ids": []string{f.ids["a"], f.ids["c"]}, "add": map[string]string{"team": "ops"}, "remove": []string{"role"}}).
			Want(t, 200, "").JSON(t, &upd)
		if upd.Updated != 2 {
			t.Errorf("updated %d", upd.Updated)
		}
		if p := f.list(t, f.user, "/v1/user/hosts?tag=team=ops"); !slices.Equal(p.names(), []string{"a", "c"}) {
			t.Errorf("tag=team=ops: %v", p.names())
		}
		if p := f.list(t, f.user, "/v1/user/hosts?tag=role"); len(p.Items) != 0 {
			t.Errorf("role was not removed: %v", p.names())
		}
		// Over 32 tags on one host refuses the whole change.
		add := map[string]string{}
		for i := range 31 {
			add[fmt.Sprintf("k%d", i)] = ""
		}
		user.Do("POST", "/v1/user/hosts/tags", map[string]any{"host_ids": []string{f.ids["b"], f.ids["a"]}, "add": add}).Want(t, 400, "invalid_body")
		if p := f.list(t, f.user, "/v1/user/hosts?tag=k0"); len(p.Items) != 0 {
			t.Errorf("a refused bulk change tagged %v", p.names())
		}
		user.Do("POST", "/v1/user/hosts/tags", map[string]any{"host_ids": []string{}, "add": map[string]string{"x": ""}}).Want(t, 400, "")

		// List filters: tags (all must match), with the other criteria, on
		// the user and client API lists.
		if p := f.list(t, f.user, "/v1/user/hosts?tag=env"); !slices.Equal(p.names(), []string{"a", "b"}) || p.Total == nil || *p.Total != 2 {
			t.Errorf("tag=env: %v", p.names())
		}
		if p := f.list(t, f.user, "/v1/user/hosts?tag=env&tag=team=ops"); !slices.Equal(p.names(), []string{"a"}) {
			t.Errorf("tag=env&tag=team=ops: %v", p.names())
		}
		if p := f.list(t, f.key, "/v1/api/hosts?tag=env=staging"); !slices.Equal(p.names(), []string{"b"}) || p.Total == nil {
			t.Errorf("client API tag=env=staging: %v", p.names())
		}
		if p := f.list(t, f.key, "/v1/api/hosts"); len(p.Items) != 3 || p.Total != nil {
			t.Errorf("client API list without parameters: %d items, total %v", len(p.Items), p.Total)
		}
		if p := f.list(t, f.user, "/v1/user/hosts?tag=env&status=pending&online=false&q=a"); !slices.Equal(p.names(), []string{"a"}) {
			t.Errorf("tag, status, online, q: %v", p.names())
		}
		if p := f.list(t, f.user, "/v1/user/hosts?tag=env&online=true"); len(p.Items) != 0 {
			t.Errorf("online=true: %v", p.names())
		}
		if p := f.list(t, f.user, "/v1/user/hosts?os=linux"); len(p.Items) != 0 {
			t.Errorf("os=linux: %v", p.names())
		}
		for _, bad := range []string{"tag=bad%20key", "tag=env=a%20b", "tag=", "online=maybe"} {
			user.Do("GET", "/v1/user/hosts?"+bad, nil).Want(t, 400, "invalid_query")
			key.Do("GET", "/v1/api/hosts?"+bad, nil).Want(t, 400, "invalid_query")
		}
		c.As(adm).Do("GET", "/v1/admin/hosts?tag=-x", nil).Want(t, 400, "invalid_query")

		// Autocomplete: the caller's tags only.
		var counts struct {
			Items []hosts.TagCount `json:"items"`
			Total int              `json:"total"`
			Limit int              `json:"limit"`
		}
		key.Do("GET", "/v1/api/tags", nil).Want(t, 200, "").JSON(t, &counts)
		want := []hosts.TagCount{{Key: "env", Value: "prod", HostCount: 1}, {Key: "env", Value: "staging", HostCount: 1}, {Key: "team", Value: "ops", HostCount: 2}}
		if !slices.Equal(counts.Items, want) || counts.Total != 3 || counts.Limit != 200 {
			t.Errorf("GET /v1/api/tags = %+v, want %v", counts, want)
		}
		user.Do("GET", "/v1/user/tags?limit=1000", nil).Want(t, 200, "")
		user.Do("GET", "/v1/user/tags?limit=1001", nil).Want(t, 400, "invalid_query")

		// Select, the jobs' entry.
		ctx := t.Context()
		ids, err := h.Hosts.Select(ctx, f.userID, hosts.Selector{Tags: []string{"team=ops"}}, 10)
		if err != nil || !slices.Equal(ids, []string{f.ids["a"], f.ids["c"]}) {
			t.Errorf("Select tags = %v, %v", ids, err)
		}
		if _, err := h.Hosts.Select(ctx, f.userID, hosts.Selector{Tags: []string{"team=ops"}}, 1); !apperr.Is(err, apperr.CodeInvalidBody) {
			t.Errorf("Select over max: %v", err)
		}
		if ids, err := h.Hosts.Select(ctx, f.userID, hosts.Selector{Tags: []string{"nope"}}, 1); err != nil || ids == nil || len(ids) != 0 {
			t.Errorf("Select of nothing = %#v, %v", ids, err)
		}
		if ids, err := h.Hosts.Select(ctx, f.userID, hosts.Selector{HostIDs: []string{f.ids["c"], f.ids["a"]}}, 10); err != nil ||
			!slices.Equal(ids, []string{f.ids["a"], f.ids["c"]}) {
			t.Errorf("Select host_ids = %v, %v", ids, err)
		}
		if _, err := h.Hosts.Select(ctx, f.userID, hosts.Selector{HostIDs: []string{f.ids["a"], f.othersHost}}, 10); !apperr.Is(err, apperr.CodeNotFound) {
			t.Errorf("Select of another user's host: %v", err)
		}
		if _, err := h.Hosts.Select(ctx, f.userID, hosts.Selector{Tags: []string{"x"}, FilterID: f.ids["a"]}, 10); !apperr.Is(err, apperr.CodeInvalidBody) {
			t.Errorf("Select of two kinds: %v", err)
		}
		if _, err := h.Hosts.Select(ctx, f.userID, hosts.Selector{Tags: []string{"bad key"}}, 10); !apperr.Is(err, apperr.CodeInvalidBody) {
			t.Errorf("Select of a bad tag: %v", err)
		}
	})
}

type savedFilter struct {
	ID        string         `json:"id"`
	Name      string         `json:"name"`
	Query     map[string]any `json:"query"`
	HostCount *int           `json:"host_count"`
	CreatedAt string         `json:"created_at"`
	UpdatedAt string         `json:"updated_at"`
}

func TestSavedFilters(t *testing.T) {
	hubtest.Run(t, func(t *testing.T, mode hubtest.Mode) {
		h := hubtest.Start(t, mode)
		f := newTagFixture(t, h)
		c := h.Client(t)
		user, key, other := c.As(f.user), c.As(f.key), c.As(f.other)
		user.Do("POST", "/v1/user/hosts/tags", map[string]any{"host_ids": []string{f.ids["a"], f.ids["b"]}, "add": map[string]string{"env": "prod"}}).Want(t, 200, "")

		var sf savedFilter
		user.Do("POST", "/v1/user/filters", map[string]any{"name": "prod", "query": map[string]any{"tags": []string{"env=prod"}}}).
			Want(t, 201, "").JSON(t, &sf)
		if sf.ID == "" || sf.Name != "prod" || sf.HostCount != nil || sf.CreatedAt == "" {
			t.Fatalf("created %+v", sf)
		}
		for _, k := range []string{"q", "status", "online", "os", "agent_version", "tags"} {
			if _, ok := sf.Query[k]; !ok {
				t.Errorf("query has no %s: %v", k, sf.Query)
			}
		}
		key.Do("POST", "/v1/api/filters", map[string]any{"name": "prod", "query": map[string]any{}}).Want(t, 409, "name_taken")
		user.Do("POST", "/v1/user/filters", map[string]any{"name": "x", "query": map[string]any{"tags": []string{"bad key"}}}).Want(t, 400, "invalid_body")
		user.Do("POST", "/v1/user/filters", map[string]any{"name": "", "query": map[string]any{}}).Want(t, 400, "")
		user.Do("POST", "/v1/user/filters", map[string]any{"name": "x", "query": map[string]any{"status": "gone"}}).Want(t, 400, "")

		var got savedFilter
		key.Do("GET", "/v1/api/filters/"+sf.ID, nil).Want(t, 200, "").JSON(t, &got)
		if got.HostCount == nil || *got.HostCount != 2 {
			t.Errorf("host_count = %v, want 2", got.HostCount)
		}
		// filter_id on the lists, narrowed by the other parameters.
		if p := f.list(t, f.user, "/v1/user/hosts?filter_id="+sf.ID); !slices.Equal(p.names(), []string{"a", "b"}) {
			t.Errorf("filter_id: %v", p.names())
		}
		if p := f.list(t, f.key, "/v1/api/hosts?filter_id="+sf.ID+"&q=b"); !slices.Equal(p.names(), []string{"b"}) {
			t.Errorf("filter_id&q=b: %v", p.names())
		}
		ids, err := h.Hosts.Select(t.Context(), f.userID, hosts.Selector{FilterID: sf.ID}, 10)
		if err != nil || len(ids) != 2 {
			t.Errorf("Select filter = %v, %v", ids, err)
		}

		var patched savedFilter
		user.Do("PATCH", "/v1/user/filters/"+sf.ID, map[string]any{"query": map[string]any{"tags": []string{"env=prod"}, "q": "a"}}).
			Want(t, 200, "").JSON(t, &patched)
		if patched.Name != "prod" || patched.Query["q"] != "a" {
			t.Errorf("patched %+v", patched)
		}
		key.Do("PATCH", "/v1/api/filters/"+sf.ID, map[string]any{"name": "renamed"}).Want(t, 200, "").JSON(t, &patched)
		if patched.Name != "renamed" || patched.Query["q"] != "a" {
			t.Errorf("renamed %+v", patched)
		}

		// The tenant boundary: another user's filter is not_found, unchanged.
		other.Do("GET", "/v1/user/filters/"+sf.ID, nil).Want(t, 404, "not_found")
		other.Do("PATCH", "/v1/user/filters/"+sf.ID, map[string]any{"name": "mine"}).Want(t, 404, "not_found")
		other.Do("DELETE", "/v1/user/filters/"+sf.ID, nil).Want(t, 404, "not_found")
		other.Do("GET", "/v1/user/hosts?filter_id="+sf.ID, nil).Want(t, 404, "not_found")
		if _, err := h.Hosts.Select(t.Context(), f.userID+"x", hosts.Selector{FilterID: sf.ID}, 10); !apperr.Is(err, apperr.CodeNotFound) {
			t.Errorf("Select of another user's filter: %v", err)
		}
		var theirs struct{ Items []savedFilter }
		other.Do("GET", "/v1/user/filters", nil).Want(t, 200, "").JSON(t, &theirs)
		if len(theirs.Items) != 0 {
			t.Errorf("another user lists %v", theirs.Items)
		}
		user.Do("GET", "/v1/user/filters/"+sf.ID, nil).Want(t, 200, "").JSON(t, &got)
		if got.Name != "renamed" {
			t.Errorf("another user's calls changed the filter: %+v", got)
		}

		// At most 100 filters.
		for i := 1; i < hosts.MaxFiltersPerUser; i++ {
			user.Do("POST", "/v1/user/filters", map[string]any{"name": fmt.Sprintf("f%03d", i), "query": map[string]any{}}).Want(t, 201, "")
		}
		user.Do("POST", "/v1/user/filters", map[string]any{"name": "one too many", "query": map[string]any{}}).Want(t, 409, "limit_reached")
		var list struct {
			Items []savedFilter
			Total int
		}
		user.Do("GET", "/v1/user/filters?limit=5", nil).Want(t, 200, "").JSON(t, &list)
		if list.Total != 100 || len(list.Items) != 5 || list.Items[0].Name != "f001" {
			t.Errorf("list: %d items of %d, first %q", len(list.Items), list.Total, list.Items[0].Name)
		}

		key.Do("DELETE", "/v1/api/filters/"+sf.ID, nil).Want(t, 204, "")
		user.Do("GET", "/v1/user/filters/"+sf.ID, nil).Want(t, 404, "not_found")
		user.Do("GET", "/v1/user/filters/not-a-uuid", nil).Want(t, 404, "not_found")
	})
}
