package sqldb

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
)

// column is a column of a batch of rows handed to one statement.
type column struct {
	name string
	// pgType is the column's type on PostgreSQL, where it arrives as an
	// array of it.
	pgType string
}

// valuesRows is how many rows a VALUES statement of execBatch carries.
// The statement is prepared once per batch and run for every full chunk:
// SQLite parses a long VALUES list slowly (a quarter of a 2,000-row flush
// went to parsing), and names ($n) it looks up in a list, so anonymous
// parameters (?) are used.
const valuesRows = 64

// execBatch runs body over rows, values of cols, in tx: body reads them
// as the table v and has no parameters of its own. A batch of N rows
// costs a few statements, not N, which is what an idle fleet's flushes
// paid for (docs/performance.md). With array parameters it is one
// statement, one array per column unnested, whose text does not depend on
// the batch's size, so the driver prepares it once; otherwise VALUES
// lists of valuesRows rows, then one of the rest.
func (d *DB) execBatch(ctx context.Context, tx *sql.Tx, what string, cols []column, rows [][]any, body string) error {
	if len(rows) == 0 {
		return nil
	}
	names := make([]string, len(cols))
	for i, c := range cols {
		names[i] = c.name
	}
	head := "WITH v(" + strings.Join(names, ", ") + ") AS ("
	if d.dialect.ArrayParams {
		arrays := make([]string, len(cols))
		args := make([]any, len(cols))
		for i, c := range cols {
			arrays[i] = fmt.Sprintf("$%d::%s[]", i+1, c.pgType)
			col := make([]any, len(rows))
			for j, r := range rows {
				col[j] = r[i]
			}
			args[i] = col
		}
		if _, err := tx.ExecContext(ctx, head+"SELECT * FROM unnest("+strings.Join(arrays, ", ")+")) "+body, args...); err != nil {
			return d.errorf(what, err)
		}
		return nil
	}
	values := func(n int) string {
		row := "(?" + strings.Repeat(", ?", len(cols)-1) + ")"
		return head + "VALUES " + row + strings.Repeat(", "+row, n-1) + ") " + body
	}
	args := make([]any, 0, valuesRows*len(cols))
	flat := func(chunk [][]any) []any {
		args = args[:0]
		for _, r := range chunk {
			args = append(args, r...)
		}
		return args
	}
	if len(rows) >= valuesRows {
		stmt, err := tx.PrepareContext(ctx, values(valuesRows))
		if err != nil {
			return d.errorf(what, err)
		}
		defer func() { _ = stmt.Close() }()
		for len(rows) >= valuesRows {
			if _, err := stmt.ExecContext(ctx, flat(rows[:valuesRows])...); err != nil {
				return d.errorf(what, err)
			}
			rows = rows[valuesRows:]
		}
	}
	if len(rows) > 0 {
		if _, err := tx.ExecContext(ctx, values(len(rows)), flat(rows)...); err != nil {
			return d.errorf(what, err)
		}
	}
	return nil
}
