package sequencer

import (
	"container/heap"

	"github.com/bondvenue/bondvenue/internal/feed"
	"github.com/bondvenue/bondvenue/internal/store"
	"github.com/bondvenue/bondvenue/internal/venue"
)

// This file is the public tape's publisher: each trade's price and size
// are published when its deferral band says (internal/transparency), as a
// tape.publish event and a mark on the trade, by the sequencer that made
// the trade, like a gtd record's expiry (docs/guide.md, "The public
// tape").

// publish sets a new trade's publication and marks what is due at once
// published (a trade below the smallest deferred size whole); tapeNew
// tells the tape after the trade's own event.
func (st *State) publish(t *venue.Trade) {
	m := st.markets[t.MarketID]
	t.Publication = st.deferrals.Publication(st.instruments[t.InstrumentID], t.Quantity, t.CreatedAt, m.Location())
	st.markDue(t)
}

// tapeNew emits a new trade's tape event when anything of it is published,
// and queues the rest.
func (st *State) tapeNew(b *Batch, t venue.Trade) {
	isin := st.instruments[t.InstrumentID].Terms.ISIN
	if t.Publication.PublishedPriceAt != nil {
		st.tapeEvent(b, t, isin)
	}
	st.queue(t, isin)
}

// markDue marks what of t is due at st.now published, and says what.
func (st *State) markDue(t *venue.Trade) (price, volume bool) {
	p := &t.Publication
	price = p.PublishedPriceAt == nil && !st.now.Before(p.PriceDueAt)
	volume = p.PublishedVolumeAt == nil && !st.now.Before(p.VolumeDueAt)
	now := st.now
	if price {
		p.PublishedPriceAt = &now
	}
	if volume {
		p.PublishedVolumeAt = &now
	}
	return price, volume
}

func (st *State) tapeEvent(b *Batch, t venue.Trade, isin string) {
	if e, ok := venue.TapeEntryOf(t, isin, st.mic, st.now); ok {
		b.event(feed.Event{Type: feed.EventTapePublish, Tape: &e})
	}
}

// queue keeps t for its next due time, if any.
func (st *State) queue(t venue.Trade, isin string) {
	p := t.Publication
	switch {
	case p.PublishedPriceAt == nil:
		st.pending[t.ID] = &pending{trade: t, isin: isin}
		heap.Push(&st.publications, publication{at: p.PriceDueAt, id: t.ID})
	case p.PublishedVolumeAt == nil:
		st.pending[t.ID] = &pending{trade: t, isin: isin}
		heap.Push(&st.publications, publication{at: p.VolumeDueAt, id: t.ID})
	}
}

// publishDue publishes every price and volume whose time has come.
func publishDue(st *State, b *Batch) (any, error) {
	for len(st.publications) > 0 && !st.publications[0].at.After(st.now) {
		p := heap.Pop(&st.publications).(publication)
		pt, ok := st.pending[p.id]
		if !ok {
			continue
		}
		delete(st.pending, p.id)
		t := pt.trade
		if price, volume := st.markDue(&t); price || volume {
			b.published = append(b.published, store.PublicationWrite{TradeID: t.ID, Price: price, Volume: volume, At: st.now})
			st.tapeEvent(b, t, pt.isin)
		}
		st.queue(t, pt.isin)
	}
	return nil, nil
}
