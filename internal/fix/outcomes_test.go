package fix_test

import (
	"context"
	"testing"

	"github.com/quagmt/udecimal"

	"github.com/bondvenue/bondvenue/internal/store"
	"github.com/bondvenue/bondvenue/internal/trading"
	"github.com/bondvenue/bondvenue/internal/venue"
)

// TestQuoteOutcomes: a FIX dealer that loses an RFQ is told how, as REST
// says it: its QuoteStatusReport AI carries the outcome in 58, and a
// QuoteResponse AJ says 694 = 4 when it was the cover and 5 when the trade
// was done away (58 = tied at the done price), with no price of another.
func TestQuoteOutcomes(t *testing.T) {
	d := startDriver(t)
	for _, e := range []store.Engine{store.SQLite, store.Postgres} {
		t.Run(string(e), func(t *testing.T) {
			v := newVenue(t, e)
			market, in := v.otcBook(t)
			ctx := context.Background()
			_, p0 := v.trader(t, 0)
			_, p2 := v.trader(t, 2)
			acc1, acc2 := v.creds.Participants[1].AccountIDs[0], v.creds.Participants[2].AccountIDs[0]
			fix1 := v.logon(t, d, "out1-"+string(e), "OUT1-"+string(e), 1, true)

			for _, c := range []struct {
				name, fixPx, restPx, outcome, respType, text string
			}{
				{"cover", "100.5", "100.25", venue.OutcomeCover, "4", ""},
				{"tied", "100.25", "100.25", venue.OutcomeTied, "5", "tied"},
			} {
				r, err := v.svc.CreateRFQ(ctx, p0, trading.OfferInput{InstrumentID: in.ID, MarketID: market,
					AccountID: v.creds.Participants[0].AccountIDs[0], Direction: venue.Bid, Quantity: &in.MinPiece,
					Counterparties: []string{v.creds.Participants[1].ID, p2.ParticipantID}})
				if err != nil {
					t.Fatalf("%s: REST RFQ: %v", c.name, err)
				}
				fix1.msg(t, "R", func(l fixLine) bool { return l.field(131) == r.ID })
				clientID := "DQ-" + c.name
				fix1.send(t, "S", 117, clientID, 131, r.ID, 1, acc1, 133, c.fixPx, 60, fixNow())
				fix1.msg(t, "AI", func(l fixLine) bool { return l.field(117) == clientID && l.field(297) == "16" })
				px := udecimal.MustParse(c.restPx)
				won, err := v.svc.CreateOffer(ctx, p2, trading.OfferInput{MatchedOfferID: r.ID, InstrumentID: in.ID, MarketID: market,
					AccountID: acc2, Direction: venue.Ask, Price: &px, Quantity: &in.MinPiece})
				if err != nil {
					t.Fatalf("%s: REST quote: %v", c.name, err)
				}
				if _, err := v.svc.AcceptQuote(ctx, p0, won.ID, venue.Parties{}); err != nil {
					t.Fatalf("%s: accept: %v", c.name, err)
				}
				ai := fix1.msg(t, "AI", func(l fixLine) bool { return l.field(117) == clientID && l.field(297) == "5" })
				if ai.field(58) != c.outcome {
					t.Errorf("%s: the losing dealer's AI says 58 = %q, want %q: %s", c.name, ai.field(58), c.outcome, ai.Raw)
				}
				aj := fix1.msg(t, "AJ", func(l fixLine) bool { return l.field(117) == clientID })
				if aj.field(694) != c.respType || aj.field(58) != c.text || aj.field(131) != r.ID || aj.field(48) != in.Terms.ISIN {
					t.Errorf("%s: QuoteResponse to the losing dealer: 694 = %q 58 = %q, want %s %q: %s", c.name, aj.field(694), aj.field(58),
						c.respType, c.text, aj.Raw)
				}
				for _, l := range []fixLine{ai, aj} {
					for _, tag := range []int{31, 44, 132, 133, 188, 190} {
						if l.field(tag) != "" && l.field(tag) != c.fixPx {
							t.Errorf("%s: the losing dealer reads another price in %d = %s: %s", c.name, tag, l.field(tag), l.Raw)
						}
					}
				}
				// REST says the same of the FIX dealer's quote.
				view, err := v.svc.RFQ(ctx, p0, r.ID)
				if err != nil {
					t.Fatal(err)
				}
				for _, q := range view.MatchedOffers {
					want := venue.OutcomeDone
					if q.ParticipantID != p2.ParticipantID {
						want = c.outcome
					}
					if q.Outcome != want {
						t.Errorf("%s: REST outcome of %s's quote %q, want %q", c.name, q.ParticipantID, q.Outcome, want)
					}
				}
			}
		})
	}
}
