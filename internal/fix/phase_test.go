package fix_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/bondvenue/bondvenue/internal/store"
	"github.com/bondvenue/bondvenue/internal/testenv"
	"github.com/bondvenue/bondvenue/internal/trading"
	"github.com/bondvenue/bondvenue/internal/venue"
)

// TestMarketPhaseFIX: on the demo's market with trading hours an order
// rests at 17:29 Frankfurt time; at 17:30 the next order is rejected
// (150=8) with the text REST gives, naming the phase, and every session
// is told the market closed: TradingSessionStatus h with the market as
// TradingSessionID (336) and MarketID (1301), TradSesStatus (340) 3.
func TestMarketPhaseFIX(t *testing.T) {
	d := startDriver(t)
	berlin, _ := time.LoadLocation("Europe/Berlin")
	for _, e := range []store.Engine{store.SQLite, store.Postgres} {
		t.Run(string(e), func(t *testing.T) {
			clk := testenv.NewClock(time.Date(2026, 11, 20, 17, 29, 0, 0, berlin))
			v := newVenueAt(t, e, clk.Now)
			ctx := context.Background()
			ms, err := v.svc.Markets(ctx, trading.System, trading.MarketFilter{}, venue.Page{})
			if err != nil {
				t.Fatal(err)
			}
			var market string
			for _, m := range ms.Items {
				if m.Hours != nil {
					market = m.ID
				}
			}
			ins, err := v.svc.Instruments(ctx, trading.System, trading.InstrumentFilter{MarketID: market}, venue.Page{Limit: 1})
			if err != nil || market == "" || len(ins.Items) == 0 {
				t.Fatalf("the demo's market with hours %q and its instruments: %v", market, err)
			}
			in := ins.Items[0].Instrument
			s := v.logon(t, d, "phase-"+string(e), "PHS0-"+string(e), 0, true)
			account := v.creds.Participants[0].AccountIDs[0]
			order := func(clOrdID string) {
				s.send(t, "D", 11, clOrdID, 1, account, 48, in.Terms.ISIN, 22, 4, 1301, market, 54, 2, 60, fixNow(),
					38, in.MinPiece, 40, 2, 44, "99", 59, 1)
			}

			order("H1")
			s.msg(t, "8", func(l fixLine) bool { return l.field(11) == "H1" && l.field(150) == "0" })

			clk.Advance(time.Minute)
			order("H2")
			rj := s.msg(t, "8", func(l fixLine) bool { return l.field(11) == "H2" })
			if want := "the market is closed; it opens at 2026-11-23T08:00:00+01:00"; rj.field(150) != "8" || !strings.Contains(rj.field(58), want) {
				t.Errorf("order at the close: %s, want 150=8 and %q", rj.Raw, want)
			}
			h := s.msg(t, "h", func(l fixLine) bool { return l.field(336) == market })
			if h.field(340) != "3" || h.field(1301) != market || h.field(60) == "" {
				t.Errorf("TradingSessionStatus at the close: %s, want 336=1301=%s 340=3", h.Raw, market)
			}
			golden(t, "h-closed", h)
		})
	}
}
