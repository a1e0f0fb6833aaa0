package httpapi

import (
	"errors"
	"hash/fnv"
	"net/url"

	"github.com/danielgtaylor/huma/v2"

	"hostgate/internal/apperr"
	"hostgate/internal/paging"
)

// PageParams is the limit/offset pair every paged list accepts, and the
// cursor of keyset paging (docs/api.md, "Paging"); huma enforces the
// bounds, so a bad value is 400 invalid_query before any handler runs,
// and Resolve refuses a cursor that is bad or made for another query
// (400 invalid_cursor) or sent with an offset (400 invalid_query).
type PageParams struct {
	Limit  int    `query:"limit" minimum:"1" maximum:"200" default:"50" doc:"Items per page (default 50, at most 200)"`
	Offset int    `query:"offset" minimum:"0" maximum:"100000" default:"0" doc:"Items to skip (at most 100000); not with cursor"`
	Cursor string `query:"cursor" maxLength:"512" doc:"Start after the page that gave this next_cursor, with the same other query parameters; a deep page then costs what the first does. Not with offset"`

	keyset *paging.Keyset // set by Resolve: this request's cursor binding and position
}

// Resolve binds the page to its list and query, and decodes the cursor.
// huma may call it twice (on the input that embeds PageParams and on the
// field); the second call does nothing.
func (p *PageParams) Resolve(ctx huma.Context) []error {
	if p.keyset != nil {
		return nil
	}
	p.keyset = &paging.Keyset{Bind: queryBind(ctx)}
	if p.Cursor == "" {
		return nil
	}
	if p.Offset > 0 {
		return []error{&huma.ErrorDetail{Location: "query.offset", Message: "offset cannot be combined with cursor", Value: p.Offset}}
	}
	k, err := paging.DecodeCursor(p.Cursor, p.keyset.Bind)
	if err != nil {
		msg := err.Error()
		if e, ok := errors.AsType[*apperr.Error](err); ok {
			msg = e.Message
		}
		return []error{&huma.ErrorDetail{Location: "query.cursor", Message: msg}}
	}
	p.keyset.After = k
	return nil
}

// queryBind is the hash a cursor is bound to: the operation, the path
// (with its ids) and every query parameter but the page's own, so that a
// cursor is refused for another list, order or filter.
func queryBind(ctx huma.Context) uint64 {
	u := ctx.URL()
	q := url.Values{}
	for k, v := range u.Query() {
		switch k {
		case "limit", "offset", "cursor":
		default:
			q[k] = v
		}
	}
	h := fnv.New64a()
	if op := ctx.Operation(); op != nil {
		h.Write([]byte(op.OperationID))
	}
	h.Write([]byte{0})
	h.Write([]byte(u.Path))
	h.Write([]byte{0})
	h.Write([]byte(q.Encode()))
	return h.Sum64()
}

func (p PageParams) page() paging.Page {
	if p.Limit == 0 {
		p.Limit = paging.DefaultLimit
	}
	return paging.Page{Limit: p.Limit, Offset: p.Offset, Keyset: p.keyset}
}

// pagedOut is the answer of a paged list: {items, total, limit, offset,
// next_cursor}.
type pagedOut[T any] struct {
	Body paging.Result[T]
}
