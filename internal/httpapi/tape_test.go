package httpapi_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"testing"
	"time"

	gocmp "github.com/google/go-cmp/cmp"
)

// TestTape: the latest trades as market data, newest first, book and RFQ
// trades alike, without parties, readable by every caller; bad queries
// answer 400 and an unknown instrument 404.
func TestTape(t *testing.T) {
	fresh(t, func(t *testing.T, v *env) {
		x := newTV(t, v)
		in, other := x.ins[0], x.ins[1]
		x.create(t, trader(1), offer(in, x.book, "ask", "99.5", "100000"))
		x.create(t, trader(0), offer(in, x.book, "bid", "100", "100000")) // trades at 99.5
		v.clock.Advance(time.Second)                                      // the RFQ trade is the newer one
		defer v.clock.Advance(-time.Second)
		r := x.rfq(t, trader(0), obj{"instrument_id": in, "market_id": x.otc, "direction": "bid", "quantity": "1000000"})
		q := x.create(t, trader(1), obj{"instrument_id": in, "market_id": x.otc, "direction": "ask", "price_per_unit": "101",
			"quantity": "1000000", "matched_offer_id": id(r)})
		x.send(t, trader(0), "PUT", offersPath+"/"+id(q)+"/accept", nil, http.StatusOK, nil)

		print := func(market, price, qty, exec string) obj {
			return obj{"instrument_id": in, "market_id": market, "price": json.Number(price), "quantity": json.Number(qty),
				"execution_type": exec}
		}
		want := []obj{print(x.otc, "101", "1000000", "otc"), print(x.book, "99.5", "100000", "continuous")}
		for _, tt := range []struct {
			query string
			want  []obj
		}{
			{"?instrument_id=" + in, want},
			{"?instrument_id=" + in + "&limit=1", want[:1]},
			{"?instrument_id=" + other, []obj{}},
		} {
			for _, w := range []who{viewer(3), operator} { // market data: even a firm that is nobody's counterparty
				got := x.list(t, w, "/api/v1/tape"+tt.query)
				for _, g := range got {
					if at, _ := g["occurred_at"].(string); at == "" {
						t.Errorf("GET /tape%s as %s: a print without occurred_at: %v", tt.query, w, g)
					}
					// Small trades: on the public tape at once, whole.
					if fl, _ := g["flags"].([]any); len(fl) != 0 || g["mic"] != "BVEN" || g["isin"] == "" || g["tvtic"] == "" {
						t.Errorf("GET /tape%s as %s: %v, want an unflagged print with ISIN, MIC and TVTIC", tt.query, w, g)
					}
					for _, k := range []string{"occurred_at", "trade_id", "isin", "mic", "tvtic", "flags", "publication"} {
						delete(g, k)
					}
				}
				if d := gocmp.Diff(tt.want, got); d != "" {
					t.Errorf("GET /tape%s as %s (-want +got):\n%s", tt.query, w, d)
				}
			}
		}
		v.run(t, call{name: "tape", as: viewer(3), method: "GET", path: "/api/v1/tape?instrument_id=" + in, want: 200})
		for query, field := range map[string]string{"?limit=0": "limit", "?limit=x": "limit", "?instrument_id=nope": "instrument_id"} {
			x.refused(t, viewer(0), "GET", "/api/v1/tape"+query, nil, http.StatusBadRequest, field)
		}
		x.refused(t, viewer(0), "GET", "/api/v1/tape?instrument_id="+missingID, nil, http.StatusNotFound)
	})
}

// TestLastTrades: each book's latest trade by execution, book and RFQ
// alike, including a trade the public tape defers (the stream's last
// price shows it at once, so the screen's Last must not wait for the
// tape); market_id narrows it; bad queries answer 400 and an unknown
// market 404.
func TestLastTrades(t *testing.T) {
	fresh(t, func(t *testing.T, v *env) {
		x := newTV(t, v)
		in := x.ins[0]
		x.create(t, trader(1), offer(in, x.book, "ask", "99.5", "100000"))
		x.create(t, trader(0), offer(in, x.book, "bid", "100", "100000")) // trades at 99.5
		v.clock.Advance(time.Second)
		defer v.clock.Advance(-2 * time.Second)
		// A size the deferral table holds back from the tape: the
		// book's last trade all the same.
		x.create(t, trader(1), offer(in, x.book, "ask", "99.75", "20000000"))
		x.create(t, trader(0), offer(in, x.book, "bid", "99.75", "20000000"))
		v.clock.Advance(time.Second)
		r := x.rfq(t, trader(0), obj{"instrument_id": in, "market_id": x.otc, "direction": "bid", "quantity": "1000000"})
		q := x.create(t, trader(1), obj{"instrument_id": in, "market_id": x.otc, "direction": "ask", "price_per_unit": "101",
			"quantity": "1000000", "matched_offer_id": id(r)})
		x.send(t, trader(0), "PUT", offersPath+"/"+id(q)+"/accept", nil, http.StatusOK, nil)

		tape := x.list(t, viewer(3), "/api/v1/tape?instrument_id="+in)
		for _, p := range tape {
			if p["market_id"] == x.book && p["price"] == json.Number("99.75") {
				t.Fatalf("the 20 m trade is on the public tape at once: %v; the test needs a deferred trade", p)
			}
		}
		last := func(market, price, qty string) obj {
			return obj{"instrument_id": in, "market_id": market, "last_price": json.Number(price), "last_quantity": json.Number(qty)}
		}
		book, otc := last(x.book, "99.75", "20000000"), last(x.otc, "101", "1000000")
		for _, tt := range []struct {
			query string
			want  []obj
		}{
			{"?market_id=" + x.book, []obj{book}},
			{"?market_id=" + x.otc, []obj{otc}},
			{"", []obj{book, otc}},
		} {
			for _, w := range []who{viewer(3), operator} {
				got := x.list(t, w, "/api/v1/last-trades"+tt.query)
				for _, g := range got {
					if at, _ := g["occurred_at"].(string); at == "" {
						t.Errorf("GET /last-trades%s as %s: no occurred_at: %v", tt.query, w, g)
					}
					delete(g, "occurred_at")
				}
				sortBy(got, "market_id")
				want := append([]obj(nil), tt.want...)
				sortBy(want, "market_id")
				if d := gocmp.Diff(want, got); d != "" {
					t.Errorf("GET /last-trades%s as %s (-want +got):\n%s", tt.query, w, d)
				}
			}
		}
		v.run(t, call{name: "last_trades", as: viewer(3), method: "GET", path: "/api/v1/last-trades?market_id=" + x.book, want: 200})
		x.refused(t, viewer(0), "GET", "/api/v1/last-trades?market_id=nope", nil, http.StatusBadRequest, "market_id")
		x.refused(t, viewer(0), "GET", "/api/v1/last-trades?market_id="+missingID, nil, http.StatusNotFound)
	})
}

// sortBy orders records by a string field.
func sortBy(rs []obj, field string) {
	sort.Slice(rs, func(i, j int) bool { return fmt.Sprint(rs[i][field]) < fmt.Sprint(rs[j][field]) })
}
