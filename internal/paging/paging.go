// Package paging holds the one page envelope every paged list uses, and the
// limits on limit and offset.
package paging

import (
	"slices"
	"strings"
	"unicode/utf8"
)

// Limits on page requests; docs/api.md quotes them.
const (
	DefaultLimit = 50
	MaxLimit     = 200
	MaxOffset    = 100_000
)

// Page asks for Limit items after skipping Offset, or, when Keyset has
// an After key, after that position (keyset paging; Offset is then 0).
// A store that pages by key reports the next position in Keyset.Next.
type Page struct {
	Limit  int
	Offset int
	Keyset *Keyset
}

// After is the key the page starts after, nil for an offset page.
func (p Page) After() Key {
	if p.Keyset == nil {
		return nil
	}
	return p.Keyset.After
}

// SetNext records the key of the page's last item, when items may follow
// it; a page without a Keyset asked for no cursor.
func (p Page) SetNext(k Key) {
	if p.Keyset != nil {
		p.Keyset.Next = k
	}
}

// Result is one page of T with the total number of matches.
type Result[T any] struct {
	Items  []T `json:"items"`
	Total  int `json:"total"`
	Limit  int `json:"limit"`
	Offset int `json:"offset"`
	// NextCursor continues the list after this page: present when items
	// may follow it, absent on the last page (docs/api.md, "Paging").
	NextCursor string `json:"next_cursor,omitempty"`
}

// NewResult builds a result, never with a nil Items (which would encode as null).
func NewResult[T any](items []T, total int, p Page) Result[T] {
	if items == nil {
		items = []T{}
	}
	return Result[T]{Items: items, Total: total, Limit: p.Limit, Offset: p.Offset, NextCursor: p.Keyset.NextCursor()}
}

// MinSubstring is the length, in characters, from which a list's text
// query matches a part of a field (docs/api.md, "Searching lists"): the
// stores find parts through trigram indexes, which hold nothing shorter.
// A shorter query matches the start of a field instead, through a B-tree.
const MinSubstring = 3

// PrefixOnly reports whether the text query q is too short to match a
// part of a field, and so matches the start of one.
func PrefixOnly(q string) bool {
	return utf8.RuneCountInString(q) < MinSubstring
}

// SortField splits a sort value ("name", "-name") into its field and
// direction; ok is false unless the field is one of fields. An empty s is
// def.
func SortField(s, def string, fields []string) (field string, desc, ok bool) {
	if s == "" {
		s = def
	}
	field, desc = strings.CutPrefix(s, "-")
	return field, desc, slices.Contains(fields, field)
}

// Sorts is every sort value of fields: each ascending, then descending.
func Sorts(fields []string) []string {
	out := make([]string, 0, 2*len(fields))
	for _, f := range fields {
		out = append(out, f, "-"+f)
	}
	return out
}

// Map is r with each item turned by f: the page a transport shows of a
// page the domain read.
func Map[T, U any](r Result[T], f func(T) U) Result[U] {
	items := make([]U, len(r.Items))
	for i, v := range r.Items {
		items[i] = f(v)
	}
	return Result[U]{Items: items, Total: r.Total, Limit: r.Limit, Offset: r.Offset, NextCursor: r.NextCursor}
}
