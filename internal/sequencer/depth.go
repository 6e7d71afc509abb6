package sequencer

import (
	"sort"

	"github.com/bondvenue/bondvenue/internal/feed"
	"github.com/bondvenue/bondvenue/internal/matching"
	"github.com/bondvenue/bondvenue/internal/venue"
)

// This file keeps the top levels of each book and emits instrument.depth
// when a batch changes any of them (docs/design.md §8 /instruments), beside
// the price changes of prices.go. The ladder is computed once per
// changed book per batch, here where the books are; who may see which firm
// on it is each reader's view of it (reader.redact).

// depthChanges records, with each changed book's last event of the batch,
// its ladder when one of its top feed.MaxStreamDepth levels changed.
func (st *State) depthChanges(b *Batch) {
	for _, k := range b.touchOrder {
		i, ok := b.lastEvent[k]
		if !ok {
			continue
		}
		prev, known := st.ladders[k]
		var next bookLadder
		var bidSame, askSame bool
		next.bid, next.bidOrders, bidSame = st.ladder(k, venue.Bid, prev.bid, prev.bidOrders)
		next.ask, next.askOrders, askSame = st.ladder(k, venue.Ask, prev.ask, prev.askOrders)
		from := 0
		if known {
			if bidSame && askSame {
				continue // the batch changed nothing a ladder shows
			}
			from = firstChange(prev.bid, next.bid)
			if a := firstChange(prev.ask, next.ask); from < 0 || (a >= 0 && a < from) {
				from = a
			}
			if from < 0 {
				continue
			}
		}
		st.ladders[k] = next
		b.events[i].Ladder = &feed.Depth{InstrumentID: k.instrument, MarketID: k.market, Bid: next.bid, Ask: next.ask, From: from}
	}
}

// firstChange is the first index where the ladders differ, -1 if none.
func firstChange(a, b []feed.LimitEntry) int {
	for i := range min(len(a), len(b)) {
		if !sameEntry(&a[i], &b[i]) {
			return i
		}
	}
	if len(a) != len(b) {
		return min(len(a), len(b))
	}
	return -1
}

// ladder is the best feed.MaxStreamDepth firm offers of side dir on book k,
// best price first, then time, as instrument_limits entries. On a
// continuous book it compares the book's orders with prevOrders, those
// behind prev, and reads the offers only from the first that differs (an
// entry is all its order: its id, price and what remains of it), so a
// batch that leaves a side's top levels alone costs a walk of them; same
// reports that nothing differed (prev is returned).
func (st *State) ladder(k bookKey, dir string, prev []feed.LimitEntry, prevOrders []matching.Order) (entries []feed.LimitEntry, orders []matching.Order, same bool) {
	var offers []*venue.Offer
	if st.continuous(k.market) {
		side := matching.Bid
		if dir == venue.Ask {
			side = matching.Ask
		}
		b := st.books[k]
		if b == nil {
			return []feed.LimitEntry{}, nil, prev != nil && len(prev) == 0
		}
		st.depthBuf = b.AppendDepth(st.depthBuf[:0], side, feed.MaxStreamDepth)
		kept := 0 // leading orders unchanged since prev
		for kept < min(len(st.depthBuf), len(prevOrders)) && st.depthBuf[kept] == prevOrders[kept] {
			kept++
		}
		if prev != nil && kept == len(st.depthBuf) && kept == len(prevOrders) {
			return prev, prevOrders, true
		}
		entries = append(make([]feed.LimitEntry, 0, len(st.depthBuf)), prev[:kept]...)
		orders = append(make([]matching.Order, 0, len(st.depthBuf)), prevOrders[:kept]...)
		for _, bo := range st.depthBuf[kept:] {
			if o := st.bookedOffer(bo.ID); o != nil {
				entries = append(entries, st.limitEntry(k, o))
				orders = append(orders, bo)
			}
		}
		return entries, orders, false
	} else {
		for _, o := range st.otc[k.instrument] {
			if o.MarketID == k.market && o.Direction == dir && o.HasPrice {
				offers = append(offers, o)
			}
		}
		// A resting ask is better as a buyer sees it; a bid as a seller.
		sort.Slice(offers, func(i, j int) bool { return better(opposite(dir), offers[i], offers[j]) })
		offers = offers[:min(len(offers), feed.MaxStreamDepth)]
	}
	out := make([]feed.LimitEntry, 0, len(offers))
	for _, o := range offers {
		out = append(out, st.limitEntry(k, o))
	}
	return out, nil, false
}

// limitEntry is offer o as an entry of book k's ladder.
func (st *State) limitEntry(k bookKey, o *venue.Offer) feed.LimitEntry {
	return feed.LimitEntry{Limit: o.Price, Quantity: o.Remaining(), MarketID: k.market, ParticipantID: o.ParticipantID,
		OfferID: o.ID, IsExecutable: true, IsMarketOrder: o.MarketOrder, IsOffer: true, CSD: st.settlement.OfferCSD(o)}
}
