package sequencer

import (
	"maps"
	"slices"
	"time"

	"github.com/bondvenue/bondvenue/internal/feed"
	"github.com/bondvenue/bondvenue/internal/records"
	"github.com/bondvenue/bondvenue/internal/venue"
)

// This file holds the markets' trading phases (venue.Market.PhaseAt):
// outside continuous trading the engine refuses new trading interest on a
// market, and when a market's phase changes it announces the change
// (market.phase). The change is a timed command like the expiries
// (expiry.go): the loop's timer fires at the next one (phaseDue), and a
// batch runs what is due before its commands, so a command applied at
// b.now always sees the market's phase at b.now.

// phaseOf is the phase of a market now: continuous for one without
// trading hours (or unknown).
func (st *State) phaseOf(marketID string) venue.PhaseState {
	m, ok := st.markets[marketID]
	if !ok || m.Hours == nil {
		return venue.PhaseState{Phase: venue.PhaseContinuous}
	}
	return m.PhaseAt(st.now)
}

// checkPhase refuses new trading interest on a market outside continuous
// trading, naming the phase and when the market opens.
func (st *State) checkPhase(marketID string) error {
	m, ok := st.markets[marketID]
	if !ok || m.Hours == nil {
		return nil
	}
	return m.PhaseAt(st.now).Refusal(m.Location())
}

// checkOpen runs the controls of trading on an instrument on a market: the
// market's phase, then the instrument's halt.
func (st *State) checkOpen(marketID, instrumentID string) error {
	if err := st.checkPhase(marketID); err != nil {
		return err
	}
	return st.checkHalt(marketID, instrumentID)
}

// recordPhase is the trading phase an order record names (field 49).
func (st *State) recordPhase(marketID, instrumentID string) string {
	switch st.phaseOf(marketID).Phase {
	case venue.PhaseClosed:
		return records.PhaseClosed
	case venue.PhasePreOpen:
		return records.PhasePreOpen
	}
	switch {
	case st.halts[bookKey{marketID, instrumentID}].Halted:
		return records.PhaseHalted
	case st.continuous(marketID):
		return records.PhaseContinuous
	}
	return records.PhaseRFQ
}

// syncPhases brings the announced phases up to each market's phase now:
// with a batch, each change is a market.phase event (a market without
// hours is continuous); without one (a rebuilt state) it only notes them.
// It sets phaseDue to the next change of any market.
func (st *State) syncPhases(b *Batch) {
	if st.announced == nil {
		st.announced = map[string]venue.Phase{}
	}
	var due time.Time
	for _, id := range slices.Sorted(maps.Keys(st.markets)) {
		m := st.markets[id]
		ph := st.phaseOf(id)
		prev, known := st.announced[id]
		if !known {
			prev = venue.PhaseContinuous
		}
		if m.Hours == nil {
			delete(st.announced, id)
		} else {
			st.announced[id] = ph.Phase
		}
		if b != nil && prev != ph.Phase {
			st.announcePhase(b, id, ph)
		}
		if at := ph.Next.At; !at.IsZero() && (due.IsZero() || at.Before(due)) {
			due = at
		}
	}
	for id := range st.announced {
		if _, ok := st.markets[id]; !ok {
			delete(st.announced, id)
		}
	}
	st.phaseDue = due
}

// announcePhase adds the market.phase event of a market entering ph.
func (st *State) announcePhase(b *Batch, marketID string, ph venue.PhaseState) {
	c := &feed.Control{MarketID: marketID, Phase: string(ph.Phase), UpdatedAt: st.now}
	if !ph.Next.At.IsZero() {
		next := ph.Next
		c.NextPhase, c.NextPhaseAt = string(next.Phase), next.At
	}
	b.event(feed.Event{Type: feed.EventPhase, Control: c})
}

// changePhases is the timed command of the phase changes due.
func changePhases(st *State, b *Batch) (any, error) {
	st.syncPhases(b)
	return nil, nil
}
