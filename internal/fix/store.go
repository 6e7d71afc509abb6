package fix

import (
	"context"
	"sync"
	"time"

	"github.com/quickfixgo/quickfix"

	"github.com/bondvenue/bondvenue/internal/venue"
)

// SessionStore keeps the FIX sessions' state durable, in the venue's
// database (internal/fix/fixstore), so a session's sequence numbers and the
// messages it keeps for resend survive a restart. The gateway owns this
// state; the venue's use cases never see it.
type SessionStore interface {
	// LoadSession returns a session's state, creating it (numbers 1,
	// created at now) when it has none.
	LoadSession(ctx context.Context, id string, now time.Time) (SessionState, error)
	// PeekSession returns a session's state without creating it; ok is
	// false when it has none.
	PeekSession(ctx context.Context, id string) (st SessionState, ok bool, err error)
	// SaveSession writes a session's numbers and creation time.
	SaveSession(ctx context.Context, st SessionState) error
	// SetSeqNums sets a session's next sequence numbers (zero: unchanged).
	SetSeqNums(ctx context.Context, id string, nextSender, nextTarget int) error
	// SaveMessage keeps a sent message numbered seq for resend and, in
	// the same write, moves the session's next sender number to
	// nextSender (when > 0) and its last event to eventSeq (when > 0: the
	// message is the last the session sends for that event of the log).
	SaveMessage(ctx context.Context, id string, seq int, msg []byte, nextSender int, eventSeq int64) error
	// Messages calls fn with a session's kept messages begin..end (end 0:
	// to the last), in order.
	Messages(ctx context.Context, id string, begin, end int, fn func(seq int, msg []byte) error) error
	// ResetSession starts a session anew at t: numbers 1, nothing kept.
	ResetSession(ctx context.Context, id string, t time.Time) error
	// BindCompID binds a SenderCompID to the credential clientID at its
	// first logon (at now); a later logon of the CompID with another
	// credential is refused with ErrCompIDTaken.
	BindCompID(ctx context.Context, senderCompID, clientID string, now time.Time) error
}

// SessionState is a FIX session's state.
type SessionState struct {
	ID string
	// NextSender and NextTarget are the next sequence numbers the
	// session sends and expects.
	NextSender, NextTarget int
	// CreatedAt is when the session was created (last reset).
	CreatedAt time.Time
	// LastEventSeq is the last event of the log the session sent a
	// message for.
	LastEventSeq int64
}

// ErrCompIDTaken refuses a logon whose SenderCompID another credential
// holds.
var ErrCompIDTaken = venue.Forbidden("this SenderCompID is bound to another credential")

// storeFactory makes the engine's message stores on the SessionStore.
type storeFactory struct{ g *Gateway }

func (f storeFactory) Create(id quickfix.SessionID) (quickfix.MessageStore, error) {
	st := &messageStore{g: f.g, id: id.String()}
	f.g.stores.Store(id.String(), st)
	return st, nil
}

// messageStore is one session's store. It writes nothing until the
// session's peer has authenticated (Gateway.authenticated): a connection
// with a wrong secret or an unknown CompID leaves no trace in the database.
// Until then it keeps its numbers in memory.
type messageStore struct {
	g  *Gateway
	id string

	mu      sync.Mutex
	loaded  bool
	state   SessionState
	pending []pendingMessage // sent before authentication (the Logon answer)
	// applying counts, by MsgSeqNum, the incoming messages the session
	// is still applying after the engine moved on (pipelined orders):
	// the stored next incoming number stays at the lowest of them, so a
	// restart asks the peer to send each again (applied ones are
	// answered as duplicates of their ClOrdID).
	applying map[int]int
}

// beginApplying marks incoming message seq as applied after the engine
// moves on to the next.
func (s *messageStore) beginApplying(seq int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.applying == nil {
		s.applying = map[int]int{}
	}
	s.applying[seq]++
}

// endApplying marks incoming message seq as applied. When nothing is left
// in flight the stored next incoming number catches up.
func (s *messageStore) endApplying(seq int) {
	s.mu.Lock()
	if s.applying[seq]--; s.applying[seq] <= 0 {
		delete(s.applying, seq)
	}
	caughtUp := len(s.applying) == 0
	s.mu.Unlock()
	if caughtUp {
		_ = s.setNums(0, 0)
	}
}

// storedTarget is the next incoming number to store for next (s.mu held).
func (s *messageStore) storedTarget(next int) int {
	for seq := range s.applying {
		next = min(next, seq)
	}
	return next
}

type pendingMessage struct {
	seq int
	msg []byte
}

func (s *messageStore) ctx() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), 10*time.Second)
}

// durable reports whether the session may write, loading its state the
// first time it may.
func (s *messageStore) durable() (bool, error) {
	if !s.g.authenticated(s.id) {
		return false, nil
	}
	if s.loaded {
		return true, nil
	}
	ctx, cancel := s.ctx()
	defer cancel()
	st, err := s.g.store.LoadSession(ctx, s.id, s.g.now())
	if err != nil {
		return false, err
	}
	// The peer authenticated during this connection's logon: what the
	// store counted in memory so far (its Logon, perhaps a reset) is the
	// session's truth from here on.
	if s.state.NextSender > 0 {
		st.NextSender, st.NextTarget = s.state.NextSender, s.state.NextTarget
		if !s.state.CreatedAt.IsZero() {
			st.CreatedAt = s.state.CreatedAt
		}
		if err := s.g.store.SaveSession(ctx, st); err != nil {
			return false, err
		}
		for _, p := range s.pending {
			if err := s.g.store.SaveMessage(ctx, s.id, p.seq, p.msg, 0, 0); err != nil {
				return false, err
			}
		}
		s.pending = nil
	}
	s.state, s.loaded = st, true
	return true, nil
}

// memory returns the in-memory state, reading the database's (without
// writing) the first time so that a returning session continues its
// numbers.
func (s *messageStore) memory() {
	if s.state.NextSender > 0 {
		return
	}
	ctx, cancel := s.ctx()
	defer cancel()
	if st, ok, err := s.g.store.PeekSession(ctx, s.id); err == nil && ok {
		s.state = st
		return
	}
	s.state = SessionState{ID: s.id, NextSender: 1, NextTarget: 1, CreatedAt: s.g.now()}
}

func (s *messageStore) NextSenderMsgSeqNum() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.memory()
	return s.state.NextSender
}

func (s *messageStore) NextTargetMsgSeqNum() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.memory()
	return s.state.NextTarget
}

func (s *messageStore) IncrNextSenderMsgSeqNum() error {
	return s.SetNextSenderMsgSeqNum(s.NextSenderMsgSeqNum() + 1)
}

func (s *messageStore) IncrNextTargetMsgSeqNum() error {
	return s.SetNextTargetMsgSeqNum(s.NextTargetMsgSeqNum() + 1)
}

func (s *messageStore) SetNextSenderMsgSeqNum(next int) error { return s.setNums(next, 0) }

func (s *messageStore) SetNextTargetMsgSeqNum(next int) error { return s.setNums(0, next) }

func (s *messageStore) setNums(sender, target int) error {
	s.mu.Lock()
	s.memory()
	if sender > 0 {
		s.state.NextSender = sender
	}
	if target > 0 {
		s.state.NextTarget = target
	}
	held := false                  // a pipelined order holds the stored number back
	if target > 0 || sender == 0 { // sender == 0 too: endApplying's catching up
		target = s.storedTarget(s.state.NextTarget)
		held = target < s.state.NextTarget
	}
	ok, err := s.durable()
	s.mu.Unlock()
	if err != nil || !ok {
		return err
	}
	if held && sender == 0 {
		// The number stored stays below an order still in flight, so it
		// is right whenever it lands, and the engine need not wait for
		// it: its next message is likely the next order.
		go func() {
			ctx, cancel := s.ctx()
			defer cancel()
			if err := s.g.store.SetSeqNums(ctx, s.id, 0, target); err != nil {
				s.g.log.Warn("fix: next incoming number not stored", "session", s.id, "err", err.Error())
			}
		}()
		return nil
	}
	// Written without the lock: the engine numbers outgoing messages under
	// its send lock and incoming ones on its session goroutine, so each
	// column's writes come in order, and a kept message and the next
	// incoming number share a group commit instead of waiting in turn.
	ctx, cancel := s.ctx()
	defer cancel()
	return s.g.store.SetSeqNums(ctx, s.id, sender, target)
}

func (s *messageStore) CreationTime() time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.memory()
	return s.state.CreatedAt
}

// SetCreationTime is not called by the engine for stores it did not make
// itself; the creation time moves with Reset.
func (s *messageStore) SetCreationTime(t time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.memory()
	s.state.CreatedAt = t
}

func (s *messageStore) SaveMessage(seq int, msg []byte) error { return s.save(seq, msg, false) }

func (s *messageStore) SaveMessageAndIncrNextSenderMsgSeqNum(seq int, msg []byte) error {
	return s.save(seq, msg, true)
}

func (s *messageStore) save(seq int, msg []byte, incr bool) error {
	mark := s.g.takeMark(s.id) // the event this message ends, if any (Gateway.ToApp)
	s.mu.Lock()
	s.memory()
	next := 0
	if incr {
		s.state.NextSender++
		next = s.state.NextSender
	}
	ok, err := s.durable()
	if err == nil && !ok {
		s.pending = append(s.pending, pendingMessage{seq, append([]byte(nil), msg...)})
	}
	s.mu.Unlock()
	if err != nil || !ok {
		return err
	}
	ctx, cancel := s.ctx()
	defer cancel()
	return s.g.store.SaveMessage(ctx, s.id, seq, msg, next, mark)
}

func (s *messageStore) GetMessages(begin, end int) ([][]byte, error) {
	var out [][]byte
	err := s.IterateMessages(begin, end, func(m []byte) error {
		out = append(out, m)
		return nil
	})
	return out, err
}

func (s *messageStore) IterateMessages(begin, end int, fn func([]byte) error) error {
	s.mu.Lock()
	ok, err := s.durable()
	pending := s.pending
	s.mu.Unlock()
	if err != nil {
		return err
	}
	if !ok {
		for _, p := range pending {
			if p.seq >= begin && (end <= 0 || p.seq <= end) {
				if err := fn(p.msg); err != nil {
					return err
				}
			}
		}
		return nil
	}
	ctx, cancel := s.ctx()
	defer cancel()
	return s.g.store.Messages(ctx, s.id, begin, end, func(_ int, m []byte) error { return fn(m) })
}

// Refresh reloads the state from the database.
func (s *messageStore) Refresh() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.loaded = false
	s.state = SessionState{}
	s.memory()
	return nil
}

// Reset starts the session anew: numbers 1, nothing kept.
func (s *messageStore) Reset() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.g.now()
	s.state = SessionState{ID: s.id, NextSender: 1, NextTarget: 1, CreatedAt: now}
	s.pending = nil
	ok, err := s.durable()
	if err != nil || !ok {
		return err
	}
	ctx, cancel := s.ctx()
	defer cancel()
	return s.g.store.ResetSession(ctx, s.id, now)
}

func (s *messageStore) Close() error { return nil }
