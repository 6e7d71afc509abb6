package socketio_test

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/quagmt/udecimal"

	"github.com/bondvenue/bondvenue/internal/socketio"
	"github.com/bondvenue/bondvenue/internal/store"
	"github.com/bondvenue/bondvenue/internal/testenv"
	"github.com/bondvenue/bondvenue/internal/trading"
	"github.com/bondvenue/bondvenue/internal/venue"
)

// TestOfficialClientMarketPhase: a trader joining /instruments with the
// official client is told the phase of the demo's market with trading
// hours, then receives market.phase, as (record, meta), when the market
// closes at 17:30 Frankfurt time.
func TestOfficialClientMarketPhase(t *testing.T) {
	script := officialClient(t)
	berlin, _ := time.LoadLocation("Europe/Berlin")
	for _, e := range []store.Engine{store.SQLite, store.Postgres} {
		t.Run(string(e), func(t *testing.T) {
			clk := testenv.NewClock(time.Date(2026, 11, 20, 17, 29, 0, 0, berlin))
			core, creds := testenv.Demo(t, testenv.Open(t, e), testenv.Config{Trading: trading.Config{Now: clk.Now,
				Logger: slog.New(slog.DiscardHandler)}})
			svc := core.Svc
			srv := httptest.NewServer(socketio.New(core.Access, core.Live, socketio.Config{Logger: slog.New(slog.DiscardHandler),
				Phases: svc.MarketPhases}))
			t.Cleanup(srv.Close)
			tok, p := traderToken(t, core.Access, creds, 1)
			ctx := context.Background()
			ms, err := svc.Markets(ctx, trading.System, trading.MarketFilter{}, venue.Page{})
			if err != nil {
				t.Fatal(err)
			}
			var market string
			for _, m := range ms.Items {
				if m.Hours != nil {
					market = m.ID
				}
			}
			ins, err := svc.Instruments(ctx, trading.System, trading.InstrumentFilter{MarketID: market}, venue.Page{Limit: 1})
			if err != nil || market == "" || len(ins.Items) == 0 {
				t.Fatalf("the demo's market with hours %q and its instruments: %v", market, err)
			}

			type phase struct {
				MarketID        string `json:"market_id"`
				TradingPhase    string `json:"trading_phase"`
				NextPhaseChange *struct {
					Phase string `json:"phase"`
					At    string `json:"at"`
				} `json:"next_phase_change"`
			}
			type meta struct {
				Seq  int64  `json:"seq"`
				Type string `json:"type"`
			}
			read := func(l line) (phase, meta) {
				t.Helper()
				var ph phase
				var m meta
				if len(l.Args) != 2 || json.Unmarshal(l.Args[0], &ph) != nil || json.Unmarshal(l.Args[1], &m) != nil {
					t.Fatalf("market.phase: %s", l.Args)
				}
				return ph, m
			}
			lines := runClient(t, script, srv.URL, tok, "/instruments", "websocket")
			expect(t, lines, "subscription", func(l line) bool { return l.Event == "subscription" })
			joined, _ := read(expect(t, lines, "market.phase on joining", func(l line) bool {
				return l.NS == "/instruments" && l.Event == "market.phase"
			}))
			if joined.MarketID != market || joined.TradingPhase != "continuous" || joined.NextPhaseChange == nil ||
				joined.NextPhaseChange.Phase != "closed" || joined.NextPhaseChange.At != "2026-11-20T16:30:00.000Z" {
				t.Errorf("market.phase on joining = %+v, want market %s continuous until 16:30 UTC", joined, market)
			}

			// 17:30: the next order the engine takes finds the market closed,
			// after announcing it.
			clk.Advance(time.Minute)
			price, qty := udecimal.MustParse("99"), ins.Items[0].MinPiece
			_, err = svc.CreateOffer(ctx, p, trading.OfferInput{AccountID: creds.Participants[1].AccountIDs[0], InstrumentID: ins.Items[0].ID,
				MarketID: market, Direction: venue.Bid, Price: &price, Quantity: &qty})
			if !errors.Is(err, venue.ErrConflict) {
				t.Fatalf("an order at the close: %v, want a conflict", err)
			}
			got, m := read(expect(t, lines, "market.phase at the close", func(l line) bool {
				return l.NS == "/instruments" && l.Event == "market.phase"
			}))
			want := phase{MarketID: market, TradingPhase: "closed", NextPhaseChange: &struct {
				Phase string `json:"phase"`
				At    string `json:"at"`
			}{"pre-open", "2026-11-23T06:45:00.000Z"}}
			if d := cmp.Diff(want, got); d != "" || m.Seq == 0 || m.Type != "market.phase" {
				t.Errorf("market.phase at the close (-want +got):\n%s\nmeta %+v", d, m)
			}
		})
	}
}
