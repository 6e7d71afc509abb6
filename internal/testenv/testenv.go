// Package testenv gives tests real databases: a fresh embedded SQLite file
// and a fresh PostgreSQL database per call, so every storage test runs on
// both engines.
//
// PostgreSQL is found through BONDVENUE_TEST_POSTGRES_URL (an URL of a
// server where the test may CREATE and DROP databases), falling back to
// postgres://postgres@127.0.0.1:5432/postgres. When it cannot be reached
// the PostgreSQL variant is skipped — unless BONDVENUE_TEST_REQUIRE_POSTGRES
// is set (CI sets it), which makes that a failure.
package testenv

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"net/url"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/bondvenue/bondvenue/internal/demo"
	"github.com/bondvenue/bondvenue/internal/store"
	_ "github.com/jackc/pgx/v5/stdlib" // the pgx driver for the admin connection
)

// Engines lists the engines every storage test runs on.
var Engines = []store.Engine{store.SQLite, store.Postgres}

const defaultPostgres = "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"

var (
	pgOnce  sync.Once
	pgAdmin *sql.DB
	pgURL   *url.URL
	pgErr   error
)

func postgresAdmin() (*sql.DB, *url.URL, error) {
	pgOnce.Do(func() {
		raw := os.Getenv("BONDVENUE_TEST_POSTGRES_URL")
		if raw == "" {
			raw = defaultPostgres
		}
		pgURL, pgErr = url.Parse(raw)
		if pgErr != nil {
			return
		}
		pgAdmin, pgErr = sql.Open("pgx", raw)
		if pgErr != nil {
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		pgErr = pgAdmin.PingContext(ctx)
	})
	return pgAdmin, pgURL, pgErr
}

// DatabaseURL returns the URL of a fresh, empty database for engine e, or
// "" for SQLite (whose data directory is t.TempDir()). The PostgreSQL
// database is dropped when the test ends.
func DatabaseURL(t testing.TB, e store.Engine) string {
	t.Helper()
	if e == store.SQLite {
		return ""
	}
	admin, base, err := postgresAdmin()
	if err != nil {
		if os.Getenv("BONDVENUE_TEST_REQUIRE_POSTGRES") != "" {
			t.Fatalf("PostgreSQL required but unavailable: %v", err)
		}
		t.Skipf("PostgreSQL unavailable (%v); set BONDVENUE_TEST_POSTGRES_URL", err)
	}
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	name := "bvtest_" + hex.EncodeToString(b)
	ctx := context.Background()
	if _, err := admin.ExecContext(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatalf("create database %s: %v", name, err)
	}
	t.Cleanup(func() {
		if _, err := admin.ExecContext(context.Background(), "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)"); err != nil {
			t.Logf("drop database %s: %v", name, err)
		}
	})
	u := *base
	u.Path = "/" + name
	return u.String()
}

// Open returns a fresh, migrated database of engine e, closed when the
// test ends.
func Open(t testing.TB, e store.Engine) *store.DB {
	t.Helper()
	return OpenConfig(t, store.Config{URL: DatabaseURL(t, e), DataDir: t.TempDir()})
}

// OpenConfig opens and migrates the database cfg names (from DatabaseURL
// and t.TempDir()), closed when the test ends.
func OpenConfig(t testing.TB, cfg store.Config) *store.DB {
	t.Helper()
	db, err := store.Open(context.Background(), cfg)
	if err != nil {
		t.Fatalf("open %s: %v", cfg.URL, err)
	}
	t.Cleanup(func() { db.Close() })
	if _, err := db.Migrate(context.Background()); err != nil {
		t.Fatalf("migrate: %v", err)
	}
	return db
}

// Service returns a started venue on a fresh database of engine e, with
// cheap secret hashing (tests only).
func Service(t testing.TB, e store.Engine, cfg Config) *Venue {
	t.Helper()
	return Started(t, Open(t, e), cfg)
}

// Demo starts a venue with cfg on db (a fresh, migrated database), loads
// the demo venue into it and returns both, with the demo credentials: the
// venue every package's tests start from. The venue is closed when the
// test ends. A nil cfg.Trading.Hasher hashes secrets cheaply (tests only).
func Demo(t testing.TB, db *store.DB, cfg Config) (*Venue, demo.Credentials) {
	t.Helper()
	v := Started(t, db, cfg)
	creds, loaded, err := demo.Load(context.Background(), v.Svc, t.TempDir(), "http://bondvenue.test")
	if err != nil || !loaded {
		t.Fatalf("demo.Load() = %v, loaded %v", err, loaded)
	}
	return v, creds
}

// ForEach runs fn as a subtest per engine.
func ForEach(t *testing.T, fn func(t *testing.T, e store.Engine)) {
	for _, e := range Engines {
		t.Run(string(e), func(t *testing.T) { fn(t, e) })
	}
}
