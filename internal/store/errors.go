package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/bondvenue/bondvenue/internal/venue"
	"github.com/jackc/pgx/v5/pgconn"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// This file is the one place where driver errors become domain errors.

// normalize maps driver errors to venue error kinds, keeping the driver
// error in the chain for the log. Domain errors pass through unchanged.
func normalize(err error) error {
	if err == nil {
		return nil
	}
	var ve *venue.Error
	if errors.As(err, &ve) {
		return err
	}
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return &wrapped{kind: venue.NotFound("record"), err: err}
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return &wrapped{kind: &venue.Error{Kind: venue.KindUnavailable, Message: "request cancelled or timed out"}, err: err}
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		switch pgErr.Code {
		case "23505":
			return &wrapped{kind: venue.Conflict("a record with the same unique key exists"), err: err}
		case "23503":
			return &wrapped{kind: venue.NotFound("referenced record"), err: err}
		case "40001", "40P01":
			return &wrapped{kind: &venue.Error{Kind: venue.KindUnavailable, Message: "database busy, retry"}, err: err}
		case leaseLostCode:
			return &wrapped{kind: ErrLeaseLost, err: err}
		}
		return &wrapped{kind: &venue.Error{Kind: venue.KindUnavailable, Message: "database error"}, err: err}
	}
	var sqErr *sqlite.Error
	if errors.As(err, &sqErr) {
		switch sqErr.Code() {
		case sqlite3.SQLITE_CONSTRAINT_UNIQUE, sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY:
			return &wrapped{kind: venue.Conflict("a record with the same unique key exists"), err: err}
		case sqlite3.SQLITE_CONSTRAINT_FOREIGNKEY:
			return &wrapped{kind: venue.NotFound("referenced record"), err: err}
		}
		if isBusy(sqErr.Code()) {
			return &wrapped{kind: &venue.Error{Kind: venue.KindUnavailable, Message: "database busy, retry"}, err: err}
		}
		return &wrapped{kind: &venue.Error{Kind: venue.KindUnavailable, Message: "database error"}, err: err}
	}
	var netErr interface{ Timeout() bool }
	if errors.As(err, &netErr) {
		return &wrapped{kind: &venue.Error{Kind: venue.KindUnavailable, Message: "database unreachable"}, err: err}
	}
	return err
}

// retryable reports whether a transaction failed only because of
// concurrency and may succeed when run again.
func retryable(err error) bool {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		return pgErr.Code == "40001" || pgErr.Code == "40P01"
	}
	var sqErr *sqlite.Error
	if errors.As(err, &sqErr) {
		return isBusy(sqErr.Code())
	}
	return false
}

func isBusy(code int) bool {
	return code&0xff == sqlite3.SQLITE_BUSY || code&0xff == sqlite3.SQLITE_LOCKED
}

// wrapped pairs the domain error a client may see with the driver error
// that only the log sees.
type wrapped struct {
	kind *venue.Error
	err  error
}

func (w *wrapped) Error() string { return fmt.Sprintf("%s: %v", w.kind.Message, w.err) }

func (w *wrapped) Unwrap() []error { return []error{w.kind, w.err} }
