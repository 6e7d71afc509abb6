package sequencer

import (
	"container/heap"

	"github.com/bondvenue/bondvenue/internal/records"
	"github.com/bondvenue/bondvenue/internal/venue"
)

// This file holds the expiry of gtd offers, quotes, RFQs and portfolio
// RFQs: the timed command that ends what the deadline heap (deadlines.go)
// says is due, run by the sequencer's timer and before every batch.

// expireDue expires every gtd record whose deadline has passed. An
// expiring RFQ takes its live quotes with it.
func expireDue(st *State, b *Batch) (any, error) {
	for len(st.expiries) > 0 && !st.expiries[0].at.After(st.now) {
		e := heap.Pop(&st.expiries).(expiry)
		if r, ok := st.portfolios[e.id]; ok {
			st.expirePortfolio(b, r)
			continue
		}
		o := st.open.get(e.id)
		if o == nil || o.ValidUntil == nil || o.ValidUntil.After(st.now) {
			continue // closed meanwhile, or its deadline moved
		}
		if o.Type == venue.TypeRFQ {
			st.closeQuotes(b, o, venue.StatusExpired, venue.OutcomeExpired)
			o.Status, o.ModifiedAt = venue.StatusExpired, st.now
			st.emit(b, o, "delete")
			st.record(b, o, records.Expired)
			st.endRFQ(o)
			continue
		}
		o.ModifiedAt = st.now
		st.close(b, o, venue.StatusExpired)
	}
	return nil, nil
}
