package store

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"
)

// The migrations are written once where the SQL is the same on both
// engines (migrations/common) and per dialect only where it differs
// (migrations/sqlite, migrations/postgres): a version is one file, found in
// the engine's own folder or in common, never in both.
//
//go:embed migrations
var migrations embed.FS

// Migration is one numbered, forward-only schema change.
type Migration struct {
	Version int
	Name    string
	SQL     string
}

// Migrations lists the embedded migrations of engine e in order.
func Migrations(e Engine) ([]Migration, error) { return migrationsOf(migrations, e) }

// migrationsOf resolves the migrations of engine e in fsys: each version
// from migrations/<e> or migrations/common, exactly once, numbered from 1
// without a gap.
func migrationsOf(fsys fs.FS, e Engine) ([]Migration, error) {
	from := map[int]string{} // version → the folder it came from
	var out []Migration
	for _, dir := range []string{"migrations/common", "migrations/" + string(e)} {
		entries, err := fs.ReadDir(fsys, dir)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("read migrations: %w", err)
		}
		for _, ent := range entries {
			name := ent.Name()
			if !strings.HasSuffix(name, ".sql") {
				continue
			}
			num, _, ok := strings.Cut(name, "_")
			v, err := strconv.Atoi(num)
			if !ok || err != nil {
				return nil, fmt.Errorf("migration %s/%s: name must start with a number and _", dir, name)
			}
			if prev, dup := from[v]; dup {
				return nil, fmt.Errorf("migration %s/%s: version %d is also in %s", dir, name, v, prev)
			}
			from[v] = dir
			body, err := fs.ReadFile(fsys, dir+"/"+name)
			if err != nil {
				return nil, fmt.Errorf("read migration %s: %w", name, err)
			}
			out = append(out, Migration{Version: v, Name: name, SQL: string(body)})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Version < out[j].Version })
	want := 1
	for _, m := range out {
		for pendingVersions[want] && m.Version > want {
			want++
		}
		if m.Version != want {
			return nil, fmt.Errorf("migration %s (%s): expected version %d", m.Name, from[m.Version], want)
		}
		want++
	}
	return out, nil
}

// pendingVersions are migration numbers reserved for a change still on
// another branch: the numbers after one may be applied before it arrives.
// A number leaves the list when its file is merged.
var pendingVersions = map[int]bool{21: true}

// Migrate applies every migration not yet applied, each in its own
// transaction, and returns the versions it applied.
func (db *DB) Migrate(ctx context.Context) ([]int, error) {
	return db.migrate(ctx, math.MaxInt)
}

// migrate applies the migrations up to version last.
func (db *DB) migrate(ctx context.Context, last int) ([]int, error) {
	ms, err := Migrations(db.engine)
	if err != nil {
		return nil, err
	}
	if _, err := db.write.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at BIGINT NOT NULL)`); err != nil {
		return nil, normalize(fmt.Errorf("create schema_migrations: %w", err))
	}
	var applied []int
	for _, m := range ms {
		if m.Version > last {
			break
		}
		done := false
		err := db.InTx(ctx, func(tx *Tx) error {
			if tx.engine == Postgres {
				if _, err := tx.exec(ctx, "SELECT pg_advisory_xact_lock(?)", migrationLockKey); err != nil {
					return err
				}
			}
			var n int
			if err := tx.queryRow(ctx, "SELECT COUNT(*) FROM schema_migrations WHERE version = ?", m.Version).Scan(&n); err != nil {
				return err
			}
			if n > 0 {
				done = true
				return nil
			}
			if _, err := tx.tx.ExecContext(ctx, m.SQL); err != nil {
				return fmt.Errorf("apply %s: %w", m.Name, err)
			}
			_, err := tx.exec(ctx, "INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)",
				m.Version, m.Name, time.Now().UnixMilli())
			return err
		})
		if err != nil {
			return applied, fmt.Errorf("migrate: %w", err)
		}
		if !done {
			applied = append(applied, m.Version)
		}
	}
	return applied, nil
}

// SchemaVersion returns the highest applied migration, 0 on an empty
// database.
func (db *DB) SchemaVersion(ctx context.Context) (int, error) {
	var v int
	err := db.View(ctx, func(tx *Tx) error {
		if ok, err := tx.hasMigrationsTable(ctx); err != nil || !ok {
			return err
		}
		return tx.queryRow(ctx, "SELECT COALESCE(MAX(version), 0) FROM schema_migrations").Scan(&v)
	})
	return v, err
}
