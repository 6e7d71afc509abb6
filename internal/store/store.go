// Package store persists the venue in embedded SQLite (the default, pure
// Go) or PostgreSQL (production) behind one SQL layer. Queries are written
// once with ? placeholders; dialect.go holds every difference between the
// engines. Every use case runs in exactly one transaction through InTx
// (writes) or View (reads); the trading sequencer's batches commit through
// SequencerBatch.
package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // registers the "pgx" driver
	_ "modernc.org/sqlite"             // registers the "sqlite" driver
)

// Engine names a database engine.
type Engine string

// The supported engines.
const (
	SQLite   Engine = "sqlite"
	Postgres Engine = "postgres"
)

// Config says where the database lives. URL wins over DataDir.
type Config struct {
	// URL is a postgres:// URL, or empty for embedded SQLite.
	URL string
	// DataDir holds bondvenue.db when URL is empty.
	DataDir string
	// MaxOpen bounds the PostgreSQL pool and the SQLite read pool.
	MaxOpen int
	// Exclusive, with SQLite, holds the data directory for this process:
	// Open fails with ErrDirLocked while another process holds it (serve
	// sets it; administration commands do not).
	Exclusive bool
}

// ErrDirLocked refuses a second serve on a SQLite data directory.
type ErrDirLocked struct{ Dir string }

func (e ErrDirLocked) Error() string {
	return fmt.Sprintf("the data directory %s is in use by another bondvenue serve: SQLite is one process's "+
		"database (run several instances on PostgreSQL with --database-url)", e.Dir)
}

// DB is an open database. It is safe for concurrent use.
type DB struct {
	engine Engine
	write  *sql.DB // SQLite: one connection, BEGIN IMMEDIATE; PostgreSQL: the pool
	read   *sql.DB // SQLite: a pool of readers; PostgreSQL: the same pool
	// sequencer is PostgreSQL's one connection for SequencerTx and
	// SequencerBatch (SQLite: write).
	sequencer *sql.DB
	binds     *rebinder
	clock     func() time.Time
	// SQLite only: prepared statements of the write and read pools.
	writeStmts, readStmts *stmtCache
	// url is PostgreSQL's, for the event listener's own connection.
	url string
	// unlock releases the SQLite data directory (Config.Exclusive).
	unlock func() error
	// committed receives the events of every transaction after it commits
	// (SetCommitHook).
	committed func([]Event)
	// group commits InTxGrouped's writes.
	group *GroupWriter
}

// SetCommitHook makes every write path (InTx, SequencerTx, SequencerBatch)
// call fn with the events it appended, numbered, right after its commit, in
// the committing goroutine: the committed-event feed learns of a change the
// moment it is durable, and of none that was rolled back. Two transactions
// committing at once may call fn out of sequence order; fn must not block.
// Call it before the database is used.
func (db *DB) SetCommitHook(fn func([]Event)) { db.committed = fn }

// SetClock makes transactions read now instead of time.Now for Tx.Now, so
// a service with a pinned clock writes every timestamp from that clock. Call
// it before the database is used.
func (db *DB) SetClock(now func() time.Time) {
	if now != nil {
		db.clock = now
	}
}

// Open connects to the configured database. It does not migrate.
func Open(ctx context.Context, cfg Config) (*DB, error) {
	if cfg.MaxOpen <= 0 {
		cfg.MaxOpen = 16
	}
	var db *DB
	var err error
	if cfg.URL != "" {
		db, err = openPostgres(cfg)
	} else {
		db, err = openSQLite(cfg)
	}
	if err != nil {
		return nil, err
	}
	if err := db.Ping(ctx); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

func openPostgres(cfg Config) (*DB, error) {
	u, err := url.Parse(cfg.URL)
	if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") {
		return nil, fmt.Errorf("open postgres: database URL must be postgres://…")
	}
	pool, err := sql.Open("pgx", cfg.URL)
	if err != nil {
		return nil, fmt.Errorf("open postgres: %w", err)
	}
	pool.SetMaxOpenConns(cfg.MaxOpen)
	pool.SetMaxIdleConns(cfg.MaxOpen)
	pool.SetConnMaxIdleTime(5 * time.Minute)
	seq, err := sql.Open("pgx", cfg.URL)
	if err != nil {
		pool.Close()
		return nil, fmt.Errorf("open postgres: %w", err)
	}
	seq.SetMaxOpenConns(1)
	seq.SetMaxIdleConns(1)
	return withGroup(&DB{engine: Postgres, write: pool, read: pool, sequencer: seq, binds: newRebinder(Postgres), url: cfg.URL}), nil
}

func openSQLite(cfg Config) (*DB, error) {
	dir := cfg.DataDir
	if dir == "" {
		dir = "bondvenue-data"
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("open sqlite: %w", err)
	}
	unlock := func() error { return nil }
	if cfg.Exclusive {
		var err error
		if unlock, err = lockDir(dir); err != nil {
			return nil, err
		}
	}
	db, err := openSQLiteFile(cfg, filepath.Join(dir, "bondvenue.db"))
	if err != nil {
		_ = unlock()
		return nil, err
	}
	db.unlock = unlock
	return db, nil
}

func openSQLiteFile(cfg Config, path string) (*DB, error) {
	// synchronous(FULL): a commit is on disk (the WAL fsynced) before it
	// returns, so an answered command survives a power cut; NORMAL only
	// survives a crash of the process. The sequencer's group commit pays
	// the fsync once per batch.
	common := "_pragma=busy_timeout(10000)&_pragma=foreign_keys(ON)&_pragma=synchronous(FULL)"
	// temp_store(MEMORY) keeps the statement journal of multi-row writes in
	// memory instead of spilling it to a temporary file.
	//
	// Checkpoints stay SQLite's: the commit that takes the log past 1 000
	// pages copies it back into the database file. Checkpoints of their own
	// lengthened the tail of commit times (docs/decisions.md).
	write, err := sql.Open("sqlite", "file:"+path+"?_txlock=immediate&_pragma=journal_mode(WAL)&_pragma=temp_store(MEMORY)&"+common)
	if err != nil {
		return nil, fmt.Errorf("open sqlite: %w", err)
	}
	// One writer: SQLite serialises writes anyway, and a single connection
	// turns lock contention inside the process into a queue.
	write.SetMaxOpenConns(1)
	write.SetMaxIdleConns(1)
	write.SetConnMaxLifetime(0)
	if err := write.Ping(); err != nil { // creates the file in WAL mode before readers open it
		write.Close()
		return nil, fmt.Errorf("open sqlite: %w", err)
	}
	read, err := sql.Open("sqlite", "file:"+path+"?_pragma=query_only(1)&"+common)
	if err != nil {
		write.Close()
		return nil, fmt.Errorf("open sqlite: %w", err)
	}
	read.SetMaxOpenConns(cfg.MaxOpen)
	read.SetMaxIdleConns(cfg.MaxOpen)
	return withGroup(&DB{engine: SQLite, write: write, read: read, binds: newRebinder(SQLite),
		writeStmts: newStmtCache(write), readStmts: newStmtCache(read)}), nil
}

// withGroup gives db its GroupWriter.
func withGroup(db *DB) *DB {
	db.group = NewGroupWriter(db)
	return db
}

// Engine reports which engine backs db.
func (db *DB) Engine() Engine { return db.engine }

// Ping checks that the database answers.
func (db *DB) Ping(ctx context.Context) error {
	if err := db.write.PingContext(ctx); err != nil {
		return normalize(fmt.Errorf("ping: %w", err))
	}
	return nil
}

// Close closes every connection.
func (db *DB) Close() error {
	db.group.Close()
	if db.writeStmts != nil {
		db.writeStmts.Close()
		db.readStmts.Close()
	}
	err := db.write.Close()
	if db.sequencer != nil {
		err = errors.Join(err, db.sequencer.Close())
	}
	if db.read != db.write {
		err = errors.Join(err, db.read.Close())
	}
	if db.unlock != nil {
		err = errors.Join(err, db.unlock())
	}
	return err
}

// Tx is one transaction. Its methods are the venue's queries.
type Tx struct {
	tx     *sql.Tx
	db     *DB
	engine Engine
	now    time.Time
	// cache, stmts and missed serve prepared statements (stmtcache.go).
	cache  *stmtCache
	stmts  map[string]*sql.Stmt
	missed []string
	// appended are the events AppendEvents wrote, for the commit hook.
	appended []Event
}

// Now is the transaction's clock reading, taken once when it began so every
// row written in one transaction carries the same time.
func (tx *Tx) Now() time.Time { return tx.now }

// maxAttempts bounds InTx retries of serialization failures and busy errors.
// Under contention on one hot row (16 writers) a transaction may lose ten
// rounds, so the bound leaves room; maxBackoff keeps the waits short.
const maxAttempts = 30

// maxBackoff caps the wait before one retry (before jitter).
const maxBackoff = 100 * time.Millisecond

// InTx runs fn in a write transaction: it commits when fn returns nil, rolls
// back when fn returns an error or panics, and retries the whole function
// on a PostgreSQL serialization failure or deadlock and on SQLite busy.
// fn must therefore have no effects outside the transaction.
func (db *DB) InTx(ctx context.Context, fn func(*Tx) error) error {
	return db.run(ctx, modeWrite, nil, fn)
}

// InTxClaimed is InTx for a request under an idempotency claim c (nil:
// none): the commit also marks c applied, and a write under a claim a
// retry took over is refused (ErrClaimLost) and rolled back.
func (db *DB) InTxClaimed(ctx context.Context, c *IdempotencyClaim, fn func(*Tx) error) error {
	return db.run(ctx, modeWrite, c, fn)
}

// View runs fn in a read-only transaction with the same guarantees as InTx.
func (db *DB) View(ctx context.Context, fn func(*Tx) error) error {
	return db.run(ctx, modeRead, nil, fn)
}

// SequencerTx is InTx on the sequencer's own connection: the trading
// engine's reads and batch writes never wait for the pool, so a request
// that holds a pooled transaction while it waits for the engine (an
// instrument's book comes from it) cannot starve the engine of the
// connection it would need to answer. On SQLite it is the one writer
// connection, which View never holds.
func (db *DB) SequencerTx(ctx context.Context, fn func(*Tx) error) error {
	return db.run(ctx, modeSequencer, nil, fn)
}

// txMode says which pool a transaction runs on.
type txMode int

const (
	modeWrite txMode = iota
	modeRead
	modeSequencer
)

func (db *DB) run(ctx context.Context, mode txMode, c *IdempotencyClaim, fn func(*Tx) error) error {
	return retry(ctx, func() error { return db.once(ctx, mode, c, fn) })
}

// retry runs one attempt of a transaction until it succeeds, fails for a
// reason other than concurrency, or has failed maxAttempts times, and
// returns its normalised error.
func retry(ctx context.Context, once func() error) error {
	var err error
	for attempt := 1; ; attempt++ {
		err = once()
		if err == nil || !retryable(err) || attempt == maxAttempts {
			break
		}
		backoff := min(time.Duration(attempt*attempt)*time.Millisecond, maxBackoff)
		backoff += time.Duration(rand.Int64N(int64(backoff)))
		select {
		case <-ctx.Done():
			return normalize(ctx.Err())
		case <-time.After(backoff):
		}
	}
	return normalize(err)
}

func (db *DB) once(ctx context.Context, mode txMode, c *IdempotencyClaim, fn func(*Tx) error) (err error) {
	pool, cache := db.write, db.writeStmts
	opts := &sql.TxOptions{}
	switch {
	case mode == modeRead:
		pool, cache = db.read, db.readStmts
		opts.ReadOnly = db.engine == Postgres
	case db.engine == Postgres:
		opts.Isolation = sql.LevelSerializable
		if mode == modeSequencer {
			pool = db.sequencer
		}
	}
	sqlTx, err := pool.BeginTx(ctx, opts)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	tx := &Tx{tx: sqlTx, db: db, engine: db.engine, now: db.now(), cache: cache}
	defer func() {
		if p := recover(); p != nil {
			_ = sqlTx.Rollback()
			panic(p)
		}
	}()
	err = fn(tx)
	if c != nil && err == nil && mode == modeWrite {
		err = tx.markClaim(ctx, *c) // the request's write and its mark commit together
	}
	if err != nil {
		_ = sqlTx.Rollback()
		tx.prepareMissed(ctx)
		return err
	}
	if err := sqlTx.Commit(); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	tx.prepareMissed(ctx)
	db.notifyCommitted(tx.appended)
	return nil
}

// notifyCommitted hands committed events to the commit hook.
func (db *DB) notifyCommitted(events []Event) {
	if len(events) > 0 && db.committed != nil {
		db.committed(events)
	}
}

// now reads the clock for a transaction beginning: UTC, to the
// millisecond the columns keep.
func (db *DB) now() time.Time {
	clock := time.Now
	if db.clock != nil {
		clock = db.clock
	}
	return clock().UTC().Truncate(time.Millisecond)
}

func (tx *Tx) exec(ctx context.Context, query string, args ...any) (sql.Result, error) {
	if st := tx.stmt(ctx, query); st != nil {
		return st.ExecContext(ctx, args...)
	}
	return tx.tx.ExecContext(ctx, tx.db.binds.bind(query), args...)
}

func (tx *Tx) query(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	if st := tx.stmt(ctx, query); st != nil {
		return st.QueryContext(ctx, args...)
	}
	return tx.tx.QueryContext(ctx, tx.db.binds.bind(query), args...)
}

func (tx *Tx) queryRow(ctx context.Context, query string, args ...any) *sql.Row {
	if st := tx.stmt(ctx, query); st != nil {
		return st.QueryRowContext(ctx, args...)
	}
	return tx.tx.QueryRowContext(ctx, tx.db.binds.bind(query), args...)
}

// placeholders returns "?, ?, …" with n marks.
func placeholders(n int) string {
	return strings.TrimSuffix(strings.Repeat("?, ", n), ", ")
}

// andIn adds "AND col IN (?, …)" for vals (at least one) to a query and its
// arguments.
func andIn(q string, args []any, col string, vals []string) (string, []any) {
	for _, v := range vals {
		args = append(args, v)
	}
	return q + " AND " + col + " IN (" + placeholders(len(vals)) + ")", args
}

// valueRows returns "(?, …), (?, …)": n rows of cols placeholders each.
func valueRows(n, cols int) string {
	row := "(" + placeholders(cols) + ")"
	return strings.TrimSuffix(strings.Repeat(row+", ", n), ", ")
}

// maxChunk bounds the rows of one multi-row statement.
const maxChunk = 64

// inChunks calls fn for consecutive chunks of n items of at most maxChunk.
// On SQLite their sizes are powers of two, largest first, so a multi-row
// statement comes in a handful of shapes that stay prepared; PostgreSQL
// (whose driver prepares every shape itself) takes the fewest statements.
func inChunks(e Engine, n int, fn func(from, size int)) { chunks(e, n, maxChunk, fn) }

// chunks is inChunks with chunks of at most most items (a power of two).
func chunks(e Engine, n, most int, fn func(from, size int)) {
	for from := 0; from < n; {
		size := min(most, n-from)
		if e == SQLite {
			size = most
			for size > n-from {
				size /= 2
			}
		}
		fn(from, size)
		from += size
	}
}

// statement is one write and its arguments. The writes of the sequencer's
// batches are built as statements so that a Tx method runs them one by one
// and SequencerBatch can send them all at once (sequencer.go).
type statement struct {
	query string // with ? placeholders
	args  []any
	what  string // the write, for its error: "upsert 3 offers"
}

// execAll runs stmts in order and stops at the first failure.
func (tx *Tx) execAll(ctx context.Context, stmts []statement) error {
	for _, st := range stmts {
		if _, err := tx.exec(ctx, st.query, st.args...); err != nil {
			return fmt.Errorf("%s: %w", st.what, normalize(err))
		}
	}
	return nil
}
