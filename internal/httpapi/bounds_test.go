package httpapi_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/bondvenue/bondvenue/internal/venue"
)

// This file tests the bounds of what a client may send: amounts and prices
// within 18 digits before the decimal point and 8 after.

const adminInstruments = "/api/v1/admin/instruments"

// newISIN completes an 11-character prefix with its check digit.
func newISIN(t *testing.T, prefix string) string {
	t.Helper()
	for d := '0'; d <= '9'; d++ {
		if venue.ValidISIN(prefix + string(d)) {
			return prefix + string(d)
		}
	}
	t.Fatalf("no check digit completes %s", prefix)
	return ""
}

// instrumentBody is a valid instrument create body listed on market, with
// the key/value pairs kv set.
func instrumentBody(isin, market string, kv ...any) obj {
	return set(obj{"isin": isin, "name": "Test 3% 2031", "currency": "EUR", "coupon": "3", "coupon_frequency": "Annual",
		"day_count": "30E/360", "maturity": "2031-06-15", "interest_accrual_date": "2024-06-15", "min_piece": 1000,
		"min_increment": 1000, "par_amount": 1000, "market_ids": []string{market}}, kv...)
}

// refusedWith sends a request that must answer 400 with an issue on field
// whose text contains want.
func (x *tv) refusedWith(t *testing.T, w who, method, path string, body any, field, want string) {
	t.Helper()
	e := x.obj(t, w, method, path, body, http.StatusBadRequest)
	ds, _ := e["details"].([]any)
	for _, d := range ds {
		if d.(obj)["field"] == field && strings.Contains(fmt.Sprint(d.(obj)["issue"]), want) {
			return
		}
	}
	t.Errorf("%s %s as %s: details %v, want an issue on %s saying %q", method, path, w, e["details"], field, want)
}

// TestAmountBounds: nominal amounts and prices have at most 18 digits
// before the decimal point and 8 after, wherever a client sends them.
func TestAmountBounds(t *testing.T) {
	fresh(t, func(t *testing.T, v *env) {
		x := newTV(t, v)
		in := x.ins[0]
		const digits = "digits before the decimal point"
		huge := "1" + strings.Repeat("0", 34) // 35 digits
		for _, bad := range []any{huge, "1000000000000000000", "0.000000001", "1000.123456789", int64(1_000_000_000_000_000_000)} {
			t.Run(fmt.Sprint(bad), func(t *testing.T) {
				for _, field := range []string{"min_piece", "min_increment", "par_amount"} {
					x.refusedWith(t, operator, "POST", adminInstruments, instrumentBody(newISIN(t, "XS281000003"), x.otc, field, bad), field, digits)
					x.refusedWith(t, operator, "PUT", adminInstruments+"/"+in, entity(field, bad), field, digits)
				}
				x.refusedWith(t, operator, "PUT", "/api/v1/admin/participants/"+x.participant(0)+"/risk-limits/MAX_OFFER",
					obj{"value": bad}, "value", digits)
				x.refusedWith(t, trader(0), "POST", offersPath, set(offer(in, x.book, "bid", "99", "100000"), "quantity", bad), "quantity", digits)
				x.refusedWith(t, trader(0), "POST", offersPath, set(offer(in, x.book, "bid", "99", "100000"), "price_per_unit", bad), "price_per_unit", digits)
				x.refusedWith(t, trader(0), "POST", offersPath, set(offer(in, x.book, "bid", "99", "100000"), "price_per_unit", obj{"limit_price": bad}),
					"price_per_unit", digits)
				x.refusedWith(t, trader(0), "POST", offersPath, set(offer(in, x.book, "bid", "99", "100000"), "price_per_unit", nil, "price", bad), "price", digits)
				x.refusedWith(t, trader(0), "POST", rfqPath, obj{"instrument_id": in, "market_id": x.otc, "direction": "bid", "quantity": bad},
					"quantity", digits)
				for _, field := range []string{"bid_price", "bid_quantity"} {
					x.refusedWith(t, trader(0), "POST", indicativePath, set(obj{"instrument_id": in, "account_id": x.account(0), "bid_price": "99",
						"bid_quantity": "1000000"}, field, bad), field, digits)
				}
			})
		}
		// Records to update, and the largest amounts accepted.
		o := x.create(t, trader(0), offer(in, x.book, "bid", "99", "100000"))
		r := x.rfq(t, trader(0), obj{"instrument_id": in, "market_id": x.otc, "direction": "bid", "quantity": "100000"})
		ip := x.obj(t, trader(0), "POST", indicativePath, obj{"instrument_id": in, "account_id": x.account(0), "bid_price": "99"}, http.StatusOK)
		for _, bad := range []any{huge, "0.000000001"} {
			x.refusedWith(t, trader(0), "PUT", offersPath+"/"+id(o), entity("quantity", bad), "quantity", digits)
			x.refusedWith(t, trader(0), "PUT", offersPath+"/"+id(o), entity("price_per_unit", bad), "price_per_unit", digits)
			x.refusedWith(t, trader(0), "PUT", rfqPath+"/"+id(r), entity("quantity", bad), "quantity", digits)
			x.refusedWith(t, trader(0), "PUT", indicativePath+"/"+id(ip), entity("ask_price", "100", "ask_quantity", bad), "ask_quantity", digits)
		}
		x.obj(t, operator, "PUT", "/api/v1/admin/participants/"+x.participant(3)+"/risk-limits/MAX_OFFER",
			obj{"value": "999999999999999999.99999999"}, http.StatusOK)
		x.obj(t, operator, "POST", adminInstruments, instrumentBody(newISIN(t, "XS281000004"), x.otc,
			"par_amount", "999999999999999999", "min_piece", "0.00000001", "min_increment", "0.000000010000"), http.StatusOK)
	})
}
