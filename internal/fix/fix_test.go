package fix_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/quagmt/udecimal"

	"github.com/bondvenue/bondvenue/internal/auth"
	"github.com/bondvenue/bondvenue/internal/cluster"
	"github.com/bondvenue/bondvenue/internal/demo"
	"github.com/bondvenue/bondvenue/internal/fix"
	"github.com/bondvenue/bondvenue/internal/fix/fixstore"
	"github.com/bondvenue/bondvenue/internal/httpapi"
	"github.com/bondvenue/bondvenue/internal/store"
	"github.com/bondvenue/bondvenue/internal/testenv"
	"github.com/bondvenue/bondvenue/internal/trading"
	"github.com/bondvenue/bondvenue/internal/venue"
)

// venueEnv is a venue with demo data and its FIX acceptor.
type venueEnv struct {
	core  *testenv.Venue
	svc   *trading.Service
	creds demo.Credentials
	gw    *fix.Gateway
	port  int
	logs  *syncBuffer // the gateway's log, at debug level
	db    *store.DB
}

// syncBuffer is a log sink safe for concurrent writers.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func newVenue(t *testing.T, e store.Engine) *venueEnv {
	t.Helper()
	return newVenueAt(t, e, nil)
}

// newVenueAt is newVenue whose use cases and engine read the clock now
// (nil: the wall clock).
func newVenueAt(t *testing.T, e store.Engine, now func() time.Time) *venueEnv {
	t.Helper()
	db := testenv.Open(t, e)
	core, creds := testenv.Demo(t, db, testenv.Config{Trading: trading.Config{Logger: slog.New(slog.DiscardHandler), Now: now}})
	v := &venueEnv{core: core, svc: core.Svc, creds: creds, logs: &syncBuffer{}, db: db}
	v.start(t)
	return v
}

// start opens the acceptor (again, after stop: a restart of the gateway
// on the same database).
func (v *venueEnv) start(t *testing.T) {
	t.Helper()
	addr := "127.0.0.1:0"
	if v.port != 0 {
		addr = "127.0.0.1:" + strconv.Itoa(v.port)
	}
	gw, err := fix.New(fix.Deps{Trading: v.svc, Live: v.core.Live, Cluster: v.core.Cluster, Keys: v.core.Keys, Access: v.core.Access}, fixstore.New(v.db), fix.Config{Addr: addr, Logger: slog.New(slog.NewTextHandler(v.logs, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	if err != nil {
		t.Fatal(err)
	}
	if err := gw.Start(); err != nil {
		t.Fatal(err)
	}
	v.gw = gw
	v.port = gw.Addr().(*net.TCPAddr).Port
	t.Cleanup(gw.Stop)
}

// trader is demo participant i's trader credential and principal.
func (v *venueEnv) trader(t *testing.T, i int) (demo.UserCred, venue.Principal) {
	t.Helper()
	p := v.creds.Participants[i]
	for _, u := range p.Users {
		if u.Role == string(venue.RoleTrader) {
			return u, venue.Principal{UserID: u.UserID, ParticipantID: p.ID, Role: venue.RoleTrader, ClientID: u.ClientID}
		}
	}
	t.Fatalf("no trader in participant %d", i)
	return demo.UserCred{}, venue.Principal{}
}

// logon opens a session of demo participant i's trader as compID.
func (v *venueEnv) logon(t *testing.T, d *driver, name, compID string, i int, reset bool) *fixSession {
	t.Helper()
	u, _ := v.trader(t, i)
	s := d.session(name)
	d.do(t, map[string]any{"op": "logon", "id": name, "host": "127.0.0.1", "port": v.port, "sender": compID,
		"target": "BONDVENUE", "username": u.ClientID, "password": u.ClientSecret, "reset": reset, "heartbeat": 30})
	s.wait(t, "logon", func(l fixLine) bool { return l.Event == "logon" })
	return s
}

// book finds a continuous book that allows partial fills and one of its
// instruments; otcBook an OTC market (where RFQs trade) and one of its.
func (v *venueEnv) book(t *testing.T) (string, venue.Instrument) {
	t.Helper()
	return v.marketOf(t, venue.FacilityContinuous)
}

func (v *venueEnv) otcBook(t *testing.T) (string, venue.Instrument) {
	t.Helper()
	return v.marketOf(t, venue.FacilityOTC)
}

func (v *venueEnv) marketOf(t *testing.T, facility string) (market string, in venue.Instrument) {
	t.Helper()
	ctx := context.Background()
	ms, err := v.svc.Markets(ctx, trading.System, trading.MarketFilter{FacilityType: facility}, venue.Page{Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range ms.Items {
		if !m.IsEnabled || m.Hours != nil || (facility == venue.FacilityContinuous && !m.IsPartialFillAllowed) {
			continue
		}
		list, err := v.svc.Instruments(ctx, trading.System, trading.InstrumentFilter{MarketID: m.ID}, venue.Page{Limit: 1})
		if err != nil {
			t.Fatal(err)
		}
		if len(list.Items) > 0 {
			return m.ID, list.Items[0].Instrument
		}
	}
	t.Fatalf("the demo has no %s market with instruments", facility)
	return "", venue.Instrument{}
}

// TestLogon: a wrong secret is refused with Logout 58 naming the problem
// (and no secret in the logs); a good logon binds the CompID to the
// credential, and another credential cannot take it; the security list
// lists the demo's instruments by ISIN.
func TestLogon(t *testing.T) {
	d := startDriver(t)
	for _, e := range []store.Engine{store.SQLite, store.Postgres} {
		t.Run(string(e), func(t *testing.T) {
			v := newVenue(t, e)
			u, _ := v.trader(t, 0)
			bad := d.session("bad-" + string(e))
			d.do(t, map[string]any{"op": "logon", "id": bad.name, "host": "127.0.0.1", "port": v.port, "sender": "FIRM0-" + string(e),
				"target": "BONDVENUE", "username": u.ClientID, "password": "not-the-secret-4711", "reset": true, "heartbeat": 30})
			l := bad.wait(t, "logout", func(l fixLine) bool { return l.Event == "logout" })
			if l.Text != "client_id and/or client_secret is wrong or missing" {
				t.Errorf("refused logon: Logout text %q", l.Text)
			}
			golden(t, "5-refused", bad.msg(t, "5", nil))

			s := v.logon(t, d, "good-"+string(e), "FIRM0-"+string(e), 0, true)
			golden(t, "A", s.msg(t, "A", nil))
			golden(t, "B-logon", s.msg(t, "B", nil))
			// Another credential with the same CompID is refused.
			u1, _ := v.trader(t, 1)
			other := d.session("other-" + string(e))
			d.do(t, map[string]any{"op": "logon", "id": other.name, "host": "127.0.0.1", "port": v.port, "sender": "FIRM0-" + string(e),
				"target": "BONDVENUE", "username": u1.ClientID, "password": u1.ClientSecret, "reset": true, "heartbeat": 30})
			other.wait(t, "end of the second logon", func(l fixLine) bool { return l.Event == "end" || l.Event == "logout" })

			s.send(t, "x", 320, "SL1", 559, 4)
			list := s.msg(t, "y", nil)
			ctx := context.Background()
			all, err := v.svc.Instruments(ctx, trading.System, trading.InstrumentFilter{}, venue.Page{Limit: 100})
			if err != nil {
				t.Fatal(err)
			}
			golden(t, "y", list)
			isins := list.fields(48)
			if list.field(320) != "SL1" || list.field(560) != "0" || len(isins) != len(all.Items) {
				t.Fatalf("security list: %s; want %d instruments", list.Raw, len(all.Items))
			}
			for _, in := range all.Items {
				if !strings.Contains(list.Raw, "|48="+in.Terms.ISIN+"|") {
					t.Errorf("security list lacks %s", in.Terms.ISIN)
				}
			}
			d.do(t, map[string]any{"op": "logout", "id": s.name, "text": "bye"})
			s.wait(t, "end", func(l fixLine) bool { return l.Event == "end" })
			// The engine's debug log shows every message, never a secret.
			logs := v.logs.String()
			if strings.Contains(logs, u.ClientSecret) || strings.Contains(logs, "not-the-secret-4711") || strings.Contains(logs, u1.ClientSecret) {
				t.Error("a client secret is in the gateway's log")
			}
			if !strings.Contains(logs, "554=***") {
				t.Error("the gateway's debug log does not show the Logon (with 554 masked)")
			}
		})
	}
}

// TestOrders: a FIX trader's order rests, a REST trader's order fills it
// in part (both get their reports: the FIX side an ExecutionReport with
// the trade's figures), it is replaced, its status asked, and cancelled;
// a repeated ClOrdID is refused, never applied twice; a bad order is
// rejected with the reason.
func TestOrders(t *testing.T) {
	d := startDriver(t)
	for _, e := range []store.Engine{store.SQLite, store.Postgres} {
		t.Run(string(e), func(t *testing.T) {
			v := newVenue(t, e)
			market, in := v.book(t)
			s := v.logon(t, d, "orders-"+string(e), "ORD0-"+string(e), 0, true)
			ctx := context.Background()
			_, rest := v.trader(t, 1)
			account := v.creds.Participants[0].AccountIDs[0]
			qty := in.MinPiece.Add(in.MinPiece)

			s.send(t, "D", 11, "C1", 1, account, 48, in.Terms.ISIN, 22, 4, 1301, market, 54, 2, 60, fixNow(), 38, qty, 40, 2, 44, "99.5", 59, 1)
			nw := s.msg(t, "8", func(l fixLine) bool { return l.field(11) == "C1" && l.field(150) == "0" })
			golden(t, "8-new", nw)
			orderID := nw.field(37)
			if nw.field(39) != "0" || nw.field(151) != qty.String() || nw.field(44) != "99.5" || orderID == "" {
				t.Fatalf("new order report: %s", nw.Raw)
			}
			// The same ClOrdID again: refused, not a second order.
			s.send(t, "D", 11, "C1", 1, account, 48, in.Terms.ISIN, 22, 4, 1301, market, 54, 2, 60, fixNow(), 38, qty, 40, 2, 44, "99.5", 59, 1)
			dup := s.msg(t, "8", func(l fixLine) bool { return l.field(11) == "C1" && l.field(150) == "8" })
			golden(t, "8-rejected-duplicate", dup)
			if dup.field(103) != "6" || !strings.Contains(dup.field(58), "duplicate ClOrdID") || dup.field(37) != orderID {
				t.Errorf("repeated ClOrdID: %s; want a duplicate naming order %s", dup.Raw, orderID)
			}
			// A ClOrdID applied whose answer was lost with the process
			// that applied it is answered as if it had been kept: the
			// duplicate names the order it made, and there is one.
			s.send(t, "D", 11, "L1", 1, account, 48, in.Terms.ISIN, 22, 4, 1301, market, 54, 2, 60, fixNow(), 38, qty, 40, 2, 44, "99.9", 59, 1)
			lost := s.msg(t, "8", func(l fixLine) bool { return l.field(11) == "L1" && l.field(150) == "0" }).field(37)
			v.dropFIXAnswer(t, 0, "L1")
			s.send(t, "D", 11, "L1", 1, account, 48, in.Terms.ISIN, 22, 4, 1301, market, 54, 2, 60, fixNow(), 38, qty, 40, 2, 44, "99.9", 59, 1)
			dup = s.msg(t, "8", func(l fixLine) bool { return l.field(11) == "L1" && l.field(150) == "8" })
			if dup.field(103) != "6" || dup.field(37) != lost {
				t.Errorf("repeated ClOrdID whose answer was lost: %s; want a duplicate naming order %s", dup.Raw, lost)
			}
			_, p0 := v.trader(t, 0)
			if o, err := v.svc.OfferByClientOrderID(ctx, p0, "L1"); err != nil || o.ID != lost {
				t.Errorf("the order of ClOrdID L1 = %s, %v; want %s", o.ID, err, lost)
			}
			if n := v.offersNoted(t, "L1"); n != 1 {
				t.Errorf("%d orders of ClOrdID L1, want 1", n)
			}
			s.send(t, "F", 11, "L1-X", 41, "L1", 37, lost, 54, 2, 60, fixNow())
			s.msg(t, "8", func(l fixLine) bool { return l.field(11) == "L1-X" && l.field(150) == "4" })

			price := udecimal.MustParse("99.5")
			bid, err := v.svc.CreateOffer(ctx, rest, trading.OfferInput{InstrumentID: in.ID, MarketID: market,
				AccountID: v.creds.Participants[1].AccountIDs[0], Direction: venue.Bid, Price: &price, Quantity: &in.MinPiece})
			if err != nil || len(bid.Trades) != 1 {
				t.Fatalf("REST bid: %d trades, %v", len(bid.Trades), err)
			}
			tr := bid.Trades[0]
			fill := s.msg(t, "8", func(l fixLine) bool { return l.field(150) == "F" })
			golden(t, "8-fill", fill)
			if fill.field(37) != orderID || fill.field(11) != "C1" || fill.field(39) != "1" || fill.field(32) != in.MinPiece.String() ||
				fill.field(31) != "99.5" || fill.field(880) != tr.TransactionIdentificationCode ||
				fill.field(159) != tr.AccruedInterest.String() || fill.field(119) != tr.SettlementAmount.String() ||
				fill.field(14) != in.MinPiece.String() || fill.field(151) != in.MinPiece.String() || fill.field(6) != "99.5" {
				t.Errorf("fill report: %s\nwant trade %+v", fill.Raw, tr)
			}

			// Replace: a new price, named by OrigClOrdID.
			s.send(t, "G", 11, "C2", 41, "C1", 1, account, 48, in.Terms.ISIN, 22, 4, 54, 2, 60, fixNow(), 38, qty, 40, 2, 44, "99.75")
			rep := s.msg(t, "8", func(l fixLine) bool { return l.field(150) == "5" })
			golden(t, "8-replaced", rep)
			if rep.field(11) != "C2" || rep.field(41) != "C1" || rep.field(44) != "99.75" || rep.field(39) != "1" {
				t.Errorf("replaced report: %s", rep.Raw)
			}
			s.send(t, "H", 790, "S1", 11, "C2", 54, 2)
			st := s.msg(t, "8", func(l fixLine) bool { return l.field(150) == "I" })
			golden(t, "8-status", st)
			if st.field(37) != orderID || st.field(790) != "S1" || st.field(39) != "1" || st.field(44) != "99.75" {
				t.Errorf("status report: %s", st.Raw)
			}
			// Cancel, then cancel again: the second is rejected as too late.
			s.send(t, "F", 11, "C3", 41, "C2", 37, orderID, 54, 2, 60, fixNow())
			cx := s.msg(t, "8", func(l fixLine) bool { return l.field(150) == "4" })
			golden(t, "8-canceled", cx)
			if cx.field(11) != "C3" || cx.field(41) != "C2" || cx.field(39) != "4" || cx.field(151) != "0" {
				t.Errorf("cancelled report: %s", cx.Raw)
			}
			s.send(t, "F", 11, "C4", 41, "C3", 37, orderID, 54, 2, 60, fixNow())
			rj := s.msg(t, "9", nil)
			golden(t, "9", rj)
			if rj.field(11) != "C4" || rj.field(434) != "1" || rj.field(102) != "0" || rj.field(39) != "4" {
				t.Errorf("cancel reject: %s", rj.Raw)
			}
			// A bad order: its reason.
			s.send(t, "D", 11, "C5", 1, account, 48, "XS0000000000", 22, 4, 54, 1, 60, fixNow(), 38, qty, 40, 2, 44, "99", 59, 1)
			bad := s.msg(t, "8", func(l fixLine) bool { return l.field(11) == "C5" })
			golden(t, "8-rejected", bad)
			if bad.field(150) != "8" || bad.field(103) != "5" || !strings.Contains(bad.field(58), "XS0000000000") {
				t.Errorf("unknown instrument: %s", bad.Raw)
			}
			d.do(t, map[string]any{"op": "logout", "id": s.name, "text": "bye"})
			s.wait(t, "end", func(l fixLine) bool { return l.Event == "end" })
		})
	}
}

func fixNow() string { return time.Now().UTC().Format("20060102-15:04:05.000") }

// TestRFQ runs the RFQ flow both ways between FIX and REST: a FIX
// requester asks a REST dealer (named by LEI) and lifts its quote; a REST
// requester asks a FIX dealer, which quotes and is hit. Each side gets the
// quote, its status reports and the execution.
func TestRFQ(t *testing.T) {
	d := startDriver(t)
	for _, e := range []store.Engine{store.SQLite, store.Postgres} {
		t.Run(string(e), func(t *testing.T) {
			v := newVenue(t, e)
			market, in := v.otcBook(t)
			ctx := context.Background()
			_, p0 := v.trader(t, 0)
			_, p1 := v.trader(t, 1)
			acc0, acc1 := v.creds.Participants[0].AccountIDs[0], v.creds.Participants[1].AccountIDs[0]
			fix0 := v.logon(t, d, "rfq0-"+string(e), "RFQ0-"+string(e), 0, true)
			fix1 := v.logon(t, d, "rfq1-"+string(e), "RFQ1-"+string(e), 1, true)

			// FIX requester → REST dealer.
			fix0.send(t, "R", 131, "Q-REQ-1", 146, 1, 55, "[N/A]", 48, in.Terms.ISIN, 22, 4, 54, 1, 38, in.MinPiece,
				1, acc0, 1301, market, 36011, v.creds.Participants[1].LEI)
			// The dealer's FIX session is told of the request too (it is
			// the same firm as the REST dealer here).
			req := fix1.msg(t, "R", nil)
			golden(t, "R", req)
			rfqID := req.field(131)
			if req.field(48) != in.Terms.ISIN || req.field(54) != "1" || req.field(38) != in.MinPiece.String() ||
				req.field(36010) != v.creds.Participants[0].LEI {
				t.Errorf("QuoteRequest to the dealer: %s", req.Raw)
			}
			rfq, err := v.svc.RFQ(ctx, p1, rfqID)
			if err != nil {
				t.Fatalf("the REST dealer reads RFQ %s: %v", rfqID, err)
			}
			price := udecimal.MustParse("100.25")
			q, err := v.svc.CreateOffer(ctx, p1, trading.OfferInput{MatchedOfferID: rfq.ID, InstrumentID: in.ID, MarketID: market,
				AccountID: acc1, Direction: venue.Ask, Price: &price, Quantity: &rfq.Quantity})
			if err != nil {
				t.Fatalf("REST quote: %v", err)
			}
			s := fix0.msg(t, "S", nil)
			golden(t, "S", s)
			if s.field(117) != q.ID || s.field(131) != "Q-REQ-1" || s.field(133) != "100.25" || s.field(135) != in.MinPiece.String() {
				t.Errorf("Quote to the FIX requester: %s", s.Raw)
			}
			// The hit carries a ClOrdID of its own: its execution report
			// names it (the client matches its fills by ClOrdID), never
			// the QuoteReqID.
			fix0.send(t, "AJ", 693, "RESP-1", 11, "HIT-1", 117, q.ID, 131, "Q-REQ-1", 694, 1, 1, acc0, 54, 1, 60, fixNow())
			fill := fix0.msg(t, "8", func(l fixLine) bool { return l.field(150) == "F" })
			golden(t, "8-hit", fill)
			if fill.field(11) != "HIT-1" {
				t.Errorf("the FIX requester's execution has 11 = %q, want the hit's own ClOrdID HIT-1: %s", fill.field(11), fill.Raw)
			}
			if fill.field(31) != "100.25" || fill.field(32) != in.MinPiece.String() || fill.field(37) != rfqID {
				t.Errorf("the FIX requester's execution: %s", fill.Raw)
			}
			st := fix0.msg(t, "AI", func(l fixLine) bool { return l.field(117) == q.ID })
			golden(t, "AI-accepted", st)
			if st.field(297) != "0" {
				t.Errorf("quote status to the requester: %s", st.Raw)
			}
			trades, err := v.svc.Trades(ctx, p1, trading.TradeFilter{OfferID: q.ID}, venue.Page{Limit: 10})
			if err != nil || len(trades.Items) != 1 {
				t.Fatalf("the REST dealer's trade: %d, %v", len(trades.Items), err)
			}

			// REST requester → FIX dealer.
			r2, err := v.svc.CreateRFQ(ctx, p0, trading.OfferInput{InstrumentID: in.ID, MarketID: market, AccountID: acc0,
				Direction: venue.Ask, Quantity: &in.MinPiece, Counterparties: []string{p1.ParticipantID}})
			if err != nil {
				t.Fatalf("REST RFQ: %v", err)
			}
			req2 := fix1.msg(t, "R", func(l fixLine) bool { return l.field(131) == r2.ID })
			if req2.field(54) != "2" {
				t.Errorf("QuoteRequest of a sell RFQ: %s", req2.Raw)
			}
			fix1.send(t, "S", 117, "DQ-1", 131, r2.ID, 1, acc1, 132, "99.875", 60, fixNow())
			own := fix1.msg(t, "AI", func(l fixLine) bool { return l.field(117) == "DQ-1" })
			golden(t, "AI-active", own)
			if own.field(297) != "16" {
				t.Errorf("the dealer's quote is active: %s", own.Raw)
			}
			view, err := v.svc.RFQ(ctx, p0, r2.ID)
			if err != nil || len(view.MatchedOffers) != 1 {
				t.Fatalf("the REST requester sees %d quotes, %v", len(view.MatchedOffers), err)
			}
			quote := view.MatchedOffers[0]
			if !quote.Price.Equal(udecimal.MustParse("99.875")) || quote.Direction != venue.Bid {
				t.Errorf("the FIX dealer's quote over REST: %+v", quote)
			}
			if _, err := v.svc.AcceptQuote(ctx, p0, quote.ID, venue.Parties{}); err != nil {
				t.Fatalf("REST accept: %v", err)
			}
			dfill := fix1.msg(t, "8", func(l fixLine) bool { return l.field(150) == "F" && l.field(11) == "DQ-1" })
			if dfill.field(31) != "99.875" || dfill.field(54) != "1" || dfill.field(39) != "2" {
				t.Errorf("the FIX dealer's execution: %s", dfill.Raw)
			}
			fix1.msg(t, "AI", func(l fixLine) bool { return l.field(117) == "DQ-1" && l.field(297) == "0" })

			// A request naming a firm the venue does not know, and a
			// decline of an RFQ that does not exist.
			fix0.send(t, "R", 131, "Q-REQ-2", 146, 1, 55, "[N/A]", 48, in.Terms.ISIN, 22, 4, 54, 1, 38, in.MinPiece,
				1, acc0, 36011, "5493000000000000000X")
			ag := fix0.msg(t, "AG", func(l fixLine) bool { return l.field(131) == "Q-REQ-2" })
			golden(t, "AG", ag)
			if ag.field(658) != "99" || !strings.Contains(ag.field(58), "names no participant") {
				t.Errorf("QuoteRequestReject: %s", ag.Raw)
			}
			// The dealer named in the entry's Parties instead of 36011.
			fix0.send(t, "R", 131, "Q-REQ-3", 1, acc0, 146, 1, 55, "[N/A]", 48, in.Terms.ISIN, 22, 4, 54, 2, 38, in.MinPiece,
				453, 1, 448, v.creds.Participants[1].LEI, 447, "N", 452, 17)
			fix0.none(t, "3", 500*time.Millisecond, nil)
			fix0.none(t, "AG", 10*time.Millisecond, nil)
			req3 := fix1.msg(t, "R", func(l fixLine) bool { return l.field(36010) == v.creds.Participants[0].LEI && l.field(54) == "2" })
			if r3, err := v.svc.RFQ(ctx, p0, req3.field(131)); err != nil || len(r3.Counterparties) != 1 || r3.Counterparties[0] != p1.ParticipantID {
				t.Errorf("the RFQ of a request naming its dealer in Parties: %+v, %v", r3.Counterparties, err)
			}
			fix1.send(t, "AG", 131, "01a00000-0000-7000-8000-000000000000", 658, 10, 146, 1, 55, "[N/A]", 48, in.Terms.ISIN, 22, 4)
			j := fix1.msg(t, "j", nil)
			golden(t, "j", j)
			if j.field(380) != "0" || j.field(372) != "AG" {
				t.Errorf("BusinessMessageReject: %s", j.Raw)
			}
		})
	}
}

// TestRestart: the venue (its trading service and FIX gateway) stops in
// the middle of a session and starts again on the same database; the
// client logs on without resetting: sequence numbers continue on both
// sides, a fill that happened while it was away is reported once, and a
// resend request for the earlier messages is answered with them (PossDup)
// from the database.
func TestRestart(t *testing.T) {
	d := startDriver(t)
	for _, e := range []store.Engine{store.SQLite, store.Postgres} {
		t.Run(string(e), func(t *testing.T) {
			v := newVenue(t, e)
			market, in := v.book(t)
			ctx := context.Background()
			_, rest := v.trader(t, 1)
			account := v.creds.Participants[0].AccountIDs[0]
			name := "restart-" + string(e)
			s := v.logon(t, d, name, "RST0-"+string(e), 0, true)
			s.send(t, "D", 11, "R1", 1, account, 48, in.Terms.ISIN, 22, 4, 1301, market, 54, 2, 60, fixNow(),
				38, in.MinPiece.Add(in.MinPiece), 40, 2, 44, "99.5", 59, 1)
			nw := s.msg(t, "8", func(l fixLine) bool { return l.field(11) == "R1" && l.field(150) == "0" })

			v.gw.Stop()
			s.wait(t, "the session's end", func(l fixLine) bool { return l.Event == "end" })
			v.core.Close()
			v.core = testenv.Started(t, v.db, testenv.Config{Trading: trading.Config{Logger: slog.New(slog.DiscardHandler)}})
			v.svc = v.core.Svc
			// While the gateway is down a REST order fills part of it.
			price := udecimal.MustParse("99.5")
			if _, err := v.svc.CreateOffer(ctx, rest, trading.OfferInput{InstrumentID: in.ID, MarketID: market,
				AccountID: v.creds.Participants[1].AccountIDs[0], Direction: venue.Bid, Price: &price, Quantity: &in.MinPiece}); err != nil {
				t.Fatal(err)
			}
			v.start(t)
			s = v.logon(t, d, name, "RST0-"+string(e), 0, false)
			fill := s.msg(t, "8", func(l fixLine) bool { return l.field(150) == "F" })
			if fill.field(11) != "R1" || fill.field(37) != nw.field(37) || fill.Seq <= nw.Seq {
				t.Errorf("the fill while away: %s (seq %d after the New at %d)", fill.Raw, fill.Seq, nw.Seq)
			}
			s.none(t, "8", time.Second, func(l fixLine) bool { return l.field(150) == "F" || l.field(150) == "0" })
			// The New report again, from the database.
			d.do(t, map[string]any{"op": "resend", "id": name, "begin": nw.Seq, "end": nw.Seq})
			again := s.msg(t, "8", func(l fixLine) bool { return l.PossDup && l.field(11) == "R1" })
			if again.Seq != nw.Seq || again.field(17) != nw.field(17) {
				t.Errorf("resent New: %s, want seq %d exec %s", again.Raw, nw.Seq, nw.field(17))
			}
			d.do(t, map[string]any{"op": "logout", "id": name, "text": "bye"})
			s.wait(t, "end", func(l fixLine) bool { return l.Event == "end" })
		})
	}
}

// TestLogonAfterGap: a Logon numbered past what the venue expects (the
// venue never received the client's last messages, as when it stopped
// while they were on their way) makes the engine ask the client to resend,
// while the client asks the venue for what it missed; the session's own
// application messages (the day's news sent at logon) wait until the
// client's resend is done, since a client that gets an application message
// while it answers a ResendRequest may end the session (this one does).
// Whether the news would otherwise overtake the resend is a matter of
// timing, so the ordering asserted here can hold without the wait too; the
// recovery on both sides cannot.
func TestLogonAfterGap(t *testing.T) {
	d := startDriver(t)
	for _, e := range []store.Engine{store.SQLite, store.Postgres} {
		t.Run(string(e), func(t *testing.T) {
			v := newVenue(t, e)
			ctx := context.Background()
			name, comp := "gap-"+string(e), "GAP0-"+string(e)
			s := v.logon(t, d, name, comp, 0, true)
			s.msg(t, "B", nil) // the news at logon
			for i := range 3 {
				s.send(t, "x", 320, "GAP0"+strconv.Itoa(i), 559, 4)
				s.msg(t, "y", nil)
			}
			d.do(t, map[string]any{"op": "logout", "id": name, "text": "bye"})
			s.wait(t, "end", func(l fixLine) bool { return l.Event == "end" })

			// The venue forgets what it received after the client's Logon,
			// and the client never got the venue's last message: both
			// sides ask for a resend.
			id := "FIXT.1.1:BONDVENUE->" + comp
			sessions := fixstore.New(v.db)
			st, ok, err := sessions.PeekSession(ctx, id)
			if err != nil || !ok || st.NextTarget < 2 {
				t.Fatalf("PeekSession(%s) = %+v, %v, %v", id, st, ok, err)
			}
			if err := sessions.SetSeqNums(ctx, id, st.NextSender+1, 2); err != nil {
				t.Fatal(err)
			}

			s = v.logon(t, d, name, comp, 0, false)
			s.msg(t, "2", func(l fixLine) bool { return l.field(7) == "2" })
			s.msg(t, "B", nil)
			// The news came after the client's resend: its resent messages
			// and gap fills were all sent before the first news arrived.
			lastResent, firstNews := -1, -1
			d.mu.Lock()
			for i := s.next; i < len(d.lines); i++ {
				l := d.lines[i]
				if l.ID != name {
					continue
				}
				if l.Event == "sent" && (l.PossDup || l.Type == "4") {
					lastResent = i
				}
				if l.Event == "msg" && l.Type == "B" && firstNews < 0 {
					firstNews = i
				}
			}
			d.mu.Unlock()
			if lastResent < 0 || firstNews < lastResent {
				t.Errorf("the client's resend ended at line %d, the first news came at line %d: want a resend, then the news", lastResent, firstNews)
			}
			s.send(t, "x", 320, "GAP1", 559, 4)
			s.msg(t, "y", func(l fixLine) bool { return l.field(320) == "GAP1" })
			s.none(t, "5", 0, nil)
			d.do(t, map[string]any{"op": "logout", "id": name, "text": "bye"})
			s.wait(t, "end", func(l fixLine) bool { return l.Event == "end" })
		})
	}
}

// TestMarketDataDepth: a FIX session of one firm follows an instrument's
// book five levels deep (264=5) while another firm amends and cancels a
// bid below the best over the venue's use cases: each change reaches it
// as an incremental of that level (279=1 change, 279=2 delete at its 290
// position), not only changes of the best.
func TestMarketDataDepth(t *testing.T) {
	d := startDriver(t)
	for _, e := range []store.Engine{store.SQLite, store.Postgres} {
		t.Run(string(e), func(t *testing.T) {
			v := newVenue(t, e)
			market, in := v.book(t)
			ctx := context.Background()
			_, firmA := v.trader(t, 0)
			_, firmB := v.trader(t, 1)
			bid := func(price string) trading.OfferView {
				t.Helper()
				p := udecimal.MustParse(price)
				o, err := v.svc.CreateOffer(ctx, firmA, trading.OfferInput{InstrumentID: in.ID, MarketID: market,
					AccountID: v.creds.Participants[0].AccountIDs[0], Direction: venue.Bid, Price: &p, Quantity: &in.MinPiece})
				if err != nil {
					t.Fatal(err)
				}
				return o
			}
			// position is the offer's level (from 1) among the market's bids
			// as firm B reads them.
			position := func(offerID string) int {
				t.Helper()
				detail, err := v.svc.Instrument(ctx, firmB, in.ID, 0)
				if err != nil {
					t.Fatal(err)
				}
				n := 0
				for _, le := range detail.Limits.Bid {
					if le.MarketID == market {
						n++
						if le.OfferID == offerID {
							return n
						}
					}
				}
				t.Fatalf("offer %s is not among the bids", offerID)
				return 0
			}
			bid("90")
			below := bid("89")
			pos := position(below.ID)
			if pos < 2 {
				t.Fatalf("the bid at 89 is level %d, want below the best", pos)
			}

			s := v.logon(t, d, "depth-"+string(e), "DEPTH1-"+string(e), 1, true)
			s.send(t, "V", 262, "DEPTH", 263, 1, 264, 5, 267, 2, 269, 0, 269, 1, 146, 1, 55, "[N/A]", 48, in.Terms.ISIN, 22, 4)
			snap := s.msg(t, "W", func(l fixLine) bool { return l.field(262) == "DEPTH" })
			if !strings.Contains(snap.Raw, "|270=89|") {
				t.Fatalf("snapshot without the bid at 89: %s", snap.Raw)
			}

			amended := udecimal.MustParse("89.5")
			if _, err := v.svc.UpdateOffer(ctx, firmA, below.ID, trading.ChangeInput{Price: &amended}); err != nil {
				t.Fatal(err)
			}
			pos = position(below.ID)
			level := "|290=" + strconv.Itoa(pos) + "|"
			amend := s.msg(t, "X", func(l fixLine) bool { return l.field(262) == "DEPTH" })
			golden(t, "X-depth", amend)
			if !strings.Contains(amend.Raw, "|279=1|269=0|") || !strings.Contains(amend.Raw, "|270=89.5|") ||
				!strings.Contains(amend.Raw, level) || len(amend.fields(279)) != 1 {
				t.Errorf("incremental of the amend below the best: %s; want one change of the bid at level %d to 89.5", amend.Raw, pos)
			}
			if _, err := v.svc.DeleteOffer(ctx, firmA, below.ID); err != nil {
				t.Fatal(err)
			}
			cancel := s.msg(t, "X", func(l fixLine) bool { return l.field(262) == "DEPTH" })
			if !strings.Contains(cancel.Raw, "|279=2|269=0|") || !strings.Contains(cancel.Raw, level) || len(cancel.fields(279)) != 1 {
				t.Errorf("incremental of the cancel below the best: %s; want one delete of the bid at level %d", cancel.Raw, pos)
			}
		})
	}
}

// TestMarketDataNewsDropCopy: a FIX session subscribes to an instrument's
// book (snapshot, then incrementals as REST orders change it and trade),
// receives the news the operator publishes, and asks for drop copies: an
// acknowledgement, today's trades of its firm, then each new one.
func TestMarketDataNewsDropCopy(t *testing.T) {
	d := startDriver(t)
	for _, e := range []store.Engine{store.SQLite, store.Postgres} {
		t.Run(string(e), func(t *testing.T) {
			v := newVenue(t, e)
			market, in := v.book(t)
			ctx := context.Background()
			_, p0 := v.trader(t, 0)
			_, p1 := v.trader(t, 1)
			acc0, acc1 := v.creds.Participants[0].AccountIDs[0], v.creds.Participants[1].AccountIDs[0]
			s := v.logon(t, d, "md-"+string(e), "MD0-"+string(e), 0, true)

			ask := udecimal.MustParse("101.5")
			if _, err := v.svc.CreateOffer(ctx, p1, trading.OfferInput{InstrumentID: in.ID, MarketID: market, AccountID: acc1,
				Direction: venue.Ask, Price: &ask, Quantity: &in.MinPiece}); err != nil {
				t.Fatal(err)
			}
			detail, err := v.svc.Instrument(ctx, p0, in.ID, 0)
			if err != nil {
				t.Fatal(err)
			}
			s.send(t, "V", 262, "MD1", 263, 1, 264, 0, 267, 3, 269, 0, 269, 1, 269, 2, 146, 1, 55, "[N/A]", 48, in.Terms.ISIN, 22, 4)
			snap := s.msg(t, "W", func(l fixLine) bool { return l.field(262) == "MD1" })
			golden(t, "W", snap)
			var asks []string
			types, pxs := snap.fields(269), snap.fields(270)
			for i, typ := range types {
				if typ == "1" && i < len(pxs) {
					asks = append(asks, pxs[i])
				}
			}
			if snap.field(48) != in.Terms.ISIN || len(asks) != len(detail.Limits.Ask) || len(types) != len(detail.Limits.Ask)+len(detail.Limits.Bid) {
				t.Fatalf("snapshot %s; want %d asks and %d bids", snap.Raw, len(detail.Limits.Ask), len(detail.Limits.Bid))
			}
			for i, a := range detail.Limits.Ask {
				if asks[i] != a.Limit.String() {
					t.Errorf("snapshot ask %d at %s, want %s", i+1, asks[i], a.Limit)
				}
			}
			// A better bid over REST moves the top: an incremental.
			best := udecimal.MustParse("95")
			if len(detail.Limits.Bid) > 0 {
				best = detail.Limits.Bid[0].Limit.Add(udecimal.MustParse("0.01"))
			}
			if _, err := v.svc.CreateOffer(ctx, p1, trading.OfferInput{InstrumentID: in.ID, MarketID: market, AccountID: acc1,
				Direction: venue.Bid, Price: &best, Quantity: &in.MinPiece}); err != nil {
				t.Fatal(err)
			}
			inc := s.msg(t, "X", func(l fixLine) bool {
				return strings.Contains(l.Raw, "|269=0|") && strings.Contains(l.Raw, "|270="+best.String()+"|")
			})
			golden(t, "X-book", inc)
			if inc.field(262) != "MD1" || inc.field(48) != in.Terms.ISIN {
				t.Errorf("incremental: %s", inc.Raw)
			}
			// A trade: the drop copy subscription sees it too.
			s.send(t, "AD", 568, "DC1", 569, 0, 263, 1)
			ack := s.msg(t, "AQ", nil)
			golden(t, "AQ", ack)
			if ack.field(568) != "DC1" || ack.field(749) != "0" {
				t.Errorf("drop copy ack: %s", ack.Raw)
			}
			lift, err := v.svc.CreateOffer(ctx, p0, trading.OfferInput{InstrumentID: in.ID, MarketID: market, AccountID: acc0,
				Direction: venue.Bid, Price: &ask, Quantity: &in.MinPiece})
			if err != nil || len(lift.Trades) != 1 {
				t.Fatalf("lift: %d trades, %v", len(lift.Trades), err)
			}
			tr := lift.Trades[0]
			print := s.msg(t, "X", func(l fixLine) bool { return strings.Contains(l.Raw, "|269=2|") })
			golden(t, "X-trade", print)
			if !strings.Contains(print.Raw, "|270="+ask.String()+"|") || !strings.Contains(print.Raw, "|271="+in.MinPiece.String()+"|") {
				t.Errorf("trade incremental: %s", print.Raw)
			}
			dc := s.msg(t, "AE", func(l fixLine) bool { return l.field(571) == tr.ID })
			golden(t, "AE", dc)
			if dc.field(568) != "DC1" || dc.field(880) != tr.TransactionIdentificationCode || dc.field(31) != ask.String() ||
				dc.field(54) != "1" || dc.field(37) != lift.ID || dc.field(1) != acc0 || dc.field(1390) != "1" {
				t.Errorf("drop copy: %s", dc.Raw)
			}
			// A snapshot request now lists that trade among today's.
			s.send(t, "AD", 568, "DC2", 569, 0, 263, 0)
			s.msg(t, "AQ", func(l fixLine) bool { return l.field(568) == "DC2" })
			s.msg(t, "AE", func(l fixLine) bool { return l.field(568) == "DC2" && l.field(571) == tr.ID })
			// An unknown instrument.
			s.send(t, "V", 262, "MD2", 263, 0, 264, 1, 267, 1, 269, 0, 146, 1, 55, "[N/A]", 48, "XS0000000000", 22, 4)
			y := s.msg(t, "Y", nil)
			golden(t, "Y", y)
			if y.field(262) != "MD2" || y.field(281) != "0" {
				t.Errorf("MarketDataRequestReject: %s", y.Raw)
			}
			// Unsubscribed: no more incrementals. (A security list request
			// after it is answered once the unsubscription is through: the
			// session handles its messages in order.)
			s.send(t, "V", 262, "MD1", 263, 2, 264, 0, 267, 1, 269, 0, 146, 1, 55, "[N/A]", 48, in.Terms.ISIN, 22, 4)
			s.send(t, "x", 320, "SL-after", 559, 0, 48, in.Terms.ISIN)
			s.msg(t, "y", func(l fixLine) bool { return l.field(320) == "SL-after" })
			s.drain()

			if _, err := v.svc.CreateNews(ctx, trading.System, trading.NewsInput{Title: "Notice to FIX members",
				Body: "First line.\nSecond line.", Source: "bondvenue"}); err != nil {
				t.Fatal(err)
			}
			news := s.msg(t, "B", func(l fixLine) bool { return l.field(148) == "Notice to FIX members" })
			golden(t, "B", news)
			if lines := news.fields(58); len(lines) != 2 || lines[0] != "First line." || lines[1] != "Second line." || news.field(33) != "2" {
				t.Errorf("news: %s", news.Raw)
			}
			worse := best.Sub(udecimal.MustParse("0.01"))
			if _, err := v.svc.CreateOffer(ctx, p1, trading.OfferInput{InstrumentID: in.ID, MarketID: market, AccountID: acc1,
				Direction: venue.Bid, Price: &worse, Quantity: &in.MinPiece}); err != nil {
				t.Fatal(err)
			}
			s.none(t, "X", 500*time.Millisecond, nil)
			// A message of the dictionary the venue does not act on.
			s.send(t, "Z", 298, 4)
			if j := s.msg(t, "j", nil); j.field(380) != "3" || j.field(372) != "Z" {
				t.Errorf("QuoteCancel: %s", j.Raw)
			}
		})
	}
}

// TestCancelOnDisconnect: with the setting on for its credential, a
// session that drops its connection has its open orders cancelled; with
// it off they rest.
func TestCancelOnDisconnect(t *testing.T) {
	d := startDriver(t)
	v := newVenue(t, store.SQLite)
	market, in := v.book(t)
	ctx := context.Background()
	u, p0 := v.trader(t, 0)
	account := v.creds.Participants[0].AccountIDs[0]
	order := func(s *fixSession, cl string) string {
		t.Helper()
		s.send(t, "D", 11, cl, 1, account, 48, in.Terms.ISIN, 22, 4, 1301, market, 54, 2, 60, fixNow(), 38, in.MinPiece, 40, 2, 44, "120", 59, 1)
		return s.msg(t, "8", func(l fixLine) bool { return l.field(11) == cl && l.field(150) == "0" }).field(37)
	}
	status := func(id string) string {
		t.Helper()
		o, err := v.svc.Offer(ctx, p0, id)
		if err != nil {
			t.Fatal(err)
		}
		return o.Status
	}
	s := v.logon(t, d, "cod-off", "COD0", 0, true)
	kept := order(s, "K1")
	d.do(t, map[string]any{"op": "drop", "id": s.name})
	s.wait(t, "end", func(l fixLine) bool { return l.Event == "end" })
	time.Sleep(300 * time.Millisecond)
	if st := status(kept); st != venue.StatusCreated {
		t.Errorf("without cancel-on-disconnect the order is %s, want it resting", st)
	}
	if err := v.svc.SetFIXCancelOnDisconnect(ctx, trading.System, u.ClientID, true); err != nil {
		t.Fatal(err)
	}
	s = v.logon(t, d, "cod-on", "COD0", 0, true)
	gone := order(s, "G1")
	d.do(t, map[string]any{"op": "drop", "id": s.name})
	s.wait(t, "end", func(l fixLine) bool { return l.Event == "end" })
	testenv.Wait(t, "with cancel-on-disconnect the order cancelled after the drop", func() bool { return status(gone) == venue.StatusCancelled })
	// The REST order of the same firm, and the order entered before the
	// setting by another session... are the credential's: only FIX orders
	// of this credential are cancelled, so the first one goes too.
	testenv.Wait(t, "the credential's earlier FIX order cancelled", func() bool { return status(kept) == venue.StatusCancelled })
}

// TestStandbySession: a FIX session on a standby (another instance leads
// on the same PostgreSQL database) enters, amends and cancels an order:
// the commands run on the leader, passed on signed, and the reports come
// from the standby's own feed. A command not signed by an instance is
// refused.
func TestStandbySession(t *testing.T) {
	d := startDriver(t)
	ctx := context.Background()
	url := testenv.DatabaseURL(t, store.Postgres)
	h := auth.FastHasher
	cfg := testenv.Config{Trading: trading.Config{Logger: slog.New(slog.DiscardHandler), Hasher: &h}, CampaignInterval: 100 * time.Millisecond}
	leader, creds := testenv.Demo(t, testenv.OpenConfig(t, store.Config{URL: url}), cfg)
	srv := httptest.NewServer(httpapi.New(httpapi.Deps{Trading: leader.Svc, Live: leader.Live, Cluster: leader.Cluster, Engine: leader.Sequencer, Keys: leader.Keys, Access: leader.Access, Records: leader.Records},
		httpapi.Config{Logger: slog.New(slog.DiscardHandler)}).Handler())
	t.Cleanup(srv.Close)
	if err := leader.Cluster.Announce(ctx, srv.URL); err != nil {
		t.Fatal(err)
	}
	db := testenv.OpenConfig(t, store.Config{URL: url})
	standby := testenv.Started(t, db, cfg)
	if standby.Cluster.Role() != cluster.RoleStandby {
		t.Fatalf("role %s", standby.Cluster.Role())
	}
	v := &venueEnv{core: standby, svc: standby.Svc, creds: creds, logs: &syncBuffer{}, db: db}
	v.start(t)
	market, in := v.book(t)
	account := creds.Participants[0].AccountIDs[0]
	s := v.logon(t, d, "standby-pg", "STBY0", 0, true)
	s.send(t, "D", 11, "SB1", 1, account, 48, in.Terms.ISIN, 22, 4, 1301, market, 54, 2, 60, fixNow(), 38, in.MinPiece, 40, 2, 44, "118", 59, 1)
	nw := s.msg(t, "8", func(l fixLine) bool { return l.field(11) == "SB1" })
	if nw.field(150) != "0" {
		t.Fatalf("the order through the standby: %s", nw.Raw)
	}
	_, p0 := v.trader(t, 0)
	if o, err := leader.Svc.Offer(ctx, p0, nw.field(37)); err != nil || o.ClientOrderID != "SB1" {
		t.Errorf("the order on the leader: %+v, %v", o.ClientOrderID, err)
	}
	s.send(t, "G", 11, "SB2", 41, "SB1", 1, account, 48, in.Terms.ISIN, 22, 4, 54, 2, 60, fixNow(), 38, in.MinPiece, 40, 2, 44, "118.5")
	if rep := s.msg(t, "8", func(l fixLine) bool { return l.field(150) == "5" }); rep.field(44) != "118.5" {
		t.Errorf("replaced through the standby: %s", rep.Raw)
	}
	s.send(t, "F", 11, "SB3", 41, "SB2", 54, 2, 60, fixNow())
	s.msg(t, "8", func(l fixLine) bool { return l.field(150) == "4" && l.field(11) == "SB3" })
	// The same ClOrdID again is refused through the standby too.
	s.send(t, "D", 11, "SB1", 1, account, 48, in.Terms.ISIN, 22, 4, 1301, market, 54, 2, 60, fixNow(), 38, in.MinPiece, 40, 2, 44, "118", 59, 1)
	if dup := s.msg(t, "8", func(l fixLine) bool { return l.field(11) == "SB1" && l.field(150) == "8" }); dup.field(103) != "6" {
		t.Errorf("a repeated ClOrdID through the standby: %s", dup.Raw)
	}
	resp, err := http.Post(srv.URL+"/internal/v1/commands", "application/json", strings.NewReader(`{"op":"cancel_order","id":"x"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("an unsigned command: %d", resp.StatusCode)
	}
}

// dropFIXAnswer forgets the kept answer of demo participant i's ClOrdID of
// today once it is kept, as a process that died after the order's commit
// and before keeping its answer leaves it.
func (v *venueEnv) dropFIXAnswer(t *testing.T, i int, clOrdID string) {
	t.Helper()
	ctx := context.Background()
	user := "fix-firm:" + v.creds.Participants[i].ID
	key := "fix:" + time.Now().UTC().Format(time.DateOnly) + ":" + clOrdID
	probe := errors.New("probe")
	deadline, limited := testenv.Deadline(t)
	for ; ; time.Sleep(10 * time.Millisecond) {
		var cur store.IdempotencyRecord
		err := v.db.InTx(ctx, func(tx *store.Tx) error {
			var err error
			var claimed bool
			cur, claimed, err = tx.ClaimIdempotencyKey(ctx, store.IdempotencyRecord{UserID: user, Key: key, RequestHash: "",
				CreatedAt: time.Now(), Claim: "probe"}, time.Time{})
			if err == nil && claimed {
				return probe // rolled back
			}
			if err == nil && cur.StatusCode != 0 {
				err = tx.FinishIdempotencyKey(ctx, store.IdempotencyClaim{UserID: user, Key: key, Claim: cur.Claim}, 0, nil)
			}
			return err
		})
		switch {
		case err != nil && !errors.Is(err, probe):
			t.Fatal(err)
		case err == nil && cur.StatusCode != 0:
			return
		case limited && time.Now().After(deadline):
			t.Fatalf("the answer of ClOrdID %s was never kept", clOrdID)
		}
	}
}

// offersNoted counts the offers of any firm whose ClOrdID is clOrdID.
func (v *venueEnv) offersNoted(t *testing.T, clOrdID string) int {
	t.Helper()
	n := 0
	err := v.db.View(context.Background(), func(tx *store.Tx) error {
		os, _, err := tx.Offers(context.Background(), store.OfferFilter{Types: []string{venue.TypeOffer}}, venue.Page{Limit: 1000})
		for _, o := range os {
			if o.ClientOrderID == clOrdID {
				n++
			}
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}
