package store

import (
	"context"
	"database/sql"
	"time"
)

// SQLite in WAL mode appends every commit to the write-ahead log and, by
// default, the commit that takes the log past 1 000 pages copies the log
// back into the database file and fsyncs it: a checkpoint, run by the
// writer inside somebody's commit. Under the sequencer's load that was a
// checkpoint many times a second, each one stalling every caller of the
// batch that ran it.
//
// The venue moves that work off the write path: the writer's automatic
// checkpoint only starts at walAutoCheckpointPages (a safety net should the
// background one fall behind), and a connection of its own runs a PASSIVE
// checkpoint every checkpointEvery. PASSIVE never waits for the writer or
// for readers; it copies what it can, and once the whole log is copied the
// next commit starts the log from its beginning again. A log page written
// by many commits (the last leaf of an index) is copied once per
// checkpoint instead of once per 1 000 pages.
const (
	checkpointEvery        = 200 * time.Millisecond
	walAutoCheckpointPages = 16000 // 64 MiB of 4 KiB pages
)

// checkpointer runs PASSIVE checkpoints until stop is closed.
type checkpointer struct {
	conn *sql.DB
	stop chan struct{}
	done chan struct{}
}

func startCheckpointer(conn *sql.DB) *checkpointer {
	c := &checkpointer{conn: conn, stop: make(chan struct{}), done: make(chan struct{})}
	go c.loop()
	return c
}

func (c *checkpointer) loop() {
	defer close(c.done)
	t := time.NewTicker(checkpointEvery)
	defer t.Stop()
	for {
		select {
		case <-c.stop:
			return
		case <-t.C:
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			// An error (the database busy or closing) only means this round
			// copied less; the next one tries again.
			_, _ = c.conn.ExecContext(ctx, "PRAGMA wal_checkpoint(PASSIVE)")
			cancel()
		}
	}
}

// Close stops the checkpoints and closes the connection.
func (c *checkpointer) Close() error {
	close(c.stop)
	<-c.done
	return c.conn.Close()
}
