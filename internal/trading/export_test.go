package trading

import (
	"context"
	"time"

	"github.com/bondvenue/bondvenue/internal/sequencer"
)

// HoldSequencer makes the sequencer wait inside a priority command until
// release is called, so tests can queue work behind it. It returns once
// the sequencer is held.
func (s *Service) HoldSequencer() (release func()) {
	held, rel := make(chan struct{}), make(chan struct{})
	go func() {
		_, _ = s.eng.Do(sequencer.WithPriority(context.Background()), nil, func(*sequencer.State, *sequencer.Batch) (any, error) {
			close(held)
			<-rel
			return nil, nil
		})
	}()
	<-held
	return func() { close(rel) }
}

// SetCommandCost sets the sequencer's cost model to d per command and
// nothing per batch, on which admission bases the expected wait.
func (s *Service) SetCommandCost(d time.Duration) {
	s.eng.PinCost(d)
}

// IgnoreCPUWait turns the CPU wait off for admission, for tests of the
// sequencer's queue alone, whose counts a busy test process would upset.
func (s *Service) IgnoreCPUWait() { s.eng.IgnoreCPUWait() }
