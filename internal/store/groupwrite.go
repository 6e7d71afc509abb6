package store

import (
	"context"
	"sync"

	"github.com/bondvenue/bondvenue/internal/venue"
)

// GroupWriter commits small writes in groups: the writes queued while one
// transaction commits share the next, so that many callers who each wait
// for a durable write pay for one commit (one fsync on SQLite) between
// them, and each caller is answered once its own write is committed. When
// one write fails its group, every write of the group is run again in a
// transaction of its own, so only its caller sees the failure.
//
// The FIX sessions keep every message they send and every sequence number
// they take before they go on, and claim every order's ClOrdID: a
// transaction each would bound every session by the disk. They write
// through the database's own GroupWriter (DB.InTxGrouped).
type GroupWriter struct {
	db      *DB
	once    sync.Once
	ch      chan groupWrite
	done    chan struct{}
	mu      sync.Mutex // guards stopped and sending on ch
	stopped bool
}

type groupWrite struct {
	fn  func(*Tx) error
	err chan error
}

// groupMax is the most writes one transaction takes.
const groupMax = 512

// NewGroupWriter returns a writer on db. It starts its goroutine with its
// first write; Close stops it.
func NewGroupWriter(db *DB) *GroupWriter { return &GroupWriter{db: db} }

// InTx runs fn in a write transaction with whatever other writes are
// waiting, and returns once that transaction committed (nil) or fn's write
// failed. fn may run twice (once in a group that failed), so it must not
// act outside the transaction.
func (w *GroupWriter) InTx(ctx context.Context, fn func(*Tx) error) error {
	req := groupWrite{fn: fn, err: make(chan error, 1)}
	w.once.Do(func() {
		w.ch, w.done = make(chan groupWrite, 1024), make(chan struct{})
		go w.loop()
	})
	// Sent under mu, so that none is sent after Close: the loop answers
	// every write it was sent.
	w.mu.Lock()
	if w.stopped {
		w.mu.Unlock()
		return venue.ErrUnavailable
	}
	select {
	case w.ch <- req:
	case <-ctx.Done():
		w.mu.Unlock()
		return ctx.Err()
	}
	w.mu.Unlock()
	select {
	case err := <-req.err:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (w *GroupWriter) loop() {
	batch := make([]groupWrite, 0, groupMax)
	for {
		select {
		case req := <-w.ch:
			batch = append(batch[:0], req)
		case <-w.done:
			for {
				select {
				case req := <-w.ch:
					req.err <- venue.ErrUnavailable
				default:
					return
				}
			}
		}
	more:
		for len(batch) < groupMax {
			select {
			case req := <-w.ch:
				batch = append(batch, req)
			default:
				break more
			}
		}
		err := w.db.InTx(context.Background(), func(tx *Tx) error {
			for _, req := range batch {
				if err := req.fn(tx); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil && len(batch) > 1 {
			// One write failed the group: each on its own, so that only
			// its caller sees the failure.
			for _, req := range batch {
				req.err <- w.db.InTx(context.Background(), req.fn)
			}
			continue
		}
		for _, req := range batch {
			req.err <- err
		}
	}
}

// Close stops the writer; later writes fail with venue.ErrUnavailable.
func (w *GroupWriter) Close() {
	w.once.Do(func() { w.done = make(chan struct{}) }) // never started
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.stopped {
		w.stopped = true
		close(w.done)
	}
}

// InTxGrouped is InTx through the database's GroupWriter: fn's write
// commits together with the other grouped writes waiting at the same time.
func (db *DB) InTxGrouped(ctx context.Context, fn func(*Tx) error) error {
	return db.group.InTx(ctx, fn)
}
