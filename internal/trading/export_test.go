package trading

import (
	"context"
	"time"
)

// HoldSequencer makes the sequencer wait inside a priority command until
// release is called, so tests can queue work behind it. It returns once
// the sequencer is held.
func (s *Service) HoldSequencer() (release func()) {
	held, rel := make(chan struct{}), make(chan struct{})
	go func() {
		_, _ = s.eng.do(withPriority(context.Background()), nil, func(*state, *batch) (any, error) {
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
	s.eng.cost.perCommand.Store(int64(d))
	s.eng.cost.perBatch.Store(0)
}

// CPUWaitQuantile is the CPU wait of an interval's waits by bucket.
var CPUWaitQuantile = quantileOf

// IgnoreCPUWait turns the CPU wait off for admission, for tests of the
// sequencer's queue alone, whose counts a busy test process would upset.
func (s *Service) IgnoreCPUWait() { s.eng.cpu.off.Store(true) }
