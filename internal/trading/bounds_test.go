package trading_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/bondvenue/bondvenue/internal/testenv"
	"github.com/bondvenue/bondvenue/internal/trading"
	"github.com/bondvenue/bondvenue/internal/venue"
)

// TestAmountBoundsInUseCases: the use cases themselves refuse amounts and
// prices beyond 18 digits before the decimal point or 8 after, whichever
// channel calls them, naming the field.
func TestAmountBoundsInUseCases(t *testing.T) {
	for _, e := range testenv.Engines {
		t.Run(string(e), func(t *testing.T) {
			v := testenv.NewDemoVenue(t, e)
			ctx := t.Context()
			trader := v.Principal(t, 0, venue.RoleTrader)
			huge, fine := dec("1"+strings.Repeat("0", 18)), dec("99.000000001")
			ok := dec("99")
			offer := func(price, qty string) error {
				_, err := v.Svc.CreateOffer(ctx, trader, trading.OfferInput{InstrumentID: v.Instrument, MarketID: v.Partial,
					Direction: venue.Bid, Price: ptrTo(dec(price)), Quantity: ptrTo(dec(qty))})
				return err
			}
			created, err := v.Svc.CreateOffer(ctx, trader, trading.OfferInput{InstrumentID: v.Instrument, MarketID: v.Partial,
				Direction: venue.Bid, Price: &ok, Quantity: ptrTo(dec("1000"))})
			if err != nil {
				t.Fatal(err)
			}
			for _, tt := range []struct {
				name, field string
				err         error
			}{
				{"offer quantity", "quantity", offer("99", huge.String())},
				{"offer price", "price_per_unit", offer(huge.String(), "1000")},
				{"offer price decimals", "price_per_unit", offer(fine.String(), "1000")},
				{"amended quantity", "quantity", func() error {
					_, err := v.Svc.UpdateOffer(ctx, trader, created.ID, trading.ChangeInput{Quantity: &huge})
					return err
				}()},
				{"indicative quantity", "bid_quantity", func() error {
					_, err := v.Svc.CreateIndicativePrice(ctx, trader, trading.IndicativeInput{InstrumentID: v.Instrument,
						AccountID: v.Creds.Participants[0].AccountIDs[0], BidPrice: &ok, BidQuantity: &huge})
					return err
				}()},
				{"risk limit", "value", func() error {
					_, err := v.Svc.SetRiskLimit(ctx, trading.System, v.Creds.Participants[0].ID,
						trading.RiskLimitInput{Name: venue.LimitMaxOffer, Value: &huge})
					return err
				}()},
			} {
				var ve *venue.Error
				if !errors.As(tt.err, &ve) || ve.Kind != venue.KindInvalid || len(ve.Details) == 0 || ve.Details[0].Field != tt.field ||
					!strings.Contains(ve.Details[0].Issue, "digits") {
					t.Errorf("%s: error %v, want invalid %s naming the digits", tt.name, tt.err, tt.field)
				}
			}
		})
	}
}
