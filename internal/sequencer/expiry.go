package sequencer

import (
	"container/heap"
	"time"

	"github.com/bondvenue/bondvenue/internal/venue"
)

// This file holds the expiry of gtd offers, quotes and RFQs: a heap of
// deadlines the sequencer's timer and every batch consult.

// expiry is a gtd record's deadline.
type expiry struct {
	at time.Time
	id string
}

type expiryHeap []expiry

func (h expiryHeap) Len() int { return len(h) }

func (h expiryHeap) Less(i, j int) bool { return h[i].at.Before(h[j].at) }

func (h expiryHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }

func (h *expiryHeap) Push(x any) { *h = append(*h, x.(expiry)) }

func (h *expiryHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

func (h expiryHeap) next() (time.Time, bool) {
	if len(h) == 0 {
		return time.Time{}, false
	}
	return h[0].at, true
}

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
			st.endRFQ(o)
			continue
		}
		o.ModifiedAt = st.now
		st.close(b, o, venue.StatusExpired)
	}
	return nil, nil
}
