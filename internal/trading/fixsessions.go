package trading

import (
	"context"
	"sync"
	"time"

	"github.com/bondvenue/bondvenue/internal/store"
	"github.com/bondvenue/bondvenue/internal/venue"
)

// FIX session state lives in the venue's database, so sequence numbers and
// the messages kept for resend survive a restart on either engine. These
// are the FIX gateway's use cases on it.

// FIXSession is a FIX session's sequence numbers and creation time.
type FIXSession = store.FIXSession

// LoadFIXSession returns a session's state, creating it (numbers 1, created
// now) when it has none.
func (s *Service) LoadFIXSession(ctx context.Context, id string) (FIXSession, error) {
	var out FIXSession
	err := s.db.InTx(ctx, func(tx *store.Tx) error {
		cur, ok, err := tx.FIXSession(ctx, id)
		if err != nil || ok {
			out = cur
			return err
		}
		out = FIXSession{ID: id, NextSender: 1, NextTarget: 1, CreatedAt: s.clock()}
		return tx.SaveFIXSession(ctx, out)
	})
	return out, err
}

// PeekFIXSession returns a session's state without creating it.
func (s *Service) PeekFIXSession(ctx context.Context, id string) (FIXSession, bool, error) {
	var out FIXSession
	var ok bool
	err := s.db.View(ctx, func(tx *store.Tx) error {
		var err error
		out, ok, err = tx.FIXSession(ctx, id)
		return err
	})
	return out, ok, err
}

// SaveFIXSessionState writes a session's numbers and creation time.
func (s *Service) SaveFIXSessionState(ctx context.Context, st FIXSession) error {
	return s.fixWrite(ctx, func(tx *store.Tx) error { return tx.SaveFIXSession(ctx, st) })
}

// SetFIXSeqNums sets a session's next sequence numbers (zero: unchanged).
func (s *Service) SetFIXSeqNums(ctx context.Context, id string, nextSender, nextTarget int) error {
	return s.fixWrite(ctx, func(tx *store.Tx) error { return tx.SetFIXSeqNums(ctx, id, nextSender, nextTarget) })
}

// SaveFIXMessage keeps a sent message numbered seq for resend and, in the
// same transaction, moves the session's next sender number to nextSender
// (when > 0) and its last event to eventSeq (when > 0: the message is the
// last the session sends for that event of the log).
func (s *Service) SaveFIXMessage(ctx context.Context, id string, seq int, msg []byte, nextSender int, eventSeq int64) error {
	return s.fixWrite(ctx, func(tx *store.Tx) error {
		if err := tx.SaveFIXMessage(ctx, id, seq, msg, eventSeq); err != nil {
			return err
		}
		if nextSender > 0 {
			return tx.SetFIXSeqNums(ctx, id, nextSender, 0)
		}
		return nil
	})
}

// FIXMessages calls fn with a session's kept messages begin..end (end 0:
// to the last) in order.
func (s *Service) FIXMessages(ctx context.Context, id string, begin, end int, fn func(seq int, msg []byte) error) error {
	return s.db.View(ctx, func(tx *store.Tx) error { return tx.FIXMessages(ctx, id, begin, end, fn) })
}

// ResetFIXSession starts a session anew at t: numbers 1, nothing kept.
func (s *Service) ResetFIXSession(ctx context.Context, id string, t time.Time) error {
	return s.fixWrite(ctx, func(tx *store.Tx) error { return tx.ResetFIXSession(ctx, id, t) })
}

// errCompIDTaken refuses a logon whose SenderCompID another credential
// holds.
var errCompIDTaken = venue.Forbidden("this SenderCompID is bound to another credential")

// BindFIXCompID binds a SenderCompID to the credential at its first logon;
// a later logon of the CompID with another credential is refused.
func (s *Service) BindFIXCompID(ctx context.Context, senderCompID, clientID string) error {
	return s.db.InTx(ctx, func(tx *store.Tx) error {
		bound, err := tx.BindFIXCompID(ctx, senderCompID, clientID, s.clock())
		if err == nil && bound != clientID {
			return errCompIDTaken
		}
		return err
	})
}

// SetFIXCancelOnDisconnect turns cancel-on-disconnect on or off for a
// credential (operators only): when on, the end of one of its FIX sessions
// cancels the open orders that session entered.
func (s *Service) SetFIXCancelOnDisconnect(ctx context.Context, p venue.Principal, clientID string, on bool) error {
	if err := require(p, venue.RoleOperator); err != nil {
		return err
	}
	return s.db.InTx(ctx, func(tx *store.Tx) error {
		if _, err := tx.Credential(ctx, clientID); err != nil {
			return notFoundOr(err, "credential")
		}
		return tx.SetFIXCancelOnDisconnect(ctx, clientID, on, s.clock())
	})
}

// FIXCancelOnDisconnect reports the credential's cancel-on-disconnect
// setting.
func (s *Service) FIXCancelOnDisconnect(ctx context.Context, clientID string) (bool, error) {
	var on bool
	err := s.db.View(ctx, func(tx *store.Tx) error {
		var err error
		on, err = tx.FIXCancelOnDisconnect(ctx, clientID)
		return err
	})
	return on, err
}

// fixWriter group-commits the FIX sessions' writes: every session keeps
// each message it sends and each sequence number it takes before it goes
// on, so one transaction (one fsync on SQLite) per write would bound every
// session by the disk. Writes queued while a transaction commits share the
// next one; each caller returns once its write is committed.
type fixWriter struct {
	once    sync.Once
	ch      chan fixWrite
	done    chan struct{}
	mu      sync.Mutex // guards stopped
	stopped bool
}

type fixWrite struct {
	fn  func(*store.Tx) error
	err chan error
}

// fixWrite commits fn with whatever other FIX writes are waiting.
func (s *Service) fixWrite(ctx context.Context, fn func(*store.Tx) error) error {
	req := fixWrite{fn: fn, err: make(chan error, 1)}
	if err := s.fixEnqueue(ctx, req); err != nil {
		return err
	}
	select {
	case err := <-req.err:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (s *Service) fixEnqueue(ctx context.Context, req fixWrite) error {
	w := &s.fixWrites
	w.once.Do(func() {
		w.ch, w.done = make(chan fixWrite, 1024), make(chan struct{})
		go s.fixWriteLoop()
	})
	select {
	case w.ch <- req:
		return nil
	case <-w.done:
		return venue.ErrUnavailable
	case <-ctx.Done():
		return ctx.Err()
	}
}

// fixBatch is the most writes one transaction takes.
const fixBatch = 512

func (s *Service) fixWriteLoop() {
	w := &s.fixWrites
	batch := make([]fixWrite, 0, fixBatch)
	for {
		select {
		case req := <-w.ch:
			batch = append(batch[:0], req)
		case <-w.done:
			return
		}
	more:
		for len(batch) < fixBatch {
			select {
			case req := <-w.ch:
				batch = append(batch, req)
			default:
				break more
			}
		}
		err := s.db.InTx(context.Background(), func(tx *store.Tx) error {
			for _, req := range batch {
				if err := req.fn(tx); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil && len(batch) > 1 {
			// One write failed the batch: each on its own, so that only
			// its caller sees the failure.
			for _, req := range batch {
				req.err <- s.db.InTx(context.Background(), req.fn)
			}
			s.log.Warn("fix session writes: a batch failed; each written on its own", "err", err)
			continue
		}
		for _, req := range batch {
			req.err <- err
		}
	}
}

// stop ends the writer (Service.Close); later writes fail.
func (w *fixWriter) stop() {
	w.once.Do(func() { w.done = make(chan struct{}) }) // never started
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.stopped {
		w.stopped = true
		close(w.done)
	}
}
