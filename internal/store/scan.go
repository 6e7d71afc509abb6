package store

import (
	"context"
	"database/sql"
	"github.com/bondvenue/bondvenue/internal/venue"
	"time"

	"github.com/quagmt/udecimal"
)

// Page selects a slice of a list; see venue.Page.
type Page = venue.Page

// pageSQL appends the page's conditions and ordering to a query whose WHERE
// clause is already open, returning the extended query and arguments. It
// asks for one row more than the limit so callers can tell whether a next
// page exists.
func pageSQL(q string, args []any, p Page, idCol, createdCol string) (string, []any) {
	if p.Cursor != "" {
		q += " AND " + idCol + " < ?"
		args = append(args, p.Cursor)
	}
	if p.From != nil {
		q += " AND " + createdCol + " >= ?"
		args = append(args, p.From.UnixMilli())
	}
	if p.To != nil {
		q += " AND " + createdCol + " < ?"
		args = append(args, p.To.UnixMilli())
	}
	q += " ORDER BY " + idCol + " DESC"
	if p.Limit > 0 {
		q += " LIMIT ?"
		args = append(args, p.Limit+1)
	}
	return q, args
}

// trimPage cuts a list fetched with pageSQL to the page limit and returns
// the cursor of the next page ("" when none).
func trimPage[T any](items []T, p Page, id func(T) string) ([]T, string) {
	if p.Limit > 0 && len(items) > p.Limit {
		items = items[:p.Limit]
		return items, id(items[len(items)-1])
	}
	return items, ""
}

func ms(t time.Time) int64 { return t.UnixMilli() }

func fromMS(v int64) time.Time { return time.UnixMilli(v).UTC() }

// fromUSOr is a time kept to the microsecond, or to the millisecond in
// ms on a row written before microseconds were kept.
func fromUSOr(us sql.NullInt64, ms int64) time.Time {
	if us.Valid {
		return time.UnixMicro(us.Int64).UTC()
	}
	return fromMS(ms)
}

func nullMS(t *time.Time) any {
	if t == nil {
		return nil
	}
	return t.UnixMilli()
}

func fromNullMS(v sql.NullInt64) *time.Time {
	if !v.Valid {
		return nil
	}
	t := fromMS(v.Int64)
	return &t
}

func nullStr(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// decimal scans exact decimal text.
type decimal struct{ d *udecimal.Decimal }

func (s decimal) Scan(src any) error {
	var str string
	switch v := src.(type) {
	case string:
		str = v
	case []byte:
		str = string(v)
	default:
		return errBadDecimal
	}
	d, err := udecimal.Parse(str)
	if err != nil {
		return err
	}
	*s.d = d
	return nil
}

var errBadDecimal = sqlErr("stored decimal is not text")

type sqlErr string

func (e sqlErr) Error() string { return string(e) }

// selectAll runs a query and scans every row with scan.
func selectAll[T any](ctx context.Context, tx *Tx, scan func(*sql.Rows) (T, error), q string, args ...any) ([]T, error) {
	rows, err := tx.query(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []T
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

func scanString(r *sql.Rows) (string, error) {
	var s string
	return s, r.Scan(&s)
}

// nullUS is t in microseconds, NULL for the zero time.
func nullUS(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t.UnixMicro()
}
