package apperr

import (
	"errors"
	"fmt"
	"testing"
)

type liteErr int

func (e liteErr) Error() string { return fmt.Sprintf("sqlite %d", int(e)) }
func (e liteErr) Code() int     { return int(e) }

type pgErr string

func (e pgErr) Error() string    { return "pg " + string(e) }
func (e pgErr) SQLState() string { return string(e) }

func TestStorageFull(t *testing.T) {
	for _, c := range []struct {
		err  error
		want bool
	}{
		{fmt.Errorf("sqlite: create host: %w", liteErr(13)), true},
		{liteErr(13 | 1<<8), true}, // an extended code of SQLITE_FULL
		{liteErr(19), false},       // constraint
		{fmt.Errorf("postgres: charge: %w", pgErr("53100")), true},
		{pgErr("23505"), false},
		{errors.New("database or disk is full"), false}, // text alone is not trusted
		{nil, false},
	} {
		if got := StorageFull(c.err); got != c.want {
			t.Errorf("StorageFull(%v) = %v, want %v", c.err, got, c.want)
		}
	}
}
