package fix

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"time"

	"github.com/quagmt/udecimal"
	"github.com/quickfixgo/quickfix"

	"github.com/bondvenue/bondvenue/internal/bondmath"
	"github.com/bondvenue/bondvenue/internal/feed"
	"github.com/bondvenue/bondvenue/internal/subscribe"
	"github.com/bondvenue/bondvenue/internal/venue"
)

// session is one logged-on FIX session: the credential it acts as and the
// follower that turns the firm's committed events into execution reports.
type session struct {
	g  *Gateway
	id quickfix.SessionID
	p  venue.Principal

	ctx    context.Context
	cancel context.CancelFunc
	done   chan struct{}
	resync bool // the feed no longer holds the session's last event
	// startSeq is the log's last event when the peer authenticated.
	startSeq int64
	// drained is signalled when the client has read its backlog down to
	// ResumeAt: conflated market data subscriptions get their snapshot.
	drained chan struct{}

	mu       sync.Mutex
	orders   map[string]*orderState    // the firm's orders this session has seen, by offer id
	isins    map[string]string         // instrument id → ISIN
	zones    map[string]*time.Location // market id → its time zone
	md       map[string]*mdSub         // market data subscriptions by MDReqID
	dropCopy string                    // the TradeRequestID of the drop copy subscription

	out []*quickfix.Message // the messages of the event being handled (feed goroutine only)
	// pipe is the session's orders in flight (the engine's goroutine only).
	pipe *pipeline
	// inSync, when the Logon came with a gap, reports whether the peer
	// has resent what it sent before (awaitInSync).
	inSync func() bool
}

// orderState is what the execution reports of an order need to remember.
type orderState struct {
	clOrdID    string
	price      udecimal.Decimal
	quantity   udecimal.Decimal
	cum, value udecimal.Decimal // filled nominal and its clean value (for AvgPx)
	tradeSeen  bool             // a fill was reported since the last update
}

func newSession(g *Gateway, id quickfix.SessionID, p venue.Principal) *session {
	ctx, cancel := context.WithCancel(context.Background())
	return &session{g: g, id: id, p: p, ctx: ctx, cancel: cancel, done: make(chan struct{}),
		orders: map[string]*orderState{}, isins: map[string]string{}, zones: map[string]*time.Location{}, md: map[string]*mdSub{},
		drained: make(chan struct{}, 1), pipe: newPipeline()}
}

// start follows the committed-event feed from now: every change of the
// firm's orders, from any channel, becomes an execution report.
func (s *session) start() {
	go func() {
		defer close(s.done)
		if !s.awaitInSync() {
			return
		}
		for s.ctx.Err() == nil {
			after, err := s.resumeAfter()
			if err == nil {
				err = s.follow(after)
			}
			if errors.Is(err, subscribe.ErrResyncRequired) {
				s.g.log.Warn("fix session: events missed while away are no longer in the log; following from now",
					"sender_comp_id", s.id.TargetCompID)
				s.resync = true
				continue
			}
			if s.ctx.Err() != nil {
				return
			}
			s.g.log.Warn("fix session feed ended; following again", "sender_comp_id", s.id.TargetCompID, "err", err)
			select {
			case <-s.ctx.Done():
			case <-time.After(time.Second):
			}
		}
	}()
}

// resumeAfter is the event the session follows the feed after: the last
// it sent a message for (it logged on before), else the log's last.
func (s *session) resumeAfter() (int64, error) {
	if !s.resync {
		st, ok, err := s.g.store.PeekSession(s.ctx, s.id.String())
		if err != nil {
			return 0, err
		}
		if ok && st.LastEventSeq > 0 {
			return st.LastEventSeq, nil
		}
		if s.startSeq > 0 {
			return s.startSeq, nil
		}
	}
	return s.g.live.LastEventSeq(s.ctx)
}

// resendWait bounds how long a session's application messages wait for
// the peer to resend what it sent before its Logon.
const resendWait = 10 * time.Second

// awaitInSync holds the session's own application messages (reports,
// news, market data) back while the peer is resending the messages it
// sent before its Logon: the Logon came with a gap, the engine asked for
// them, and some clients end the session on an application message that
// arrives while they are answering that request. It returns once the gap
// is closed, or after resendWait (a peer that never resends then gets its
// messages all the same), and false if the session ended first.
func (s *session) awaitInSync() bool {
	if s.inSync == nil {
		return s.ctx.Err() == nil
	}
	deadline := time.Now().Add(resendWait)
	for !s.inSync() && time.Now().Before(deadline) {
		select {
		case <-s.ctx.Done():
			return false
		case <-time.After(10 * time.Millisecond):
		}
	}
	return s.ctx.Err() == nil
}

func (s *session) stop() {
	s.cancel()
	<-s.done
}

// follow reads the feed after seq until it ends.
func (s *session) follow(after int64) error {
	sub, err := s.g.live.Subscribe(s.ctx, s.p, after, feed.EventFilter{Types: []string{"offer.", "rfq.", "quote.", "portfolio_rfq.", feed.EventTradeCreate,
		feed.EventPriceChange, feed.EventDepth, feed.EventNewsCreate, feed.EventHalt, feed.EventPhase}, Depth: feed.MaxStreamDepth})
	if err != nil {
		return err
	}
	defer sub.Close()
	for {
		select {
		case e, ok := <-sub.C:
			if !ok {
				return sub.Err()
			}
			s.onEvent(&e)
		case <-s.drained:
			s.refreshStale()
		}
	}
}

// onEvent turns one event into the messages it causes and sends them; the
// last, once kept, records the event as the session's last (market data
// and news, which are not resent, record nothing).
func (s *session) onEvent(e *feed.Event) {
	s.out = s.out[:0]
	s.dispatch(e)
	s.g.sendMarked(s.id, e.Seq, s.out...)
}

// emit queues a message of the event being handled.
func (s *session) emit(m *quickfix.Message) { s.out = append(s.out, m) }

func (s *session) dispatch(e *feed.Event) {
	switch {
	case e.Offer != nil && e.Offer.Type == venue.TypeOffer && e.Offer.ParticipantID == s.p.ParticipantID:
		s.onOffer(e)
	case e.Offer != nil && e.Offer.Type == venue.TypeRFQ:
		s.onRFQ(e)
	case e.Offer != nil && e.Offer.Type == venue.TypeQuote:
		s.onQuote(e)
	case e.Portfolio != nil:
		s.onPortfolio(e)
	case e.Trade != nil:
		for _, o := range []venue.Order{e.Trade.BidOrder, e.Trade.AskOrder} {
			if o.ParticipantID == s.p.ParticipantID {
				s.onFill(e, e.Trade, o)
			}
		}
		s.mu.Lock()
		dc := s.dropCopy
		s.mu.Unlock()
		if dc != "" && (e.Trade.BidOrder.ParticipantID == s.p.ParticipantID || e.Trade.AskOrder.ParticipantID == s.p.ParticipantID) {
			s.emit(s.captureReport(dc, e.Trade))
		}
	case e.PriceChange != nil:
		s.onPriceChange(e.PriceChange)
	case e.Depth != nil:
		s.onDepth(e.Depth)
	case e.News != nil:
		s.g.send(s.id, newsMessage(e.News))
	case e.Type == feed.EventHalt && e.Control != nil:
		s.onHalt(e)
	case e.Type == feed.EventPhase && e.Control != nil:
		s.onPhase(e)
	}
}

// state returns the remembered state of an order, creating it from o.
func (s *session) state(o *venue.Offer) *orderState {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.orders[o.ID]
	if st == nil {
		st = &orderState{clOrdID: o.ClientOrderID, price: o.Price, quantity: o.Quantity, cum: o.Filled,
			value: o.Filled.Mul(o.Price)}
		s.orders[o.ID] = st
	}
	return st
}

func (s *session) onOffer(e *feed.Event) {
	o := e.Offer
	st := s.state(o)
	m := s.report(e, o, st)
	switch {
	case e.Type == "offer.create":
		m.Body.SetString(tagExecType, "0")
		m.Body.SetString(tagOrdStatus, "0")
	case o.Status == venue.StatusCancelled || o.Status == venue.StatusRejected:
		m.Body.SetString(tagExecType, "4")
		m.Body.SetString(tagOrdStatus, "4")
		m.Body.SetString(tagLeavesQty, "0")
		s.origClOrdID(m, st, o)
	case o.Status == venue.StatusExpired:
		m.Body.SetString(tagExecType, "C")
		m.Body.SetString(tagOrdStatus, "C")
		m.Body.SetString(tagLeavesQty, "0")
	case st.tradeSeen || (o.Price.Equal(st.price) && o.Quantity.Equal(st.quantity) && o.ClientOrderID == st.clOrdID):
		// The update that follows a fill, which its Trade report told.
		st.tradeSeen = false
		return
	default:
		m.Body.SetString(tagExecType, "5")
		m.Body.SetString(tagOrdStatus, ordStatus(o))
		s.origClOrdID(m, st, o)
	}
	st.price, st.quantity, st.clOrdID = o.Price, o.Quantity, o.ClientOrderID
	s.emit(m)
}

// origClOrdID names the request a cancel or replace answers.
func (s *session) origClOrdID(m *quickfix.Message, st *orderState, o *venue.Offer) {
	if st.clOrdID != "" && st.clOrdID != o.ClientOrderID {
		m.Body.SetString(tagOrigClOrdID, st.clOrdID)
	}
}

func (s *session) onFill(e *feed.Event, t *venue.Trade, ord venue.Order) {
	// The order is an offer, a quote or (its requester's side) an RFQ.
	o, err := s.g.svc.Offer(s.ctx, s.p, ord.OfferID)
	if errors.Is(err, venue.ErrNotFound) {
		o, err = s.g.svc.RFQ(s.ctx, s.p, ord.OfferID)
	}
	if err != nil {
		s.g.log.Warn("fix fill report: the order", "offer_id", ord.OfferID, "err", err)
		return
	}
	s.mu.Lock()
	st := s.orders[o.ID]
	if st == nil {
		// First seen at this fill (entered before this session followed
		// the feed): its earlier fills count at the order's limit price.
		before := ord.Filled.Sub(t.Quantity)
		st = &orderState{clOrdID: o.ClientOrderID, price: o.Price, quantity: o.Quantity, cum: before, value: before.Mul(o.Price)}
		s.orders[o.ID] = st
	}
	s.mu.Unlock()
	st.cum = st.cum.Add(t.Quantity)
	st.value = st.value.Add(t.Quantity.Mul(t.PricePerUnit))
	st.tradeSeen = true
	view := o.Offer
	view.Filled = ord.Filled
	m := s.report(e, &view, st)
	if t.PortfolioRFQID != "" {
		m.Body.SetString(tagListID, t.PortfolioRFQID)
		// The requester's lines: its hit's own ClOrdID (a dealer's firm
		// never hit the list).
		if id, ok := s.g.hitClOrdID(s.p.ParticipantID, t.PortfolioRFQID); ok {
			m.Body.SetString(tagClOrdID, id)
		}
	} else if o.Type == venue.TypeRFQ { // the requester's side of a hit: the hit's own ClOrdID
		quoteID := t.AskOrder.OfferID
		if quoteID == o.ID {
			quoteID = t.BidOrder.OfferID
		}
		if id, ok := s.g.hitClOrdID(s.p.ParticipantID, quoteID); ok {
			m.Body.SetString(tagClOrdID, id)
		}
	}
	m.Body.SetString(tagExecType, "F")
	if ord.Filled.GreaterThanOrEqual(ord.Quantity) {
		m.Body.SetString(tagOrdStatus, "2")
		m.Body.SetString(tagLeavesQty, "0")
	} else {
		m.Body.SetString(tagOrdStatus, "1")
		m.Body.SetString(tagLeavesQty, ord.Quantity.Sub(ord.Filled).String())
	}
	m.Body.SetString(tagCumQty, ord.Filled.String())
	m.Body.SetString(tagLastPx, t.PricePerUnit.String())
	m.Body.SetString(tagLastQty, t.Quantity.String())
	m.Body.SetString(tagAccruedInterest, t.AccruedInterest.String())
	m.Body.SetString(tagSettlDate, fixDate(t.SettlementDate))
	m.Body.SetString(tagSettlCurrAmt, t.SettlementAmount.String())
	m.Body.SetString(tagTrdMatchID, t.TransactionIdentificationCode)
	if ord.Filled.Equal(st.cum) && st.cum.IsPos() {
		if avg, err := st.value.Div(st.cum); err == nil {
			m.Body.SetString(tagAvgPx, avg.String())
		}
	} else {
		m.Body.SetString(tagAvgPx, t.PricePerUnit.String())
	}
	s.emit(m)
}

// report starts an execution report of order o for event e.
func (s *session) report(e *feed.Event, o *venue.Offer, st *orderState) *quickfix.Message {
	m := newMessage("8")
	m.Body.SetString(tagOrderID, o.ID)
	m.Body.SetString(tagExecID, strconv.FormatInt(e.Seq, 10)+"-"+o.ID)
	if o.ClientOrderID != "" {
		m.Body.SetString(tagClOrdID, o.ClientOrderID)
	}
	s.orderFields(m, o)
	m.Body.SetString(tagCumQty, o.Filled.String())
	m.Body.SetString(tagLeavesQty, leaves(o).String())
	if st.cum.IsPos() {
		if avg, err := st.value.Div(st.cum); err == nil {
			m.Body.SetString(tagAvgPx, avg.String())
		}
	} else {
		m.Body.SetString(tagAvgPx, "0")
	}
	m.Body.SetString(tagTransactTime, e.OccurredAt.UTC().Format("20060102-15:04:05.000"))
	return m
}

// orderFields writes what an execution report repeats of the order.
func (s *session) orderFields(m *quickfix.Message, o *venue.Offer) {
	if o.AccountID != "" {
		m.Body.SetString(tagAccount, o.AccountID)
	}
	if isin := s.isin(o.InstrumentID); isin != "" {
		m.Body.SetString(tagSecurityID, isin)
		m.Body.SetString(tagSecurityIDSrc, "4")
	}
	m.Body.SetString(tagMarketID, o.MarketID)
	side := "1"
	if o.Direction == venue.Ask {
		side = "2"
	}
	m.Body.SetString(tagSide, side)
	m.Body.SetString(tagOrderQty, o.Quantity.String())
	if o.MarketOrder {
		m.Body.SetString(tagOrdType, "1")
	} else {
		m.Body.SetString(tagOrdType, "2")
		m.Body.SetString(tagPrice, o.Price.String())
	}
	switch {
	case o.MarketOrder:
		m.Body.SetString(tagTimeInForce, "3")
	case o.Validity == venue.GTD && o.ValidUntil != nil:
		m.Body.SetString(tagTimeInForce, "6")
		m.Body.SetString(tagExpireTime, o.ValidUntil.UTC().Format("20060102-15:04:05.000"))
	default:
		m.Body.SetString(tagTimeInForce, "1")
	}
	if !o.SettlementDate.IsZero() {
		m.Body.SetString(tagSettlDate, fixDate(o.SettlementDate))
	}
}

// leaves is an order's open quantity (0 once it is closed).
func leaves(o *venue.Offer) udecimal.Decimal {
	if !o.Open() {
		return udecimal.Zero
	}
	return o.Remaining()
}

// ordStatus is the OrdStatus (39) of an order's current state.
func ordStatus(o *venue.Offer) string {
	switch o.Status {
	case venue.StatusCancelled, venue.StatusRejected:
		return "4"
	case venue.StatusExpired:
		return "C"
	case venue.StatusClosed:
		if o.Filled.GreaterThanOrEqual(o.Quantity) {
			return "2"
		}
		return "4"
	}
	if o.Filled.IsPos() {
		return "1"
	}
	return "0"
}

// isin returns an instrument's ISIN, reading it once.
func (s *session) isin(instrumentID string) string {
	s.mu.Lock()
	v, ok := s.isins[instrumentID]
	s.mu.Unlock()
	if ok {
		return v
	}
	in, err := s.g.svc.InstrumentTerms(s.ctx, s.p, instrumentID)
	if err != nil {
		return ""
	}
	s.mu.Lock()
	s.isins[instrumentID] = in.Terms.ISIN
	s.mu.Unlock()
	return in.Terms.ISIN
}

// tradeDate is the trade date of an event at t on a market: the date in
// the market's time zone (its business day), reading the zone once.
func (s *session) tradeDate(marketID string, t time.Time) bondmath.Date {
	s.mu.Lock()
	loc, ok := s.zones[marketID]
	s.mu.Unlock()
	if !ok {
		m, err := s.g.svc.Market(s.ctx, s.p, marketID)
		if err != nil {
			return bondmath.DateOf(t.UTC())
		}
		loc = m.Location()
		s.mu.Lock()
		s.zones[marketID] = loc
		s.mu.Unlock()
	}
	return bondmath.DateOf(t.In(loc))
}

// fixDate is a LocalMktDate (YYYYMMDD).
func fixDate(d bondmath.Date) string { return d.Time().Format("20060102") }
