package store

import (
	"context"
	"database/sql"
	"sync"
)

// stmtCache keeps SQLite statements prepared, one cache per pool. Parsing
// and planning a statement costs SQLite more than running one of the
// venue's short queries (a third of the CPU of offer entry went to the SQL
// parser), and database/sql keeps a *sql.Stmt prepared on every connection
// it ran on. PostgreSQL needs no cache here: pgx caches its statements per
// connection itself.
//
// A statement is never prepared on the pool inside a transaction: the
// SQLite writer pool has a single connection, which the transaction holds.
// A query missing from the cache runs unprepared, and the transaction
// prepares it on the pool once it has ended.
type stmtCache struct {
	pool *sql.DB
	mu   sync.RWMutex
	m    map[string]*sql.Stmt
}

// maxCachedStmts bounds the cache: queries built with a variable number of
// placeholders beyond it simply run unprepared.
const maxCachedStmts = 256

func newStmtCache(pool *sql.DB) *stmtCache {
	return &stmtCache{pool: pool, m: map[string]*sql.Stmt{}}
}

func (c *stmtCache) lookup(query string) *sql.Stmt {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.m[query]
}

// fill prepares the queries a finished transaction missed.
func (c *stmtCache) fill(ctx context.Context, queries []string) {
	for _, q := range queries {
		c.mu.RLock()
		_, ok := c.m[q]
		full := len(c.m) >= maxCachedStmts
		c.mu.RUnlock()
		if ok || full {
			continue
		}
		st, err := c.pool.PrepareContext(ctx, q)
		if err != nil {
			continue // it keeps running unprepared, reporting its own error
		}
		c.mu.Lock()
		if _, ok := c.m[q]; ok || len(c.m) >= maxCachedStmts {
			c.mu.Unlock()
			st.Close()
			continue
		}
		c.m[q] = st
		c.mu.Unlock()
	}
}

// Close closes every cached statement.
func (c *stmtCache) Close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for q, st := range c.m {
		st.Close()
		delete(c.m, q)
	}
}

// stmt returns query prepared in the transaction, or nil to run it
// unprepared (no cache, or not cached yet).
func (tx *Tx) stmt(ctx context.Context, query string) *sql.Stmt {
	if tx.cache == nil {
		return nil
	}
	if st := tx.stmts[query]; st != nil {
		return st
	}
	shared := tx.cache.lookup(query)
	if shared == nil {
		tx.missed = append(tx.missed, query)
		return nil
	}
	st := tx.tx.StmtContext(ctx, shared)
	if tx.stmts == nil {
		tx.stmts = map[string]*sql.Stmt{}
	}
	tx.stmts[query] = st
	return st
}

// prepareMissed fills the cache with the queries the ended transaction
// ran unprepared.
func (tx *Tx) prepareMissed(ctx context.Context) {
	if tx.cache != nil && len(tx.missed) > 0 && ctx.Err() == nil {
		tx.cache.fill(ctx, tx.missed)
	}
}
