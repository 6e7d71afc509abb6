package store

import (
	"context"
	"io/fs"
)

// MigrationsOf resolves the migrations of an engine in a tree of the
// layout of the embedded one.
func MigrationsOf(fsys fs.FS, e Engine) ([]Migration, error) { return migrationsOf(fsys, e) }

// PendingVersions are the migration numbers still on another branch.
var PendingVersions = pendingVersions

// MigrateTo applies the migrations up to version last, for tests of what a
// migration does to the data written before it.
func (db *DB) MigrateTo(ctx context.Context, last int) ([]int, error) { return db.migrate(ctx, last) }

// ExecForTest runs a statement of the test's in tx.
func ExecForTest(ctx context.Context, tx *Tx, query string, args ...any) error {
	_, err := tx.exec(ctx, query, args...)
	return err
}
