package store

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
)

// ListenEvents calls wake with the last sequence number of every
// transaction that appends events when it commits on the database, in this
// process or any other, until ctx ends. On
// PostgreSQL it holds a connection of its own LISTENing on EventsChannel and
// reconnects after a failure (calling wake(0) then: something may have
// been missed meanwhile). A notification is only a wake-up: the log itself
// is the source, so a lost or merged notification costs latency, never an
// event. On SQLite, whose writers are all in this process or seen by
// polling, it returns at once.
func (db *DB) ListenEvents(ctx context.Context, wake func(seq int64)) error {
	if db.engine != Postgres {
		return nil
	}
	for attempt := 0; ; attempt++ {
		err := db.listenOnce(ctx, wake)
		if ctx.Err() != nil {
			return nil
		}
		wake(0)
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(min(time.Duration(attempt+1)*100*time.Millisecond, 5*time.Second)):
		}
		_ = err // the caller polls meanwhile; the next attempt reconnects
	}
}

func (db *DB) listenOnce(ctx context.Context, wake func(int64)) error {
	conn, err := pgx.Connect(ctx, db.url)
	if err != nil {
		return fmt.Errorf("listen for events: %w", err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	if _, err := conn.Exec(ctx, "LISTEN "+EventsChannel); err != nil {
		return fmt.Errorf("listen for events: %w", err)
	}
	wake(0) // anything committed before LISTEN took effect is read now
	for {
		n, err := conn.WaitForNotification(ctx)
		if err != nil {
			return fmt.Errorf("wait for events: %w", err)
		}
		seq, _ := strconv.ParseInt(n.Payload, 10, 64) // 0 if not a number: read anyway
		wake(seq)
	}
}
