package store

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// ListenEvents calls wake whenever a transaction that appended events
// commits on the database, in this process or any other, until ctx ends. On
// PostgreSQL it holds a connection of its own LISTENing on EventsChannel and
// reconnects after a failure (calling wake then too: something may have
// been missed meanwhile). A notification is only a wake-up: the log itself
// is the source, so a lost or merged notification costs latency, never an
// event. On SQLite, whose writers are all in this process or seen by
// polling, it returns at once.
func (db *DB) ListenEvents(ctx context.Context, wake func()) error {
	if db.engine != Postgres {
		return nil
	}
	for attempt := 0; ; attempt++ {
		err := db.listenOnce(ctx, wake)
		if ctx.Err() != nil {
			return nil
		}
		wake()
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(min(time.Duration(attempt+1)*100*time.Millisecond, 5*time.Second)):
		}
		_ = err // the caller polls meanwhile; the next attempt reconnects
	}
}

func (db *DB) listenOnce(ctx context.Context, wake func()) error {
	conn, err := pgx.Connect(ctx, db.url)
	if err != nil {
		return fmt.Errorf("listen for events: %w", err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	if _, err := conn.Exec(ctx, "LISTEN "+EventsChannel); err != nil {
		return fmt.Errorf("listen for events: %w", err)
	}
	wake() // anything committed before LISTEN took effect is read now
	for {
		if _, err := conn.WaitForNotification(ctx); err != nil {
			return fmt.Errorf("wait for events: %w", err)
		}
		wake()
	}
}
