package httpapi_test

import (
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	gocmp "github.com/google/go-cmp/cmp"
)

// TestMarketHours walks the demo's market with trading hours (08:00 to
// 17:30 Frankfurt time, 15 minutes of pre-open) across a close, a weekend,
// a pre-open, an open, a halt and a TARGET2 holiday: outside continuous
// trading new orders and amendments are refused naming the phase, cancels
// are taken, resting orders stay, and each change of phase is a
// market.phase event.
func TestMarketHours(t *testing.T) {
	fresh(t, func(t *testing.T, v *env) {
		x := newTV(t, v)
		in := x.ins[0] // the first demo bonds are listed on the market with hours
		market := "/api/v1/markets/" + x.hours
		seq := x.lastSeq(t)
		berlin, _ := time.LoadLocation("Europe/Berlin")
		to := func(at time.Time) {
			v.clock.Advance(at.Sub(v.clock.Now()))
			for _, w := range everyone {
				v.signInAgain(w) // tokens expire meanwhile
			}
		}
		phase := func(want string) {
			t.Helper()
			if m := x.obj(t, viewer(2), "GET", market, nil, http.StatusOK); m["trading_phase"] != want {
				t.Errorf("trading_phase at %v = %v, want %s", v.clock.Now(), m["trading_phase"], want)
			}
		}

		// Friday 2026-11-20, 17:29:59 in Frankfurt: an order rests.
		to(time.Date(2026, 11, 20, 17, 29, 59, 0, berlin))
		phase("continuous")
		ask := x.create(t, trader(0), offer(in, x.hours, "ask", "99", "1000"))
		other := x.create(t, trader(0), offer(in, x.hours, "ask", "99.5", "1000"))
		wantState(t, ask, "created", "1000", "0")

		// 17:30: closed until Monday's open.
		v.clock.Advance(time.Second)
		closed := "the market is closed; it opens at 2026-11-23T08:00:00+01:00"
		tests := []struct {
			name         string
			who          who
			method, path string
			body         any
		}{
			{"new order", trader(1), "POST", offersPath, offer(in, x.hours, "bid", "99", "1000")},
			{"market order", trader(1), "POST", offersPath, marketOrder(in, x.hours, "bid", "1000")},
			{"new price", trader(0), "PUT", offersPath + "/" + id(ask), entity("price_per_unit", "98.5")},
			{"more quantity", trader(0), "PUT", offersPath + "/" + id(ask), entity("quantity", "3000")},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				wantText(t, x.refused(t, tt.who, tt.method, tt.path, tt.body, http.StatusConflict), closed)
			})
		}
		v.run(t, call{name: "offers_create_market_closed", as: trader(1), method: "POST", path: offersPath,
			body: offer(in, x.hours, "bid", "99", "1000"), want: http.StatusConflict})
		v.run(t, call{name: "markets_get_closed", as: viewer(2), method: "GET", path: market, want: http.StatusOK})
		// A cancel is taken; the other order rests.
		x.obj(t, trader(0), "DELETE", offersPath+"/"+id(other), nil, http.StatusOK)
		if o := x.obj(t, trader(0), "GET", offersPath+"/"+id(ask), nil, http.StatusOK); o["status"] != "created" {
			t.Errorf("resting order while closed: status %v, want created", o["status"])
		}

		// Monday 07:50: pre-open.
		to(time.Date(2026, 11, 23, 7, 50, 0, 0, berlin))
		phase("pre-open")
		wantText(t, x.refused(t, trader(1), "POST", offersPath, offer(in, x.hours, "bid", "99", "1000"), http.StatusConflict),
			"the market is in pre-open; it opens at 2026-11-23T08:00:00+01:00")

		// 08:00: open; the order that rested over the weekend trades.
		to(time.Date(2026, 11, 23, 8, 0, 0, 0, berlin))
		phase("continuous")
		bid := x.create(t, trader(1), offer(in, x.hours, "bid", "99", "1000"))
		wantState(t, bid, "closed", "1000", "1000")

		// A halt inside the hours.
		halt := "/api/v1/admin/markets/" + x.hours + "/instruments/" + in + "/halt"
		x.obj(t, operator, "PUT", halt, obj{"halted": true, "reason": "pending issuer announcement"}, http.StatusOK)
		wantText(t, x.refused(t, trader(1), "POST", offersPath, offer(in, x.hours, "bid", "99", "1000"), http.StatusConflict), "halted")
		x.obj(t, operator, "PUT", halt, obj{"halted": false}, http.StatusOK)

		// Christmas Day, a TARGET2 holiday: closed until Monday the 28th.
		to(time.Date(2026, 12, 25, 10, 0, 0, 0, berlin))
		phase("closed")
		wantText(t, x.refused(t, trader(1), "POST", offersPath, offer(in, x.hours, "bid", "99", "1000"), http.StatusConflict),
			"the market is closed; it opens at 2026-12-28T08:00:00+01:00")

		// The markets around the clock never changed; the one with hours
		// told each change.
		var got []string
		for _, ev := range x.list(t, viewer(2), "/api/v1/events?limit=1000&after="+strconv.Itoa(seq)) {
			if d, _ := ev["data"].(obj); ev["type"] == "market.phase" {
				if d["market_id"] != x.hours {
					t.Errorf("market.phase of market %v, want only %s", d["market_id"], x.hours)
				}
				got = append(got, d["trading_phase"].(string))
			}
		}
		want := []string{"closed", "pre-open", "continuous", "closed"}
		if d := gocmp.Diff(want, got); d != "" {
			t.Errorf("market.phase events (-want +got):\n%s", d)
		}

		// The order records name the phase of each event.
		csv := string(x.send(t, operator, "GET", "/api/v1/admin/order-records?date=2026-11-20&instrument_id="+in, nil, http.StatusOK, nil).body)
		lines := strings.Split(strings.ReplaceAll(csv, "\r", ""), "\n")
		col := map[string]int{}
		for i, name := range strings.Split(lines[0], ",") {
			col[name] = i
		}
		phases := map[string]bool{}
		for _, line := range lines[1:] {
			if f := strings.Split(line, ","); len(f) == len(col) && f[col["market_id"]] == x.hours {
				phases[f[col["21 event"]]+" "+f[col["49 trading_phase"]]] = true
			}
		}
		for _, want := range []string{"NEWO CONTINUOUS", "REMO CLOSED", "CAME CLOSED"} {
			if !phases[want] {
				t.Errorf("order records of 2026-11-20 lack %q: %v", want, phases)
			}
		}
	})
}

// TestMarketHoursValidation: trading hours that cannot be are refused,
// naming the field.
func TestMarketHoursValidation(t *testing.T) {
	fresh(t, func(t *testing.T, v *env) {
		x := newTV(t, v)
		base := func(hours any) obj {
			return obj{"name": "hours " + time.Now().Format("150405.000000"), "facility_type": "continues-matching",
				"timezone": "Europe/Berlin", "trading_hours": hours}
		}
		tests := []struct {
			name  string
			body  obj
			field string
		}{
			{"bad HH:MM", base(obj{"open": "8:00", "close": "17:30"}), "trading_hours.open"},
			{"hour 24", base(obj{"open": "08:00", "close": "24:00"}), "trading_hours.close"},
			{"close before open", base(obj{"open": "17:30", "close": "08:00"}), "trading_hours.close"},
			{"no close", base(obj{"open": "08:00"}), "trading_hours.close"},
			{"not an object", base("08:00-17:30"), "trading_hours"},
			{"negative pre-open", base(obj{"open": "08:00", "close": "17:30", "pre_open_minutes": -5}), "trading_hours.pre_open_minutes"},
			{"unknown zone", obj{"name": "hours zone", "facility_type": "continues-matching", "timezone": "Europe/Atlantis",
				"trading_hours": obj{"open": "08:00", "close": "17:30"}}, "timezone"},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				x.refused(t, operator, "POST", "/api/v1/admin/markets", tt.body, http.StatusBadRequest, tt.field)
			})
		}
		v.run(t, call{name: "admin_markets_create_hours_invalid", as: operator, method: "POST", path: "/api/v1/admin/markets",
			body: obj{"name": "hours invalid", "facility_type": "continues-matching", "timezone": "Europe/Berlin",
				"trading_hours": obj{"open": "17:30", "close": "8:00", "pre_open_minutes": 300}}, want: http.StatusBadRequest})
		created := v.run(t, call{name: "admin_markets_create_hours", as: operator, method: "POST", path: "/api/v1/admin/markets",
			body: obj{"name": "hours market", "facility_type": "continues-matching", "timezone": "Europe/Berlin",
				"trading_hours": obj{"open": "09:00", "close": "17:30", "pre_open_minutes": 30}}, want: http.StatusOK})
		var m obj
		decodeExact(t, created, &m)
		// null takes the hours away: the market trades around the clock.
		v.run(t, call{name: "admin_markets_update_hours_none", as: operator, method: "PUT", path: "/api/v1/admin/markets/" + id(m),
			body: obj{"entity": obj{"trading_hours": nil}}, want: http.StatusOK})
	})
}
