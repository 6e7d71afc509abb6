package fix_test

import (
	"context"
	"strings"
	"testing"

	"github.com/quagmt/udecimal"

	"github.com/bondvenue/bondvenue/internal/store"
	"github.com/bondvenue/bondvenue/internal/trading"
	"github.com/bondvenue/bondvenue/internal/venue"
)

// TestPriceCollarFIX: over FIX, an order or a quote whose price is outside
// the price collar is rejected (150=8, 103=99; a quote's AI 297=5) with the
// text REST gives, naming the collar, the reference price and its source;
// an order above the firm's MAX_OFFER_VALUE is rejected as over a limit
// (103=3) naming it.
func TestPriceCollarFIX(t *testing.T) {
	d := startDriver(t)
	for _, e := range []store.Engine{store.SQLite, store.Postgres} {
		t.Run(string(e), func(t *testing.T) {
			v := newVenue(t, e)
			market, in := v.book(t)
			otc, otcIn := v.otcBook(t)
			ctx := context.Background()
			s := v.logon(t, d, "collar-"+string(e), "COL0-"+string(e), 0, true)
			_, rest := v.trader(t, 1)
			account := v.creds.Participants[0].AccountIDs[0]
			qty := in.MinPiece

			// No reference yet: the absolute band.
			s.send(t, "D", 11, "F1", 1, account, 48, in.Terms.ISIN, 22, 4, 1301, market, 54, 1, 60, fixNow(), 38, qty, 40, 2, 44, "9750", 59, 1)
			rj := s.msg(t, "8", func(l fixLine) bool { return l.field(11) == "F1" })
			if rj.field(150) != "8" || rj.field(103) != "99" || !strings.Contains(rj.field(58), "price collar") ||
				!strings.Contains(rj.field(58), "max_price_percent 200") {
				t.Errorf("order at 9750 on an empty book: %s", rj.Raw)
			}

			// A two-sided book: its mid, 97.5, is the reference.
			s.send(t, "D", 11, "A1", 1, account, 48, in.Terms.ISIN, 22, 4, 1301, market, 54, 2, 60, fixNow(), 38, qty, 40, 2, 44, "98", 59, 1)
			s.msg(t, "8", func(l fixLine) bool { return l.field(11) == "A1" && l.field(150) == "0" })
			price := udecimal.MustParse("97")
			if _, err := v.svc.CreateOffer(ctx, rest, trading.OfferInput{InstrumentID: in.ID, MarketID: market,
				AccountID: v.creds.Participants[1].AccountIDs[0], Direction: venue.Bid, Price: &price, Quantity: &qty}); err != nil {
				t.Fatalf("REST bid at 97: %v", err)
			}
			s.send(t, "D", 11, "F2", 1, account, 48, in.Terms.ISIN, 22, 4, 1301, market, 54, 1, 60, fixNow(), 38, qty, 40, 2, 44, "9750", 59, 1)
			rj = s.msg(t, "8", func(l fixLine) bool { return l.field(11) == "F2" })
			for _, part := range []string{"price collar", "97.5", "mid of the best bid and ask", "87.75", "107.25"} {
				if rj.field(150) != "8" || rj.field(103) != "99" || !strings.Contains(rj.field(58), part) {
					t.Errorf("order at 9750 against a 97.5 mid: want 150=8 103=99 and %q in 58: %s", part, rj.Raw)
				}
			}
			// A replace to a price outside the collar is refused too.
			s.send(t, "G", 11, "A2", 41, "A1", 1, account, 48, in.Terms.ISIN, 22, 4, 54, 2, 60, fixNow(), 38, qty, 40, 2, 44, "150")
			rr := s.msg(t, "9", func(l fixLine) bool { return l.field(11) == "A2" })
			if !strings.Contains(rr.field(58), "price collar") {
				t.Errorf("replace to 150: %s", rr.Raw)
			}

			// A quote outside the collar: the dealer's QuoteStatusReport says why.
			rfq, err := v.svc.CreateRFQ(ctx, rest, trading.OfferInput{InstrumentID: otcIn.ID, MarketID: otc,
				AccountID: v.creds.Participants[1].AccountIDs[0], Direction: venue.Bid,
				Quantity: &otcIn.MinPiece, Counterparties: []string{v.creds.Participants[0].ID}})
			if err != nil {
				t.Fatalf("REST RFQ: %v", err)
			}
			s.msg(t, "R", func(l fixLine) bool { return l.field(131) == rfq.ID })
			s.send(t, "S", 117, "QX-1", 131, rfq.ID, 1, account, 133, "975", 60, fixNow())
			ai := s.msg(t, "AI", func(l fixLine) bool { return l.field(117) == "QX-1" })
			if ai.field(297) != "5" || !strings.Contains(ai.field(58), "price collar") {
				t.Errorf("quote at 975: %s", ai.Raw)
			}

			// MAX_OFFER_VALUE: two min pieces at 98 are worth more than one min piece.
			if _, err := v.svc.SetRiskLimit(ctx, trading.System, v.creds.Participants[0].ID,
				trading.RiskLimitInput{Name: venue.LimitMaxOfferValue, Value: &in.MinPiece}); err != nil {
				t.Fatal(err)
			}
			s.send(t, "D", 11, "V1", 1, account, 48, in.Terms.ISIN, 22, 4, 1301, market, 54, 2, 60, fixNow(), 38, qty.Add(qty), 40, 2, 44, "98", 59, 1)
			rv := s.msg(t, "8", func(l fixLine) bool { return l.field(11) == "V1" })
			if rv.field(150) != "8" || rv.field(103) != "3" || !strings.Contains(rv.field(58), venue.LimitMaxOfferValue) {
				t.Errorf("order over MAX_OFFER_VALUE: %s", rv.Raw)
			}
			d.do(t, map[string]any{"op": "logout", "id": s.name, "text": "bye"})
			s.wait(t, "end", func(l fixLine) bool { return l.Event == "end" })
		})
	}
}

// TestKillSwitchFIX: OrderMassCancelRequest q (530=7) cancels the firm's
// open orders, each reported cancelled, and the OrderMassCancelReport r
// counts them; while the firm's kill switch is on its new orders are
// rejected naming it; a halt and its end reach the session as
// SecurityStatus f (326=2 with the reason, then 17).
func TestKillSwitchFIX(t *testing.T) {
	d := startDriver(t)
	for _, e := range []store.Engine{store.SQLite, store.Postgres} {
		t.Run(string(e), func(t *testing.T) {
			v := newVenue(t, e)
			market, in := v.book(t)
			ctx := context.Background()
			s := v.logon(t, d, "kill-"+string(e), "KILL0-"+string(e), 0, true)
			account := v.creds.Participants[0].AccountIDs[0]
			qty := in.MinPiece
			for _, id := range []string{"K1", "K2"} {
				s.send(t, "D", 11, id, 1, account, 48, in.Terms.ISIN, 22, 4, 1301, market, 54, 1, 60, fixNow(), 38, qty, 40, 2, 44, "97", 59, 1)
				s.msg(t, "8", func(l fixLine) bool { return l.field(11) == id && l.field(150) == "0" })
			}
			s.send(t, "q", 11, "MC1", 530, 7, 60, fixNow())
			r := s.msg(t, "r", nil)
			if r.field(11) != "MC1" || r.field(530) != "7" || r.field(531) != "7" || r.field(533) != "2" {
				t.Errorf("OrderMassCancelReport: %s", r.Raw)
			}
			for _, id := range []string{"K1", "K2"} {
				s.msg(t, "8", func(l fixLine) bool { return l.field(11) == id && l.field(150) == "4" })
			}
			s.send(t, "q", 11, "MC2", 530, 1, 60, fixNow(), 48, in.Terms.ISIN, 22, 4)
			if r := s.msg(t, "r", func(l fixLine) bool { return l.field(11) == "MC2" }); r.field(531) != "0" || r.field(532) != "99" {
				t.Errorf("OrderMassCancelReport of an unsupported type: %s", r.Raw)
			}

			if _, err := v.svc.SetKillSwitch(ctx, trading.System, v.creds.Participants[0].ID, true); err != nil {
				t.Fatal(err)
			}
			s.send(t, "D", 11, "K3", 1, account, 48, in.Terms.ISIN, 22, 4, 1301, market, 54, 1, 60, fixNow(), 38, qty, 40, 2, 44, "97", 59, 1)
			rj := s.msg(t, "8", func(l fixLine) bool { return l.field(11) == "K3" })
			if rj.field(150) != "8" || !strings.Contains(rj.field(58), "kill switch") {
				t.Errorf("order while the kill switch is on: %s", rj.Raw)
			}

			for _, halted := range []bool{true, false} {
				if _, err := v.svc.SetHalt(ctx, trading.System, market, in.ID, trading.HaltInput{Halted: &halted, Reason: "volatility"}); err != nil {
					t.Fatal(err)
				}
				want := map[bool]string{true: "2", false: "17"}[halted]
				f := s.msg(t, "f", func(l fixLine) bool { return l.field(326) == want })
				if f.field(48) != in.Terms.ISIN || f.field(1301) != market || (halted && f.field(58) != "volatility") {
					t.Errorf("SecurityStatus (halted %v): %s", halted, f.Raw)
				}
			}
			d.do(t, map[string]any{"op": "logout", "id": s.name, "text": "bye"})
			s.wait(t, "end", func(l fixLine) bool { return l.Event == "end" })
		})
	}
}
