package fix

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/quagmt/udecimal"
	"github.com/quickfixgo/quickfix"

	"github.com/bondvenue/bondvenue/internal/bondmath"
	"github.com/bondvenue/bondvenue/internal/cluster"
	"github.com/bondvenue/bondvenue/internal/feed"
	"github.com/bondvenue/bondvenue/internal/idempotency"
	"github.com/bondvenue/bondvenue/internal/sequencer"
	"github.com/bondvenue/bondvenue/internal/trading"
	"github.com/bondvenue/bondvenue/internal/venue"
)

// Orders: NewOrderSingle D, OrderCancelRequest F, OrderCancelReplaceRequest
// G and OrderStatusRequest H on the continuous books. The use cases are
// REST's; their execution reports come from the committed-event feed
// (session.go), so an order's reports are the same whichever channel
// changed it. What is answered here is what never reaches the feed: a
// rejected request.

// claimClOrdID claims a ClOrdID for the firm for today through the
// idempotency mechanism REST's Idempotency-Key uses: a repeat is refused,
// never applied twice. The caller ends the claim with finish.
func (s *session) claimClOrdID(ctx context.Context, clOrdID string) (*idempotency.Claim, error) {
	firm := s.p
	firm.UserID = "fix-firm:" + s.p.ParticipantID
	key := "fix:" + s.g.now().Format(time.DateOnly) + ":" + clOrdID
	claim, answer, err := s.g.keys.ClaimFIX(ctx, firm, key)
	switch {
	case err != nil:
		var e *venue.Error
		if errors.As(err, &e) && e.Kind == venue.KindConflict {
			return nil, errDuplicate // a claim in flight: applied once
		}
		return nil, err
	case answer != nil && answer.Code == 200:
		return nil, &duplicate{orderID: string(answer.Body)}
	case answer != nil:
		return nil, errDuplicate
	case claim.Replayed():
		// Applied, its answer lost with the process that applied it: the
		// repeat is answered as if the answer were kept, which it now is.
		id := claim.OrderID()
		s.finish(claim, id, nil)
		return nil, &duplicate{orderID: id}
	}
	return claim, nil
}

// finish keeps the outcome of a claimed ClOrdID, as the one rule
// (idempotency.SettlementOf) settles a claim: applied, refused (the ClOrdID is used up either way),
// or released after a failure of the venue so that a retry runs. It does so off the session's path: the request's
// own transaction marked an applied claim already, so a repeat meanwhile is
// refused either way.
func (s *session) finish(claim *idempotency.Claim, offerID string, err error) {
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		a := idempotency.Answer{Code: 200, Body: []byte(offerID)}
		if err != nil {
			a = idempotency.Answer{Code: 400, Body: []byte(err.Error())}
		}
		_ = s.g.keys.Settle(ctx, claim, err, a)
	}()
}

// maxPipelined bounds the orders one session applies at once.
const maxPipelined = 64

// newOrder applies a NewOrderSingle. On the leader it is pipelined: the
// engine moves on to the session's next message once the order is read,
// and the order is claimed and applied on a goroutine of its own, handed
// to the sequencer only once the session's previous order is in its
// queue, so the orders of a session apply in the order sent while their
// commits overlap. Every other message waits for the session's orders in
// flight first (settle). start is the message's arrival: its latency is
// recorded once the venue has its answer.
func (s *session) newOrder(ctx context.Context, msg *quickfix.Message, start time.Time) quickfix.MessageRejectError {
	clOrdID, _ := msg.Body.GetString(tagClOrdID)
	in, err := s.orderInput(ctx, msg)
	if err != nil {
		s.g.send(s.id, s.rejectOrder(msg, err))
		s.g.answered(start)
		return nil
	}
	in.ClientOrderID = clOrdID
	seq, seqErr := msg.Header.GetInt(tagMsgSeqNum)
	st, stored := s.g.stores.Load(s.id.String())
	if s.g.cl.Role() != cluster.RoleLeader || seqErr != nil || !stored {
		s.applyOrder(ctx, msg, clOrdID, in, nil, nil)
		s.g.answered(start)
		return nil
	}
	own := quickfix.NewMessage()
	msg.CopyInto(own)
	store := st.(*messageStore)
	store.beginApplying(seq)
	s.pipe.slots <- struct{}{}
	prev, mine := s.pipe.last, make(chan struct{})
	s.pipe.last = mine
	s.pipe.wg.Add(1)
	go func() {
		defer func() {
			store.endApplying(seq)
			<-s.pipe.slots
			s.pipe.wg.Done()
		}()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		s.applyOrder(ctx, own, clOrdID, in, prev, mine)
		s.g.answered(start)
	}()
	return nil
}

// applyOrder claims the order's ClOrdID and creates the order, or refuses
// it. Pipelined, it hands the order to the sequencer once prev is closed
// and closes queued once the order is in the sequencer's queue (or will
// not be).
func (s *session) applyOrder(ctx context.Context, msg *quickfix.Message, clOrdID string, in trading.OfferInput, prev <-chan struct{}, queued chan struct{}) {
	var once sync.Once
	done := func() {
		if queued != nil {
			once.Do(func() { close(queued) })
		}
	}
	claim, err := s.claimClOrdID(ctx, clOrdID)
	if prev != nil {
		<-prev
	}
	if err == nil {
		var id string
		id, err = s.g.run(sequencer.WithEnqueued(ctx, done), trading.Command{Op: trading.OpCreateOffer, Principal: s.p, Claim: trading.RefOf(claim), Offer: &in})
		s.finish(claim, id, err)
	}
	done()
	if err != nil && !(errors.Is(err, errDuplicate) && possDup(msg)) {
		s.g.send(s.id, s.rejectOrder(msg, err))
	}
}

// pipeline is a session's orders in flight (newOrder).
type pipeline struct {
	// last is closed once the newest order is in the sequencer's queue,
	// or will not be.
	last  chan struct{}
	slots chan struct{}
	wg    sync.WaitGroup
}

func newPipeline() *pipeline {
	last := make(chan struct{})
	close(last)
	return &pipeline{last: last, slots: make(chan struct{}, maxPipelined)}
}

// settle waits until the session's orders in flight are applied: a
// message other than a new order (a cancel, a status request) sees them.
func (s *session) settle() { s.pipe.wg.Wait() }

// possDup reports a message sent again (43 PossDupFlag): one the venue
// applied already is ignored, not refused.
func possDup(msg *quickfix.Message) bool {
	dup, err := msg.Header.GetBool(tagPossDupFlag)
	return err == nil && dup
}

// rejectOrder is the ExecutionReport 150=8 refusing a NewOrderSingle.
func (s *session) rejectOrder(msg *quickfix.Message, err error) *quickfix.Message {
	r, text := rejectOf(err)
	m := newMessage("8")
	m.Body.SetString(tagOrderID, duplicateOrderID(err))
	m.Body.SetString(tagExecID, "R-"+newID())
	for _, t := range []quickfix.Tag{tagClOrdID, tagAccount, tagSecurityID, tagSecurityIDSrc, tagSide, tagOrderQty, tagOrdType, tagPrice} {
		if v, err := msg.Body.GetString(t); err == nil {
			m.Body.SetString(t, v)
		}
	}
	m.Body.SetString(tagExecType, "8")
	m.Body.SetString(tagOrdStatus, "8")
	m.Body.SetString(tagOrdRejReason, r.OrdRejReason)
	m.Body.SetString(tagCumQty, "0")
	m.Body.SetString(tagLeavesQty, "0")
	m.Body.SetString(tagAvgPx, "0")
	m.Body.SetString(tagText, text)
	m.Body.SetString(tagTransactTime, s.g.now().Format("20060102-15:04:05.000"))
	return m
}

// orderInput reads a NewOrderSingle.
func (s *session) orderInput(ctx context.Context, msg *quickfix.Message) (trading.OfferInput, error) {
	var in trading.OfferInput
	var v venue.Validator
	in.AccountID, _ = msg.Body.GetString(tagAccount)
	v.Check(in.AccountID != "", "1 Account", "is required: the account id")
	instrumentID, marketID, err := s.instrumentOf(ctx, msg)
	if err != nil {
		return in, err
	}
	in.InstrumentID, in.MarketID = instrumentID, marketID
	switch side, _ := msg.Body.GetString(tagSide); side {
	case "1":
		in.Direction = venue.Bid
	case "2":
		in.Direction = venue.Ask
	default:
		v.Check(false, "54 Side", "must be 1 (buy) or 2 (sell)")
	}
	qty, ok := decimalField(msg, tagOrderQty, &v, "38 OrderQty")
	v.Check(ok, "38 OrderQty", "is required")
	in.Quantity = qty
	ordType, _ := msg.Body.GetString(tagOrdType)
	tif, _ := msg.Body.GetString(tagTimeInForce)
	switch ordType {
	case "1":
		in.MarketOrder = true
		v.Check(tif == "" || tif == "3", "59 TimeInForce", "a market order is immediate or cancel (3)")
	case "2":
		price, ok := decimalField(msg, tagPrice, &v, "44 Price")
		v.Check(ok, "44 Price", "is required with OrdType 2")
		in.Price, in.PriceField = price, "44 Price"
		s.validity(msg, tif, &in.Validity, &in.ValidUntil, &v)
	default:
		v.Check(false, "40 OrdType", "must be 1 (market) or 2 (limit)")
	}
	in.SettlementDate = dateField(msg, tagSettlDate, &v, "64 SettlDate")
	parties, _, err := readParties(&msg.Body, &msg.Body)
	if err := v.Merge(err); err != nil {
		return in, err
	}
	in.Parties = parties
	return in, v.Err()
}

// validity maps TimeInForce (and ExpireTime) to the venue's validity.
func (s *session) validity(msg *quickfix.Message, tif string, validity *string, until **time.Time, v *venue.Validator) {
	switch tif {
	case "", "1":
		*validity = venue.GTC
	case "0": // the day ends at the daily session reset
		end := s.g.dayEnd()
		*validity, *until = venue.GTD, &end
	case "6":
		t, err := msg.Body.GetTime(tagExpireTime)
		v.Check(err == nil, "126 ExpireTime", "is required with TimeInForce 6 (UTCTimestamp)")
		if err == nil {
			*validity, *until = venue.GTD, &t
		}
	case "3":
		v.Check(false, "59 TimeInForce", "immediate or cancel is a market order (40=1); a limit order rests (0, 1 or 6)")
	default:
		v.Check(false, "59 TimeInForce", "must be 0 (day), 1 (good till cancel), 3 (immediate or cancel) or 6 (good till date)")
	}
}

// dayEnd is the next daily reset.
func (g *Gateway) dayEnd() time.Time {
	now := g.now()
	at, _ := time.Parse(time.TimeOnly, g.cfg.ResetTime)
	end := time.Date(now.Year(), now.Month(), now.Day(), at.Hour(), at.Minute(), at.Second(), 0, time.UTC)
	if !end.After(now) {
		end = end.AddDate(0, 0, 1)
	}
	return end
}

// decimalField reads an exact decimal.
func decimalField(msg *quickfix.Message, t quickfix.Tag, v *venue.Validator, name string) (*udecimal.Decimal, bool) {
	s, err := msg.Body.GetString(t)
	if err != nil {
		return nil, false
	}
	d, perr := udecimal.Parse(s)
	v.Check(perr == nil, name, "must be a decimal number")
	if perr != nil {
		return nil, true
	}
	return &d, true
}

// dateField reads an optional LocalMktDate (YYYYMMDD).
func dateField(msg *quickfix.Message, t quickfix.Tag, v *venue.Validator, name string) *bondmath.Date {
	s, err := msg.Body.GetString(t)
	if err != nil {
		return nil
	}
	tm, perr := time.Parse("20060102", s)
	v.Check(perr == nil, name, "must be a date YYYYMMDD")
	if perr != nil {
		return nil
	}
	d := bondmath.DateOf(tm)
	return &d
}

// instrumentOf finds the instrument (48 ISIN with 22=4) and the market
// (1301, else the instrument's default market for an order:
// trading.Service.DefaultMarket).
func (s *session) instrumentOf(ctx context.Context, msg *quickfix.Message) (instrumentID, marketID string, err error) {
	isin, _ := msg.Body.GetString(tagSecurityID)
	src, _ := msg.Body.GetString(tagSecurityIDSrc)
	if isin == "" || src != "4" {
		return "", "", venue.InvalidField("48 SecurityID", "is required: the instrument's ISIN, with 22 SecurityIDSource 4")
	}
	in, err := s.g.svc.InstrumentByISIN(ctx, s.p, isin)
	if err != nil {
		return "", "", err
	}
	marketID, _ = msg.Body.GetString(tagMarketID)
	if marketID != "" {
		return in.ID, marketID, nil
	}
	marketID, err = s.g.svc.DefaultMarket(ctx, s.p, in.ID, venue.FacilityContinuous)
	if err != nil {
		return "", "", err
	}
	if marketID == "" {
		return "", "", venue.InvalidField("1301 MarketID", "is required: the instrument has no continuous market that allows partial fills")
	}
	return in.ID, marketID, nil
}

// orderOf finds the order a cancel, replace or status request names: 37
// OrderID, else 41 OrigClOrdID (or 11 ClOrdID for a status request), the
// firm's latest ClOrdID of the order.
func (s *session) orderOf(ctx context.Context, msg *quickfix.Message, byClOrd quickfix.Tag) (trading.OfferView, error) {
	if id, err := msg.Body.GetString(tagOrderID); err == nil && id != "" && id != "NONE" {
		return s.g.svc.Offer(ctx, s.p, id)
	}
	cl, err := msg.Body.GetString(byClOrd)
	if err != nil || cl == "" {
		return trading.OfferView{}, venue.NotFound("order: name it by 37 OrderID or its ClOrdID")
	}
	return s.g.svc.OfferByClientOrderID(ctx, s.p, cl)
}

func (s *session) cancelOrder(ctx context.Context, msg *quickfix.Message) quickfix.MessageRejectError {
	clOrdID, _ := msg.Body.GetString(tagClOrdID)
	o, err := s.orderOf(ctx, msg, tagOrigClOrdID)
	if err == nil {
		var claim *idempotency.Claim
		if claim, err = s.claimClOrdID(ctx, clOrdID); err == nil {
			_, err = s.g.run(ctx, trading.Command{Op: trading.OpCancelOrder, Principal: s.p, Claim: trading.RefOf(claim), ID: o.ID,
				ClientOrderID: clOrdID})
			s.finish(claim, o.ID, err)
		}
	}
	if err != nil && !(errors.Is(err, errDuplicate) && possDup(msg)) {
		s.g.send(s.id, s.cancelReject(msg, o, "1", err))
	}
	return nil
}

func (s *session) replaceOrder(ctx context.Context, msg *quickfix.Message) quickfix.MessageRejectError {
	clOrdID, _ := msg.Body.GetString(tagClOrdID)
	o, err := s.orderOf(ctx, msg, tagOrigClOrdID)
	if err == nil {
		var v venue.Validator
		ch := trading.ChangeInput{ClientOrderID: &clOrdID, PriceField: "44 Price"}
		ch.Price, _ = decimalField(msg, tagPrice, &v, "44 Price")
		ch.Quantity, _ = decimalField(msg, tagOrderQty, &v, "38 OrderQty")
		ch.SettlementDate = dateField(msg, tagSettlDate, &v, "64 SettlDate")
		if tif, terr := msg.Body.GetString(tagTimeInForce); terr == nil {
			var validity string
			s.validity(msg, tif, &validity, &ch.ValidUntil, &v)
			ch.Validity = &validity
		}
		// Parties or 528 restate the order's parties; neither keeps them.
		parties, given, perr := readParties(&msg.Body, &msg.Body)
		if given {
			ch.Parties = &parties
		}
		err = v.Merge(perr)
		if err == nil {
			err = v.Err()
		}
		if err == nil {
			var claim *idempotency.Claim
			if claim, err = s.claimClOrdID(ctx, clOrdID); err == nil {
				_, err = s.g.run(ctx, trading.Command{Op: trading.OpUpdateOffer, Principal: s.p, Claim: trading.RefOf(claim), ID: o.ID,
					Change: &ch})
				s.finish(claim, o.ID, err)
			}
		}
	}
	if err != nil && !(errors.Is(err, errDuplicate) && possDup(msg)) {
		s.g.send(s.id, s.cancelReject(msg, o, "2", err))
	}
	return nil
}

// cancelReject is the OrderCancelReject 9 of a cancel (responseTo 1) or
// replace (2) request.
func (s *session) cancelReject(msg *quickfix.Message, o trading.OfferView, responseTo string, err error) *quickfix.Message {
	r, text := rejectOf(err)
	m := newMessage("9")
	if o.ID != "" {
		m.Body.SetString(tagOrderID, o.ID)
		m.Body.SetString(tagOrdStatus, ordStatus(&o.Offer))
	} else {
		m.Body.SetString(tagOrderID, "NONE")
		m.Body.SetString(tagOrdStatus, "8")
	}
	for _, t := range []quickfix.Tag{tagClOrdID, tagOrigClOrdID, tagAccount} {
		if v, err := msg.Body.GetString(t); err == nil {
			m.Body.SetString(t, v)
		}
	}
	m.Body.SetString(tagCxlRejRespTo, responseTo)
	m.Body.SetString(tagCxlRejReason, r.CxlRejReason)
	m.Body.SetString(tagText, text)
	return m
}

func (s *session) orderStatus(ctx context.Context, msg *quickfix.Message) quickfix.MessageRejectError {
	o, err := s.orderOf(ctx, msg, tagClOrdID)
	if err != nil {
		m := s.rejectOrder(msg, err)
		m.Body.SetString(tagExecType, "I")
		if id, err := msg.Body.GetString(tagOrdStatusReqID); err == nil {
			m.Body.SetString(tagOrdStatusReqID, id)
		}
		s.g.send(s.id, m)
		return nil
	}
	st := s.state(&o.Offer)
	m := s.report(&feed.Event{Seq: 0, OccurredAt: s.g.now()}, &o.Offer, st)
	m.Body.SetString(tagExecID, "S-"+newID())
	m.Body.SetString(tagExecType, "I")
	m.Body.SetString(tagOrdStatus, ordStatus(&o.Offer))
	if id, err := msg.Body.GetString(tagOrdStatusReqID); err == nil {
		m.Body.SetString(tagOrdStatusReqID, id)
	}
	s.g.send(s.id, m)
	return nil
}

// securityList answers a SecurityListRequest (559=4: every instrument; 0:
// the one named by 48) with SecurityList messages of at most 100
// instruments each.
func (s *session) securityList(ctx context.Context, msg *quickfix.Message) quickfix.MessageRejectError {
	reqID, _ := msg.Body.GetString(tagSecurityReqID)
	typ, _ := msg.Body.GetString(tagSecurityReqType)
	var f trading.InstrumentFilter
	switch typ {
	case "4":
	case "0":
		isin, _ := msg.Body.GetString(tagSecurityID)
		if isin == "" {
			return quickfix.ConditionallyRequiredFieldMissing(tagSecurityID)
		}
		f.ISIN = isin
	default:
		return quickfix.ValueIsIncorrect(tagSecurityReqType)
	}
	var all []trading.InstrumentView
	page := venue.Page{Limit: 100}
	for {
		list, err := s.g.svc.Instruments(ctx, s.p, f, page)
		if err != nil {
			_, text := rejectOf(err)
			s.g.send(s.id, businessReject(msg, "0", text, reqID))
			return nil
		}
		all = append(all, list.Items...)
		if list.Next == "" {
			break
		}
		page.Cursor = list.Next
	}
	for from := 0; from == 0 || from < len(all); from += 100 {
		chunk := all[from:min(from+100, len(all))]
		m := newMessage("y")
		m.Body.SetString(tagSecurityReqID, reqID)
		m.Body.SetString(tagSecurityRespID, reqID+"-"+strconv.Itoa(from/100+1))
		m.Body.SetString(tagSecurityResult, "0")
		m.Body.SetInt(tagTotNoRelatedSym, len(all))
		if from+100 >= len(all) {
			m.Body.SetString(tagLastFragment, "Y")
		} else {
			m.Body.SetString(tagLastFragment, "N")
		}
		if len(chunk) > 0 {
			m.Body.SetGroup(securityGroup(chunk))
		}
		s.g.send(s.id, m)
	}
	return nil
}

// securityGroup is the NoRelatedSym group of a SecurityList.
func securityGroup(items []trading.InstrumentView) *quickfix.RepeatingGroup {
	g := quickfix.NewRepeatingGroup(tagNoRelatedSym, quickfix.GroupTemplate{
		quickfix.GroupElement(tagSymbol), quickfix.GroupElement(tagSecurityID), quickfix.GroupElement(tagSecurityIDSrc),
		quickfix.GroupElement(tagMaturityDate), quickfix.GroupElement(tagCouponRate), quickfix.GroupElement(tagCurrency),
		quickfix.GroupElement(tagRoundLot), quickfix.GroupElement(tagMinTradeVol)})
	for _, in := range items {
		e := g.Add()
		name := in.Terms.Name
		if name == "" {
			name = "[N/A]"
		}
		e.SetString(tagSymbol, name)
		e.SetString(tagSecurityID, in.Terms.ISIN)
		e.SetString(tagSecurityIDSrc, "4")
		if d, err := bondmath.ParseDate(in.Terms.Maturity); err == nil {
			e.SetString(tagMaturityDate, fixDate(d))
		}
		if c, err := udecimal.Parse(strings.TrimSuffix(in.Terms.Coupon, "%")); err == nil {
			e.SetString(tagCouponRate, c.String())
		}
		if in.Terms.Currency != "" {
			e.SetString(tagCurrency, in.Terms.Currency)
		}
		e.SetString(tagRoundLot, in.MinIncrement.String())
		e.SetString(tagMinTradeVol, in.MinPiece.String())
	}
	return g
}

// newID is a short unique id for reports that answer no event.
func newID() string { return fmt.Sprintf("%x", time.Now().UnixNano()) }
