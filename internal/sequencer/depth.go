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

// bookLadder is what the last instrument.depth of a book said.
type bookLadder struct{ bid, ask []feed.LimitEntry }

// depthChanges records, with each changed book's last event of the batch,
// its ladder when one of its top feed.MaxStreamDepth levels changed.
func (st *State) depthChanges(b *Batch) {
	for _, k := range b.touchOrder {
		i, ok := b.lastEvent[k]
		if !ok {
			continue
		}
		bid, ask := st.ladder(k, venue.Bid), st.ladder(k, venue.Ask)
		from := 0
		if prev, known := st.ladders[k]; known {
			from = firstChange(prev.bid, bid)
			if a := firstChange(prev.ask, ask); from < 0 || (a >= 0 && a < from) {
				from = a
			}
			if from < 0 {
				continue // the batch changed nothing a ladder shows
			}
		}
		st.ladders[k] = bookLadder{bid: bid, ask: ask}
		b.events[i].Ladder = &feed.Depth{InstrumentID: k.instrument, MarketID: k.market, Bid: bid, Ask: ask, From: from}
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
// best price first, then time, as instrument_limits entries.
func (st *State) ladder(k bookKey, dir string) []feed.LimitEntry {
	var offers []*venue.Offer
	if st.continuous(k.market) {
		side := matching.Bid
		if dir == venue.Ask {
			side = matching.Ask
		}
		if b := st.books[k]; b != nil {
			st.depthBuf = b.AppendDepth(st.depthBuf[:0], side, feed.MaxStreamDepth)
			for _, bo := range st.depthBuf {
				if o := st.bookedOffer(bo.ID); o != nil {
					offers = append(offers, o)
				}
			}
		}
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
		out = append(out, feed.LimitEntry{Limit: o.Price, Quantity: o.Remaining(), MarketID: k.market, ParticipantID: o.ParticipantID,
			OfferID: o.ID, IsExecutable: true, IsMarketOrder: o.MarketOrder, IsOffer: true})
	}
	return out
}
