package httpapi_test

import (
	"net/http"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestTradingListFilters: the offer, RFQ, trade and indicative-price lists
// name each bad filter in their 400.
func TestTradingListFilters(t *testing.T) {
	fresh(t, func(t *testing.T, v *env) {
		x := newTV(t, v)

		t.Run("bad values name every parameter", func(t *testing.T) {
			for _, tc := range []struct {
				path   string
				fields []string
			}{
				{offersPath + "?market_id=nope", []string{"market_id"}},
				{offersPath + "?instrument_id=nope", []string{"instrument_id"}},
				{offersPath + "?status=open&instrument_id=x&market_id=y", []string{"status", "instrument_id", "market_id"}},
				{rfqPath + "?market_id=nope", []string{"market_id"}},
				{rfqPath + "?status=open&instrument_id=x&market_id=y", []string{"status", "instrument_id", "market_id"}},
				{"/api/v1/trades?market_id=nope", []string{"market_id"}},
				{"/api/v1/trades?instrument_id=a&market_id=b&offer_id=c", []string{"instrument_id", "market_id", "offer_id"}},
				{indicativePath + "?instrument_id=nope", []string{"instrument_id"}},
			} {
				r := x.send(t, viewer(0), "GET", tc.path, nil, http.StatusBadRequest, nil)
				got := issueFields(t, r)
				slices.Sort(got)
				want := slices.Sorted(slices.Values(tc.fields))
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("GET %s details (-want +got):\n%s", tc.path, diff)
				}
			}
		})
	})
}
