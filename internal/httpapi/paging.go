package httpapi

import "hostgate/internal/paging"

// PageParams is the limit/offset pair every paged list accepts; huma enforces
// the bounds, so a bad value is 400 invalid_query before any handler runs.
type PageParams struct {
	Limit  int `query:"limit" minimum:"1" maximum:"200" default:"50" doc:"Items per page (default 50, at most 200)"`
	Offset int `query:"offset" minimum:"0" maximum:"100000" default:"0" doc:"Items to skip (at most 100000)"`
}

func (p PageParams) page() paging.Page {
	if p.Limit == 0 {
		p.Limit = paging.DefaultLimit
	}
	return paging.Page{Limit: p.Limit, Offset: p.Offset}
}

// pagedOut is the answer of a paged list: {items, total, limit, offset}.
type pagedOut[T any] struct {
	Body paging.Result[T]
}
