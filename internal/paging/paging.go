// Package paging holds the one page envelope every paged list uses, and the
// limits on limit and offset.
package paging

// Limits on page requests; docs/api.md quotes them.
const (
	DefaultLimit = 50
	MaxLimit     = 200
	MaxOffset    = 100_000
)

// Page asks for Limit items after skipping Offset.
type Page struct {
	Limit  int
	Offset int
}

// Result is one page of T with the total number of matches.
type Result[T any] struct {
	Items  []T `json:"items"`
	Total  int `json:"total"`
	Limit  int `json:"limit"`
	Offset int `json:"offset"`
}

// NewResult builds a result, never with a nil Items (which would encode as null).
func NewResult[T any](items []T, total int, p Page) Result[T] {
	if items == nil {
		items = []T{}
	}
	return Result[T]{Items: items, Total: total, Limit: p.Limit, Offset: p.Offset}
}
