package sequencer

import (
	"cmp"
	"container/heap"
	"slices"

	"github.com/quagmt/udecimal"

	"github.com/bondvenue/bondvenue/internal/records"
	"github.com/bondvenue/bondvenue/internal/store"
	"github.com/bondvenue/bondvenue/internal/venue"
)

// This file holds the sequencer's RFQ commands: request, quote, accept,
// reject, decline, cancel, update, and expiry.

func (st *State) addQuote(q *venue.Offer) {
	m := st.quotes[q.MatchedOfferID]
	if m == nil {
		m = map[string]string{}
		st.quotes[q.MatchedOfferID] = m
	}
	m[q.ParticipantID] = q.ID
}

// CreateRFQ opens a request for quote to its recipients (already resolved
// and checked to be enabled counterparties by the use case).
func (st *State) CreateRFQ(b *Batch, r *venue.Offer) (OfferResult, error) {
	res, err := st.createRFQ(b, r)
	if err != nil {
		st.rejected(b, r, err)
	}
	return res, err
}

func (st *State) createRFQ(b *Batch, r *venue.Offer) (OfferResult, error) {
	if err := st.checkNew(r); err != nil {
		return OfferResult{}, err
	}
	if err := st.checkValue(r, r.Price, r.Quantity); err != nil {
		return OfferResult{}, err
	}
	st.prioritize(r)
	r.CreatedAt, r.UpdatedAt, r.ModifiedAt = st.now, st.now, st.now
	r.Status = venue.StatusCreated
	r.AccruedInterest = st.accrued(r.InstrumentID, r.SettlementDate, r.Quantity)
	m := map[string]bool{}
	for _, p := range r.Counterparties {
		if !st.eligible(r.ParticipantID, p) {
			return OfferResult{}, venue.InvalidField("counterparties", "participant "+p+" is not an enabled counterparty")
		}
		m[p] = false
	}
	st.recipients[r.ID] = m
	st.rfqOwner[r.ID] = r.ParticipantID
	for _, p := range r.Counterparties {
		b.recipients = append(b.recipients, store.RecipientWrite{RFQID: r.ID, Recipient: store.Recipient{ParticipantID: p}})
	}
	st.rest(r)
	st.emit(b, r, "create")
	st.record(b, r, records.New)
	st.mark(b, r, store.MarkSent)
	return OfferResult{Offer: *r}, nil
}

// mark records the market around rfq now (its execution record): the
// best bid and ask of the instrument's continuous books and the newest
// valid indicative mid.
func (st *State) mark(b *Batch, rfq *venue.Offer, kind string) {
	m := store.RFQMark{RFQID: rfq.ID, Kind: kind, At: st.now}
	for id := range st.markets {
		if !st.continuous(id) {
			continue
		}
		k := bookKey{id, rfq.InstrumentID}
		if bid := st.best(k, venue.Bid); bid != nil && (m.BestBid == nil || bid.Limit.GreaterThan(*m.BestBid)) {
			p := bid.Limit
			m.BestBid = &p
		}
		if ask := st.best(k, venue.Ask); ask != nil && (m.BestAsk == nil || ask.Limit.LessThan(*m.BestAsk)) {
			p := ask.Limit
			m.BestAsk = &p
		}
	}
	if q := st.newestIndicative(rfq.InstrumentID); q != nil {
		v := mid(*q.bid, *q.ask)
		m.IndicativeMid = &v
	}
	b.marks = append(b.marks, m)
}

// executable reports whether a quote's price meets an executable RFQ's
// limit.
func executable(rfq, q *venue.Offer) bool {
	if !rfq.IsExecutable || !rfq.HasPrice || !q.HasPrice {
		return false
	}
	if rfq.Direction == venue.Bid { // the requester buys: the quote's ask must be at or below the limit
		return q.Price.LessThanOrEqual(rfq.Price)
	}
	return q.Price.GreaterThanOrEqual(rfq.Price)
}

// CreateQuote answers an RFQ. A dealer has at most one live quote per RFQ:
// a new one replaces the previous. A quote at or better than an executable
// RFQ's limit trades at once.
func (st *State) CreateQuote(b *Batch, q *venue.Offer) (OfferResult, error) {
	res, err := st.createQuote(b, q)
	if err != nil {
		st.rejected(b, q, err)
	}
	return res, err
}

func (st *State) createQuote(b *Batch, q *venue.Offer) (OfferResult, error) {
	rfq := st.open.get(q.MatchedOfferID)
	declined, invited := st.recipients[q.MatchedOfferID][q.ParticipantID]
	if rfq == nil || rfq.Type != venue.TypeRFQ || !invited {
		return OfferResult{}, venue.NotFound("open request for quote")
	}
	if declined {
		return OfferResult{}, venue.Conflict("you declined this request for quote")
	}
	if !st.eligible(rfq.ParticipantID, q.ParticipantID) {
		return OfferResult{}, errNotCounterparties
	}
	if err := st.settles(rfq, q); err != nil {
		return OfferResult{}, err
	}
	var v venue.Validator
	v.Check(q.Direction != rfq.Direction, "direction", "must be the opposite of the request's direction "+rfq.Direction)
	v.Check(q.Quantity.Equal(rfq.Quantity), "quantity", "must equal the request's quantity "+rfq.Quantity.String())
	v.Check(q.InstrumentID == rfq.InstrumentID && q.MarketID == rfq.MarketID, "instrument_id", "must be the request's instrument and market")
	if err := v.Err(); err != nil {
		return OfferResult{}, err
	}
	var prev *venue.Offer
	if id, ok := st.quotes[rfq.ID][q.ParticipantID]; ok {
		prev = st.open.get(id)
	}
	more := q.Quantity
	if prev != nil {
		more = more.Sub(prev.Remaining())
	}
	if err := st.checkNew(q); err != nil {
		return OfferResult{}, err
	}
	if err := st.checkRisk(q, q.Price, q.Quantity, more); err != nil {
		return OfferResult{}, err
	}
	if prev != nil {
		st.close(b, prev, venue.StatusCancelled)
	}
	st.prioritize(q)
	q.CreatedAt, q.UpdatedAt, q.ModifiedAt = st.now, st.now, st.now
	q.Status = venue.StatusCreated
	q.SettlementDate = rfq.SettlementDate
	q.AccruedInterest = st.accrued(q.InstrumentID, q.SettlementDate, q.Quantity)
	st.rest(q)
	st.addQuote(q)
	st.emit(b, q, "create")
	st.record(b, q, records.New)
	res := OfferResult{Offer: *q}
	b.aggressor = q.ID
	if executable(rfq, q) {
		t := st.execute(b, rfq, q)
		res.Offer, res.Trades = *q, []venue.Trade{t}
	}
	return res, nil
}

// errNotCounterparties refuses a quote or an acceptance between firms that
// are no longer enabled counterparties of each other (the relation was
// disabled after the request went out).
var errNotCounterparties = venue.Conflict("the requester and the dealer are no longer enabled counterparties of each other")

// executeBest trades an executable RFQ with its best live quote at or
// better than the limit (best price, then time priority), if there is one:
// after the limit or a quote's price changed, the first quote that meets
// the limit trades at once, as a new one does.
func (st *State) executeBest(b *Batch, rfq *venue.Offer) []venue.Trade {
	var best *venue.Offer
	for _, id := range st.quotes[rfq.ID] {
		q := st.open.get(id)
		if q == nil || !executable(rfq, q) || !st.eligible(rfq.ParticipantID, q.ParticipantID) || st.settles(rfq, q) != nil {
			continue
		}
		if best == nil || better(rfq.Direction, q, best) {
			best = q
		}
	}
	if best == nil {
		return nil
	}
	return []venue.Trade{st.execute(b, rfq, best)}
}

// execute trades an RFQ with one of its quotes: both close, the other
// quotes are rejected.
func (st *State) execute(b *Batch, rfq, q *venue.Offer) venue.Trade {
	qty := q.Quantity
	rfq.Filled, q.Filled = qty, qty
	st.addUse(q, qty.Neg())
	ask, bid := q, rfq
	if rfq.Direction == venue.Ask {
		ask, bid = rfq, q
	}
	t := st.trade(b, ask, bid, qty, q.Price, rfq.SettlementDate, venue.ExecutionOTC)
	q.Status, rfq.Status = venue.StatusClosed, venue.StatusClosed
	q.ModifiedAt, rfq.ModifiedAt = st.now, st.now
	st.mark(b, rfq, store.MarkAccepted)
	others := st.decideOutcomes(rfq, q)
	st.unlist(q)
	st.emit(b, q, "update")
	for _, other := range others {
		st.close(b, other, venue.StatusRejected)
	}
	st.emit(b, rfq, "update")                       // before endRFQ: the recipients are its audience
	if _, accepted := b.fillsAs[rfq.ID]; accepted { // its accept took the fill: the request is done
		st.record(b, rfq, b.changed())
	}
	st.endRFQ(rfq)
	return t
}

// decideOutcomes sets the outcome of every live quote on rfq when q, one
// of them, is accepted: q is done; a quote at the done price is tied;
// otherwise the best of the others (by price for the requester, then
// time) is the cover and the rest are done away. The done quote's
// cover price is the best other live price (the done price when tied). It
// answers the other live quotes in a stable order (by time priority).
func (st *State) decideOutcomes(rfq, q *venue.Offer) []*venue.Offer {
	var others []*venue.Offer
	for dealer, id := range st.quotes[rfq.ID] {
		if other := st.open.get(id); other != nil && dealer != q.ParticipantID {
			others = append(others, other)
		}
	}
	slices.SortFunc(others, func(a, b *venue.Offer) int { return cmp.Compare(a.Priority, b.Priority) })
	q.Outcome = venue.OutcomeDone
	var cover *venue.Offer
	tied := false
	for _, o := range others {
		switch {
		case o.Price.Equal(q.Price):
			o.Outcome, tied = venue.OutcomeTied, true
		case cover == nil || better(rfq.Direction, o, cover):
			cover = o
		}
	}
	switch {
	case tied:
		q.CoverPrice, q.HasCover = q.Price, true
	case cover != nil:
		cover.Outcome = venue.OutcomeCover
		q.CoverPrice, q.HasCover = cover.Price, true
	}
	for _, o := range others {
		if o.Outcome == "" {
			o.Outcome = venue.OutcomeDoneAway
		}
	}
	return others
}

// endRFQ forgets an RFQ that is no longer open.
func (st *State) endRFQ(rfq *venue.Offer) {
	st.unlist(rfq)
	delete(st.quotes, rfq.ID)
	delete(st.recipients, rfq.ID)
}

// AcceptQuote is the requester taking a quote (a.QuoteID).
func (st *State) AcceptQuote(b *Batch, p venue.Principal, a Accept) (OfferResult, error) {
	q := st.open.get(a.QuoteID)
	if q == nil || q.Type != venue.TypeQuote {
		return OfferResult{}, ErrNotOpen
	}
	rfq := st.open.get(q.MatchedOfferID)
	if rfq == nil || rfq.ParticipantID != p.ParticipantID {
		return OfferResult{}, ErrNotOpen
	}
	acc := st.accept(rfq, q, p, a.Parties)
	err := st.settles(rfq, q)
	if !st.eligible(rfq.ParticipantID, q.ParticipantID) {
		err = errNotCounterparties
	}
	if err == nil {
		err = st.checkTrading(p.ParticipantID)
	}
	if err == nil {
		err = st.checkOpen(q.MarketID, q.InstrumentID)
	}
	if err != nil {
		st.rejected(b, acc, err)
		return OfferResult{}, err
	}
	st.record(b, acc, records.New)
	acc.Filled, acc.Status = q.Quantity, venue.StatusClosed
	b.fillAs(rfq, acc)
	b.aggressor = acc.ID
	t := st.execute(b, rfq, q)
	return OfferResult{Offer: *q, Trades: []venue.Trade{t}}, nil
}

// accept is the order by which rfq's requester takes its quote q: the
// fill of the request is recorded as the accept's.
func (st *State) accept(rfq, q *venue.Offer, p venue.Principal, parties venue.Parties) *venue.Offer {
	acc := &venue.Offer{ID: newID(), Type: typeAccept, Direction: rfq.Direction, ParticipantID: rfq.ParticipantID, AccountID: rfq.AccountID,
		UserID: p.UserID, MarketID: q.MarketID, InstrumentID: q.InstrumentID, Price: q.Price, HasPrice: true, Quantity: q.Quantity,
		Status: venue.StatusCreated, Parties: parties, CreatedAt: st.now, PriorityAt: st.now}
	return acc
}

// DeclineRFQ is an invited dealer saying no: its live quote, if any, is
// withdrawn and rec (its id, account and user set by the use case) becomes
// the decline's quote record, with no price and the outcome declined. When
// every dealer has declined, the RFQ is rejected.
func (st *State) DeclineRFQ(b *Batch, p venue.Principal, rfqID string, rec *venue.Offer) (OfferResult, error) {
	rfq := st.open.get(rfqID)
	declined, invited := st.recipients[rfqID][p.ParticipantID]
	if rfq == nil || rfq.Type != venue.TypeRFQ || !invited {
		return OfferResult{}, venue.NotFound("open request for quote")
	}
	if declined {
		return OfferResult{}, venue.Conflict("already declined")
	}
	if id, ok := st.quotes[rfqID][p.ParticipantID]; ok {
		if q := st.open.get(id); q != nil {
			st.close(b, q, venue.StatusCancelled)
		}
	}
	rec.Type, rec.Direction, rec.ParticipantID = venue.TypeQuote, opposite(rfq.Direction), p.ParticipantID
	rec.MarketID, rec.InstrumentID, rec.MatchedOfferID = rfq.MarketID, rfq.InstrumentID, rfq.ID
	rec.Quantity, rec.SettlementDate, rec.Validity = rfq.Quantity, rfq.SettlementDate, venue.GTC
	rec.Price, rec.HasPrice, rec.Filled = udecimal.Zero, false, udecimal.Zero
	rec.Status, rec.Outcome = venue.StatusCancelled, venue.OutcomeDeclined
	st.prioritize(rec)
	rec.CreatedAt, rec.UpdatedAt, rec.ModifiedAt = st.now, st.now, st.now
	st.emit(b, rec, "delete")
	st.recipients[rfqID][p.ParticipantID] = true
	b.recipients = append(b.recipients, store.RecipientWrite{RFQID: rfqID, Recipient: store.Recipient{ParticipantID: p.ParticipantID, Declined: true}})
	all := true
	for _, d := range st.recipients[rfqID] {
		all = all && d
	}
	rfq.ModifiedAt = st.now
	if all {
		rfq.Status = venue.StatusRejected
		st.closeQuotes(b, rfq, venue.StatusRejected, venue.OutcomeDeclined)
		st.emit(b, rfq, "delete")
		st.record(b, rfq, b.changed())
		st.endRFQ(rfq)
	} else {
		st.emit(b, rfq, "update")
	}
	return OfferResult{Offer: *rfq}, nil
}

// closeQuotes ends rfq's live quotes with a status and an outcome.
func (st *State) closeQuotes(b *Batch, rfq *venue.Offer, status, outcome string) {
	for _, id := range st.quotes[rfq.ID] {
		if q := st.open.get(id); q != nil {
			q.Outcome = outcome
			st.close(b, q, status)
		}
	}
}

// CancelRFQ is the requester withdrawing its RFQ; live quotes are
// rejected.
func (st *State) CancelRFQ(b *Batch, p venue.Principal, rfqID string) (OfferResult, error) {
	rfq := st.open.get(rfqID)
	if rfq == nil || rfq.Type != venue.TypeRFQ || rfq.ParticipantID != p.ParticipantID {
		return OfferResult{}, ErrNotOpen
	}
	st.closeQuotes(b, rfq, venue.StatusRejected, venue.OutcomeCancelled)
	rfq.Status, rfq.ModifiedAt = venue.StatusCancelled, st.now
	st.emit(b, rfq, "delete")
	st.record(b, rfq, b.cancelled())
	st.endRFQ(rfq)
	return OfferResult{Offer: *rfq}, nil
}

// UpdateRFQ changes an open RFQ. A new quantity or settlement date rejects
// the live quotes: dealers quote again.
func (st *State) UpdateRFQ(b *Batch, p venue.Principal, rfqID string, ch OfferChange) (OfferResult, error) {
	res, err := st.updateRFQ(b, p, rfqID, ch)
	if rfq := st.open.get(rfqID); err != nil && rfq != nil && rfq.ParticipantID == p.ParticipantID {
		st.rejected(b, rfq, err)
	}
	return res, err
}

func (st *State) updateRFQ(b *Batch, p venue.Principal, rfqID string, ch OfferChange) (OfferResult, error) {
	rfq := st.open.get(rfqID)
	if rfq == nil || rfq.Type != venue.TypeRFQ || rfq.ParticipantID != p.ParticipantID {
		return OfferResult{}, ErrNotOpen
	}
	requote := (ch.Quantity != nil && !ch.Quantity.Equal(rfq.Quantity)) ||
		(ch.SettlementDate != nil && *ch.SettlementDate != rfq.SettlementDate)
	moved := ch.Price != nil && (!rfq.HasPrice || !ch.Price.Equal(rfq.Price))
	if moved || (ch.Quantity != nil && ch.Quantity.GreaterThan(rfq.Quantity)) {
		if err := st.checkOpen(rfq.MarketID, rfq.InstrumentID); err != nil {
			return OfferResult{}, err
		}
	}
	if moved {
		if err := st.checkCollar(rfq, *ch.Price); err != nil {
			return OfferResult{}, err
		}
	}
	price, qty := rfq.Price, rfq.Quantity
	if ch.Price != nil {
		price = *ch.Price
	}
	if ch.Quantity != nil {
		qty = *ch.Quantity
	}
	if err := st.checkValue(rfq, price, qty); err != nil {
		return OfferResult{}, err
	}
	if ch.Quantity != nil {
		rfq.Quantity = *ch.Quantity
	}
	if ch.Price != nil {
		rfq.Price, rfq.HasPrice = *ch.Price, true
	}
	if ch.SettlementDate != nil {
		rfq.SettlementDate = *ch.SettlementDate
	}
	if ch.Validity != nil {
		rfq.Validity, rfq.ValidUntil = *ch.Validity, nil
	}
	if ch.ValidUntil != nil {
		vu := *ch.ValidUntil
		rfq.ValidUntil = &vu
		heap.Push(&st.expiries, expiry{at: vu, id: rfq.ID})
	}
	if ch.Notes != nil {
		rfq.Notes = *ch.Notes
	}
	if ch.Parties != nil {
		rfq.Parties = *ch.Parties
	}
	if requote {
		st.closeQuotes(b, rfq, venue.StatusRejected, venue.OutcomePassed)
		delete(st.quotes, rfq.ID)
	}
	rfq.AccruedInterest = st.accrued(rfq.InstrumentID, rfq.SettlementDate, rfq.Quantity)
	rfq.ModifiedAt = st.now
	st.emit(b, rfq, "update")
	st.record(b, rfq, records.ReplacedByMember)
	b.aggressor = rfq.ID
	res := OfferResult{Trades: st.executeBest(b, rfq)} // a new limit may meet a live quote
	res.Offer = *rfq
	return res, nil
}
