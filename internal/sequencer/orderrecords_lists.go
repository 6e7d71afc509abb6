package sequencer

import (
	"github.com/bondvenue/bondvenue/internal/records"
	"github.com/bondvenue/bondvenue/internal/venue"
)

// This file writes the order records of portfolio RFQs. A record names
// one instrument, so a list is one order per line (an indication of
// interest, its id the list's and the line's) and a dealer's quote one
// firm order per line; accepting a quote enters one accept per line,
// each filled against the dealer's line. Every change to a list passes
// through emitPortfolio, which records what changed since the list's
// last records (listSeen).

// listLine is line l of list r as an order for the records.
func listLine(r *venue.PortfolioRFQ, l venue.PortfolioLine) *venue.Offer {
	vu := r.ValidUntil
	return &venue.Offer{ID: r.ID + "/" + l.LineID, Type: typeList, Direction: l.Direction, ParticipantID: r.ParticipantID,
		AccountID: r.AccountID, UserID: r.UserID, MarketID: r.MarketID, InstrumentID: l.InstrumentID, Quantity: l.Quantity,
		Status: r.Status, ValidUntil: &vu, CreatedAt: r.CreatedAt, PriorityAt: r.CreatedAt, Parties: r.Parties}
}

// quoteLine is dealer quote q's price for line i of list r as an order.
func quoteLine(r *venue.PortfolioRFQ, q *venue.PortfolioQuote, i int) *venue.Offer {
	l := r.Lines[i]
	o := &venue.Offer{ID: q.ID + "/" + l.LineID, Type: typeListQuote, Direction: opposite(l.Direction), ParticipantID: q.ParticipantID,
		AccountID: q.AccountID, UserID: q.UserID, MarketID: r.MarketID, InstrumentID: l.InstrumentID, Quantity: l.Quantity,
		Status: q.Status, ValidUntil: q.ValidUntil, CreatedAt: q.CreatedAt, PriorityAt: q.CreatedAt, Parties: q.Parties}
	if i < len(q.Lines) {
		o.Price, o.HasPrice = q.Lines[i].PricePerUnit, true
	}
	return o
}

// recordList records what changed on list r since its last records: the
// list entered, quotes entered or ended, the list ended. Fills are
// recorded with the trades.
func (st *State) recordList(b *Batch, r *venue.PortfolioRFQ) {
	seen := st.listSeen[r.ID]
	if seen == nil {
		seen = map[string]string{}
		st.listSeen[r.ID] = seen
		for _, l := range r.Lines {
			o := listLine(r, l)
			o.Status = venue.StatusCreated
			st.record(b, o, records.New)
		}
	}
	for i := range r.Quotes {
		q := &r.Quotes[i]
		prev, known := seen[q.ID]
		seen[q.ID] = q.Status
		switch {
		case !known && q.Status == venue.StatusCreated:
			for j := range r.Lines {
				st.record(b, quoteLine(r, q, j), records.New)
			}
		case known && prev == venue.StatusCreated && q.Status != venue.StatusCreated && q.Status != venue.StatusClosed:
			for j := range r.Lines {
				st.record(b, quoteLine(r, q, j), b.ended(q.Status))
			}
		}
	}
	if r.Status != venue.StatusCreated {
		for _, l := range r.Lines {
			st.record(b, listLine(r, l), b.ended(r.Status))
		}
		delete(st.listSeen, r.ID)
	}
}

// seenList notes an open list read at a rebuild as recorded.
func (st *State) seenList(r *venue.PortfolioRFQ) {
	seen := map[string]string{}
	for _, q := range r.Quotes {
		seen[q.ID] = q.Status
	}
	st.listSeen[r.ID] = seen
}

// rejectedList records a refused list (every line) or a refused quote on
// a list (every line the dealer priced).
func (st *State) rejectedList(b *Batch, r *venue.PortfolioRFQ, q *venue.PortfolioQuote, err error) {
	if r == nil {
		return
	}
	for i, l := range r.Lines {
		o := listLine(r, l)
		if q != nil {
			o = quoteLine(r, q, i)
		}
		o.Status, o.CreatedAt, o.PriorityAt = venue.StatusCreated, st.now, st.now
		st.rejected(b, o, err)
	}
}
