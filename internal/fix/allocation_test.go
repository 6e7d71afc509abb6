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

// TestAllocationInstruction: a FIX client splits its firm's side of a
// trade to its accounts with an AllocationInstruction J, naming the trade
// by the TrdMatchID its fill carried, and is answered with an
// AllocationInstructionAck P 87=0; the allocation reads back over REST
// with the parts summing to the trade exactly. A wrong split, a wrong
// side and a second allocation are answered 87=1 with 88 and 58 naming
// why. The trade's drop copy carries 1390=2: its publication is deferred.
func TestAllocationInstruction(t *testing.T) {
	d := startDriver(t)
	for _, e := range []store.Engine{store.SQLite, store.Postgres} {
		t.Run(string(e), func(t *testing.T) {
			v := newVenue(t, e)
			market, in := v.book(t)
			ctx := context.Background()
			_, p0 := v.trader(t, 0)
			_, p1 := v.trader(t, 1)
			accs := v.creds.Participants[0].AccountIDs
			s := v.logon(t, d, "alloc-"+string(e), "ALLOC0-"+string(e), 0, true)

			// 20 m: a size every class of the deferral table defers.
			qty := udecimal.MustFromInt64(20_000_000, 0)
			px := udecimal.MustParse("99.5")
			if _, err := v.svc.CreateOffer(ctx, p1, trading.OfferInput{InstrumentID: in.ID, MarketID: market,
				AccountID: v.creds.Participants[1].AccountIDs[0], Direction: venue.Ask, Price: &px, Quantity: &qty}); err != nil {
				t.Fatal(err)
			}
			s.send(t, "D", 11, "ALLOC-BUY", 1, accs[0], 55, "[N/A]", 48, in.Terms.ISIN, 22, 4, 54, 1, 38, qty.String(),
				40, 2, 44, "99.5", 60, fixNow(), 1301, market)
			fill := s.msg(t, "8", func(l fixLine) bool { return l.field(11) == "ALLOC-BUY" && l.field(150) == "F" })
			match := fill.field(880)
			// The drop copy says the trade's publication is deferred.
			s.send(t, "AD", 568, "DC-ALLOC", 569, 0, 263, 0)
			if dc := s.msg(t, "AE", func(l fixLine) bool { return l.field(568) == "DC-ALLOC" && l.field(880) == match }); dc.field(1390) != "2" {
				t.Errorf("drop copy of a deferred trade: 1390 = %q, want 2: %s", dc.field(1390), dc.Raw)
			}
			third := in.MinPiece.String()
			rest := qty.Sub(in.MinPiece).String()
			j := func(allocID, side, q string, parts ...any) {
				fields := []any{70, allocID, 71, 0, 626, 1, 54, side, 55, "[N/A]", 48, in.Terms.ISIN, 22, 4, 53, q, 75, "20261120",
					124, 1, 32, q, 1003, match, 78, len(parts) / 2}
				for i := 0; i < len(parts); i += 2 {
					fields = append(fields, 79, parts[i], 80, parts[i+1])
				}
				s.send(t, "J", fields...)
			}
			ack := func(allocID string) fixLine {
				return s.msg(t, "P", func(l fixLine) bool { return l.field(70) == allocID })
			}

			// The parts do not add up: block rejected, incorrect quantity.
			j("A-BAD", "1", qty.String(), accs[1], third, accs[2], third)
			if a := ack("A-BAD"); a.field(87) != "1" || a.field(88) != "1" || !strings.Contains(a.field(58), "sum") {
				t.Errorf("AllocationInstruction whose parts fall short: %s", a.Raw)
			}
			// The other firm's side.
			j("A-SIDE", "2", qty.String(), accs[1], qty.String())
			if a := ack("A-SIDE"); a.field(87) != "1" || !strings.Contains(a.field(58), "54 Side") {
				t.Errorf("AllocationInstruction of the wrong side: %s", a.Raw)
			}
			// Another firm's account.
			j("A-ACC", "1", qty.String(), v.creds.Participants[1].AccountIDs[0], qty.String())
			if a := ack("A-ACC"); a.field(87) != "1" || a.field(88) != "0" {
				t.Errorf("AllocationInstruction to another firm's account: %s", a.Raw)
			}

			j("A-1", "1", qty.String(), accs[1], rest, accs[2], third)
			if a := ack("A-1"); a.field(87) != "0" || a.field(75) != "20261120" {
				t.Fatalf("AllocationInstruction: %s", a.Raw)
			}
			trades, err := v.svc.Trades(ctx, p0, trading.TradeFilter{}, venue.Page{Limit: 10})
			if err != nil || len(trades.Items) == 0 {
				t.Fatalf("trades: %v", err)
			}
			tr := trades.Items[0]
			got, err := v.svc.TradeAllocation(ctx, p0, tr.ID)
			if err != nil || len(got.Allocations) != 2 || got.Direction != venue.Bid {
				t.Fatalf("the allocation over REST: %+v, %v", got, err)
			}
			sumA, sumP := udecimal.Zero, udecimal.Zero
			for _, a := range got.Allocations {
				sumA, sumP = sumA.Add(a.AccruedInterest), sumP.Add(a.SettlementAmount)
			}
			if !sumA.Equal(tr.AccruedInterest) || !sumP.Equal(tr.SettlementAmount) || got.Allocations[0].AccountID != accs[1] {
				t.Errorf("allocation %+v does not add up to the trade's %s / %s", got.Allocations, tr.AccruedInterest, tr.SettlementAmount)
			}
			// Once per side.
			j("A-2", "1", qty.String(), accs[0], qty.String())
			if a := ack("A-2"); a.field(87) != "1" || !strings.Contains(a.field(58), "already allocated") {
				t.Errorf("a second AllocationInstruction: %s", a.Raw)
			}
		})
	}
}
