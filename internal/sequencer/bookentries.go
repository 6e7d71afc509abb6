package sequencer

import (
	"context"
	"sort"

	"github.com/bondvenue/bondvenue/internal/matching"
	"github.com/bondvenue/bondvenue/internal/store"
	"github.com/bondvenue/bondvenue/internal/venue"
)

// This file holds the read of the books the sequencer serves for
// instrument_limits: it joins a batch in the priority lane, so it shows
// only what is committed.

// BookEntries returns the open firm offers that can show in the
// instruments' instrument_limits, in time priority, without participant
// names: of every continuous book the best depth orders per side (all when
// depth <= 0), which hold the instrument's best depth across its markets,
// and every firm offer resting on an OTC market; of market only, unless it
// is "". It answers from the
// sequencer's books once the batch it joins has committed, so it shows
// nothing that is not durable; ok is false when the sequencer is not
// running. The caller must not hold a write transaction: on SQLite the
// sequencer commits through the one writer (see store.DB.SequencerTx).
func (e *Sequencer) BookEntries(ctx context.Context, instrumentIDs []string, market string, depth int) (entries []store.BookEntry, ok bool, err error) {
	if !e.running.Load() {
		return nil, false, nil
	}
	v, err := e.Do(WithPriority(ctx), nil, func(st *State, b *Batch) (any, error) {
		out := []store.BookEntry{}
		add := func(o *venue.Offer) {
			out = append(out, store.BookEntry{OfferID: o.ID, InstrumentID: o.InstrumentID, MarketID: o.MarketID,
				Direction: o.Direction, Price: venue.Offer{Price: o.Price, HasPrice: o.HasPrice, Quantity: o.Quantity, Filled: o.Filled},
				ParticipantID: o.ParticipantID, MarketOrder: o.MarketOrder, Priority: o.Priority, AccountID: o.AccountID,
				SettlementProviderID: o.SettlementProviderID})
		}
		var orders []matching.Order
		for _, id := range instrumentIDs {
			for m := range st.markets { // an offer may outlive its market's listing
				if market != "" && m != market {
					continue
				}
				book := st.books[bookKey{m, id}]
				if book == nil {
					continue
				}
				orders = book.AppendDepth(book.AppendDepth(orders[:0], matching.Bid, depth), matching.Ask, depth)
				for _, bo := range orders {
					if o := st.bookedOffer(bo.ID); o != nil {
						add(o)
					}
				}
			}
			for _, o := range st.otc[id] {
				if market == "" || o.MarketID == market {
					add(o)
				}
			}
		}
		sort.Slice(out, func(i, j int) bool { return out[i].Priority < out[j].Priority })
		return out, nil
	})
	if err != nil {
		return nil, true, err
	}
	return v.([]store.BookEntry), true, nil
}
