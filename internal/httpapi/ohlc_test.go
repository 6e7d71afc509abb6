package httpapi_test

import (
	"encoding/json"
	"net/http"
	"strconv"
	"testing"
	"time"

	gocmp "github.com/google/go-cmp/cmp"
)

// TestOHLC: bars of an instrument's trades per interval and market, from
// book and RFQ trades alike, readable by every caller; bad queries answer
// 400 and unknown records 404.
func TestOHLC(t *testing.T) {
	fresh(t, func(t *testing.T, v *env) {
		x := newTV(t, v)
		in := x.ins[0]
		t0 := v.clock.Now().UTC()
		x.create(t, trader(1), offer(in, x.book, "ask", "99.5", "100000"))
		x.create(t, trader(1), offer(in, x.book, "ask", "100", "100000"))
		x.create(t, trader(0), offer(in, x.book, "bid", "100", "100000")) // trades at 99.5
		x.create(t, trader(0), offer(in, x.book, "bid", "100", "100000")) // at 100
		r := x.rfq(t, trader(0), obj{"instrument_id": in, "market_id": x.otc, "direction": "bid", "quantity": "1000000"})
		q := x.create(t, trader(1), obj{"instrument_id": in, "market_id": x.otc, "direction": "ask", "price_per_unit": "101",
			"quantity": "1000000", "matched_offer_id": id(r)})
		x.send(t, trader(0), "PUT", offersPath+"/"+id(q)+"/accept", nil, http.StatusOK, nil)
		v.clock.Advance(2 * time.Minute)
		defer v.clock.Advance(-2 * time.Minute)
		x.create(t, trader(1), offer(in, x.book, "ask", "98", "100000"))
		x.create(t, trader(0), offer(in, x.book, "bid", "98", "100000")) // at 98

		minute := func(d time.Duration) string {
			return t0.Truncate(time.Minute).Add(d).Format("2006-01-02T15:04:05.000Z")
		}
		bar := func(market, interval, open string, o, h, l, c, vol string, n int) obj {
			return obj{"instrument_id": in, "market_id": market, "interval": interval, "open_time": open,
				"open": json.Number(o), "high": json.Number(h), "low": json.Number(l), "close": json.Number(c),
				"volume": json.Number(vol), "trades": json.Number(strconv.Itoa(n))}
		}
		// Bars of one interval come by market id.
		atOpen := []obj{bar(x.book, "1m", minute(0), "99.5", "100", "99.5", "100", "200000", 2),
			bar(x.otc, "1m", minute(0), "101", "101", "101", "101", "1000000", 1)}
		if x.otc < x.book {
			atOpen[0], atOpen[1] = atOpen[1], atOpen[0]
		}
		path := "/api/v1/instruments/" + in + "/ohlc"
		for _, tt := range []struct {
			query string
			want  []obj
		}{
			{"?interval=1m", append(atOpen, bar(x.book, "1m", minute(2*time.Minute), "98", "98", "98", "98", "100000", 1))},
			{"?interval=1h&market_id=" + x.book, []obj{
				bar(x.book, "1h", t0.Truncate(time.Hour).Format("2006-01-02T15:04:05.000Z"), "99.5", "100", "98", "98", "300000", 3)}},
			{"?interval=1m&from=" + minute(time.Minute), []obj{
				bar(x.book, "1m", minute(2*time.Minute), "98", "98", "98", "98", "100000", 1)}},
			{"?interval=1m&to=" + minute(time.Minute) + "&market_id=" + x.otc, []obj{
				bar(x.otc, "1m", minute(0), "101", "101", "101", "101", "1000000", 1)}},
		} {
			for _, w := range []who{viewer(3), operator} { // market data: even a firm that is nobody's counterparty
				got := x.list(t, w, path+tt.query)
				if d := gocmp.Diff(tt.want, got); d != "" {
					t.Errorf("GET …/ohlc%s as %s (-want +got):\n%s", tt.query, w, d)
				}
			}
		}
		v.run(t, call{name: "instruments_ohlc", as: viewer(3), method: "GET", path: path + "?interval=1h&market_id=" + x.book, want: 200})
		for query, field := range map[string]string{"?interval=2m": "interval", "?market_id=nope": "market_id",
			"?from=yesterday": "from", "?from=" + minute(time.Hour) + "&to=" + minute(0): "from",
			"?interval=1m&from=2020-01-01": "from"} {
			x.refused(t, viewer(0), "GET", path+query, nil, http.StatusBadRequest, field)
		}
		x.refused(t, viewer(0), "GET", "/api/v1/instruments/"+missingID+"/ohlc", nil, http.StatusNotFound)
		x.refused(t, viewer(0), "GET", path+"?market_id="+missingID, nil, http.StatusNotFound)
	})
}
