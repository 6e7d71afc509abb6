package httpapi_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// This file tests trading rules at their edges through HTTP, on both
// engines.

// TestPricePrecision: a price is too precise only when its value has more
// decimals than the instrument's precision; trailing zeros do not count, on
// create and on update, for offers, RFQs and indicative prices.
func TestPricePrecision(t *testing.T) {
	fresh(t, func(t *testing.T, v *env) {
		x := newTV(t, v)
		in := x.ins[1]
		x.obj(t, operator, "PUT", "/api/v1/admin/instruments/"+in, entity("precision", 3), http.StatusOK)

		o := x.create(t, trader(0), offer(in, x.book, "bid", "99.5000", "100000"))
		wantDec(t, "price", o["price"], "99.5")
		x.create(t, trader(0), offer(in, x.book, "bid", "99.1230", "100000"))
		x.refused(t, trader(0), "POST", offersPath, offer(in, x.book, "bid", "99.5001", "100000"), http.StatusBadRequest, "price_per_unit")
		x.refused(t, trader(0), "POST", offersPath, offer(in, x.book, "bid", "99.1234", "100000"), http.StatusBadRequest, "price_per_unit")
		// Quantities are checked by value too.
		x.create(t, trader(0), offer(in, x.book, "bid", "99.25", "101000.000"))

		path := offersPath + "/" + id(o)
		got := x.obj(t, trader(0), "PUT", path, entity("price_per_unit", "99.60000000"), http.StatusOK)
		wantDec(t, "amended price", got["price"], "99.6")
		x.refused(t, trader(0), "PUT", path, entity("price_per_unit", "99.6001"), http.StatusBadRequest, "price_per_unit")

		r := x.rfq(t, trader(0), obj{"instrument_id": in, "market_id": x.otc, "direction": "bid", "quantity": "1000000",
			"price_per_unit": "99.5000", "is_executable": true})
		x.obj(t, trader(0), "PUT", rfqPath+"/"+id(r), entity("price_per_unit", "99.4000"), http.StatusOK)
		x.refused(t, trader(0), "PUT", rfqPath+"/"+id(r), entity("price_per_unit", "99.4005"), http.StatusBadRequest, "price_per_unit")

		x.obj(t, trader(0), "POST", indicativePath, obj{"account_id": v.account(0), "instrument_id": in,
			"bid_price": "99.5000", "ask_price": "99.7500000"}, http.StatusOK)
		x.refused(t, trader(0), "POST", indicativePath, obj{"account_id": v.account(0), "instrument_id": in,
			"bid_price": "99.5005"}, http.StatusBadRequest, "bid_price")
	})
}

// TestUpdateSettlementDate: an update's settlement date must be before the
// instrument's maturity, as on create, for offers and RFQs.
func TestUpdateSettlementDate(t *testing.T) {
	fresh(t, func(t *testing.T, v *env) {
		x := newTV(t, v)
		in := x.ins[0]            // matures 2033-02-15
		const late = "2060-06-01" // a Tuesday after every demo instrument's maturity
		x.refused(t, trader(0), "POST", offersPath, set(offer(in, x.book, "bid", "95", "100000"), "settlement_date", late),
			http.StatusBadRequest, "settlement_date")

		o := x.create(t, trader(0), offer(in, x.book, "bid", "95", "100000"))
		e := x.refused(t, trader(0), "PUT", offersPath+"/"+id(o), entity("settlement_date", late), http.StatusBadRequest, "settlement_date")
		if !strings.Contains(errorText(e)+detailsText(e), "maturity") {
			t.Errorf("offer update after maturity: %v, want the maturity named", e)
		}
		x.state(t, trader(0), id(o), "created", "100000", "0")
		x.obj(t, trader(0), "PUT", offersPath+"/"+id(o), entity("settlement_date", "2026-11-25"), http.StatusOK)

		r := x.rfq(t, trader(0), obj{"instrument_id": in, "market_id": x.otc, "direction": "bid", "quantity": "1000000"})
		x.refused(t, trader(0), "PUT", rfqPath+"/"+id(r), entity("settlement_date", late), http.StatusBadRequest, "settlement_date")
		x.refused(t, trader(0), "PUT", rfqPath+"/"+id(r), entity("settlement_date", "2026-11-21"), http.StatusBadRequest, "settlement_date")
		x.obj(t, trader(0), "PUT", rfqPath+"/"+id(r), entity("settlement_date", "2026-11-25"), http.StatusOK)
	})
}

// detailsText joins an error body's issues.
func detailsText(e obj) string {
	var b strings.Builder
	ds, _ := e["details"].([]any)
	for _, d := range ds {
		s, _ := d.(obj)["issue"].(string)
		b.WriteString(s + "\n")
	}
	return b.String()
}

// TestIdempotencyKeyLength: the document allows keys of up to 255
// characters; one more is a 400 naming the header.
func TestIdempotencyKeyLength(t *testing.T) {
	fresh(t, func(t *testing.T, v *env) {
		x := newTV(t, v)
		body := offer(x.ins[0], x.book, "bid", "95", "100000")
		for _, k := range []string{strings.Repeat("k", 255), strings.Repeat("é", 255)} {
			key := map[string]string{"Idempotency-Key": k}
			first := x.send(t, trader(0), "POST", offersPath, body, http.StatusOK, key)
			again := x.send(t, trader(0), "POST", offersPath, body, http.StatusOK, key)
			if again.header.Get("Idempotent-Replayed") != "true" || string(again.body) != string(first.body) {
				t.Errorf("retry with a 255-character key: Idempotent-Replayed %q, want the first answer replayed",
					again.header.Get("Idempotent-Replayed"))
			}
		}
		for _, k := range []string{strings.Repeat("k", 256), strings.Repeat("é", 256)} {
			r := x.send(t, trader(0), "POST", offersPath, body, http.StatusBadRequest, map[string]string{"Idempotency-Key": k})
			if got := issueFields(t, r); len(got) != 1 || got[0] != "Idempotency-Key" {
				t.Errorf("a 256-character key: details name %v, want Idempotency-Key", got)
			}
		}
		if n := len(x.list(t, viewer(0), offersPath)); n != 2 {
			t.Errorf("%d offers, want 2: refused keys create nothing", n)
		}
	})
}

// TestEngineStopped: with the trading engine stopped, trading commands
// answer 503 with Retry-After (not ready), not 502 (a database failure);
// reads still work.
func TestEngineStopped(t *testing.T) {
	fresh(t, func(t *testing.T, v *env) {
		x := newTV(t, v)
		o := x.create(t, trader(0), offer(x.ins[0], x.book, "bid", "95", "100000"))
		v.core.Close()
		for _, c := range []call{
			{name: "offers_create_engine_stopped", as: trader(0), method: "POST", path: offersPath, body: offer(x.ins[0], x.book, "bid", "95", "100000")},
			{as: trader(0), method: "DELETE", path: offersPath + "/" + id(o)},
			{as: trader(0), method: "PUT", path: offersPath + "/" + id(o), body: entity("quantity", "200000")},
		} {
			c.want = http.StatusServiceUnavailable
			r := x.run(t, c)
			if r.header.Get("Retry-After") == "" {
				t.Errorf("%s %s: no Retry-After on the 503", c.method, c.path)
			}
		}
		x.state(t, viewer(0), id(o), "created", "100000", "0")
		var ready struct {
			Status string            `json:"status"`
			Checks map[string]string `json:"checks"`
		}
		if r := v.get(t, anon, "/readyz", http.StatusServiceUnavailable); json.Unmarshal(r.body, &ready) != nil ||
			ready.Status != "unavailable" || ready.Checks["engine"] != "stopped" || ready.Checks["database"] != "ok" {
			t.Errorf("readyz with the engine stopped: %s", r.body)
		}
	})
}

// TestRecordAsEntity sends records back as the spec's clients do: a
// record read with GET as an update's entity changes nothing and keeps
// time priority, and the record's form of the price,
// {"limit_price": …, "__typename": …}, is accepted wherever a price is.
func TestRecordAsEntity(t *testing.T) {
	fresh(t, func(t *testing.T, v *env) {
		x := newTV(t, v)
		o := x.create(t, trader(0), set(offer(x.ins[0], x.book, "bid", "95", "100000"), "notes", "as read"))
		path := offersPath + "/" + id(o)
		read := x.obj(t, trader(0), "GET", path, nil, http.StatusOK)
		again := x.obj(t, trader(0), "PUT", path, obj{"entity": read}, http.StatusOK)
		for _, k := range []string{"price", "quantity", "settlement_date", "validity", "notes", "status"} {
			if fmt.Sprint(again[k]) != fmt.Sprint(read[k]) {
				t.Errorf("%s after sending the record back: %v, want %v", k, again[k], read[k])
			}
		}
		moved := x.obj(t, trader(0), "PUT", path, entity("price_per_unit", obj{"limit_price": 95.5, "__typename": "LimitOrderPrice"}), http.StatusOK)
		if fmt.Sprint(moved["price"]) != "95.5" {
			t.Errorf("price after an update in the record's form: %v", moved["price"])
		}
		c := x.create(t, trader(0), set(offer(x.ins[0], x.book, "bid", "0", "100000"), "price_per_unit", obj{"limit_price": "94.25"}))
		if fmt.Sprint(c["price"]) != "94.25" {
			t.Errorf("price of a create in the record's form: %v", c["price"])
		}
		x.refused(t, trader(0), "PUT", path, entity("price_per_unit", obj{"__typename": "LimitOrderPrice"}), http.StatusBadRequest, "price_per_unit")
		x.refused(t, trader(0), "PUT", path, entity("price_per_unit", obj{"limit_price": "ninety"}), http.StatusBadRequest, "price_per_unit")
	})
}
