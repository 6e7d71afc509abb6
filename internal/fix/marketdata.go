package fix

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/quagmt/udecimal"
	"github.com/quickfixgo/quickfix"

	"github.com/bondvenue/bondvenue/internal/feed"
	"github.com/bondvenue/bondvenue/internal/trading"
	"github.com/bondvenue/bondvenue/internal/venue"
)

// Market data, news and drop copies, all from the committed-event feed.

const (
	tagMDReqID               quickfix.Tag = 262
	tagSubscriptionType      quickfix.Tag = 263
	tagMarketDepth           quickfix.Tag = 264
	tagNoMDEntryTypes        quickfix.Tag = 267
	tagNoMDEntries           quickfix.Tag = 268
	tagMDEntryType           quickfix.Tag = 269
	tagMDEntryPx             quickfix.Tag = 270
	tagMDEntrySize           quickfix.Tag = 271
	tagMDUpdateAction        quickfix.Tag = 279
	tagMDReqRejReason        quickfix.Tag = 281
	tagMDEntryPosNo          quickfix.Tag = 290
	tagOrigTime              quickfix.Tag = 42
	tagNoLinesOfText         quickfix.Tag = 33
	tagHeadline              quickfix.Tag = 148
	tagURLLink               quickfix.Tag = 149
	tagTradeRequestID        quickfix.Tag = 568
	tagTradeRequestType      quickfix.Tag = 569
	tagTradeReportID         quickfix.Tag = 571
	tagTradeReqResult        quickfix.Tag = 749
	tagTradeReqStatus        quickfix.Tag = 750
	tagTradeReportType       quickfix.Tag = 856
	tagTradeReportTrans      quickfix.Tag = 487
	tagTradeDate             quickfix.Tag = 75
	tagTradePublishIndicator quickfix.Tag = 1390
	tagNoSides               quickfix.Tag = 552
	tagTotNumReports         quickfix.Tag = 748
	tagLastRptRequested      quickfix.Tag = 912
)

// mdSub is one market data subscription of a session.
type mdSub struct {
	reqID       string
	instruments map[string]string // instrument id → ISIN
	types       map[string]bool   // 0 bid, 1 offer, 2 trade
	depth       int
	// stale is set while incrementals are skipped for a slow client: a
	// snapshot replaces them once it reads again.
	stale bool
	// markets are the market whose book the subscription follows level by
	// level, per instrument (deep subscriptions only).
	markets map[string]string
	// mu orders a book's snapshot and its incrementals; ladders are each
	// instrument's levels as the client last received them (deep only).
	mu      sync.Mutex
	ladders map[string]*mdLadder
}

// mdLadder is one instrument's levels as a client holds them.
type mdLadder struct{ bid, ask []feed.LimitEntry }

// deep reports whether the subscription asked for more than the best
// (264=0 or N > 1): its incrementals carry every level that changed.
func (sub *mdSub) deep() bool { return sub.depth != 1 }

// levels is the number of levels per side a deep subscription follows.
func (sub *mdSub) levels() int {
	if sub.depth <= 0 || sub.depth > feed.MaxStreamDepth {
		return feed.MaxStreamDepth
	}
	return sub.depth
}

// marketData answers a MarketDataRequest V: a snapshot W per instrument,
// then (263=1) incrementals X on every change of its best bid or offer
// and every trade, until 263=2 names the request again. A request for
// more than the best (264=0 or N > 1) follows the book of one market per
// instrument (1301, else the market orders go to) level by level: its
// incrementals carry every level that changed.
func (s *session) marketData(ctx context.Context, msg *quickfix.Message) quickfix.MessageRejectError {
	reqID, _ := msg.Body.GetString(tagMDReqID)
	typ, _ := msg.Body.GetString(tagSubscriptionType)
	if typ == "2" {
		s.mu.Lock()
		delete(s.md, reqID)
		s.mu.Unlock()
		return nil
	}
	if typ != "0" && typ != "1" {
		return quickfix.ValueIsIncorrect(tagSubscriptionType)
	}
	depth, _ := msg.Body.GetInt(tagMarketDepth)
	sub := &mdSub{reqID: reqID, instruments: map[string]string{}, types: map[string]bool{}, depth: depth}
	types := quickfix.NewRepeatingGroup(tagNoMDEntryTypes, quickfix.GroupTemplate{quickfix.GroupElement(tagMDEntryType)})
	if err := msg.Body.GetGroup(types); err == nil {
		for i := 0; i < types.Len(); i++ {
			t, _ := types.Get(i).GetString(tagMDEntryType)
			sub.types[t] = true
		}
	}
	syms := quickfix.NewRepeatingGroup(tagNoRelatedSym, quickfix.GroupTemplate{quickfix.GroupElement(tagSymbol),
		quickfix.GroupElement(tagSecurityID), quickfix.GroupElement(tagSecurityIDSrc), quickfix.GroupElement(tagMarketID)})
	if err := msg.Body.GetGroup(syms); err != nil || syms.Len() == 0 {
		s.g.send(s.id, mdReject(reqID, "0", "146 NoRelatedSym names no instrument"))
		return nil
	}
	var details []trading.InstrumentDetail
	for i := 0; i < syms.Len(); i++ {
		isin, _ := syms.Get(i).GetString(tagSecurityID)
		list, err := s.g.svc.Instruments(ctx, s.p, trading.InstrumentFilter{ISIN: isin}, venue.Page{Limit: 1})
		if err != nil || len(list.Items) == 0 || isin == "" {
			s.g.send(s.id, mdReject(reqID, "0", "unknown instrument "+isin+" (48 SecurityID, an ISIN with 22=4)"))
			return nil
		}
		d, err := s.g.svc.Instrument(ctx, s.p, list.Items[0].ID, depth)
		if err != nil {
			_, text := rejectOf(err)
			s.g.send(s.id, mdReject(reqID, "0", text))
			return nil
		}
		sub.instruments[d.ID] = isin
		if sub.deep() {
			market, _ := syms.Get(i).GetString(tagMarketID)
			if market == "" {
				market, _ = msg.Body.GetString(tagMarketID)
			}
			if market == "" {
				market = s.depthMarket(ctx, d)
			}
			if sub.markets == nil {
				sub.markets, sub.ladders = map[string]string{}, map[string]*mdLadder{}
			}
			sub.markets[d.ID] = market
		}
		details = append(details, d)
	}
	if sub.deep() {
		// The snapshots and the incrementals go out in turn: each
		// incremental takes the client from what it last received.
		sub.mu.Lock()
		defer sub.mu.Unlock()
	}
	if typ == "1" { // subscribed before the snapshots: no change falls between
		s.mu.Lock()
		s.md[reqID] = sub
		s.mu.Unlock()
	}
	for _, d := range details {
		if sub.deep() {
			if d, err := s.g.svc.Instrument(ctx, s.p, d.ID, 0); err == nil { // read after subscribing
				s.g.send(s.id, snapshot(reqID, sub.ladder(d), sub.types))
			}
			continue
		}
		s.g.send(s.id, snapshot(reqID, d, sub.types))
	}
	return nil
}

// depthMarket is the market a deep subscription of d follows without
// 1301: the one orders go to (the continuous market that allows partial
// fills), else the first market listing it.
func (s *session) depthMarket(ctx context.Context, d trading.InstrumentDetail) string {
	for _, m := range d.Markets {
		if m.FacilityType == venue.FacilityContinuous && m.IsEnabled && m.IsPartialFillAllowed {
			return m.ID
		}
	}
	if len(d.Markets) > 0 {
		return d.Markets[0].ID
	}
	return ""
}

// ladder keeps d's levels on the subscription's market, up to its depth,
// as the client receives them in a snapshot, and returns d with those
// levels only. sub.mu must be held.
func (sub *mdSub) ladder(d trading.InstrumentDetail) trading.InstrumentDetail {
	market, n := sub.markets[d.ID], sub.levels()
	side := func(les []feed.LimitEntry) []feed.LimitEntry {
		out := []feed.LimitEntry{}
		for _, le := range les {
			if le.MarketID == market && len(out) < n {
				out = append(out, le)
			}
		}
		return out
	}
	d.Limits.Bid, d.Limits.Ask = side(d.Limits.Bid), side(d.Limits.Ask)
	sub.ladders[d.ID] = &mdLadder{bid: d.Limits.Bid, ask: d.Limits.Ask}
	return d
}

// snapshot is a MarketDataSnapshotFullRefresh W of an instrument's book.
func snapshot(reqID string, d trading.InstrumentDetail, types map[string]bool) *quickfix.Message {
	m := newMessage("W")
	m.Body.SetString(tagMDReqID, reqID)
	m.Body.SetString(tagSymbol, symbol(d.Terms.Name))
	m.Body.SetString(tagSecurityID, d.Terms.ISIN)
	m.Body.SetString(tagSecurityIDSrc, "4")
	g := quickfix.NewRepeatingGroup(tagNoMDEntries, quickfix.GroupTemplate{quickfix.GroupElement(tagMDEntryType),
		quickfix.GroupElement(tagMDEntryPx), quickfix.GroupElement(tagMDEntrySize), quickfix.GroupElement(tagMDEntryPosNo)})
	add := func(side string, entries []feed.LimitEntry) {
		if len(types) > 0 && !types[side] {
			return
		}
		for i, e := range entries {
			x := g.Add()
			x.SetString(tagMDEntryType, side)
			x.SetString(tagMDEntryPx, e.Limit.String())
			x.SetString(tagMDEntrySize, e.Quantity.String())
			x.SetInt(tagMDEntryPosNo, i+1)
		}
	}
	add("0", d.Limits.Bid)
	add("1", d.Limits.Ask)
	m.Body.SetGroup(g)
	return m
}

// onPriceChange sends the incrementals a book change causes.
func (s *session) onPriceChange(pc *feed.PriceChange) {
	s.mu.Lock()
	var subs []*mdSub
	for _, sub := range s.md {
		if _, ok := sub.instruments[pc.InstrumentID]; ok {
			subs = append(subs, sub)
		}
	}
	s.mu.Unlock()
	backlog := s.g.backlog(s.id.String()).Load()
	for _, sub := range subs {
		// Conflation: a client behind by conflateAt messages gets no
		// incrementals; once it has read down to resumeAt, a snapshot of
		// the book replaces what it missed.
		switch {
		case backlog >= s.g.cfg.ConflateAt || (sub.stale && backlog > s.g.cfg.ResumeAt):
			sub.stale = true
			s.g.m.conflated.Inc()
			continue
		case sub.stale:
			s.refresh(sub)
			continue
		}
		m := newMessage("X")
		m.Body.SetString(tagMDReqID, sub.reqID)
		g := quickfix.NewRepeatingGroup(tagNoMDEntries, quickfix.GroupTemplate{quickfix.GroupElement(tagMDUpdateAction),
			quickfix.GroupElement(tagMDEntryType), quickfix.GroupElement(tagSymbol), quickfix.GroupElement(tagSecurityID),
			quickfix.GroupElement(tagSecurityIDSrc), quickfix.GroupElement(tagMDEntryPx), quickfix.GroupElement(tagMDEntrySize),
			quickfix.GroupElement(tagMDEntryPosNo)})
		isin := sub.instruments[pc.InstrumentID]
		entry := func(action, side string, px, size *udecimal.Decimal) {
			x := g.Add()
			x.SetString(tagMDUpdateAction, action)
			x.SetString(tagMDEntryType, side)
			x.SetString(tagSymbol, "[N/A]")
			x.SetString(tagSecurityID, isin)
			x.SetString(tagSecurityIDSrc, "4")
			if px != nil {
				x.SetString(tagMDEntryPx, px.String())
			}
			if size != nil {
				x.SetString(tagMDEntrySize, size.String())
			}
			if side != "2" {
				x.SetInt(tagMDEntryPosNo, 1)
			}
		}
		top := func(side string, e *feed.LimitEntry) {
			if len(sub.types) > 0 && !sub.types[side] {
				return
			}
			if e == nil {
				entry("2", side, nil, nil)
				return
			}
			entry("1", side, &e.Limit, &e.Quantity)
		}
		// A deep subscription's levels come with the book's depth.
		if !sub.deep() && (len(pc.Trades) == 0 || len(sub.types) == 0 || sub.types["0"] || sub.types["1"]) {
			top("0", pc.Bid)
			top("1", pc.Ask)
		}
		if len(sub.types) == 0 || sub.types["2"] {
			for _, t := range pc.Trades {
				entry("0", "2", &t.Price, &t.Quantity)
			}
		}
		if g.Len() > 0 {
			m.Body.SetGroup(g)
			s.g.send(s.id, m)
		}
	}
}

// onDepth sends the deep subscriptions that follow the book of d's
// instrument on d's market an incremental X of every level that changed:
// 279 0 new, 1 change, 2 delete at 290 MDEntryPositionNo, applied in order
// (a new level pushes the ones below it down, a deleted one pulls them up).
func (s *session) onDepth(d *feed.Depth) {
	s.mu.Lock()
	var subs []*mdSub
	for _, sub := range s.md {
		if sub.deep() && sub.markets[d.InstrumentID] == d.MarketID {
			subs = append(subs, sub)
		}
	}
	s.mu.Unlock()
	backlog := s.g.backlog(s.id.String()).Load()
	for _, sub := range subs {
		switch { // conflation, as onPriceChange
		case backlog >= s.g.cfg.ConflateAt || (sub.stale && backlog > s.g.cfg.ResumeAt):
			sub.stale = true
			s.g.m.conflated.Inc()
			continue
		case sub.stale:
			s.refresh(sub)
			continue
		}
		sub.mu.Lock()
		if m := sub.depthUpdate(d); m != nil {
			s.g.send(s.id, m)
		}
		sub.mu.Unlock()
	}
}

// depthUpdate is the incremental that takes the client from the levels it
// holds to d's, nil when none of its levels changed. sub.mu must be held.
func (sub *mdSub) depthUpdate(d *feed.Depth) *quickfix.Message {
	l := sub.ladders[d.InstrumentID]
	if l == nil {
		return nil // no snapshot yet: the one to come shows it
	}
	n := sub.levels()
	bid, ask := d.Bid[:min(n, len(d.Bid))], d.Ask[:min(n, len(d.Ask))]
	g := quickfix.NewRepeatingGroup(tagNoMDEntries, quickfix.GroupTemplate{quickfix.GroupElement(tagMDUpdateAction),
		quickfix.GroupElement(tagMDEntryType), quickfix.GroupElement(tagSymbol), quickfix.GroupElement(tagSecurityID),
		quickfix.GroupElement(tagSecurityIDSrc), quickfix.GroupElement(tagMDEntryPx), quickfix.GroupElement(tagMDEntrySize),
		quickfix.GroupElement(tagMDEntryPosNo)})
	isin := sub.instruments[d.InstrumentID]
	for _, side := range []struct {
		typ      string
		had, now []feed.LimitEntry
	}{{"0", l.bid, bid}, {"1", l.ask, ask}} {
		if len(sub.types) > 0 && !sub.types[side.typ] {
			continue
		}
		for _, a := range levelChanges(side.had, side.now) {
			x := g.Add()
			x.SetString(tagMDUpdateAction, a.action)
			x.SetString(tagMDEntryType, side.typ)
			x.SetString(tagSymbol, "[N/A]")
			x.SetString(tagSecurityID, isin)
			x.SetString(tagSecurityIDSrc, "4")
			x.SetString(tagMDEntryPx, a.entry.Limit.String())
			if a.action != mdDelete {
				x.SetString(tagMDEntrySize, a.entry.Quantity.String())
			}
			x.SetInt(tagMDEntryPosNo, a.pos)
		}
	}
	l.bid, l.ask = bid, ask
	if g.Len() == 0 {
		return nil
	}
	m := newMessage("X")
	m.Body.SetString(tagMDReqID, sub.reqID)
	m.Body.SetGroup(g)
	return m
}

// MDUpdateAction (279) values.
const (
	mdNew    = "0"
	mdChange = "1"
	mdDelete = "2"
)

// levelChange is one entry of an incremental: an action at a position
// (from 1) of the side as the client holds it when it applies the entry.
type levelChange struct {
	action string
	pos    int
	entry  feed.LimitEntry
}

// levelChanges returns the changes, in order, that turn the levels had
// into now (each level a resting offer, known by its id): first the
// offers that left, from the bottom, then top down each level that is new
// or moved there (a delete and a new) or whose price or size changed.
func levelChanges(had, now []feed.LimitEntry) []levelChange {
	var out []levelChange
	in := make(map[string]bool, len(now))
	for _, e := range now {
		in[e.OfferID] = true
	}
	held := slices.Clone(had)
	for i := len(held) - 1; i >= 0; i-- {
		if !in[held[i].OfferID] {
			out = append(out, levelChange{mdDelete, i + 1, held[i]})
			held = slices.Delete(held, i, i+1)
		}
	}
	for j, e := range now {
		if j < len(held) && held[j].OfferID == e.OfferID {
			if !held[j].Limit.Equal(e.Limit) || !held[j].Quantity.Equal(e.Quantity) {
				out = append(out, levelChange{mdChange, j + 1, e})
				held[j] = e
			}
			continue
		}
		if k := slices.IndexFunc(held, func(h feed.LimitEntry) bool { return h.OfferID == e.OfferID }); k >= 0 {
			out = append(out, levelChange{mdDelete, k + 1, held[k]})
			held = slices.Delete(held, k, k+1)
		}
		out = append(out, levelChange{mdNew, j + 1, e})
		held = slices.Insert(held, j, e)
	}
	return out
}

func mdReject(reqID, reason, text string) *quickfix.Message {
	m := newMessage("Y")
	m.Body.SetString(tagMDReqID, reqID)
	m.Body.SetString(tagMDReqRejReason, reason)
	m.Body.SetString(tagText, text)
	return m
}

func symbol(name string) string {
	if name == "" {
		return "[N/A]"
	}
	return name
}

// newsMessage is a News B.
func newsMessage(n *venue.News) *quickfix.Message {
	m := newMessage("B")
	m.Body.SetString(tagOrigTime, n.PublishedAt.UTC().Format("20060102-15:04:05.000"))
	m.Body.SetString(tagHeadline, n.Title)
	if n.URL != "" {
		m.Body.SetString(tagURLLink, n.URL)
	}
	g := quickfix.NewRepeatingGroup(tagNoLinesOfText, quickfix.GroupTemplate{quickfix.GroupElement(tagText)})
	for _, line := range strings.Split(n.Body, "\n") {
		if line = strings.TrimRight(line, "\r"); line != "" {
			g.Add().SetString(tagText, line)
		}
	}
	if g.Len() == 0 {
		g.Add().SetString(tagText, n.Title)
	}
	m.Body.SetGroup(g)
	return m
}

// recentNews sends the latest news items on logon, oldest first.
func (s *session) recentNews(ctx context.Context, n int) {
	list, err := s.g.svc.News(ctx, s.p, venue.Page{Limit: n})
	if err != nil {
		s.g.log.Warn("fix news on logon", "err", err)
		return
	}
	for i := len(list.Items) - 1; i >= 0; i-- {
		s.g.send(s.id, newsMessage(&list.Items[i]))
	}
}

// tradeCaptureRequest answers a TradeCaptureReportRequest AD: an ack AQ,
// (263 0 or 1) today's trades of the firm as TradeCaptureReports AE, and
// (263=1) every new trade of the firm from any channel.
func (s *session) tradeCaptureRequest(ctx context.Context, msg *quickfix.Message) quickfix.MessageRejectError {
	reqID, _ := msg.Body.GetString(tagTradeRequestID)
	reqType, _ := msg.Body.GetString(tagTradeRequestType)
	typ, err := msg.Body.GetString(tagSubscriptionType)
	if err != nil {
		typ = "0"
	}
	if typ == "2" {
		s.mu.Lock()
		if s.dropCopy == reqID {
			s.dropCopy = ""
		}
		s.mu.Unlock()
		return nil
	}
	var trades []trading.TradeView
	if typ == "0" || typ == "1" {
		start := s.g.dayEnd().AddDate(0, 0, -1)
		page := venue.Page{Limit: 100, From: &start}
		for {
			list, err := s.g.svc.Trades(ctx, s.p, trading.TradeFilter{}, page)
			if err != nil {
				_, text := rejectOf(err)
				s.g.send(s.id, businessReject(msg, "0", text, reqID))
				return nil
			}
			trades = append(trades, list.Items...)
			if list.Next == "" {
				break
			}
			page.Cursor = list.Next
		}
	}
	ack := newMessage("AQ")
	ack.Body.SetString(tagTradeRequestID, reqID)
	ack.Body.SetString(tagTradeRequestType, reqType)
	ack.Body.SetString(tagSubscriptionType, typ)
	ack.Body.SetString(tagTradeReqResult, "0")
	ack.Body.SetString(tagTradeReqStatus, "0")
	ack.Body.SetInt(tagTotNumReports, len(trades))
	s.g.send(s.id, ack)
	if typ == "1" {
		s.mu.Lock()
		s.dropCopy = reqID
		s.mu.Unlock()
	}
	for i, t := range trades {
		m := s.captureReport(reqID, &t.Trade)
		if i == len(trades)-1 {
			m.Body.SetString(tagLastRptRequested, "Y")
		}
		s.g.send(s.id, m)
	}
	return nil
}

// captureReport is the TradeCaptureReport AE of a trade of the firm.
func (s *session) captureReport(reqID string, t *venue.Trade) *quickfix.Message {
	m := newMessage("AE")
	m.Body.SetString(tagTradeReportID, t.ID)
	if reqID != "" {
		m.Body.SetString(tagTradeRequestID, reqID)
	}
	m.Body.SetString(tagTradeReportTrans, "0")
	m.Body.SetString(tagTradeReportType, "0")
	m.Body.SetString(tagExecID, t.ID)
	m.Body.SetString(tagTrdMatchID, t.TransactionIdentificationCode)
	m.Body.SetString(tagLastQty, t.Quantity.String())
	m.Body.SetString(tagLastPx, t.PricePerUnit.String())
	// 1390 TradePublishIndicator: 1 published at once, 2 deferred (the
	// public tape's deferral table).
	publish := "1"
	if t.Publication.VolumeDueAt.After(t.CreatedAt) {
		publish = "2"
	}
	m.Body.SetString(tagTradePublishIndicator, publish)
	m.Body.SetString(tagTradeDate, fixDate(s.tradeDate(t.MarketID, t.CreatedAt)))
	m.Body.SetString(tagTransactTime, t.CreatedAt.UTC().Format("20060102-15:04:05.000"))
	m.Body.SetString(tagSettlDate, fixDate(t.SettlementDate))
	m.Body.SetString(tagMarketID, t.MarketID)
	if isin := s.isin(t.InstrumentID); isin != "" {
		m.Body.SetString(tagSymbol, "[N/A]")
		m.Body.SetString(tagSecurityID, isin)
		m.Body.SetString(tagSecurityIDSrc, "4")
	}
	g := quickfix.NewRepeatingGroup(tagNoSides, quickfix.GroupTemplate{quickfix.GroupElement(tagSide),
		quickfix.GroupElement(tagOrderID), quickfix.GroupElement(tagAccount),
		quickfix.GroupElement(tagAccruedInterest), quickfix.GroupElement(tagSettlCurrAmt)})
	for _, o := range []venue.Order{t.BidOrder, t.AskOrder} {
		if o.ParticipantID != s.p.ParticipantID {
			continue
		}
		x := g.Add()
		if o.Direction == venue.Ask {
			x.SetString(tagSide, "2")
		} else {
			x.SetString(tagSide, "1")
		}
		x.SetString(tagOrderID, o.OfferID)
		if account := s.accountOf(o); account != "" {
			x.SetString(tagAccount, account)
		}
		x.SetString(tagAccruedInterest, t.AccruedInterest.String())
		x.SetString(tagSettlCurrAmt, t.SettlementAmount.String())
	}
	m.Body.SetGroup(g)
	return m
}

// cancelOnDisconnect cancels the open orders this credential entered over
// FIX when its session ends, if the operator turned that on for it.
func (s *session) cancelOnDisconnect() {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	on, err := s.g.svc.FIXCancelOnDisconnect(ctx, s.p.ClientID)
	if err != nil || !on {
		return
	}
	page := venue.Page{Limit: 100}
	var ids []string
	for {
		list, err := s.g.svc.Offers(ctx, s.p, trading.OfferFilter{Status: venue.StatusCreated, Type: venue.TypeOffer}, page)
		if err != nil {
			s.g.log.Warn("fix cancel on disconnect", "client_id", s.p.ClientID, "err", err)
			return
		}
		for _, o := range list.Items {
			if o.UserID == s.p.UserID && o.ClientOrderID != "" {
				ids = append(ids, o.ID)
			}
		}
		if list.Next == "" {
			break
		}
		page.Cursor = list.Next
	}
	for _, id := range ids {
		if _, err := s.g.run(ctx, trading.Command{Op: trading.OpCancelOnDisconnect, Principal: s.p, ID: id}); err != nil {
			s.g.log.Warn("fix cancel on disconnect", "offer_id", id, "err", err)
		}
	}
	s.g.log.Info("fix cancel on disconnect", "client_id", s.p.ClientID, "cancelled", len(ids))
}

// accountOf is the account of the firm's order in a trade (the trade's
// event names none: it reads the order's offer, RFQ or quote).
func (s *session) accountOf(o venue.Order) string {
	if o.AccountID != "" {
		return o.AccountID
	}
	v, err := s.g.svc.Offer(s.ctx, s.p, o.OfferID)
	if errors.Is(err, venue.ErrNotFound) {
		v, err = s.g.svc.RFQ(s.ctx, s.p, o.OfferID)
	}
	if err != nil {
		return ""
	}
	return v.AccountID
}

// refresh ends the conflation of a subscription: a snapshot of each of its
// instruments replaces the incrementals the client did not get.
func (s *session) refresh(sub *mdSub) {
	sub.stale = false
	if sub.deep() {
		sub.mu.Lock()
		defer sub.mu.Unlock()
	}
	for id := range sub.instruments {
		if sub.deep() {
			if d, err := s.g.svc.Instrument(s.ctx, s.p, id, 0); err == nil {
				s.g.send(s.id, snapshot(sub.reqID, sub.ladder(d), sub.types))
			}
			continue
		}
		if d, err := s.g.svc.Instrument(s.ctx, s.p, id, sub.depth); err == nil {
			s.g.send(s.id, snapshot(sub.reqID, d, sub.types))
		}
	}
}

// refreshStale refreshes every conflated subscription (the client has read
// its backlog down).
func (s *session) refreshStale() {
	s.mu.Lock()
	var stale []*mdSub
	for _, sub := range s.md {
		if sub.stale {
			stale = append(stale, sub)
		}
	}
	s.mu.Unlock()
	for _, sub := range stale {
		s.refresh(sub)
	}
}
