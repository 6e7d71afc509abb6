package trading_test

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/quagmt/udecimal"

	"github.com/bondvenue/bondvenue/internal/bondmath"
	"github.com/bondvenue/bondvenue/internal/store"
	"github.com/bondvenue/bondvenue/internal/testenv"
	"github.com/bondvenue/bondvenue/internal/trading"
	"github.com/bondvenue/bondvenue/internal/venue"
)

// TestSettlementLagT1: the demo markets move from T+2 to T+1 on
// 2027-10-11, and every default settlement date follows the lag in force
// on the trade date — the market's answer for any date, an offer's, an
// RFQ's, a book trade's and the calculator's — on both sides of the
// switch, on the TARGET2 calendar.
func TestSettlementLagT1(t *testing.T) {
	testenv.ForEach(t, func(t *testing.T, e store.Engine) {
		ctx := context.Background()
		clock := testenv.NewClock(time.Date(2027, 10, 8, 9, 30, 0, 0, time.UTC)) // a Friday
		core, creds := testenv.Demo(t, testenv.Open(t, e), testenv.Config{Trading: trading.Config{Logger: slog.New(slog.DiscardHandler), Now: clock.Now}})
		svc := core.Svc
		ms, err := svc.Markets(ctx, trading.System, trading.MarketFilter{}, venue.Page{})
		if err != nil {
			t.Fatal(err)
		}
		var otc, book string
		for _, m := range ms.Items {
			switch {
			case m.FacilityType == venue.FacilityOTC:
				otc = m.ID
			case m.IsPartialFillAllowed && m.Hours == nil: // not the day session, which lists four bonds
				book = m.ID
			}
			if m.SettlementLag != 2 || len(m.SettlementLags) != 1 || m.SettlementLags[0].Lag != 1 ||
				m.SettlementLags[0].From != bondmath.MustDate(2027, 10, 11) {
				t.Errorf("demo market %s: lag %d, changes %v; want 2, then 1 from 2027-10-11", m.Name, m.SettlementLag, m.SettlementLags)
			}
		}

		// The market's answer for any trade date, across the switch and
		// around TARGET2 holidays.
		for _, c := range []struct {
			trade, settle string
			lag           int
		}{
			{"2027-10-07", "2027-10-11", 2}, // Thursday, T+2
			{"2027-10-08", "2027-10-12", 2}, // Friday, T+2 over the weekend
			{"2027-10-09", "2027-10-12", 2}, // Saturday: before the switch
			{"2027-10-11", "2027-10-12", 1}, // Monday, the first T+1 day
			{"2027-10-12", "2027-10-13", 1},
			{"2027-12-24", "2027-12-27", 1}, // Friday before Christmas (25, 26 a weekend)
			{"2027-12-31", "2028-01-03", 1}, // New Year's Eve: 1 January is a Saturday
			{"2028-04-13", "2028-04-18", 1}, // Thursday before Good Friday (14): Easter Monday (17) is a holiday too
		} {
			trade, err := bondmath.ParseDate(c.trade)
			if err != nil {
				t.Fatal(err)
			}
			d, lag, err := svc.MarketSettlementDate(ctx, trading.System, otc, trade)
			if err != nil {
				t.Fatal(err)
			}
			if d.String() != c.settle || lag != c.lag {
				t.Errorf("trade %s: settles %s at T+%d, want %s at T+%d", c.trade, d, lag, c.settle, c.lag)
			}
		}

		trader := func(i int) venue.Principal {
			p := creds.Participants[i]
			for _, u := range p.Users {
				if venue.Role(u.Role) == venue.RoleTrader {
					return venue.Principal{UserID: u.UserID, ParticipantID: p.ID, Role: venue.RoleTrader}
				}
			}
			t.Fatal("no trader")
			return venue.Principal{}
		}
		ins, err := svc.Instruments(ctx, trading.System, trading.InstrumentFilter{}, venue.Page{Limit: 1})
		if err != nil || len(ins.Items) == 0 {
			t.Fatalf("instruments: %v", err)
		}
		in := ins.Items[0]
		qty := in.MinPiece
		price := udecimal.MustParse("100")
		defaults := func(want string) {
			t.Helper()
			o, err := svc.CreateOffer(ctx, trader(0), trading.OfferInput{InstrumentID: in.ID, MarketID: book, Direction: venue.Bid,
				Price: &price, Quantity: &qty})
			if err != nil {
				t.Fatal(err)
			}
			if o.SettlementDate.String() != want {
				t.Errorf("%s: an offer's default settlement date %s, want %s", clock.Now().Format(time.DateOnly), o.SettlementDate, want)
			}
			cross, err := svc.CreateOffer(ctx, trader(1), trading.OfferInput{InstrumentID: in.ID, MarketID: book, Direction: venue.Ask,
				Price: &price, Quantity: &qty})
			if err != nil || len(cross.Trades) == 0 {
				t.Fatalf("crossing offer: %d trades, %v", len(cross.Trades), err)
			}
			if got := cross.Trades[0].SettlementDate.String(); got != want {
				t.Errorf("%s: a book trade settles %s, want %s", clock.Now().Format(time.DateOnly), got, want)
			}
			r, err := svc.CreateRFQ(ctx, trader(0), trading.OfferInput{InstrumentID: in.ID, MarketID: otc, Direction: venue.Bid,
				Quantity: &qty, Counterparties: []string{creds.Participants[1].ID}})
			if err != nil {
				t.Fatal(err)
			}
			if r.SettlementDate.String() != want {
				t.Errorf("%s: an RFQ's default settlement date %s, want %s", clock.Now().Format(time.DateOnly), r.SettlementDate, want)
			}
			a, err := svc.InstrumentAnalytics(ctx, trader(0), in.ID, trading.InstrumentAnalyticsInput{})
			if err != nil {
				t.Fatal(err)
			}
			if a.Settlement.String() != want {
				t.Errorf("%s: the calculator's default settlement date %s, want %s", clock.Now().Format(time.DateOnly), a.Settlement, want)
			}
		}
		defaults("2027-10-12") // Friday, T+2
		clock.Advance(72 * time.Hour)
		defaults("2027-10-12") // Monday, T+1

		// An operator's change of the schedule is checked and kept.
		bad := []venue.LagChange{{From: bondmath.MustDate(2028, 1, 3), Lag: 1}, {From: bondmath.MustDate(2027, 1, 1), Lag: 0}}
		if _, err := svc.UpdateMarket(ctx, trading.System, otc, trading.MarketInput{SettlementLags: &bad}); venue.KindOf(err) != venue.KindInvalid {
			t.Errorf("changes out of date order: %v, want invalid", err)
		}
		none := []venue.LagChange{}
		m, err := svc.UpdateMarket(ctx, trading.System, otc, trading.MarketInput{SettlementLags: &none})
		if err != nil || len(m.SettlementLags) != 0 || m.LagOn(bondmath.MustDate(2027, 10, 11)) != 2 {
			t.Errorf("changes cleared: %v %v", m.SettlementLags, err)
		}
	})
}
