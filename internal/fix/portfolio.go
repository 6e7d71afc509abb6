package fix

import (
	"cmp"
	"context"
	"slices"
	"strconv"
	"time"

	"github.com/quagmt/udecimal"
	"github.com/quickfixgo/quickfix"

	"github.com/bondvenue/bondvenue/internal/bondmath"
	"github.com/bondvenue/bondvenue/internal/feed"
	"github.com/bondvenue/bondvenue/internal/trading"
	"github.com/bondvenue/bondvenue/internal/venue"
)

// Portfolio (list) RFQs over FIX
// (docs/fix-rules-of-engagement.md, "Portfolio RFQs"):
//
//	requester                         venue                          dealer
//	QuoteRequest R (66, 146 = N)  →   list (REST: POST /portfolio-rfq) →  QuoteRequest R (131 = 66 = list id, 146 = N)
//	                                  quote                          ←  MassQuote i (117, 131, one QuoteSet, 299 = line id)
//	                                                                 →  MassQuoteAcknowledgement b (297)
//	MassQuote i (117 = quote id)  ←
//	QuoteResponse AJ (694 = 1)    →   every line trades in one batch
//	ExecutionReport 8 F per line  ←                                  →  ExecutionReport 8 F per line
//
// The lines of a list are its 146 entries in order, line ids "1" to "N".

const (
	tagListID            quickfix.Tag = 66
	tagNoQuoteSets       quickfix.Tag = 296
	tagQuoteSetID        quickfix.Tag = 302
	tagTotNoQuoteEntries quickfix.Tag = 304
	tagNoQuoteEntries    quickfix.Tag = 295
	tagQuoteEntryID      quickfix.Tag = 299
)

// quoteEntryTemplate is an entry of a quote set (QuotEntryGrp), with the
// fields a client may send.
func quoteEntryTemplate() quickfix.GroupTemplate {
	return quickfix.GroupTemplate{quickfix.GroupElement(tagQuoteEntryID), quickfix.GroupElement(tagSymbol),
		quickfix.GroupElement(tagSecurityID), quickfix.GroupElement(tagSecurityIDSrc), quickfix.GroupElement(tagBidPx),
		quickfix.GroupElement(tagOfferPx), quickfix.GroupElement(tagBidSize), quickfix.GroupElement(tagOfferSize),
		quickfix.GroupElement(tagValidUntilTime), quickfix.GroupElement(tagTransactTime), quickfix.GroupElement(tagSettlDate),
		quickfix.GroupElement(tagCurrency), quickfix.GroupElement(tagOrderCapacity)}
}

// quoteSets is the QuotSetGrp of a MassQuote.
func quoteSets() *quickfix.RepeatingGroup {
	return quickfix.NewRepeatingGroup(tagNoQuoteSets, quickfix.GroupTemplate{quickfix.GroupElement(tagQuoteSetID),
		quickfix.GroupElement(367), quickfix.GroupElement(tagTotNoQuoteEntries), quickfix.GroupElement(tagLastFragment),
		quickfix.NewRepeatingGroup(tagNoQuoteEntries, quoteEntryTemplate())})
}

// portfolioRequest is a FIX requester's QuoteRequest R with 66 ListID:
// one list over all its 146 entries, to the dealers named as for an RFQ.
func (s *session) portfolioRequest(ctx context.Context, msg *quickfix.Message, syms *quickfix.RepeatingGroup, reqID string,
	counterparties []string) {
	in := trading.PortfolioInput{ClientID: reqID, Counterparties: counterparties}
	in.AccountID, _ = msg.Body.GetString(tagAccount)
	in.MarketID, _ = msg.Body.GetString(tagMarketID)
	var err error
	for i := 0; i < syms.Len() && err == nil; i++ {
		e := syms.Get(i)
		isin, _ := e.GetString(tagSecurityID)
		var line trading.OfferInput
		if line, err = s.rfqInput(ctx, e, isin, in.MarketID); err != nil {
			break
		}
		if in.MarketID == "" {
			in.MarketID = line.MarketID
		}
		if in.AccountID == "" {
			in.AccountID = line.AccountID
		}
		if in.ValidUntil == nil {
			in.ValidUntil = line.ValidUntil
		}
		if d, e2 := e.GetString(tagSettlDate); e2 == nil && in.SettlementDate == nil {
			if date, perr := parseFIXDate(d); perr == nil {
				in.SettlementDate = &date
			} else {
				err = venue.InvalidField("64 SettlDate", "must be a date YYYYMMDD")
			}
		}
		var dealers []string
		if dealers, err = s.partyDealers(ctx, e); len(dealers) > 0 {
			for _, d := range dealers {
				if !slices.Contains(in.Counterparties, d) {
					in.Counterparties = append(in.Counterparties, d)
				}
			}
		}
		in.Lines = append(in.Lines, trading.PortfolioLineInput{InstrumentID: line.InstrumentID, Direction: line.Direction,
			Quantity: line.Quantity})
	}
	if err == nil {
		in.Parties, err = listParties(msg, syms)
	}
	if err == nil {
		_, err = s.g.run(ctx, trading.Command{Op: trading.OpCreatePortfolio, Principal: s.p, Portfolio: &in})
	}
	if err != nil {
		r, text := rejectOf(err)
		s.g.send(s.id, s.quoteRequestReject(reqID, r.QuoteRejectReason, text, ""))
	}
}

// massQuote is a FIX dealer's MassQuote i on a list (131 = the list id it
// was sent): one QuoteSet, an entry per line (299 = line id) with its
// price on the side the requester asks for (133 OfferPx where the
// requester buys, 132 BidPx where it sells; either is read). The venue
// answers MassQuoteAcknowledgement b: 297 = 0 taken, 5 refused with 58.
func (s *session) massQuote(ctx context.Context, msg *quickfix.Message) quickfix.MessageRejectError {
	quoteID, _ := msg.Body.GetString(tagQuoteID)
	listID, _ := msg.Body.GetString(tagQuoteReqID)
	in := trading.PortfolioQuoteInput{ClientID: quoteID}
	in.AccountID, _ = msg.Body.GetString(tagAccount)
	sets := quoteSets()
	var v venue.Validator
	if err := msg.Body.GetGroup(sets); err != nil || sets.Len() != 1 {
		v.Addf("296 NoQuoteSets", "must hold one quote set: the list's lines")
	} else {
		set := sets.Get(0)
		if id, _ := set.GetString(tagQuoteSetID); listID == "" {
			listID = id
		}
		for _, e := range quoteEntries(set) {
			line := trading.PortfolioQuoteLineInput{}
			line.LineID, _ = e.GetString(tagQuoteEntryID)
			px := ""
			if p, err := e.GetString(tagOfferPx); err == nil {
				px = p
			} else if p, err := e.GetString(tagBidPx); err == nil {
				px = p
			}
			if d, err := udecimal.Parse(px); err == nil {
				line.Price = &d
			} else {
				v.Addf("299 QuoteEntryID "+line.LineID, "needs its price: 133 OfferPx or 132 BidPx, a decimal number")
			}
			if t, err := e.GetTime(tagValidUntilTime); err == nil && in.ValidUntil == nil {
				in.ValidUntil = &t
			}
			in.Lines = append(in.Lines, line)
		}
	}
	err := v.Err()
	if err == nil {
		in.Parties, err = massQuoteParties(msg, sets)
	}
	if err == nil {
		_, err = s.g.run(ctx, trading.Command{Op: trading.OpQuotePortfolio, Principal: s.p, ID: listID, PortfolioQuote: &in})
	}
	m := newMessage("b")
	m.Body.SetString(tagQuoteReqID, listID)
	m.Body.SetString(tagQuoteID, quoteID)
	if err != nil {
		_, text := rejectOf(err)
		m.Body.SetString(tagQuoteStatus, "5")
		m.Body.SetString(tagText, text)
	} else {
		m.Body.SetString(tagQuoteStatus, "0")
	}
	s.g.send(s.id, m)
	return nil
}

// listParties are a list's parties (parties.go): the Parties of its
// entries, which the entries that name any must name alike (a list has
// one client and one set of decision makers), and 528 OrderCapacity at the
// top level.
func listParties(msg *quickfix.Message, syms *quickfix.RepeatingGroup) (venue.Parties, error) {
	var out venue.Parties
	seen := false
	for i := 0; i < syms.Len(); i++ {
		p, given, err := readParties(syms.Get(i), nil)
		switch {
		case err != nil:
			return out, err
		case !given:
		case seen && p != out:
			return out, venue.InvalidField("453 NoPartyIDs",
				"the entries of a list name different parties: a list has one client and one set of decision makers")
		default:
			out, seen = p, true
		}
	}
	c, _, err := readParties(nil, &msg.Body)
	out.Capacity = c.Capacity
	return out, err
}

// massQuoteParties are a MassQuote's parties (parties.go): its Parties,
// and 528 OrderCapacity of its quote entries, which the entries that give
// it must give alike.
func massQuoteParties(msg *quickfix.Message, sets *quickfix.RepeatingGroup) (venue.Parties, error) {
	out, _, err := readParties(&msg.Body, nil)
	if err != nil {
		return out, err
	}
	seen := false
	for _, e := range quoteEntries(sets.Get(0)) {
		c, given, err := readParties(nil, e)
		switch {
		case err != nil:
			return out, err
		case given && seen && c.Capacity != out.Capacity:
			return out, venue.InvalidField("528 OrderCapacity", "must be the same in every quote entry: a quote has one capacity")
		case given:
			out.Capacity, seen = c.Capacity, true
		}
	}
	return out, nil
}

// quoteEntries are the entries of a quote set.
func quoteEntries(set *quickfix.Group) []*quickfix.Group {
	inner := quickfix.NewRepeatingGroup(tagNoQuoteEntries, quoteEntryTemplate())
	if set.GetGroup(inner) != nil {
		return nil
	}
	out := make([]*quickfix.Group, inner.Len())
	for i := range out {
		out[i] = inner.Get(i)
	}
	return out
}

// parseFIXDate reads a LocalMktDate (YYYYMMDD).
func parseFIXDate(s string) (bondmath.Date, error) {
	t, err := time.Parse("20060102", s)
	if err != nil {
		return bondmath.Date{}, err
	}
	return bondmath.DateOf(t), nil
}

// onPortfolio turns a portfolio_rfq event into the messages of this
// session's firm: to an invited dealer the QuoteRequest of a new list; to
// the requester a MassQuote per quote the event brought; to a dealer the
// QuoteStatusReport of each of its quotes the event ended.
func (s *session) onPortfolio(e *feed.Event) {
	r := e.Portfolio
	if r.ParticipantID == s.p.ParticipantID {
		for _, q := range r.Quotes {
			if q.CreatedAt.Equal(r.UpdatedAt) && q.Status == venue.StatusCreated {
				s.emit(s.portfolioQuoteMessage(e, r, q))
			}
		}
		return
	}
	if e.Type == "portfolio_rfq.create" {
		s.emit(s.portfolioRequestMessage(e, r))
		return
	}
	for _, q := range r.Quotes { // the event shows this dealer its own quotes only
		if q.ParticipantID != s.p.ParticipantID || !q.UpdatedAt.Equal(r.UpdatedAt) || q.Outcome == venue.OutcomeDeclined {
			continue
		}
		m := newMessage("AI")
		m.Body.SetString(tagQuoteID, cmp.Or(q.ClientID, q.ID))
		m.Body.SetString(tagQuoteReqID, r.ID)
		m.Body.SetString(tagQuoteStatus, quoteStatus(q.Status, q.Outcome))
		if q.Outcome != "" {
			m.Body.SetString(tagText, q.Outcome)
		}
		m.Body.SetString(tagTransactTime, e.OccurredAt.UTC().Format("20060102-15:04:05.000"))
		s.emit(m)
		s.lostPortfolioQuote(e, r, q)
	}
}

// lostPortfolioQuote tells a losing dealer how its list quote lost, as
// lostQuote does for a single quote (58 = tied when its net proceeds
// equalled the done quote's).
func (s *session) lostPortfolioQuote(e *feed.Event, r *venue.PortfolioRFQ, q venue.PortfolioQuote) {
	if m := lostMessage(e, q.ID, q.Outcome, cmp.Or(q.ClientID, q.ID), r.ID); m != nil {
		s.emit(m)
	}
}

// quoteStatus is the 297 QuoteStatus of a quote's status and outcome.
func quoteStatus(status, outcome string) string {
	if outcome == venue.OutcomePassed {
		return "11" // pass
	}
	switch status {
	case venue.StatusClosed:
		return "0" // accepted: the trades follow
	case venue.StatusRejected:
		return "5"
	case venue.StatusExpired:
		return "7"
	case venue.StatusCancelled:
		return "17"
	}
	return "16" // active
}

// portfolioRequestMessage is the QuoteRequest R of a new list for an
// invited dealer: 131 and 66 the list id, an entry per line in order.
func (s *session) portfolioRequestMessage(e *feed.Event, r *venue.PortfolioRFQ) *quickfix.Message {
	m := newMessage("R")
	m.Body.SetString(tagQuoteReqID, r.ID)
	m.Body.SetString(tagListID, r.ID)
	g := relatedSym()
	for _, l := range r.Lines {
		x := g.Add()
		x.SetString(tagSymbol, "[N/A]")
		x.SetString(tagSecurityID, s.isin(l.InstrumentID))
		x.SetString(tagSecurityIDSrc, "4")
		x.SetString(tagQuoteType, "1")
		if l.Direction == venue.Ask {
			x.SetString(tagSide, "2")
		} else {
			x.SetString(tagSide, "1")
		}
		x.SetString(tagOrderQty, l.Quantity.String())
		x.SetString(tagSettlDate, fixDate(r.SettlementDate))
		x.SetString(tagExpireTime, r.ValidUntil.UTC().Format("20060102-15:04:05.000"))
		x.SetString(tagMarketID, r.MarketID)
	}
	m.Body.SetGroup(g)
	if lei := s.lei(r.ParticipantID); lei != "" {
		m.Body.SetString(tagReportingLEI, lei)
	}
	m.Body.SetString(tagTransactTime, e.OccurredAt.UTC().Format("20060102-15:04:05.000"))
	return m
}

// portfolioQuoteMessage is a dealer's quote on the requester's list as a
// MassQuote i: 117 the quote id (the one to accept with AJ), 131 the
// requester's QuoteReqID, one QuoteSet (302 the list id) with an entry per
// line (299 the line id): 133 OfferPx and 135 OfferSize where the
// requester buys, 132 BidPx and 134 BidSize where it sells.
func (s *session) portfolioQuoteMessage(e *feed.Event, r *venue.PortfolioRFQ, q venue.PortfolioQuote) *quickfix.Message {
	m := newMessage("i")
	m.Body.SetString(tagQuoteReqID, cmp.Or(r.ClientID, r.ID))
	m.Body.SetString(tagQuoteID, q.ID)
	m.Body.SetString(tagQuoteType, "1")
	sets := quoteSets()
	set := sets.Add()
	set.SetString(tagQuoteSetID, r.ID)
	set.SetString(tagTotNoQuoteEntries, strconv.Itoa(len(q.Lines)))
	entries := quickfix.NewRepeatingGroup(tagNoQuoteEntries, quoteEntryTemplate())
	for i, ql := range q.Lines {
		l := r.Lines[i]
		x := entries.Add()
		x.SetString(tagQuoteEntryID, ql.LineID)
		x.SetString(tagSymbol, "[N/A]")
		x.SetString(tagSecurityID, s.isin(l.InstrumentID))
		x.SetString(tagSecurityIDSrc, "4")
		if l.Direction == venue.Bid {
			x.SetString(tagOfferPx, ql.PricePerUnit.String())
			x.SetString(tagOfferSize, l.Quantity.String())
		} else {
			x.SetString(tagBidPx, ql.PricePerUnit.String())
			x.SetString(tagBidSize, l.Quantity.String())
		}
		if q.ValidUntil != nil {
			x.SetString(tagValidUntilTime, q.ValidUntil.UTC().Format("20060102-15:04:05.000"))
		}
		x.SetString(tagSettlDate, fixDate(r.SettlementDate))
	}
	set.SetGroup(entries)
	m.Body.SetGroup(sets)
	return m
}

// acceptPortfolioQuote is a requester's QuoteResponse AJ 694 = 1 naming a
// quote on one of its open lists; it reports whether the quote is one.
func (s *session) acceptPortfolioQuote(ctx context.Context, quoteID, clOrdID string, parties venue.Parties) (bool, error) {
	listID, err := s.g.svc.OpenPortfolioOfQuote(ctx, s.p, quoteID)
	if err != nil || listID == "" {
		return false, err
	}
	if clOrdID != "" {
		s.g.rememberHit(s.p.ParticipantID, listID, clOrdID)
	}
	_, err = s.g.run(ctx, trading.Command{Op: trading.OpAcceptPortfolioQuote, Principal: s.p, ID: listID, QuoteID: quoteID,
		Parties: &parties})
	return true, err
}
