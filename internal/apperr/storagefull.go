package apperr

import "errors"

// CodeStorageFull answers a write the store refused because its disk is
// full (HTTP 507): nothing was saved, reads go on, and the same request
// succeeds once space is freed.
const CodeStorageFull = "storage_full"

// StorageFull reports whether err comes from a store whose disk is full:
// SQLite's SQLITE_FULL (result code 13, "database or disk is full") or
// PostgreSQL's disk_full (SQLSTATE 53100). It reads the drivers' errors by
// their methods (Code() int, SQLState() string), so the packages that
// translate errors need no store or driver import.
func StorageFull(err error) bool {
	var lite interface{ Code() int }
	if errors.As(err, &lite) && lite.Code()&0xff == 13 {
		return true
	}
	var pg interface{ SQLState() string }
	return errors.As(err, &pg) && pg.SQLState() == "53100"
}
