package sequencer

import (
	"sort"

	"github.com/bondvenue/bondvenue/internal/feed"
	"github.com/bondvenue/bondvenue/internal/store"
	"github.com/bondvenue/bondvenue/internal/venue"
)

// This file holds the commands that set the pre-trade controls
// (controls.go): a firm's kill switch, which cancels all its open offers,
// quotes and RFQs, and an instrument's halt on a market.

// SetKillSwitch turns a firm's kill switch on or off. On, it cancels
// every open offer, quote and RFQ of the firm in this one batch, each with
// the events of any cancel. The switch's own event says who did what.
func (st *State) SetKillSwitch(b *Batch, participantID string, enabled bool) (venue.KillSwitchResult, error) {
	res := venue.KillSwitchResult{ParticipantID: participantID, Enabled: enabled, UpdatedAt: st.now}
	if enabled {
		res.Cancelled = st.CancelAll(b, participantID)
	}
	k := store.KillSwitch{ParticipantID: participantID, Enabled: enabled, UpdatedAt: st.now}
	st.killed[participantID] = k
	b.killSwitches = append(b.killSwitches, k)
	b.event(feed.Event{Type: feed.EventKillSwitch, Control: &feed.Control{ParticipantID: participantID, Enabled: enabled,
		Cancelled: res.Cancelled, UpdatedAt: st.now}, Owner: participantID})
	return res, nil
}

// CancelAll cancels every open offer, quote and RFQ of a participant in
// the batch, each with the events of any cancel, and counts them.
func (st *State) CancelAll(b *Batch, participantID string) int {
	n := 0
	ids := st.open.idsOf(participantID)
	// RFQs first: each takes its quotes with it; then what is left, in
	// time priority so the log reads as the book did.
	var rfqs, others []*venue.Offer
	for _, id := range ids {
		if o := st.open.get(id); o != nil {
			if o.Type == venue.TypeRFQ {
				rfqs = append(rfqs, o)
			} else {
				others = append(others, o)
			}
		}
	}
	sortByPriority(rfqs)
	sortByPriority(others)
	for _, r := range rfqs {
		st.closeQuotes(b, r, venue.StatusRejected, venue.OutcomeCancelled)
		r.Status, r.ModifiedAt = venue.StatusCancelled, st.now
		st.emit(b, r, "delete")
		st.record(b, r, b.cancelled())
		st.endRFQ(r)
		n++
	}
	for _, o := range others {
		if !st.open.has(o.ID) { // a quote of the firm on its own RFQ cannot be; still, never twice
			continue
		}
		o.ModifiedAt = st.now
		st.close(b, o, venue.StatusCancelled)
		n++
	}
	return n
}

func sortByPriority(os []*venue.Offer) {
	sort.Slice(os, func(i, j int) bool { return os[i].Priority < os[j].Priority })
}

// SetHalt halts or resumes trading on an instrument on a market.
func (st *State) SetHalt(b *Batch, marketID, instrumentID string, halted bool, reason string) (venue.Halt, error) {
	if _, ok := st.markets[marketID]; !ok {
		return venue.Halt{}, venue.NotFound("market")
	}
	if _, ok := st.instruments[instrumentID]; !ok {
		return venue.Halt{}, venue.NotFound("instrument")
	}
	h := venue.Halt{MarketID: marketID, InstrumentID: instrumentID, Halted: halted, Reason: reason, UpdatedAt: st.now}
	st.halts[bookKey{marketID, instrumentID}] = h
	b.halts = append(b.halts, h)
	b.event(feed.Event{Type: feed.EventHalt, Control: &feed.Control{MarketID: marketID, InstrumentID: instrumentID, Halted: halted,
		Reason: reason, UpdatedAt: st.now}})
	return h, nil
}
