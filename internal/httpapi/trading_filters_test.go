package httpapi_test

import (
	"net/http"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestTradingListFilters: the offer, RFQ, trade and indicative-price lists
// name each bad filter in their 400, and trades filter by execution_type.
func TestTradingListFilters(t *testing.T) {
	fresh(t, func(t *testing.T, v *env) {
		x := newTV(t, v)
		in := x.ins[0]
		// A continuous trade: p1's bid meets p0's resting ask.
		x.create(t, trader(0), offer(in, x.book, "ask", "100", "100000"))
		x.create(t, trader(1), offer(in, x.book, "bid", "100", "100000"))
		// An OTC trade: p1 accepts p0's quote on its RFQ.
		r := x.rfq(t, trader(1), obj{"instrument_id": in, "market_id": x.otc, "direction": "bid", "quantity": "1000000",
			"counterparties": []string{x.participant(0)}})
		q := x.create(t, trader(0), obj{"instrument_id": in, "market_id": x.otc, "direction": "ask", "price_per_unit": "99",
			"quantity": "1000000", "matched_offer_id": id(r)})
		otc := x.obj(t, trader(1), "PUT", offersPath+"/"+id(q)+"/accept", nil, http.StatusOK)

		t.Run("execution_type", func(t *testing.T) {
			all := x.list(t, viewer(0), "/api/v1/trades")
			if len(all) != 2 {
				t.Fatalf("%d trades, want 2", len(all))
			}
			for _, typ := range []string{"otc", "continuous"} {
				got := x.list(t, viewer(1), "/api/v1/trades?execution_type="+typ)
				if len(got) != 1 || got[0]["execution_type"] != typ {
					t.Errorf("trades?execution_type=%s: %v, want the one %s trade", typ, ids(got), typ)
				}
			}
			if got := x.list(t, operator, "/api/v1/trades?execution_type=otc&instrument_id="+in); len(got) != 1 || id(got[0]) != id(otc) {
				t.Errorf("otc trades of the instrument: %v, want %s", ids(got), id(otc))
			}
			if got := x.list(t, viewer(0), "/api/v1/trades?execution_type=otc&market_id="+x.book); len(got) != 0 {
				t.Errorf("otc trades on the book: %v, want none", ids(got))
			}
		})

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
				{"/api/v1/trades?execution_type=rfq", []string{"execution_type"}},
				{"/api/v1/trades?instrument_id=a&market_id=b&offer_id=c&execution_type=OTC",
					[]string{"instrument_id", "market_id", "offer_id", "execution_type"}},
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
