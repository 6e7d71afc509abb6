package socketio_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http/httptest"
	"testing"

	"github.com/quagmt/udecimal"

	"github.com/bondvenue/bondvenue/internal/socketio"
	"github.com/bondvenue/bondvenue/internal/store"
	"github.com/bondvenue/bondvenue/internal/testenv"
	"github.com/bondvenue/bondvenue/internal/trading"
	"github.com/bondvenue/bondvenue/internal/venue"
)

// TestOfficialClientKillSwitch: a trader following /offers with the
// official client, whose firm's kill switch is turned on, receives the
// cancel of its offer and then participant.kill_switch naming its firm
// and how many were cancelled, so that its screen can say why its orders
// went; another firm's trader on /offers receives neither.
func TestOfficialClientKillSwitch(t *testing.T) {
	script := officialClient(t)
	for _, e := range []store.Engine{store.SQLite, store.Postgres} {
		t.Run(string(e), func(t *testing.T) {
			core, creds := testenv.Demo(t, testenv.Open(t, e), testenv.Config{Trading: trading.Config{Logger: slog.New(slog.DiscardHandler)}})
			svc := core.Svc
			srv := httptest.NewServer(socketio.New(core.Access, core.Live, socketio.Config{Logger: slog.New(slog.DiscardHandler)}))
			t.Cleanup(srv.Close)
			tok, trader := traderToken(t, core.Access, creds, 2)
			otherTok, _ := traderToken(t, core.Access, creds, 3)
			lines := runClient(t, script, srv.URL, tok, "/offers", "websocket")
			other := runClient(t, script, srv.URL, otherTok, "/offers", "websocket")
			expect(t, lines, "subscription", func(l line) bool { return l.Event == "subscription" })
			expect(t, other, "subscription", func(l line) bool { return l.Event == "subscription" })

			market, in := book(t, svc)
			ctx := context.Background()
			p, q := udecimal.MustParse("80"), in.MinPiece
			o, err := svc.CreateOffer(ctx, trader, trading.OfferInput{InstrumentID: in.ID, MarketID: market, Direction: venue.Bid, Price: &p, Quantity: &q})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := svc.SetKillSwitch(ctx, trading.System, trader.ParticipantID, true); err != nil {
				t.Fatal(err)
			}
			expect(t, lines, "offer.delete of the cancelled offer", func(l line) bool {
				var rec struct {
					ID     string `json:"id"`
					Status string `json:"status"`
				}
				return l.Event == "offer.delete" && len(l.Args) > 0 && json.Unmarshal(l.Args[0], &rec) == nil && rec.ID == o.ID && rec.Status == "cancelled"
			})
			l := expect(t, lines, "participant.kill_switch", func(l line) bool { return l.NS == "/offers" && l.Event == "participant.kill_switch" })
			var got struct {
				ParticipantID string `json:"participant_id"`
				Enabled       bool   `json:"enabled"`
				Cancelled     int    `json:"cancelled"`
			}
			if len(l.Args) != 2 || json.Unmarshal(l.Args[0], &got) != nil {
				t.Fatalf("participant.kill_switch: %s", l.Args)
			}
			if got.ParticipantID != trader.ParticipantID || !got.Enabled || got.Cancelled != 1 {
				t.Errorf("participant.kill_switch = %+v, want participant %s enabled, 1 cancelled", got, trader.ParticipantID)
			}

			// The other firm's stream carries a later event of its own and
			// nothing of the first firm's switch before it.
			_, otherTrader := traderToken(t, core.Access, creds, 3)
			mine, err := svc.CreateOffer(ctx, otherTrader, trading.OfferInput{InstrumentID: in.ID, MarketID: market, Direction: venue.Bid, Price: &p, Quantity: &q})
			if err != nil {
				t.Fatal(err)
			}
			expect(t, other, "the other firm's own offer", func(l line) bool {
				var rec struct {
					ID string `json:"id"`
				}
				return l.Event == "offer.create" && json.Unmarshal(l.Args[0], &rec) == nil && rec.ID == mine.ID
			})
			other.mu.Lock()
			defer other.mu.Unlock()
			for _, l := range other.seen {
				if l.Event == "participant.kill_switch" {
					t.Errorf("another firm's trader received %s %s", l.Event, l.Args)
				}
			}
		})
	}
}
