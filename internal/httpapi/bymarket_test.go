package httpapi_test

import (
	"fmt"
	"slices"
	"testing"
)

// TestInstrumentsByMarket: GET /instruments?market_id=M shows each
// instrument's best prices on M only — an ask resting on another market,
// better or not, is not M's, and a cancelled one leaves M's side empty —
// while the list without market_id shows the best across markets.
func TestInstrumentsByMarket(t *testing.T) {
	fresh(t, func(t *testing.T, v *env) {
		x := newTV(t, v)
		listed := func(market string) []string {
			var out []string
			for _, in := range x.list(t, trader(0), "/api/v1/instruments?limit=1000&market_id="+market) {
				out = append(out, id(in))
			}
			return out
		}
		onAON := listed(x.aon)
		var in string
		for _, id := range listed(x.book) {
			if slices.Contains(onAON, id) {
				in = id
				break
			}
		}
		if in == "" {
			t.Fatal("no demo instrument is listed on both continuous markets")
		}
		// bestAsk is the instrument's best ask as the list shows it.
		bestAsk := func(query string) (price, market string) {
			t.Helper()
			for _, o := range x.list(t, trader(0), "/api/v1/instruments?limit=1000"+query) {
				if id(o) != in {
					continue
				}
				asks, _ := o["instrument_limits"].(obj)["ask"].([]any)
				if len(asks) == 0 {
					return "", ""
				}
				a := asks[0].(obj)
				return fmt.Sprint(a["limit"]), fmt.Sprint(a["market_id"])
			}
			t.Fatalf("instrument %s not listed with %q", in, query)
			return "", ""
		}

		onBook := x.create(t, trader(1), offer(in, x.book, "ask", "101", "1000000"))
		x.create(t, trader(2), offer(in, x.aon, "ask", "100.5", "1000000"))
		for _, tc := range []struct{ query, price, market string }{
			{"&market_id=" + x.book, "101", x.book},
			{"&market_id=" + x.aon, "100.5", x.aon},
			{"", "100.5", x.aon},
		} {
			if p, m := bestAsk(tc.query); p != tc.price || m != tc.market {
				t.Errorf("best ask with %q: %s on %s, want %s on %s", tc.query, p, m, tc.price, tc.market)
			}
		}
		x.obj(t, trader(1), "DELETE", offersPath+"/"+id(onBook), nil, 200)
		if p, m := bestAsk("&market_id=" + x.book); p != "" {
			t.Errorf("best ask on the book after its only ask was cancelled: %s on %s, want none", p, m)
		}
	})
}
