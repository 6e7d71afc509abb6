package sequencer

import (
	"time"

	"github.com/bondvenue/bondvenue/internal/store"
	"github.com/bondvenue/bondvenue/internal/venue"
)

// This file holds what the use cases may read of the State from inside a
// command.

// Now is the time of the command being applied.
func (st *State) Now() time.Time { return st.now }

// Instrument is a listed instrument of the reference data.
func (st *State) Instrument(id string) (venue.Instrument, bool) {
	in, ok := st.instruments[id]
	return in, ok
}

// Market is a market of the reference data.
func (st *State) Market(id string) (venue.Market, bool) {
	m, ok := st.markets[id]
	return m, ok
}

// KillSwitch is a firm's kill switch (off when never set).
func (st *State) KillSwitch(participant string) store.KillSwitch { return st.killed[participant] }

// Halt is the halt of an instrument on a market (not halted when never
// set).
func (st *State) Halt(market, instrument string) venue.Halt {
	return st.halts[bookKey{market, instrument}]
}

// DefaultMarket is the market an instrument trades on when none is named:
// its continuous market that allows partial fills, else the first it is
// listed on.
func (st *State) DefaultMarket(in venue.Instrument) string {
	for _, id := range in.MarketIDs {
		if m := st.markets[id]; m.FacilityType == venue.FacilityContinuous && m.IsPartialFillAllowed {
			return id
		}
	}
	if len(in.MarketIDs) > 0 {
		return in.MarketIDs[0]
	}
	return ""
}
