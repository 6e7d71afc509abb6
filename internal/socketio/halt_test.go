package socketio_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http/httptest"
	"testing"

	"github.com/bondvenue/bondvenue/internal/socketio"
	"github.com/bondvenue/bondvenue/internal/store"
	"github.com/bondvenue/bondvenue/internal/testenv"
	"github.com/bondvenue/bondvenue/internal/trading"
)

// TestOfficialClientHalt: a trader following /instruments with the
// official client receives instrument.halt, as (record, meta), when the
// operator halts an instrument on a market and when it lets it trade again.
func TestOfficialClientHalt(t *testing.T) {
	script := officialClient(t)
	for _, e := range []store.Engine{store.SQLite, store.Postgres} {
		t.Run(string(e), func(t *testing.T) {
			core, creds := testenv.Demo(t, testenv.Open(t, e), testenv.Config{Trading: trading.Config{Logger: slog.New(slog.DiscardHandler)}})
			svc := core.Svc
			srv := httptest.NewServer(socketio.New(core.Access, core.Live, socketio.Config{Logger: slog.New(slog.DiscardHandler)}))
			t.Cleanup(srv.Close)
			tok, _ := traderToken(t, core.Access, creds, 2)
			lines := runClient(t, script, srv.URL, tok, "/instruments", "websocket")
			expect(t, lines, "subscription", func(l line) bool { return l.Event == "subscription" })

			market, in := book(t, svc)
			ctx := context.Background()
			for _, halted := range []bool{true, false} {
				if _, err := svc.SetHalt(ctx, trading.System, market, in.ID, trading.HaltInput{Halted: &halted, Reason: "auction"}); err != nil {
					t.Fatal(err)
				}
				l := expect(t, lines, "instrument.halt", func(l line) bool { return l.NS == "/instruments" && l.Event == "instrument.halt" })
				var h struct {
					MarketID     string `json:"market_id"`
					InstrumentID string `json:"instrument_id"`
					Halted       bool   `json:"halted"`
					Reason       string `json:"reason"`
				}
				var meta struct {
					Seq  int64  `json:"seq"`
					Type string `json:"type"`
				}
				if len(l.Args) != 2 || json.Unmarshal(l.Args[0], &h) != nil || json.Unmarshal(l.Args[1], &meta) != nil {
					t.Fatalf("instrument.halt: %s", l.Args)
				}
				if h.MarketID != market || h.InstrumentID != in.ID || h.Halted != halted || meta.Seq == 0 || meta.Type != "instrument.halt" {
					t.Errorf("instrument.halt = %+v %+v, want market %s instrument %s halted %v", h, meta, market, in.ID, halted)
				}
			}
		})
	}
}
