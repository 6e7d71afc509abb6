package main

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"

	"github.com/bondvenue/bondvenue/internal/store"
	_ "github.com/jackc/pgx/v5/stdlib" // the pgx driver for the admin connection
)

// databases hands every scenario a fresh, migrated database of one engine:
// a new SQLite file in its own directory, or a new PostgreSQL database
// created on the server of the given URL and dropped afterwards.
type databases struct {
	engine store.Engine
	// root holds the SQLite directories (and the demo credentials files).
	root  string
	admin *sql.DB  // PostgreSQL: a connection to the server's given database
	base  *url.URL // PostgreSQL: the given URL
	pool  int      // store.Config.MaxOpen; 0 keeps the store default
	warn  io.Writer
}

func newDatabases(ctx context.Context, engine store.Engine, databaseURL, root string, pool int, warn io.Writer) (*databases, error) {
	d := &databases{engine: engine, root: root, pool: pool, warn: warn}
	if engine != store.Postgres {
		return d, nil
	}
	u, err := url.Parse(databaseURL)
	if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") {
		return nil, usageError{Msg: "--database-url must be a postgres:// URL of a server where bvload may CREATE and DROP databases"}
	}
	admin, err := sql.Open("pgx", databaseURL)
	if err != nil {
		return nil, fmt.Errorf("connect to postgres: %w", err)
	}
	if err := admin.PingContext(ctx); err != nil {
		admin.Close()
		return nil, fmt.Errorf("connect to postgres: %w", err)
	}
	d.admin, d.base = admin, u
	return d, nil
}

// Close closes the admin connection.
func (d *databases) Close() error {
	if d.admin != nil {
		return d.admin.Close()
	}
	return nil
}

// fresh opens a new migrated database for scenario name. dir is a
// directory of the scenario's own (for the SQLite file and the demo
// credentials). drop closes the database and removes it.
func (d *databases) fresh(ctx context.Context, name string) (db *store.DB, dir string, drop func(), err error) {
	dir = filepath.Join(d.root, name)
	if err := os.RemoveAll(dir); err != nil {
		return nil, "", nil, err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, "", nil, err
	}
	cfg := store.Config{DataDir: dir, MaxOpen: d.pool}
	cleanup := func() { _ = os.RemoveAll(dir) }
	if d.engine == store.Postgres {
		b := make([]byte, 6)
		_, _ = rand.Read(b)
		dbName := "bvload_" + name + "_" + hex.EncodeToString(b)
		if _, err := d.admin.ExecContext(ctx, "CREATE DATABASE "+dbName); err != nil {
			return nil, "", nil, fmt.Errorf("create database %s: %w", dbName, err)
		}
		u := *d.base
		u.Path = "/" + dbName
		cfg.URL = u.String()
		rmDir := cleanup
		cleanup = func() {
			rmDir()
			if _, err := d.admin.ExecContext(context.Background(), "DROP DATABASE IF EXISTS "+dbName+" WITH (FORCE)"); err != nil {
				fmt.Fprintf(d.warn, "bvload: drop database %s: %v\n", dbName, err)
			}
		}
	}
	db, err = store.Open(ctx, cfg)
	if err != nil {
		cleanup()
		return nil, "", nil, err
	}
	if _, err := db.Migrate(ctx); err != nil {
		db.Close()
		cleanup()
		return nil, "", nil, err
	}
	return db, dir, func() { db.Close(); cleanup() }, nil
}
