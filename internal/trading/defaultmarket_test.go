package trading_test

import (
	"context"
	"slices"
	"testing"

	"github.com/bondvenue/bondvenue/internal/store"
	"github.com/bondvenue/bondvenue/internal/testenv"
	"github.com/bondvenue/bondvenue/internal/trading"
	"github.com/bondvenue/bondvenue/internal/venue"
)

// TestDefaultMarket: an order without a market goes to the instrument's
// enabled continuous market that allows partial fills, an RFQ to its
// enabled OTC market; an operator's change of a market shows at once.
func TestDefaultMarket(t *testing.T) {
	v := testenv.NewDemoVenue(t, store.SQLite)
	ctx := context.Background()
	otc := v.OTC(t)
	ins, err := v.Svc.Instruments(ctx, trading.System, trading.InstrumentFilter{MarketID: v.Partial}, venue.Page{Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	if len(ins.Items) == 0 {
		t.Fatal("no demo instrument on the continuous market")
	}
	// The list leaves the instruments' markets out; the ISIN's instrument
	// has them.
	in, err := v.Svc.InstrumentByISIN(ctx, trading.System, ins.Items[0].Terms.ISIN)
	if err != nil || !slices.Contains(in.MarketIDs, v.Partial) {
		t.Fatalf("InstrumentByISIN = %v, %v, want it on market %s", in.MarketIDs, err, v.Partial)
	}
	if !slices.Contains(in.MarketIDs, otc) {
		ids := append(slices.Clone(in.MarketIDs), otc)
		if _, err := v.Svc.UpdateInstrument(ctx, trading.System, in.ID, trading.InstrumentInput{MarketIDs: &ids}); err != nil {
			t.Fatal(err)
		}
	}
	trader := v.Principal(t, 0, venue.RoleTrader)

	if got, err := v.Svc.InstrumentByISIN(ctx, trader, in.Terms.ISIN); err != nil || got.ID != in.ID {
		t.Errorf("InstrumentByISIN(%s) = %s, %v, want %s", in.Terms.ISIN, got.ID, err, in.ID)
	}
	if _, err := v.Svc.InstrumentByISIN(ctx, trader, "XS0000000000"); venue.KindOf(err) != venue.KindNotFound {
		t.Errorf("InstrumentByISIN(unknown) = %v, want not found", err)
	}

	tests := []struct {
		name, instrument, facility string
		disable                    bool // the continuous partial-fill market first
		want                       string
		wantKind                   venue.Kind
	}{
		{"order", in.ID, venue.FacilityContinuous, false, v.Partial, -1},
		{"rfq", in.ID, venue.FacilityOTC, false, otc, -1},
		{"unknown instrument", "0197a000-0000-7000-8000-000000000000", venue.FacilityContinuous, false, "", venue.KindNotFound},
		{"order, partial-fill market disabled", in.ID, venue.FacilityContinuous, true, "", -1},
		{"rfq, partial-fill market disabled", in.ID, venue.FacilityOTC, true, otc, -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.disable {
				if _, err := v.Svc.UpdateMarket(ctx, trading.System, v.Partial, trading.MarketInput{IsEnabled: ptrTo(false)}); err != nil {
					t.Fatal(err)
				}
			}
			got, err := v.Svc.DefaultMarket(ctx, trader, tt.instrument, tt.facility)
			if tt.wantKind >= 0 {
				if venue.KindOf(err) != tt.wantKind {
					t.Errorf("DefaultMarket(%s, %s) = %q, %v, want kind %v", tt.instrument, tt.facility, got, err, tt.wantKind)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("DefaultMarket(%s, %s) = %q, %v, want %q", tt.instrument, tt.facility, got, err, tt.want)
			}
		})
	}
}
