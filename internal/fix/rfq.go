package fix

import (
	"cmp"
	"context"
	"slices"
	"strings"
	"time"

	"github.com/quagmt/udecimal"
	"github.com/quickfixgo/quickfix"

	"github.com/bondvenue/bondvenue/internal/feed"
	"github.com/bondvenue/bondvenue/internal/trading"
	"github.com/bondvenue/bondvenue/internal/venue"
)

// The RFQ flow, in both directions between FIX and REST participants:
//
//	requester                     venue                       dealer
//	QuoteRequest R (131)     →    RFQ (REST: POST /rfqs)  →   QuoteRequest R (131 = RFQ id)
//	                              quote (REST: POST /offers) ← Quote S (117, 131)
//	Quote S (117 = quote id) ←
//	QuoteResponse AJ (694)   →    accept or reject the quote
//	ExecutionReport 8 F      ←    trade                   →   ExecutionReport 8 F
//	QuoteStatusReport AI on every change of a quote, to both sides.

const (
	tagQuoteID         quickfix.Tag = 117
	tagQuoteReqID      quickfix.Tag = 131
	tagBidPx           quickfix.Tag = 132
	tagOfferPx         quickfix.Tag = 133
	tagBidSize         quickfix.Tag = 134
	tagOfferSize       quickfix.Tag = 135
	tagValidUntilTime  quickfix.Tag = 62
	tagQuoteStatus     quickfix.Tag = 297
	tagQuoteRejReason  quickfix.Tag = 658
	tagQuoteRespID     quickfix.Tag = 693
	tagQuoteRespType   quickfix.Tag = 694
	tagQuoteType       quickfix.Tag = 537
	tagReportingLEI    quickfix.Tag = 36010
	tagCounterpartyLEI quickfix.Tag = 36011
	tagNoPartyIDs      quickfix.Tag = 453
	tagPartyID         quickfix.Tag = 448
	tagPartyIDSource   quickfix.Tag = 447
	tagPartyRole       quickfix.Tag = 452
)

// relatedSym is the NoRelatedSym group of RFQ messages, with every field a
// client may put in an entry (a field outside the template would end the
// group early).
func relatedSym() *quickfix.RepeatingGroup {
	tags := []quickfix.Tag{tagSymbol, 65, tagSecurityID, tagSecurityIDSrc, 460, 167, tagMaturityDate, tagCouponRate,
		tagCurrency, tagQuoteType, tagSide, tagOrderQty, tagSettlDate, tagExpireTime, tagAccount, tagTransactTime,
		tagValidUntilTime, 423, 140, tagOrdType, tagPrice, 640, 1300, tagMarketID}
	tmpl := make(quickfix.GroupTemplate, len(tags), len(tags)+1)
	for i, t := range tags {
		tmpl[i] = quickfix.GroupElement(t)
	}
	// The entry's Parties: dealers asked, by LEI (447=N) with role 17, and
	// the request's client and decision makers (parties.go).
	tmpl = append(tmpl, partiesGroup())
	return quickfix.NewRepeatingGroup(tagNoRelatedSym, tmpl)
}

// quoteRequest is a FIX requester's QuoteRequest R: one RFQ per entry of
// 146, to the dealers named by LEI in 36011 (several separated by commas
// or spaces) or in the entry's Parties (453: 448 the LEI, 447=N, 452=17
// contra firm), or to every enabled counterparty when neither names one.
func (s *session) quoteRequest(ctx context.Context, msg *quickfix.Message) quickfix.MessageRejectError {
	reqID, _ := msg.Body.GetString(tagQuoteReqID)
	syms := relatedSym()
	if err := msg.Body.GetGroup(syms); err != nil || syms.Len() == 0 {
		s.g.send(s.id, s.quoteRequestReject(reqID, "99", "146 NoRelatedSym must name the instrument (55, 48 ISIN, 22=4)", ""))
		return nil
	}
	var counterparties []string
	if leis, err := msg.Body.GetString(tagCounterpartyLEI); err == nil {
		for _, lei := range strings.FieldsFunc(leis, func(r rune) bool { return r == ',' || r == ' ' }) {
			id, err := s.g.svc.ParticipantIDByLEI(ctx, lei)
			if err != nil {
				s.g.send(s.id, s.quoteRequestReject(reqID, "99", "36011 CounterpartyLEI "+lei+" names no participant", ""))
				return nil
			}
			counterparties = append(counterparties, id)
		}
	}
	if msg.Body.Has(tagListID) {
		s.portfolioRequest(ctx, msg, syms, reqID, counterparties)
		return nil
	}
	account, _ := msg.Body.GetString(tagAccount)
	market, _ := msg.Body.GetString(tagMarketID)
	for i := 0; i < syms.Len(); i++ {
		e := syms.Get(i)
		isin, _ := e.GetString(tagSecurityID)
		in, err := s.rfqInput(ctx, e, isin, market)
		if err == nil {
			if in.AccountID == "" {
				in.AccountID = account
			}
			in.Counterparties, in.ClientOrderID = counterparties, reqID
			var dealers []string
			if dealers, err = s.partyDealers(ctx, e); len(dealers) > 0 {
				in.Counterparties = append(slices.Clone(counterparties), dealers...)
			}
		}
		if err == nil {
			in.Parties, _, err = readParties(e, &msg.Body)
		}
		if err == nil {
			_, err = s.g.run(ctx, trading.Command{Op: trading.OpCreateRFQ, Principal: s.p, Offer: &in})
		}
		if err != nil {
			r, text := rejectOf(err)
			s.g.send(s.id, s.quoteRequestReject(reqID, r.QuoteRejectReason, text, isin))
		}
	}
	return nil
}

// partyDealers are the dealers an entry's Parties name: role 17 (contra
// firm), by LEI (447=N).
func (s *session) partyDealers(ctx context.Context, e *quickfix.Group) ([]string, error) {
	parties := partiesGroup()
	if !e.Has(tagNoPartyIDs) || e.GetGroup(parties) != nil {
		return nil, nil
	}
	var out []string
	for i := 0; i < parties.Len(); i++ {
		p := parties.Get(i)
		if role, _ := p.GetString(tagPartyRole); role != "17" {
			continue
		}
		lei, _ := p.GetString(tagPartyID)
		if src, _ := p.GetString(tagPartyIDSource); src != "N" {
			return nil, venue.InvalidField("447 PartyIDSource", "must be N (LEI) for a contra firm (452=17)")
		}
		id, err := s.g.svc.ParticipantIDByLEI(ctx, lei)
		if err != nil {
			return nil, venue.InvalidField("448 PartyID", "LEI "+lei+" names no participant")
		}
		out = append(out, id)
	}
	return out, nil
}

// rfqInput reads one instrument entry of a QuoteRequest; market is the
// request's top-level 1301, for an entry that names none.
func (s *session) rfqInput(ctx context.Context, e *quickfix.Group, isin, market string) (trading.OfferInput, error) {
	var in trading.OfferInput
	var v venue.Validator
	instr, err := s.g.svc.InstrumentByISIN(ctx, s.p, isin)
	if err != nil {
		return in, err
	}
	in.InstrumentID = instr.ID
	in.MarketID, _ = e.GetString(tagMarketID)
	if in.MarketID == "" {
		in.MarketID = market
	}
	if in.MarketID == "" {
		// The instrument's OTC market, where RFQs trade ("" when it has
		// none, or it could not be read: CreateRFQ refuses the RFQ).
		in.MarketID, _ = s.g.svc.DefaultMarket(ctx, s.p, instr.ID, venue.FacilityOTC)
	}
	in.AccountID, _ = e.GetString(tagAccount)
	switch side, _ := e.GetString(tagSide); side {
	case "1":
		in.Direction = venue.Bid
	case "2":
		in.Direction = venue.Ask
	default:
		v.Check(false, "54 Side", "must be 1 (buy) or 2 (sell)")
	}
	if q, err := e.GetString(tagOrderQty); err == nil {
		d, perr := udecimal.Parse(q)
		v.Check(perr == nil, "38 OrderQty", "must be a decimal number")
		in.Quantity = &d
	} else {
		v.Check(false, "38 OrderQty", "is required")
	}
	if t, err := e.GetTime(tagExpireTime); err == nil {
		in.Validity, in.ValidUntil = venue.GTD, &t
	}
	return in, v.Err()
}

func (s *session) quoteRequestReject(reqID, reason, text, isin string) *quickfix.Message {
	m := newMessage("AG")
	m.Body.SetString(tagQuoteReqID, reqID)
	m.Body.SetString(tagQuoteRejReason, reason)
	m.Body.SetString(tagText, text)
	g := relatedSym()
	e := g.Add()
	e.SetString(tagSymbol, "[N/A]")
	if isin != "" {
		e.SetString(tagSecurityID, isin)
		e.SetString(tagSecurityIDSrc, "4")
	}
	m.Body.SetGroup(g)
	return m
}

// onRFQ sends an invited dealer the QuoteRequest of a new RFQ.
func (s *session) onRFQ(e *feed.Event) {
	r := e.Offer
	if e.Type != "rfq.create" || r.ParticipantID == s.p.ParticipantID {
		return
	}
	m := newMessage("R")
	m.Body.SetString(tagQuoteReqID, r.ID)
	g := relatedSym()
	x := g.Add()
	x.SetString(tagSymbol, "[N/A]")
	x.SetString(tagSecurityID, s.isin(r.InstrumentID))
	x.SetString(tagSecurityIDSrc, "4")
	x.SetString(tagQuoteType, "1")
	if r.Direction == venue.Ask {
		x.SetString(tagSide, "2")
	} else {
		x.SetString(tagSide, "1")
	}
	x.SetString(tagOrderQty, r.Quantity.String())
	if !r.SettlementDate.IsZero() {
		x.SetString(tagSettlDate, fixDate(r.SettlementDate))
	}
	if r.ValidUntil != nil {
		x.SetString(tagExpireTime, r.ValidUntil.UTC().Format("20060102-15:04:05.000"))
	}
	x.SetString(tagMarketID, r.MarketID)
	m.Body.SetGroup(g)
	// A top-level field after the group: the engine resends a message
	// whose body ends in a group with a wrong length (upstream #761).
	if lei := s.lei(r.ParticipantID); lei != "" {
		m.Body.SetString(tagReportingLEI, lei)
	}
	m.Body.SetString(tagTransactTime, e.OccurredAt.UTC().Format("20060102-15:04:05.000"))
	s.emit(m)
}

// lei is a participant's LEI ("" when unknown).
func (s *session) lei(participantID string) string {
	p, err := s.g.svc.Participant(s.ctx, s.p, participantID)
	if err != nil {
		return ""
	}
	return p.LEI
}

// quote is a FIX dealer's Quote S on an RFQ (131 = the RFQ id it was
// sent): a firm price for the RFQ's quantity, 132 BidPx when the requester
// sells, 133 OfferPx when it buys.
func (s *session) quote(ctx context.Context, msg *quickfix.Message) quickfix.MessageRejectError {
	quoteID, _ := msg.Body.GetString(tagQuoteID)
	rfqID, _ := msg.Body.GetString(tagQuoteReqID)
	rfq, err := s.g.svc.RFQ(ctx, s.p, rfqID)
	if err == nil {
		var v venue.Validator
		in := trading.OfferInput{MatchedOfferID: rfq.ID, InstrumentID: rfq.InstrumentID, MarketID: rfq.MarketID,
			Quantity: &rfq.Quantity, ClientOrderID: quoteID, PriceField: "133 OfferPx"}
		in.AccountID, _ = msg.Body.GetString(tagAccount)
		in.Direction, in.PriceField = venue.Ask, "133 OfferPx"
		px := tagOfferPx
		if rfq.Direction == venue.Ask {
			in.Direction, in.PriceField, px = venue.Bid, "132 BidPx", tagBidPx
		}
		price, ok := decimalField(msg, px, &v, in.PriceField)
		v.Check(ok, in.PriceField, "is required: the price of the side the requester asks for")
		in.Price = price
		if t, err := msg.Body.GetTime(tagValidUntilTime); err == nil {
			in.Validity, in.ValidUntil = venue.GTD, &t
		}
		var perr error
		in.Parties, _, perr = readParties(&msg.Body, &msg.Body)
		if err = v.Merge(perr); err == nil {
			err = v.Err()
		}
		if err == nil {
			_, err = s.g.run(ctx, trading.Command{Op: trading.OpCreateOffer, Principal: s.p, Offer: &in})
		}
	}
	if err != nil {
		_, text := rejectOf(err)
		m := newMessage("AI")
		m.Body.SetString(tagQuoteID, quoteID)
		m.Body.SetString(tagQuoteReqID, rfqID)
		m.Body.SetString(tagQuoteStatus, "5")
		m.Body.SetString(tagText, text)
		s.g.send(s.id, m)
	}
	return nil
}

// declineRFQ is a FIX dealer's QuoteRequestReject AG: it declines the RFQ.
func (s *session) declineRFQ(ctx context.Context, msg *quickfix.Message) quickfix.MessageRejectError {
	rfqID, _ := msg.Body.GetString(tagQuoteReqID)
	if _, err := s.g.run(ctx, trading.Command{Op: trading.OpDeclineRFQ, Principal: s.p, ID: rfqID}); err != nil {
		_, text := rejectOf(err)
		s.g.send(s.id, businessReject(msg, "0", text, rfqID))
	}
	return nil
}

// quoteResponse is a FIX requester's QuoteResponse AJ: 694=1 hits or lifts
// the quote (a trade), 6 passes (the quote is rejected). The execution
// report of a hit's trade carries the AJ's own ClOrdID (11).
func (s *session) quoteResponse(ctx context.Context, msg *quickfix.Message) quickfix.MessageRejectError {
	quoteID, _ := msg.Body.GetString(tagQuoteID)
	var err error
	switch t, _ := msg.Body.GetString(tagQuoteRespType); t {
	case "1":
		clOrdID, _ := msg.Body.GetString(tagClOrdID)
		var parties venue.Parties
		if parties, _, err = readParties(&msg.Body, &msg.Body); err != nil {
			break
		}
		var list bool
		if list, err = s.acceptPortfolioQuote(ctx, quoteID, clOrdID, parties); list || err != nil {
			break
		}
		if clOrdID != "" {
			s.g.rememberHit(s.p.ParticipantID, quoteID, clOrdID)
		}
		_, err = s.g.run(ctx, trading.Command{Op: trading.OpAcceptQuote, Principal: s.p, ID: quoteID, Parties: &parties})
	case "6":
		_, err = s.g.run(ctx, trading.Command{Op: trading.OpCancelOrder, Principal: s.p, ID: quoteID})
	default:
		err = venue.InvalidField("694 QuoteRespType", "must be 1 (hit/lift) or 6 (pass)")
	}
	if err != nil {
		_, text := rejectOf(err)
		m := newMessage("AI")
		m.Body.SetString(tagQuoteID, quoteID)
		if id, e := msg.Body.GetString(tagQuoteRespID); e == nil {
			m.Body.SetString(tagQuoteRespID, id)
		}
		m.Body.SetString(tagQuoteStatus, "5")
		m.Body.SetString(tagText, text)
		s.g.send(s.id, m)
	}
	return nil
}

// onQuote tells the requester of a new quote (Quote S) and both sides of
// every change of it (QuoteStatusReport AI).
func (s *session) onQuote(e *feed.Event) {
	q := e.Offer
	if q.Outcome == venue.OutcomeDeclined {
		return // a decline's record: FIX says it with the dealer's QuoteRequestReject AG
	}
	mine := q.ParticipantID == s.p.ParticipantID
	if e.Type == "quote.create" && !mine {
		m := newMessage("S")
		m.Body.SetString(tagQuoteID, q.ID)
		m.Body.SetString(tagQuoteReqID, s.rfqClientID(q.MatchedOfferID))
		m.Body.SetString(tagQuoteType, "1")
		m.Body.SetString(tagSymbol, "[N/A]")
		m.Body.SetString(tagSecurityID, s.isin(q.InstrumentID))
		m.Body.SetString(tagSecurityIDSrc, "4")
		if q.Direction == venue.Bid {
			m.Body.SetString(tagBidPx, q.Price.String())
			m.Body.SetString(tagBidSize, q.Quantity.String())
		} else {
			m.Body.SetString(tagOfferPx, q.Price.String())
			m.Body.SetString(tagOfferSize, q.Quantity.String())
		}
		if q.ValidUntil != nil {
			m.Body.SetString(tagValidUntilTime, q.ValidUntil.UTC().Format("20060102-15:04:05.000"))
		}
		if !q.SettlementDate.IsZero() {
			m.Body.SetString(tagSettlDate, fixDate(q.SettlementDate))
		}
		m.Body.SetString(tagMarketID, q.MarketID)
		m.Body.SetString(tagTransactTime, e.OccurredAt.UTC().Format("20060102-15:04:05.000"))
		s.emit(m)
		return
	}
	m := newMessage("AI")
	if mine && q.ClientOrderID != "" {
		m.Body.SetString(tagQuoteID, q.ClientOrderID)
	} else {
		m.Body.SetString(tagQuoteID, q.ID)
	}
	if mine {
		m.Body.SetString(tagQuoteReqID, q.MatchedOfferID)
	} else {
		m.Body.SetString(tagQuoteReqID, s.rfqClientID(q.MatchedOfferID))
	}
	m.Body.SetString(tagQuoteStatus, quoteStatus(q.Status, q.Outcome))
	if q.Outcome != "" {
		m.Body.SetString(tagText, q.Outcome) // the quote's outcome, as REST and the stream name it
	}
	m.Body.SetString(tagTransactTime, e.OccurredAt.UTC().Format("20060102-15:04:05.000"))
	s.emit(m)
	if mine {
		s.lostQuote(e, q)
	}
}

// lostQuote tells a losing dealer how its quote lost (lostMessage). It
// names no price but the dealer's own.
func (s *session) lostQuote(e *feed.Event, q *venue.Offer) {
	m := lostMessage(e, q.ID, q.Outcome, cmp.Or(q.ClientOrderID, q.ID), q.MatchedOfferID)
	if m == nil {
		return
	}
	m.Body.SetString(tagSymbol, "[N/A]")
	m.Body.SetString(tagSecurityID, s.isin(q.InstrumentID))
	m.Body.SetString(tagSecurityIDSrc, "4")
	s.emit(m)
}

// lostMessage is the QuoteResponse AJ that tells a losing dealer how its
// quote id (quoteID as its client names it) on request reqID lost: 694 =
// 4 cover, 5 done away (58 = tied when it was at the done price or net
// proceeds); nil for an outcome that is no loss.
func lostMessage(e *feed.Event, id, outcome, quoteID, reqID string) *quickfix.Message {
	var respType string
	switch outcome {
	case venue.OutcomeCover:
		respType = "4"
	case venue.OutcomeDoneAway, venue.OutcomeTied:
		respType = "5"
	default:
		return nil
	}
	m := newMessage("AJ")
	m.Body.SetString(tagQuoteRespID, id+"-"+outcome)
	m.Body.SetString(tagQuoteRespType, respType)
	m.Body.SetString(tagQuoteID, quoteID)
	m.Body.SetString(tagQuoteReqID, reqID)
	if outcome == venue.OutcomeTied {
		m.Body.SetString(tagText, venue.OutcomeTied)
	}
	m.Body.SetString(tagTransactTime, e.OccurredAt.UTC().Format("20060102-15:04:05.000"))
	return m
}

// rfqClientID is the requester's QuoteReqID of its RFQ (the RFQ id when it
// came over REST).
func (s *session) rfqClientID(rfqID string) string {
	ctx, cancel := context.WithTimeout(s.ctx, 10*time.Second)
	defer cancel()
	r, err := s.g.svc.RFQ(ctx, s.p, rfqID)
	if err != nil || r.ClientOrderID == "" {
		return rfqID
	}
	return r.ClientOrderID
}

// hitKey names a quote a firm hit.
type hitKey struct{ participantID, quoteID string }

// hit is the ClOrdID a firm's QuoteResponse gave its hit of a quote.
type hit struct {
	clOrdID string
	at      time.Time
}

// hitTTL is how long a hit's ClOrdID is kept: the trade's report follows
// the hit at once, unless the quote was gone.
const hitTTL = time.Hour

// rememberHit keeps the ClOrdID of a firm's hit of a quote, before the hit
// runs, for the report of the trade it makes: the trade's order on the
// requester's side is the RFQ, whose own ClOrdID is the QuoteReqID (131),
// while a client matches a fill by the ClOrdID of the message it sent.
// It is kept in the gateway of the session that sent the hit, which is
// the one that reports the trade.
func (g *Gateway) rememberHit(participantID, quoteID, clOrdID string) {
	now := g.now()
	g.hitsMu.Lock()
	defer g.hitsMu.Unlock()
	for k, h := range g.hits {
		if now.Sub(h.at) > hitTTL {
			delete(g.hits, k)
		}
	}
	g.hits[hitKey{participantID, quoteID}] = hit{clOrdID: clOrdID, at: now}
}

// hitClOrdID returns the ClOrdID of a firm's hit of a quote, if it sent
// one.
func (g *Gateway) hitClOrdID(participantID, quoteID string) (string, bool) {
	g.hitsMu.Lock()
	defer g.hitsMu.Unlock()
	h, ok := g.hits[hitKey{participantID, quoteID}]
	return h.clOrdID, ok
}
