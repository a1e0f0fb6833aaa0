package sqldb

import (
	"testing"
	"time"

	"hostgate/internal/paging"
)

func TestClampPage(t *testing.T) {
	for _, c := range []struct {
		in                    paging.Page
		wantLimit, wantOffset int
	}{
		{paging.Page{Limit: 10, Offset: 5}, 10, 5},
		{paging.Page{Limit: 0, Offset: 0}, paging.DefaultLimit, 0},
		{paging.Page{Limit: -1, Offset: -3}, paging.DefaultLimit, 0},
		{paging.Page{Limit: paging.MaxLimit + 1, Offset: 0}, paging.MaxLimit, 0},
	} {
		limit, offset := clampPage(c.in)
		if limit != c.wantLimit || offset != c.wantOffset {
			t.Errorf("clampPage(%+v): got %d, %d, want %d, %d", c.in, limit, offset, c.wantLimit, c.wantOffset)
		}
	}
}

func TestEscapeLike(t *testing.T) {
	for in, want := range map[string]string{
		"plain": "plain", "100%": "100!%", "a_b": "a!_b", "hey!": "hey!!", `back\slash`: `back\slash`,
	} {
		if got := escapeLike(in); got != want {
			t.Errorf("escapeLike(%q): got %q, want %q", in, got, want)
		}
	}
}

func TestTimeDest(t *testing.T) {
	want := time.Date(2025, 3, 1, 11, 0, 0, 123456000, time.UTC)
	for _, c := range []struct {
		name    string
		src     any
		wantErr bool
	}{
		{"time from PostgreSQL, other zone", want.In(time.FixedZone("UTC+1", 3600)), false},
		{"text", "2025-03-01T11:00:00.123456Z", false},
		{"bytes", []byte("2025-03-01T11:00:00.123456Z"), false},
		{"not the format", "2025-03-01 11:00:00", true},
		{"not a time", int64(1), true},
	} {
		t.Run(c.name, func(t *testing.T) {
			var got time.Time
			err := timeDest{&got}.Scan(c.src)
			switch {
			case c.wantErr && err == nil:
				t.Errorf("Scan(%v): got %v, want an error", c.src, got)
			case !c.wantErr && (err != nil || !got.Equal(want) || got.Location() != time.UTC):
				t.Errorf("Scan(%v): got %v, %v, want %v UTC", c.src, got, err, want)
			}
		})
	}
}

func TestNullTimeDest(t *testing.T) {
	got := new(time.Now())
	if err := (nullTimeDest{&got}).Scan(nil); err != nil || got != nil {
		t.Errorf("Scan(nil): got %v, %v, want nil, nil", got, err)
	}
}

func TestTimeFormatRoundTrip(t *testing.T) {
	in := time.Date(2031, 7, 9, 23, 59, 59, 999999999, time.FixedZone("UTC-7", -7*3600))
	d := &DB{dialect: Dialect{TextTimes: true}}
	text, ok := d.timeArg(in).(string)
	if !ok || len(text) != len(TimeFormat) {
		t.Fatalf("timeArg: got %#v, want fixed-width text", d.timeArg(in))
	}
	got, err := parseTime(text)
	if err != nil || !got.Equal(in.Truncate(time.Microsecond)) {
		t.Errorf("round trip of %v: got %v, %v, want %v", in, got, err, in.Truncate(time.Microsecond))
	}
}
