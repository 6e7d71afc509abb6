package httpapi_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/bondvenue/bondvenue/internal/venue"
)

// This file tests the bounds of what a client may send: real dates in an
// instrument's date fields, amounts and prices within 18 digits before the
// decimal point and 8 after, text within its length, list filter ids that
// name a record the caller can see.

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

// TestInstrumentDates: every date field of an instrument holds a real date
// (kept as YYYY-MM-DD) or Undisclosed; anything else answers 400 naming the
// field, on create and on update.
func TestInstrumentDates(t *testing.T) {
	fresh(t, func(t *testing.T, v *env) {
		x := newTV(t, v)
		created := x.obj(t, operator, "POST", adminInstruments, instrumentBody(newISIN(t, "XS281000001"), x.otc,
			"pricing_date", "2024-06-12 09:30:00", "first_settle_date", "Undisclosed", "first_coupon_date", "2025-06-15T00:00:00Z",
			"static_data", obj{"refunding_date": "2029-06-15"}), http.StatusOK)
		check := func(in obj) {
			t.Helper()
			for field, want := range map[string]string{"pricing_date": "2024-06-12", "first_settle_date": "Undisclosed",
				"first_coupon_date": "2025-06-15", "maturity": "2031-06-15", "interest_accrual_date": "2024-06-15"} {
				if in[field] != want {
					t.Errorf("%s = %v, want %s", field, in[field], want)
				}
			}
			if sd, _ := in["static_data"].(obj); sd["refunding_date"] != "2029-06-15" {
				t.Errorf("static_data.refunding_date = %v, want 2029-06-15", sd["refunding_date"])
			}
		}
		check(created)
		path := adminInstruments + "/" + id(created)
		refused := newISIN(t, "XS281000002")
		for _, field := range []string{"pricing_date", "first_settle_date", "interest_accrual_date", "first_coupon_date", "maturity"} {
			for _, bad := range []string{"2026-02-30", "tomorrow", "2026-11-20T25:61:00Z", "Invalid date"} {
				x.refused(t, operator, "POST", adminInstruments, instrumentBody(refused, x.otc, field, bad), http.StatusBadRequest, field)
				x.refused(t, operator, "PUT", path, entity(field, bad), http.StatusBadRequest, field)
			}
		}
		x.refused(t, operator, "POST", adminInstruments, instrumentBody(refused, x.otc, "static_data", obj{"refunding_date": "2026-02-30"}),
			http.StatusBadRequest, "static_data.refunding_date")
		x.refused(t, operator, "PUT", path, entity("static_data", obj{"refunding_date": "soon"}), http.StatusBadRequest, "static_data.refunding_date")
		// A fixed-coupon bond is priced from its maturity: it cannot be withheld.
		x.refused(t, operator, "POST", adminInstruments, instrumentBody(refused, x.otc, "maturity", "Undisclosed"), http.StatusBadRequest, "maturity")
		if got := x.list(t, viewer(0), "/api/v1/instruments?isin="+refused); len(got) != 0 {
			t.Errorf("a refused instrument was created: %v", ids(got))
		}
		check(x.obj(t, viewer(0), "GET", "/api/v1/instruments/"+id(created), nil, http.StatusOK))
	})
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

// TestTextLimits: names and other one-line text hold at most 255
// characters (not bytes), notes 4096; beyond, 400 naming the field.
func TestTextLimits(t *testing.T) {
	fresh(t, func(t *testing.T, v *env) {
		x := newTV(t, v)
		in := x.ins[0]
		name, longName := strings.Repeat("é", 255), strings.Repeat("x", 256)
		note, longNote := strings.Repeat("é", 4096), strings.Repeat("x", 4097)
		lei := func(n int) string {
			prefix := fmt.Sprintf("5299009TEXTLIMIT%02d", n)
			return prefix + venue.LEICheckDigits(prefix)
		}
		participant := x.obj(t, operator, "POST", "/api/v1/admin/participants", obj{"name": name, "lei": lei(1), "country": "DE",
			"address": name}, http.StatusOK)
		o := x.create(t, trader(0), set(offer(in, x.book, "bid", "99", "100000"), "notes", note))
		// Limits count characters, not bytes.
		x.obj(t, operator, "POST", "/api/v1/admin/markets", obj{"name": strings.Repeat("é", 100), "facility_type": "OTC"}, http.StatusOK)
		x.obj(t, trader(0), "POST", "/api/v1/participant/buckets", obj{"name": strings.Repeat("é", 200),
			"instruments": []obj{{"id": in}}}, http.StatusAccepted)
		x.obj(t, operator, "POST", "/api/v1/admin/news", obj{"title": strings.Repeat("é", 300), "body": strings.Repeat("é", 20000)},
			http.StatusOK)
		x.obj(t, operator, "POST", "/api/v1/admin/accounts", obj{"participant_id": id(participant), "number": strings.Repeat("é", 64)},
			http.StatusOK)
		r := x.rfq(t, trader(0), obj{"instrument_id": in, "market_id": x.otc, "direction": "bid", "quantity": "100000", "notes": note})
		for _, c := range []struct {
			as           who
			method, path string
			body         obj
			field        string
		}{
			{operator, "POST", "/api/v1/admin/participants", obj{"name": longName, "lei": lei(2), "country": "DE"}, "name"},
			{operator, "POST", "/api/v1/admin/participants", obj{"name": "Long Address AG", "lei": lei(3), "country": "DE",
				"address": longName}, "address"},
			{operator, "PUT", "/api/v1/admin/participants/" + id(participant), entity("city", longName), "city"},
			{operator, "PUT", "/api/v1/admin/participants/" + id(participant), entity("custody_account_number", longName), "custody_account_number"},
			{operator, "POST", "/api/v1/admin/users", obj{"participant_id": id(participant), "role": "PARTICIPANT_VIEWER",
				"email": strings.Repeat("x", 250) + "@example.com"}, "email"},
			{admin(0), "POST", "/api/v1/admin/settlement-providers", obj{"provider": "Clearstream", "agent_name": longName}, "agent_name"},
			{admin(0), "POST", "/api/v1/admin/settlement-providers", obj{"provider": longName}, "provider"},
			{operator, "POST", "/api/v1/admin/markets", obj{"name": "Long Type", "facility_type": "OTC", "type": longName}, "type"},
			{operator, "POST", adminInstruments, instrumentBody(newISIN(t, "XS281000005"), x.otc, "issuer", longName), "issuer"},
			{operator, "POST", adminInstruments, instrumentBody(newISIN(t, "XS281000005"), x.otc, "note", longNote), "note"},
			{operator, "POST", adminInstruments, instrumentBody(newISIN(t, "XS281000005"), x.otc, "static_data", obj{"ticker": longName}),
				"static_data.ticker"},
			{operator, "PUT", adminInstruments + "/" + in, entity("name", longName), "name"},
			{operator, "PUT", adminInstruments + "/" + in, entity("lei", longName), "lei"},
			{trader(0), "POST", offersPath, set(offer(in, x.book, "bid", "99", "100000"), "notes", longNote), "notes"},
			{trader(0), "PUT", offersPath + "/" + id(o), entity("notes", longNote), "notes"},
			{trader(0), "POST", rfqPath, obj{"instrument_id": in, "market_id": x.otc, "direction": "bid", "quantity": "100000",
				"notes": longNote}, "notes"},
			{trader(0), "PUT", rfqPath + "/" + id(r), entity("notes", longNote), "notes"},
			{operator, "POST", "/api/v1/admin/news", obj{"title": "Notice", "body": "Text.", "source": longName}, "source"},
			{operator, "POST", "/api/v1/admin/news", obj{"title": "Notice", "body": "Text.", "url": "https://bondvenue.example/" +
				strings.Repeat("x", 2048)}, "url"},
		} {
			x.refused(t, c.as, c.method, c.path, c.body, http.StatusBadRequest, c.field)
		}
		x.obj(t, operator, "POST", adminInstruments, instrumentBody(newISIN(t, "XS281000006"), x.otc, "issuer", name, "note", note), http.StatusOK)
	})
}

// TestListFilterIDs: a list filter id that is not a UUID answers 400
// naming it; one naming no record the caller can see answers 404.
func TestListFilterIDs(t *testing.T) {
	fresh(t, func(t *testing.T, v *env) {
		x := newTV(t, v)
		in := x.ins[0]
		theirs := x.create(t, trader(1), offer(in, x.book, "ask", "101", "100000"))
		for _, c := range []struct {
			path  string
			as    who
			want  int
			field string
		}{
			{"/api/v1/instruments?market_id=x", viewer(0), http.StatusBadRequest, "market_id"},
			{"/api/v1/instruments?market_id=" + missingID, viewer(0), http.StatusNotFound, ""},
			{offersPath + "?instrument_id=" + missingID, viewer(0), http.StatusNotFound, ""},
			{offersPath + "?market_id=" + missingID, operator, http.StatusNotFound, ""},
			{rfqPath + "?instrument_id=" + missingID, viewer(0), http.StatusNotFound, ""},
			{rfqPath + "?market_id=" + missingID, viewer(0), http.StatusNotFound, ""},
			{"/api/v1/trades?instrument_id=" + missingID, viewer(0), http.StatusNotFound, ""},
			{"/api/v1/trades?market_id=" + missingID, viewer(0), http.StatusNotFound, ""},
			{"/api/v1/trades?offer_id=" + missingID, operator, http.StatusNotFound, ""},
			{"/api/v1/trades?offer_id=" + id(theirs), viewer(0), http.StatusNotFound, ""}, // another firm's offer
			{indicativePath + "?instrument_id=" + missingID, viewer(0), http.StatusNotFound, ""},
		} {
			if c.field != "" {
				x.refused(t, c.as, "GET", c.path, nil, c.want, c.field)
			} else {
				x.refused(t, c.as, "GET", c.path, nil, c.want)
			}
		}
		// Records the caller can see filter as before.
		if got := x.list(t, viewer(0), "/api/v1/instruments?market_id="+x.otc); len(got) != len(x.ins) {
			t.Errorf("instruments on the OTC market: %d, want all %d", len(got), len(x.ins))
		}
		if got := x.list(t, viewer(0), offersPath+"?instrument_id="+in+"&market_id="+x.book); len(got) != 0 {
			t.Errorf("p0's offers: %v, want none", ids(got))
		}
		if got := x.list(t, viewer(1), offersPath+"?instrument_id="+in+"&market_id="+x.book); len(got) != 1 {
			t.Errorf("p1's offers: %v, want %s", ids(got), id(theirs))
		}
		for _, path := range []string{"/api/v1/trades?offer_id=" + id(theirs), rfqPath + "?market_id=" + x.otc,
			indicativePath + "?instrument_id=" + in} {
			x.list(t, viewer(1), path)
		}
	})
}
