package hosts

import (
	"reflect"
	"strings"
	"testing"
)

// TestSortOrders: each row of the one sort table says what its value says
// (the column, descending with a leading "-"), names a JSON field of Host
// that may be NULL exactly when the row is Nullable, and comes once; the
// default is one of them and Order finds each row.
func TestSortOrders(t *testing.T) {
	fields := map[string]reflect.Type{}
	for _, f := range reflect.VisibleFields(reflect.TypeFor[Host]()) {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		fields[name] = f.Type
	}
	seen := map[Sort]bool{}
	for _, o := range SortOrders {
		want := Sort(o.Column)
		if o.Desc {
			want = "-" + want
		}
		if o.Sort != want {
			t.Errorf("%+v: sort value %q, want %q (its column and direction)", o, o.Sort, want)
		}
		typ, ok := fields[o.Column]
		if !ok {
			t.Errorf("%+v: %q is no field of Host", o, o.Column)
		} else if (typ.Kind() == reflect.Pointer) != o.Nullable {
			t.Errorf("%+v: Host.%s is %s, Nullable %v", o, o.Column, typ, o.Nullable)
		}
		if seen[o.Sort] {
			t.Errorf("%q is listed twice", o.Sort)
		}
		seen[o.Sort] = true
		if got, ok := o.Sort.Order(); !ok || got != o {
			t.Errorf("%q.Order() = %+v, %v; want its row", o.Sort, got, ok)
		}
	}
	if len(Sorts) != len(SortOrders) {
		t.Errorf("Sorts has %d values, SortOrders %d rows", len(Sorts), len(SortOrders))
	}
	if def, ok := Sort("").Order(); !ok || def.Sort != DefaultSort || !seen[DefaultSort] {
		t.Errorf(`"".Order() = %+v, %v; want DefaultSort %q's row`, def, ok, DefaultSort)
	}
	for _, bad := range []Sort{"id", "+name", "-", "name ", "NAME"} {
		if _, ok := bad.Order(); ok {
			t.Errorf("%q.Order() is ok, want unknown", bad)
		}
	}
}
