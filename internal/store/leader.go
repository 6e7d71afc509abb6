package store

import (
	"context"
	"database/sql"
	"fmt"
	"sync"
	"time"
)

// leaderLockKey is the PostgreSQL advisory lock whose holder leads: it
// runs the sequencer; the other instances on the database are standbys.
const leaderLockKey = 7242002

// LeaderHeartbeat is how often the leader checks it still holds the lock:
// well inside a standby's campaign interval, so that a leader cut off from
// the database (its lock's connection ended) stops serving, and answering
// from its now stale books, before another one has taken over.
const LeaderHeartbeat = 100 * time.Millisecond

// leaderSilence is how long a check may go unanswered before the leader
// counts its lock's connection lost.
const leaderSilence = 10 * time.Second

// Leadership is this process's hold on the venue's leadership. On
// PostgreSQL it is a session advisory lock on a connection of its own: the
// database releases it the moment that connection ends (the process died,
// the network or the database dropped it), which lets a standby take over;
// the holder checks its connection every LeaderHeartbeat and reports the
// loss on Lost. On SQLite (one process, Config.Exclusive) it is never lost.
type Leadership struct {
	db   *sql.DB
	conn *sql.Conn
	lost chan struct{}
	quit chan struct{}
	done chan struct{}
	once sync.Once
}

// TryLeadership takes the leadership if no other process holds it; it
// returns nil (and no error) when another does.
func (db *DB) TryLeadership(ctx context.Context) (*Leadership, error) {
	l := &Leadership{lost: make(chan struct{}), quit: make(chan struct{}), done: make(chan struct{})}
	if db.engine != Postgres {
		close(l.done)
		return l, nil
	}
	pool, err := sql.Open("pgx", db.url)
	if err != nil {
		return nil, fmt.Errorf("leadership: %w", err)
	}
	pool.SetMaxOpenConns(1)
	conn, err := pool.Conn(ctx)
	if err != nil {
		pool.Close()
		return nil, fmt.Errorf("leadership: %w", normalize(err))
	}
	var held bool
	if err := conn.QueryRowContext(ctx, "SELECT pg_try_advisory_lock($1)", leaderLockKey).Scan(&held); err != nil || !held {
		conn.Close()
		pool.Close()
		if err != nil {
			return nil, fmt.Errorf("leadership: %w", normalize(err))
		}
		return nil, nil
	}
	l.db, l.conn = pool, conn
	go l.heartbeat()
	return l, nil
}

func (l *Leadership) heartbeat() {
	defer close(l.done)
	t := time.NewTicker(LeaderHeartbeat)
	defer t.Stop()
	for {
		select {
		case <-l.quit:
			return
		case <-t.C:
		}
		// A slow answer (a loaded server) is no loss: the lock lasts as
		// long as the connection, and cancelling a query would close it.
		// Only a connection that fails, or that stays silent for
		// leaderSilence, counts as lost.
		ctx, cancel := context.WithTimeout(context.Background(), leaderSilence)
		err := l.conn.PingContext(ctx)
		cancel()
		if err != nil {
			close(l.lost)
			l.conn.Close()
			l.db.Close()
			return
		}
	}
}

// Lost is closed when the leadership is lost.
func (l *Leadership) Lost() <-chan struct{} { return l.lost }

// Release gives the leadership up (closing its connection releases the
// lock at once).
func (l *Leadership) Release() {
	l.once.Do(func() {
		close(l.quit)
		<-l.done
		if l.conn != nil {
			// Unlocked before the connection goes: the server releases a
			// closed connection's locks only once its backend has noticed,
			// and a successor started right after would find it held.
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			_, _ = l.conn.ExecContext(ctx, "SELECT pg_advisory_unlock($1)", leaderLockKey)
			cancel()
			l.conn.Close()
			l.db.Close()
		}
	})
}

// TerminateLeader ends the database session that holds the leadership, as
// a network partition or an operator would (tests, operations).
func (tx *Tx) TerminateLeader(ctx context.Context) error {
	if tx.engine != Postgres {
		return nil
	}
	_, err := tx.exec(ctx, `SELECT pg_terminate_backend(pid) FROM pg_locks
		WHERE locktype = 'advisory' AND objid = ? AND granted
		AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`, leaderLockKey)
	if err != nil {
		return fmt.Errorf("terminate leader: %w", normalize(err))
	}
	return nil
}
