package sequencer

import (
	"github.com/bondvenue/bondvenue/internal/feed"
	"github.com/bondvenue/bondvenue/internal/matching"
	"github.com/bondvenue/bondvenue/internal/venue"
)

// This file keeps each book's best bid and ask and emits
// instrument.price_change when a batch moves them or trades on the book, so
// the streams never recompute a book (docs/guide.md, "Live streams": /instruments). A batch's
// changes to one book make one event: its state after the batch, the only
// state anyone could read.

// priceChanges records the batch's price changes with its events.
func (st *State) priceChanges(b *Batch) {
	for _, k := range b.touchOrder {
		top := bookTop{bid: st.best(k, venue.Bid), ask: st.best(k, venue.Ask), last: st.lasts[k]}
		prev, known := st.tops[k]
		if b.touched[k] {
			ps := b.prints[k]
			t := ps[len(ps)-1]
			top.last = &lastTrade{price: t.Price, quantity: t.Quantity}
			st.lasts[k] = top.last
		} else if known && sameEntry(prev.bid, top.bid) && sameEntry(prev.ask, top.ask) {
			continue
		}
		st.tops[k] = top
		pc := &feed.PriceChange{InstrumentID: k.instrument, MarketID: k.market, Bid: top.bid, Ask: top.ask, Trades: b.prints[k]}
		if top.last != nil {
			pc.LastPrice, pc.LastQuantity = &top.last.price, &top.last.quantity
		}
		if i, ok := b.lastEvent[k]; ok {
			b.events[i].Moved = pc
		}
	}
}

func sameEntry(a, b *feed.LimitEntry) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.OfferID == b.OfferID && a.Limit.Equal(b.Limit) && a.Quantity.Equal(b.Quantity)
}

// best is the best resting firm offer of side dir on the book k: best
// price, then time.
func (st *State) best(k bookKey, dir string) *feed.LimitEntry {
	var top *venue.Offer
	if st.continuous(k.market) {
		side := matching.Bid
		if dir == venue.Ask {
			side = matching.Ask
		}
		b := st.books[k]
		if b == nil {
			return nil
		}
		var buf [1]matching.Order
		if d := b.AppendDepth(buf[:0], side, 1); len(d) == 1 {
			top = st.bookedOffer(d[0].ID)
		}
	} else {
		for _, o := range st.otc[k.instrument] {
			if o.MarketID != k.market || o.Direction != dir || !o.HasPrice {
				continue
			}
			// A resting ask is better as a buyer sees it; a bid as a seller.
			if top == nil || better(opposite(dir), o, top) {
				top = o
			}
		}
	}
	if top == nil {
		return nil
	}
	return &feed.LimitEntry{Limit: top.Price, Quantity: top.Remaining(), MarketID: k.market, ParticipantID: top.ParticipantID, OfferID: top.ID,
		IsExecutable: true, IsMarketOrder: top.MarketOrder, IsOffer: true, CSD: st.settlement.OfferCSD(top)}
}

func opposite(dir string) string {
	if dir == venue.Ask {
		return venue.Bid
	}
	return venue.Ask
}

// better reports whether quote q beats quote than for a requester on side
// dir: a lower ask for a buyer, a higher bid for a seller, then the earlier.
func better(dir string, q, than *venue.Offer) bool {
	if c := q.Price.Cmp(than.Price); c != 0 {
		return (c < 0) == (dir == venue.Bid)
	}
	return q.Priority < than.Priority
}
