package sequencer

import (
	"container/heap"
	"fmt"
	"slices"

	"github.com/quagmt/udecimal"

	"github.com/bondvenue/bondvenue/internal/bondmath"
	"github.com/bondvenue/bondvenue/internal/feed"
	"github.com/bondvenue/bondvenue/internal/records"
	"github.com/bondvenue/bondvenue/internal/venue"
)

// This file holds the sequencer's portfolio (list) RFQ commands: create,
// quote, decline, pass, cancel, accept and expiry. A list lives in
// st.portfolios while open; its record, quotes included, is written whole
// with each batch that changes it. Its lines trade only at the accept,
// all in the one batch: each line becomes a pair of closed line records
// (venue.TypePortfolioLine), the requester's and the dealer's, whose
// orders the line's trade names.

// PortfolioResult is a portfolio command's answer: the list as it stands
// after the command, unredacted, and the trades of an accept.
type PortfolioResult struct {
	Portfolio venue.PortfolioRFQ
	Trades    []venue.Trade
}

// lineField names a field of a list's line i in an error.
func lineField(i int, field string) string { return fmt.Sprintf("lines[%d].%s", i, field) }

// lineError is err, a refusal of line i (its id lineID), reworded to name
// the line: the whole command is refused for it.
func lineError(i int, lineID string, err error) error {
	ve, ok := err.(*venue.Error)
	if !ok {
		return err
	}
	out := *ve
	out.Message = fmt.Sprintf("line %s (lines[%d]): %s", lineID, i, ve.Message)
	out.Details = nil
	for _, d := range ve.Details {
		out.Details = append(out.Details, venue.FieldIssue{Field: lineField(i, d.Field), Issue: d.Issue})
	}
	if len(out.Details) == 0 {
		out.Details = []venue.FieldIssue{{Field: fmt.Sprintf("lines[%d]", i), Issue: ve.Message}}
	}
	return &out
}

// CreatePortfolioRFQ opens a list RFQ to its dealers. The use case checked
// each line's instrument, quantity and the settlement date; here the
// firm's kill switch, each line's halt and the dealers' eligibility.
func (st *State) CreatePortfolioRFQ(b *Batch, r *venue.PortfolioRFQ) (PortfolioResult, error) {
	res, err := st.createPortfolioRFQ(b, r)
	if err != nil {
		st.rejectedList(b, r, nil, err)
	}
	return res, err
}

func (st *State) createPortfolioRFQ(b *Batch, r *venue.PortfolioRFQ) (PortfolioResult, error) {
	if _, ok := st.markets[r.MarketID]; !ok {
		return PortfolioResult{}, venue.NotFound("market")
	}
	if err := st.checkTrading(r.ParticipantID); err != nil {
		return PortfolioResult{}, err
	}
	for i, l := range r.Lines {
		if err := st.checkOpen(r.MarketID, l.InstrumentID); err != nil {
			return PortfolioResult{}, lineError(i, l.LineID, err)
		}
	}
	if len(r.Counterparties) == 0 {
		for pair, on := range st.cps {
			if on && pair[0] == r.ParticipantID && st.eligible(pair[0], pair[1]) {
				r.Counterparties = append(r.Counterparties, pair[1])
			}
		}
		slices.Sort(r.Counterparties)
		if len(r.Counterparties) == 0 {
			return PortfolioResult{}, venue.InvalidField("counterparties", "the participant has no enabled counterparty to ask")
		}
	}
	for i, p := range r.Counterparties {
		if !st.eligible(r.ParticipantID, p) || slices.Index(r.Counterparties, p) != i {
			return PortfolioResult{}, venue.InvalidField(fmt.Sprintf("counterparties[%d]", i), "must be an enabled counterparty, listed once")
		}
	}
	r.Status = venue.StatusCreated
	r.CreatedAt, r.UpdatedAt = st.now, st.now
	st.portfolios[r.ID] = r
	heap.Push(&st.expiries, expiry{at: r.ValidUntil, id: r.ID})
	st.emitPortfolio(b, r, "create")
	b.portfolioParties = append(b.portfolioParties, r.ID)
	return PortfolioResult{Portfolio: clonePortfolio(r)}, nil
}

// openPortfolio is the open list id, for a dealer invited to it (or its
// requester when owner is set).
func (st *State) openPortfolio(id, participant string, owner bool) (*venue.PortfolioRFQ, error) {
	r := st.portfolios[id]
	if r == nil || (owner && r.ParticipantID != participant) || (!owner && !r.Invited(participant)) {
		return nil, venue.NotFound("open portfolio request for quote")
	}
	return r, nil
}

// liveQuote is the live quote quoteID on p's open list id.
func (st *State) liveQuote(p venue.Principal, id, quoteID string) (*venue.PortfolioRFQ, *venue.PortfolioQuote, error) {
	r, err := st.openPortfolio(id, p.ParticipantID, true)
	if err != nil {
		return nil, nil, err
	}
	q := r.Quote(quoteID)
	if q == nil || q.Status != venue.StatusCreated {
		return nil, nil, venue.NotFound("live quote on this portfolio request for quote")
	}
	return r, q, nil
}

// lineOffer is a line as the record of one side, for the controls that
// read a record: the collar, the per-record limits.
func (st *State) lineOffer(r *venue.PortfolioRFQ, l venue.PortfolioLine, participant, account, user, dir string, price udecimal.Decimal) *venue.Offer {
	return &venue.Offer{Type: venue.TypePortfolioLine, Direction: dir, ParticipantID: participant, AccountID: account, UserID: user,
		MarketID: r.MarketID, InstrumentID: l.InstrumentID, Price: price, HasPrice: true, Quantity: l.Quantity,
		MatchedOfferID: r.ID, SettlementDate: r.SettlementDate, Validity: venue.GTC}
}

// QuotePortfolio is a dealer's price for the whole list: prices holds a
// clean price for every line, by line id (the use case checked the
// shape). It replaces the dealer's live quote. Each line's price must be
// inside the collar and its value within the dealer's limit.
func (st *State) QuotePortfolio(b *Batch, p venue.Principal, id string, q venue.PortfolioQuote, prices map[string]udecimal.Decimal) (PortfolioResult, error) {
	res, err := st.quotePortfolio(b, p, id, q, prices)
	if r := st.portfolios[id]; err != nil && r != nil && r.Invited(p.ParticipantID) {
		q.ParticipantID = p.ParticipantID
		q.Lines = make([]venue.PortfolioQuoteLine, len(r.Lines))
		for i, l := range r.Lines {
			q.Lines[i] = venue.PortfolioQuoteLine{LineID: l.LineID, PricePerUnit: prices[l.LineID]}
		}
		st.rejectedList(b, r, &q, err)
	}
	return res, err
}

func (st *State) quotePortfolio(b *Batch, p venue.Principal, id string, q venue.PortfolioQuote, prices map[string]udecimal.Decimal) (PortfolioResult, error) {
	r, err := st.openPortfolio(id, p.ParticipantID, false)
	if err != nil {
		return PortfolioResult{}, err
	}
	if r.Declined(p.ParticipantID) {
		return PortfolioResult{}, venue.Conflict("you declined this portfolio request for quote")
	}
	if !st.eligible(r.ParticipantID, p.ParticipantID) {
		return PortfolioResult{}, errNotCounterparties
	}
	if err := st.settlesAccounts(r.ParticipantID, r.AccountID, p.ParticipantID, q.AccountID); err != nil {
		return PortfolioResult{}, err
	}
	if len(r.Quotes) >= venue.MaxPortfolioQuotes {
		return PortfolioResult{}, venue.Conflict("the portfolio request for quote has had %d quotes, the most it keeps", venue.MaxPortfolioQuotes)
	}
	if err := st.checkTrading(p.ParticipantID); err != nil {
		return PortfolioResult{}, err
	}
	q.Lines = make([]venue.PortfolioQuoteLine, len(r.Lines))
	net := udecimal.Zero
	for i, l := range r.Lines {
		price, ok := prices[l.LineID]
		if !ok {
			return PortfolioResult{}, venue.InvalidField(lineField(i, "price_per_unit"), "line "+l.LineID+" has no price: a quote prices every line")
		}
		o := st.lineOffer(r, l, p.ParticipantID, q.AccountID, q.UserID, opposite(l.Direction), price)
		if err := st.checkOpen(r.MarketID, l.InstrumentID); err != nil {
			return PortfolioResult{}, lineError(i, l.LineID, err)
		}
		if err := st.checkCollar(o, price); err != nil {
			return PortfolioResult{}, lineError(i, l.LineID, err)
		}
		if err := st.checkRisk(o, price, l.Quantity, udecimal.Zero); err != nil {
			return PortfolioResult{}, lineError(i, l.LineID, err)
		}
		acc := st.accrued(l.InstrumentID, r.SettlementDate, l.Quantity)
		amount := bondmath.SettlementAmount(l.Quantity, price, udecimal.Zero).RoundHAZ(centDigits).Add(acc)
		q.Lines[i] = venue.PortfolioQuoteLine{LineID: l.LineID, PricePerUnit: price, AccruedInterest: acc, SettlementAmount: amount}
		if l.Direction == venue.Ask { // the requester sells: it receives the amount
			net = net.Add(amount)
		} else {
			net = net.Sub(amount)
		}
	}
	if prev := r.LiveQuote(p.ParticipantID); prev != nil {
		prev.Status, prev.Outcome, prev.UpdatedAt = venue.StatusCancelled, venue.OutcomeWithdrawn, st.now
	}
	q.ParticipantID, q.NetProceeds = p.ParticipantID, net
	q.Status, q.Outcome, q.HasCover = venue.StatusCreated, "", false
	q.CreatedAt, q.UpdatedAt = st.now, st.now
	r.Quotes = append(r.Quotes, q)
	if q.ValidUntil != nil {
		heap.Push(&st.expiries, expiry{at: *q.ValidUntil, id: r.ID})
	}
	st.emitPortfolio(b, r, "update")
	return PortfolioResult{Portfolio: clonePortfolio(r)}, nil
}

// DeclinePortfolio is an invited dealer saying no: its live quote, if
// any, is withdrawn and rec (its id, account and user set by the use
// case) is kept as a decline. When every dealer has declined, the list is
// rejected.
func (st *State) DeclinePortfolio(b *Batch, p venue.Principal, id string, rec venue.PortfolioQuote) (PortfolioResult, error) {
	r, err := st.openPortfolio(id, p.ParticipantID, false)
	if err != nil {
		return PortfolioResult{}, err
	}
	if r.Declined(p.ParticipantID) {
		return PortfolioResult{}, venue.Conflict("already declined")
	}
	if len(r.Quotes) >= venue.MaxPortfolioQuotes {
		return PortfolioResult{}, venue.Conflict("the portfolio request for quote has had %d quotes, the most it keeps", venue.MaxPortfolioQuotes)
	}
	if prev := r.LiveQuote(p.ParticipantID); prev != nil {
		prev.Status, prev.Outcome, prev.UpdatedAt = venue.StatusCancelled, venue.OutcomeWithdrawn, st.now
	}
	rec.ParticipantID, rec.Lines, rec.NetProceeds, rec.ValidUntil = p.ParticipantID, nil, udecimal.Zero, nil
	rec.Status, rec.Outcome, rec.CreatedAt, rec.UpdatedAt = venue.StatusCancelled, venue.OutcomeDeclined, st.now, st.now
	r.Quotes = append(r.Quotes, rec)
	all := true
	for _, c := range r.Counterparties {
		all = all && r.Declined(c)
	}
	if all {
		st.endPortfolio(b, r, venue.StatusRejected, venue.OutcomeDeclined)
	} else {
		st.emitPortfolio(b, r, "update")
	}
	return PortfolioResult{Portfolio: clonePortfolio(r)}, nil
}

// PassPortfolioQuote is the requester rejecting one live quote (its
// outcome passed); the list stays open.
func (st *State) PassPortfolioQuote(b *Batch, p venue.Principal, id, quoteID string) (PortfolioResult, error) {
	r, q, err := st.liveQuote(p, id, quoteID)
	if err != nil {
		return PortfolioResult{}, err
	}
	q.Status, q.Outcome, q.UpdatedAt = venue.StatusRejected, venue.OutcomePassed, st.now
	st.emitPortfolio(b, r, "update")
	return PortfolioResult{Portfolio: clonePortfolio(r)}, nil
}

// CancelPortfolio is the requester withdrawing its list; live quotes are
// rejected with the outcome cancelled.
func (st *State) CancelPortfolio(b *Batch, p venue.Principal, id string) (PortfolioResult, error) {
	r, err := st.openPortfolio(id, p.ParticipantID, true)
	if err != nil {
		return PortfolioResult{}, err
	}
	st.endPortfolio(b, r, venue.StatusCancelled, venue.OutcomeCancelled)
	return PortfolioResult{Portfolio: clonePortfolio(r)}, nil
}

// endPortfolio ends an open list with status, its live quotes with
// outcome (rejected, or expired when the list expired).
func (st *State) endPortfolio(b *Batch, r *venue.PortfolioRFQ, status, outcome string) {
	qs := venue.StatusRejected
	if status == venue.StatusExpired {
		qs = venue.StatusExpired
	}
	for i := range r.Quotes {
		if q := &r.Quotes[i]; q.Status == venue.StatusCreated {
			q.Status, q.Outcome, q.UpdatedAt = qs, outcome, st.now
		}
	}
	r.Status = status
	st.emitPortfolio(b, r, "delete")
	delete(st.portfolios, r.ID)
}

// expirePortfolio ends a list whose deadline has passed, or the live
// quotes on it whose own deadline has.
func (st *State) expirePortfolio(b *Batch, r *venue.PortfolioRFQ) {
	if !r.ValidUntil.After(st.now) {
		st.endPortfolio(b, r, venue.StatusExpired, venue.OutcomeExpired)
		return
	}
	changed := false
	for i := range r.Quotes {
		if q := &r.Quotes[i]; q.Status == venue.StatusCreated && q.ValidUntil != nil && !q.ValidUntil.After(st.now) {
			q.Status, q.Outcome, q.UpdatedAt = venue.StatusExpired, venue.OutcomeExpired, st.now
			changed = true
		}
	}
	if changed {
		st.emitPortfolio(b, r, "update")
	}
}

// betterNet reports whether quote q beats than for the requester: more
// net proceeds, then the earlier.
func betterNet(q, than *venue.PortfolioQuote) bool {
	if c := q.NetProceeds.Cmp(than.NetProceeds); c != 0 {
		return c > 0
	}
	return q.CreatedAt.Before(than.CreatedAt)
}

// AcceptPortfolioQuote is the requester taking one live quote: every line
// trades with its dealer in this batch, or, when one line breaks a
// control (a kill switch, a halt, the collar, a per-record limit of
// either firm), none does and the refusal names the line.
func (st *State) AcceptPortfolioQuote(b *Batch, p venue.Principal, id string, a Accept) (PortfolioResult, error) {
	res, err := st.acceptPortfolioQuote(b, p, id, a)
	if err != nil {
		if r, q, lerr := st.liveQuote(p, id, a.QuoteID); lerr == nil {
			for i, l := range r.Lines {
				acc := st.lineOffer(r, l, r.ParticipantID, r.AccountID, p.UserID, l.Direction, q.Lines[i].PricePerUnit)
				acc.ID, acc.Type, acc.Status, acc.CreatedAt, acc.Parties = newID(), typeAccept, venue.StatusCreated, st.now, a.Parties
				st.rejected(b, acc, err)
			}
		}
	}
	return res, err
}

func (st *State) acceptPortfolioQuote(b *Batch, p venue.Principal, id string, a Accept) (PortfolioResult, error) {
	r, q, err := st.liveQuote(p, id, a.QuoteID)
	if err != nil {
		return PortfolioResult{}, err
	}
	if q.ValidUntil != nil && !q.ValidUntil.After(st.now) {
		return PortfolioResult{}, venue.Conflict("the quote expired at %s", q.ValidUntil.UTC().Format(venue.TimestampLayout))
	}
	if !st.eligible(r.ParticipantID, q.ParticipantID) {
		return PortfolioResult{}, errNotCounterparties
	}
	if err := st.settlesAccounts(r.ParticipantID, r.AccountID, q.ParticipantID, q.AccountID); err != nil {
		return PortfolioResult{}, err
	}
	if err := st.checkTrading(r.ParticipantID); err != nil {
		return PortfolioResult{}, err
	}
	if err := st.checkTrading(q.ParticipantID); err != nil {
		return PortfolioResult{}, venue.Conflict("the dealer's trading is suspended (kill switch)")
	}
	type side struct{ req, dealer *venue.Offer }
	sides := make([]side, len(r.Lines))
	for i, l := range r.Lines {
		ql := q.Lines[i]
		req := st.lineOffer(r, l, r.ParticipantID, r.AccountID, r.UserID, l.Direction, ql.PricePerUnit)
		req.Parties = r.Parties
		dealer := st.lineOffer(r, l, q.ParticipantID, q.AccountID, q.UserID, opposite(l.Direction), ql.PricePerUnit)
		dealer.Parties = q.Parties
		if err := st.checkOpen(r.MarketID, l.InstrumentID); err != nil {
			return PortfolioResult{}, lineError(i, l.LineID, err)
		}
		if err := st.checkCollar(req, ql.PricePerUnit); err != nil {
			return PortfolioResult{}, lineError(i, l.LineID, err)
		}
		if err := st.checkRisk(req, ql.PricePerUnit, l.Quantity, udecimal.Zero); err != nil {
			return PortfolioResult{}, lineError(i, l.LineID, err)
		}
		if err := st.checkRisk(dealer, ql.PricePerUnit, l.Quantity, udecimal.Zero); err != nil {
			return PortfolioResult{}, lineError(i, l.LineID, venue.Conflict("the dealer's risk limits do not allow this line"))
		}
		sides[i] = side{req, dealer}
	}
	// Everything checked: from here the command cannot fail.
	st.decidePortfolioOutcomes(r, q)
	trades := make([]venue.Trade, len(r.Lines))
	for i := range r.Lines {
		l, ql, s := &r.Lines[i], q.Lines[i], sides[i]
		for _, o := range []*venue.Offer{s.req, s.dealer} {
			o.ID = newID()
			st.prioritize(o)
			o.Filled, o.Status, o.AccruedInterest = l.Quantity, venue.StatusClosed, ql.AccruedInterest
			o.CreatedAt, o.UpdatedAt, o.ModifiedAt = st.now, st.now, st.now
			b.save(o)
		}
		acc := *s.req
		acc.Type, acc.Filled, acc.Status = typeAccept, udecimal.Zero, venue.StatusCreated
		if !a.Parties.IsZero() { // the accept's own identifiers, else the list's
			acc.Parties = a.Parties
		}
		st.record(b, &acc, records.New)
		if !a.Parties.IsZero() {
			s.req.Parties = a.Parties // its fill is the accept's
		}
		b.aggressor = s.req.ID
		b.fillAs(s.dealer, quoteLine(r, q, i))
		b.fillsAs[s.dealer.ID].Filled = l.Quantity
		ask, bid := s.req, s.dealer
		if l.Direction == venue.Bid {
			ask, bid = s.dealer, s.req
		}
		trades[i] = st.tradeIn(b, ask, bid, l.Quantity, ql.PricePerUnit, r.SettlementDate, venue.ExecutionOTC, r.ID)
		l.TradeID = trades[i].ID
	}
	r.Status = venue.StatusClosed
	st.emitPortfolio(b, r, "update")
	delete(st.portfolios, r.ID)
	return PortfolioResult{Portfolio: clonePortfolio(r), Trades: trades}, nil
}

// decidePortfolioOutcomes sets the outcome of every live quote on r when
// q is accepted, as decideOutcomes does for a single RFQ, by net
// proceeds: q done; a quote at the same net proceeds tied; otherwise the
// best other live quote the cover and the rest done away.
func (st *State) decidePortfolioOutcomes(r *venue.PortfolioRFQ, q *venue.PortfolioQuote) {
	var cover *venue.PortfolioQuote
	tied := false
	for i := range r.Quotes {
		o := &r.Quotes[i]
		if o == q || o.Status != venue.StatusCreated {
			continue
		}
		switch {
		case o.NetProceeds.Equal(q.NetProceeds):
			o.Outcome, tied = venue.OutcomeTied, true
		case cover == nil || betterNet(o, cover):
			cover = o
		}
	}
	q.Status, q.Outcome, q.UpdatedAt = venue.StatusClosed, venue.OutcomeDone, st.now
	switch {
	case tied:
		q.CoverNetProceeds, q.HasCover = q.NetProceeds, true
	case cover != nil:
		cover.Outcome = venue.OutcomeCover
		q.CoverNetProceeds, q.HasCover = cover.NetProceeds, true
	}
	for i := range r.Quotes {
		if o := &r.Quotes[i]; o != q && o.Status == venue.StatusCreated {
			if o.Outcome == "" {
				o.Outcome = venue.OutcomeDoneAway
			}
			o.Status, o.UpdatedAt = venue.StatusRejected, st.now
		}
	}
}

// emitPortfolio records the list's new state and its event: the requester
// owns it, the dealers asked read it (each only its own quotes).
func (st *State) emitPortfolio(b *Batch, r *venue.PortfolioRFQ, verb string) {
	r.UpdatedAt = st.now
	rec := clonePortfolio(r)
	b.savePortfolio(&rec)
	st.recordList(b, r)
	b.event(feed.Event{Type: "portfolio_rfq." + verb, Portfolio: &rec, Owner: r.ParticipantID, Audience: slices.Clone(r.Counterparties)})
}

// clonePortfolio is a copy of r that later changes to r do not reach (a
// quote's lines are never changed once quoted, so they are shared).
func clonePortfolio(r *venue.PortfolioRFQ) venue.PortfolioRFQ {
	out := *r
	out.Counterparties = slices.Clone(r.Counterparties)
	out.Lines = slices.Clone(r.Lines)
	out.Quotes = slices.Clone(r.Quotes)
	return out
}
