package sequencer

import (
	"time"

	"github.com/bondvenue/bondvenue/internal/audit"
	"github.com/bondvenue/bondvenue/internal/feed"
	"github.com/bondvenue/bondvenue/internal/records"
	"github.com/bondvenue/bondvenue/internal/store"
	"github.com/bondvenue/bondvenue/internal/venue"
)

// This file holds a batch: the writes and events of the commands the
// sequencer applies in one transaction, the books they changed (which
// prices.go and depth.go turn into events), and its commit.

// Batch collects the writes and events of the commands of one
// transaction.
type Batch struct {
	now        time.Time
	offers     map[string]*venue.Offer // final state of every changed record
	order      []string                // offers in first-change order
	recipients []store.RecipientWrite
	trades     []venue.Trade
	events     []feed.Event
	claims     []store.IdempotencyClaim // of the applied commands
	poisoned   bool
	// touched are the books the batch changed (true: it traded there),
	// in first-change order; prints the trades on each, in order.
	touched    map[bookKey]bool
	touchOrder []bookKey
	prints     map[bookKey][]feed.Print
	// lastEvent is the index in events of each book's last event.
	lastEvent map[bookKey]int
	// killSwitches and halts are the pre-trade controls the batch set.
	killSwitches []store.KillSwitch
	halts        []venue.Halt
	// marks are the market around the RFQs the batch sent or traded.
	marks []store.RFQMark
	// portfolios are the final state of the portfolio RFQs the batch
	// changed, in first-change order; portfolioParties the lists it
	// created, whose dealers are written with them.
	portfolios       map[string]*venue.PortfolioRFQ
	portfolioOrder   []string
	portfolioParties []string
	// published are the stored trades whose price or volume the batch
	// published.
	published []store.PublicationWrite
	// records are the order records of the batch's events, in order
	// (orderrecords.go); by is who makes the current command's changes;
	// aggressor is the order whose entry makes the current trades; fillsAs
	// records an offer's fills as another order's.
	records   []records.Record
	by        actor
	aggressor string
	fillsAs   map[string]*venue.Offer
	// audit are the audit trail's entries of the operator's and admins'
	// changes the batch applies.
	audit []audit.Entry
}

// size counts the batch's writes.
func (b *Batch) size() int {
	return len(b.order) + len(b.trades) + len(b.events) + len(b.recipients) + len(b.killSwitches) + len(b.halts) + len(b.marks) +
		len(b.portfolioOrder) + len(b.published) + len(b.records) + len(b.audit)
}

func (b *Batch) empty() bool {
	return len(b.offers) == 0 && len(b.trades) == 0 && len(b.events) == 0 && len(b.recipients) == 0 && len(b.claims) == 0 &&
		len(b.killSwitches) == 0 && len(b.halts) == 0 && len(b.marks) == 0 && len(b.portfolioOrder) == 0 && len(b.published) == 0 &&
		len(b.records) == 0 && len(b.audit) == 0
}

// Audit records e, the audit trail's entry of a change the command
// applies (a kill switch, a halt), to be written with the batch's other
// writes; the store numbers and chains it. A command records it only
// once it has applied the change.
func (b *Batch) Audit(e audit.Entry) { b.audit = append(b.audit, e) }

// save records o's current state to be written.
func (b *Batch) save(o *venue.Offer) {
	if _, ok := b.offers[o.ID]; !ok {
		b.order = append(b.order, o.ID)
	}
	cp := *o
	b.offers[o.ID] = &cp
	b.touch(o)
}

// event records a change. Its owner reads it; its audience are further
// readers.
func (b *Batch) event(ev feed.Event) {
	ev.OccurredAt = b.now
	b.events = append(b.events, ev)
	k, ok := bookKey{}, false
	switch {
	case ev.Offer != nil && ev.Offer.Type == venue.TypeOffer:
		k, ok = bookKey{ev.Offer.MarketID, ev.Offer.InstrumentID}, true
	case ev.Trade != nil:
		k, ok = bookKey{ev.Trade.MarketID, ev.Trade.InstrumentID}, true
	}
	if ok {
		if b.lastEvent == nil {
			b.lastEvent = map[bookKey]int{}
		}
		b.lastEvent[k] = len(b.events) - 1
	}
}

// touch notes that a batch changed the book of o (a firm offer).
func (b *Batch) touch(o *venue.Offer) {
	if o.Type != venue.TypeOffer {
		return
	}
	b.touchKey(bookKey{o.MarketID, o.InstrumentID})
}

func (b *Batch) touchKey(k bookKey) {
	if b.touched == nil {
		b.touched = map[bookKey]bool{}
	}
	if _, ok := b.touched[k]; !ok {
		b.touched[k] = false
		b.touchOrder = append(b.touchOrder, k)
	}
}

// traded notes a trade on a book: its event carries the new last price
// even when the best prices stay.
func (b *Batch) traded(t venue.Trade) {
	k := bookKey{t.MarketID, t.InstrumentID}
	b.touchKey(k)
	b.touched[k] = true
	if b.prints == nil {
		b.prints = map[bookKey][]feed.Print{}
	}
	b.prints[k] = append(b.prints[k], feed.Print{Price: t.PricePerUnit, Quantity: t.Quantity})
}

// savePortfolio records a list's state to be written with the batch.
func (b *Batch) savePortfolio(r *venue.PortfolioRFQ) {
	if b.portfolios == nil {
		b.portfolios = map[string]*venue.PortfolioRFQ{}
	}
	if _, ok := b.portfolios[r.ID]; !ok {
		b.portfolioOrder = append(b.portfolioOrder, r.ID)
	}
	b.portfolios[r.ID] = r
}
