package httpapi_test

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/bondvenue/bondvenue/internal/trading"
	"github.com/bondvenue/bondvenue/internal/venue"
	gocmp "github.com/google/go-cmp/cmp"
	"github.com/quagmt/udecimal"
)

const indicativePath = "/api/v1/participant/indicative-price"

// TestIndicativePrices covers publishing, reading, changing and
// withdrawing indicative prices, in order on a fresh venue per engine.
func TestIndicativePrices(t *testing.T) {
	fresh(t, func(t *testing.T, v *env) {
		ins := v.instruments(t)
		dbr := ins[0] // DBR 2.30 15/02/2033: precision 4, min_piece 1000, min_increment 1000

		created := v.run(t, call{name: "indicative_create", as: trader(0), method: "POST", path: indicativePath, body: map[string]any{
			"id": missingID, "participant_id": v.participant(0), "account_id": v.account(0), "instrument_id": dbr,
			"bid_price": 99.25, "ask_price": "99.5", "bid_quantity": 1000000, "ask_quantity": "500000",
			"valid_until": "2026-11-20 18:00:00", "bid_yield": "1", "createdAt": "2020-01-01", "unknown": true,
		}, want: http.StatusOK}).object(t)
		id := created["id"].(string)
		bidYield, askYield := yieldOf(t, created, "bid_yield"), yieldOf(t, created, "ask_yield")

		t.Run("create answers the record with yields", func(t *testing.T) {
			want := map[string]any{"participant_id": v.participant(0), "account_id": v.account(0), "user_id": v.user(trader(0)),
				"instrument_id": dbr, "bid_price": 99.25, "ask_price": 99.5, "bid_quantity": float64(1000000),
				"ask_quantity": float64(500000), "settlement_date": "2026-11-24", // Friday + 2 TARGET2 business days
				"valid_until": "2026-11-20T18:00:00.000Z", "createdAt": "2026-11-20T14:48:00.000Z"}
			for k, w := range want {
				if created[k] != w {
					t.Errorf("created %s = %#v, want %#v", k, created[k], w)
				}
			}
			if id == missingID {
				t.Error("the id in the body was used; it is server-owned")
			}
			// The yield falls as the price rises: the ask (higher price) yields less.
			if !askYield.LessThan(bidYield) {
				t.Errorf("ask_yield %s not below bid_yield %s", askYield, bidYield)
			}
			if bidYield.LessThan(udecimal.MustParse("2")) || bidYield.GreaterThan(udecimal.MustParse("3")) {
				t.Errorf("bid_yield %s: want about the 2.3 %% coupon for a price near par", bidYield)
			}
		})

		t.Run("yield matches the bond calculator", func(t *testing.T) {
			in := v.get(t, viewer(1), "/api/v1/instruments/"+dbr, http.StatusOK).object(t)
			terms := map[string]any{"day_count": in["day_count"], "coupon": in["coupon"], "frequency": in["coupon_frequency"],
				"accrual_start": in["interest_accrual_date"], "first_coupon_date": in["first_coupon_date"],
				"maturity": in["maturity"], "settlement_date": "2026-11-24"}
			for _, side := range []struct{ price, yield string }{{"99.25", "bid_yield"}, {"99.5", "ask_yield"}} {
				terms["clean_price"] = side.price
				got := v.run(t, call{as: viewer(1), method: "POST", path: "/api/v1/analytics/yield", body: terms, want: http.StatusOK}).object(t)
				if got["yield"] != created[side.yield] {
					t.Errorf("analytics yield at %s = %v, want the record's %s %v", side.price, got["yield"], side.yield, created[side.yield])
				}
			}
		})

		// A one-sided price of another firm, on the same instrument.
		askOnly := v.run(t, call{as: admin(1), method: "POST", path: indicativePath, body: map[string]any{
			"account_id": v.account(1), "instrument_id": dbr, "ask_price": 100.125, "settlement_date": "2026-11-25",
		}, want: http.StatusOK}).object(t)
		otherID := askOnly["id"].(string)
		t.Run("one side", func(t *testing.T) {
			for _, k := range []string{"bid_price", "bid_quantity", "bid_yield", "ask_quantity", "valid_until"} {
				if askOnly[k] != nil {
					t.Errorf("%s = %#v, want null", k, askOnly[k])
				}
			}
			if askOnly["settlement_date"] != "2026-11-25" || yieldOf(t, askOnly, "ask_yield").GreaterThanOrEqual(askYield) {
				t.Errorf("settlement_date %v ask_yield %v; want 2026-11-25 and below %s (a higher price)",
					askOnly["settlement_date"], askOnly["ask_yield"], askYield)
			}
		})
		// On another instrument, to check the filter.
		v.run(t, call{as: trader(0), method: "POST", path: indicativePath, body: map[string]any{
			"account_id": v.account(0), "instrument_id": ins[1], "bid_price": 98, "ask_price": 98,
		}, want: http.StatusOK})

		t.Run("everyone reads, seeing what it may of the publisher", func(t *testing.T) {
			for _, tc := range []struct {
				as                          who
				participant, account, users bool // of firm 0's price
			}{
				{trader(0), true, true, true},
				{viewer(0), true, true, true},
				{operator, true, true, true},
				{viewer(2), true, false, false}, // a counterparty
				{viewer(3), false, false, false},
			} {
				items := v.get(t, tc.as, indicativePath+"?instrument_id="+dbr, http.StatusOK).array(t)
				if d := gocmp.Diff([]string{otherID, id}, ids(items)); d != "" {
					t.Errorf("as %s: ids (-want +got):\n%s", tc.as, d)
					continue
				}
				got := items[1]
				for _, f := range []struct {
					key   string
					shown bool
					value string
				}{{"participant_id", tc.participant, v.participant(0)}, {"account_id", tc.account, v.account(0)},
					{"user_id", tc.users, v.user(trader(0))}} {
					if want := map[bool]any{true: f.value, false: nil}[f.shown]; got[f.key] != want {
						t.Errorf("as %s: %s = %v, want %v", tc.as, f.key, got[f.key], want)
					}
				}
				if got["bid_yield"] != created["bid_yield"] || got["ask_price"] != 99.5 {
					t.Errorf("as %s: prices and yields differ from the created record: %v", tc.as, got)
				}
			}
			v.run(t, call{name: "indicative_list_by_instrument", as: viewer(2), method: "GET",
				path: indicativePath + "?instrument_id=" + dbr, want: http.StatusOK})
			all := v.get(t, viewer(3), indicativePath, http.StatusOK).array(t)
			if len(all) != 3 {
				t.Errorf("unfiltered list: %d prices, want 3", len(all))
			}
			items, pages := v.walk(t, viewer(3), indicativePath+"?instrument_id="+dbr+"&limit=1", 1)
			if d := gocmp.Diff([]string{otherID, id}, ids(items)); d != "" || pages != 2 {
				t.Errorf("paged: %d pages, ids (-want +got):\n%s", pages, d)
			}
		})

		t.Run("update", func(t *testing.T) {
			v.clock.Advance(time.Minute)
			// A whole record sent back: server-owned fields are ignored, null
			// ask_price withdraws the ask side with its quantity.
			entity := map[string]any{}
			for k, val := range created {
				entity[k] = val
			}
			entity["bid_price"], entity["ask_price"], entity["ask_quantity"] = "99.3", nil, nil
			entity["instrument_id"], entity["bid_yield"] = ins[1], "7"
			got := v.run(t, call{name: "indicative_update", as: admin(0), method: "PUT", path: indicativePath + "/" + id,
				body: map[string]any{"entity": entity}, want: http.StatusOK}).object(t)
			for k, want := range map[string]any{"bid_price": 99.3, "ask_price": nil, "ask_quantity": nil, "ask_yield": nil,
				"bid_quantity": float64(1000000), "instrument_id": dbr, "user_id": v.user(trader(0)),
				"createdAt": "2026-11-20T14:48:00.000Z", "updatedAt": "2026-11-20T14:49:00.000Z"} {
				if got[k] != want {
					t.Errorf("updated %s = %#v, want %#v", k, got[k], want)
				}
			}
			if y := yieldOf(t, got, "bid_yield"); !y.LessThan(bidYield) {
				t.Errorf("bid_yield at 99.3 = %s, want below %s at 99.25", y, bidYield)
			}

			// Put the ask back at the created price and settlement date: the
			// same yield again.
			put := func(entity map[string]any) map[string]any {
				t.Helper()
				return v.run(t, call{as: trader(0), method: "PUT", path: indicativePath + "/" + id,
					body: map[string]any{"entity": entity}, want: http.StatusOK}).object(t)
			}
			got = put(map[string]any{"ask_price": 99.5, "ask_quantity": "250000", "settlement_date": "2026-11-24 00:00:00", "valid_until": nil})
			if got["ask_yield"] != created["ask_yield"] || got["valid_until"] != nil || got["ask_quantity"] != float64(250000) {
				t.Errorf("ask_yield %v valid_until %v ask_quantity %v; want %v, null, 250000",
					got["ask_yield"], got["valid_until"], got["ask_quantity"], created["ask_yield"])
			}
			// A null price alone withdraws the side with its quantity.
			got = put(map[string]any{"ask_price": nil})
			if got["ask_quantity"] != nil || got["ask_yield"] != nil || got["bid_price"] != 99.3 {
				t.Errorf("after withdrawing the ask: ask_quantity %v ask_yield %v bid_price %v; want null, null, 99.3",
					got["ask_quantity"], got["ask_yield"], got["bid_price"])
			}
			put(map[string]any{"ask_price": "99.5"})
		})

		t.Run("forbidden and not found", func(t *testing.T) {
			body := map[string]any{"account_id": v.account(0), "instrument_id": dbr, "bid_price": 99}
			change := map[string]any{"entity": map[string]any{"bid_price": 99}}
			calls := []call{
				{name: "indicative_create_viewer", as: viewer(0), method: "POST", path: indicativePath, body: body, want: http.StatusForbidden},
				{as: operator, method: "POST", path: indicativePath, body: body, want: http.StatusForbidden},
				{as: anon, method: "GET", path: indicativePath, want: http.StatusUnauthorized},
				{name: "indicative_create_other_account", as: trader(0), method: "POST", path: indicativePath,
					body: map[string]any{"account_id": v.account(1), "instrument_id": dbr, "bid_price": 99}, want: http.StatusNotFound},
				{as: trader(0), method: "POST", path: indicativePath,
					body: map[string]any{"account_id": "nope", "instrument_id": dbr, "bid_price": 99}, want: http.StatusNotFound},
				{as: trader(0), method: "POST", path: indicativePath,
					body: map[string]any{"account_id": missingID, "instrument_id": dbr, "bid_price": 99}, want: http.StatusNotFound},
				{as: trader(0), method: "POST", path: indicativePath, body: map[string]any{"participant_id": v.participant(1),
					"account_id": v.account(0), "instrument_id": dbr, "bid_price": 99}, want: http.StatusNotFound},
				{as: trader(0), method: "POST", path: indicativePath, body: map[string]any{"user_id": v.user(trader(1)),
					"account_id": v.account(0), "instrument_id": dbr, "bid_price": 99}, want: http.StatusNotFound},
			}
			for _, m := range []string{"PUT", "DELETE"} {
				var b any
				if m == "PUT" {
					b = change
				}
				calls = append(calls,
					call{as: viewer(0), method: m, path: indicativePath + "/" + id, body: b, want: http.StatusForbidden},
					call{as: operator, method: m, path: indicativePath + "/" + id, body: b, want: http.StatusForbidden},
					call{as: trader(1), method: m, path: indicativePath + "/" + id, body: b, want: http.StatusNotFound},
					call{as: admin(2), method: m, path: indicativePath + "/" + id, body: b, want: http.StatusNotFound},
					call{as: trader(0), method: m, path: indicativePath + "/" + missingID, body: b, want: http.StatusNotFound},
					call{as: trader(0), method: m, path: indicativePath + "/nope", body: b, want: http.StatusNotFound},
				)
			}
			v.runAll(t, calls)
		})

		t.Run("validation", func(t *testing.T) {
			unpriced := v.unpricedInstrument(t)
			corp := v.instrumentWithMinPiece(t, "100000")
			ok := func(fields map[string]any) map[string]any {
				b := map[string]any{"account_id": v.account(0), "instrument_id": dbr}
				for k, val := range fields {
					b[k] = val
				}
				return b
			}
			for _, tc := range []struct {
				name   string
				golden string
				body   any
				want   []string // details fields
			}{
				{"bid above ask", "indicative_create_crossed", ok(map[string]any{"bid_price": 100, "ask_price": 99.5}), []string{"bid_price"}},
				{"no price", "", ok(map[string]any{"bid_quantity": 1000}), []string{"bid_price", "ask_price", "bid_quantity"}},
				{"zero and negative prices", "", ok(map[string]any{"bid_price": 0, "ask_price": "-1"}), []string{"bid_price", "ask_price"}},
				{"too many decimals", "", ok(map[string]any{"bid_price": "99.12345", "ask_price": 99.1234}), []string{"bid_price"}},
				{"trailing zeros are not decimals", "", ok(map[string]any{"bid_price": "99.10000", "ask_price": 99.2}), nil},
				{"not a number", "", ok(map[string]any{"bid_price": "cheap", "ask_quantity": true}), []string{"bid_price", "ask_quantity"}},
				{"quantity not a multiple", "", ok(map[string]any{"bid_price": 99, "bid_quantity": 1500}), []string{"bid_quantity"}},
				{"quantity not positive", "", ok(map[string]any{"ask_price": 99, "ask_quantity": 0}), []string{"ask_quantity"}},
				{"quantity below min_piece", "", map[string]any{"account_id": v.account(0), "instrument_id": corp,
					"bid_price": 99, "bid_quantity": 50000}, []string{"bid_quantity"}},
				{"quantity without its price", "", ok(map[string]any{"bid_price": 99, "ask_quantity": 1000}), []string{"ask_quantity"}},
				{"instrument missing", "", map[string]any{"account_id": v.account(0), "bid_price": 99}, []string{"instrument_id"}},
				{"instrument unknown", "", ok(map[string]any{"instrument_id": missingID, "bid_price": 99}), []string{"instrument_id"}},
				{"instrument malformed", "", ok(map[string]any{"instrument_id": "DBR", "bid_price": 99}), []string{"instrument_id"}},
				{"instrument not priceable", "indicative_create_unpriced", ok(map[string]any{"instrument_id": unpriced, "bid_price": 99}), []string{"instrument_id"}},
				{"account missing", "", map[string]any{"instrument_id": dbr, "bid_price": 99}, []string{"account_id"}},
				{"valid_until past", "", ok(map[string]any{"bid_price": 99, "valid_until": "2026-11-20T14:00:00Z"}), []string{"valid_until"}},
				{"valid_until malformed", "", ok(map[string]any{"bid_price": 99, "valid_until": "tomorrow"}), []string{"valid_until"}},
				{"settlement on a Saturday", "", ok(map[string]any{"bid_price": 99, "settlement_date": "2026-11-28"}), []string{"settlement_date"}},
				{"settlement in the past", "", ok(map[string]any{"bid_price": 99, "settlement_date": "2026-11-19"}), []string{"settlement_date"}},
				{"settlement after maturity", "", ok(map[string]any{"bid_price": 99, "settlement_date": "2034-01-03"}), []string{"settlement_date"}},
				{"settlement malformed", "", ok(map[string]any{"bid_price": 99, "settlement_date": "24.11.2026"}), []string{"settlement_date"}},
				{"price without a yield", "", ok(map[string]any{"ask_price": "100000"}), []string{"ask_price"}},
				{"malformed JSON", "", raw(`{"bid_price": `), nil},
				{"not an object", "", raw(`[]`), nil},
			} {
				t.Run(tc.name, func(t *testing.T) {
					want := http.StatusBadRequest
					if tc.name == "trailing zeros are not decimals" {
						want = http.StatusOK
					}
					r := v.run(t, call{name: tc.golden, as: trader(0), method: "POST", path: indicativePath, body: tc.body, want: want})
					if want == http.StatusBadRequest {
						checkDetails(t, r, tc.want)
					}
				})
			}

			for _, tc := range []struct {
				name string
				body any
				want []string
			}{
				{"no entity", map[string]any{"bid_price": 99}, []string{"entity"}},
				{"nothing to change", map[string]any{"entity": map[string]any{"id": id}}, []string{"entity"}},
				{"both sides cleared", map[string]any{"entity": map[string]any{"bid_price": nil, "ask_price": nil}}, []string{"bid_price", "ask_price"}},
				{"bid above ask", map[string]any{"entity": map[string]any{"bid_price": 99.6}}, []string{"bid_price"}},
				{"bad values", map[string]any{"entity": map[string]any{"bid_quantity": "x", "settlement_date": "soon", "valid_until": 5}},
					[]string{"bid_quantity", "settlement_date", "valid_until"}},
				{"settlement on a holiday", map[string]any{"entity": map[string]any{"settlement_date": "2026-12-25"}}, []string{"settlement_date"}},
				{"valid_until past", map[string]any{"entity": map[string]any{"valid_until": "2026-11-20 12:00:00"}}, []string{"valid_until"}},
			} {
				t.Run("update "+tc.name, func(t *testing.T) {
					r := v.run(t, call{as: trader(0), method: "PUT", path: indicativePath + "/" + id, body: tc.body, want: http.StatusBadRequest})
					checkDetails(t, r, tc.want)
				})
			}
			v.runAll(t, []call{
				{as: viewer(1), method: "GET", path: indicativePath + "?instrument_id=DBR", want: http.StatusBadRequest},
				{as: viewer(1), method: "GET", path: indicativePath + "?include_expired=maybe", want: http.StatusBadRequest},
				{as: viewer(1), method: "GET", path: indicativePath + "?limit=0", want: http.StatusBadRequest},
			})
		})

		t.Run("delete", func(t *testing.T) {
			got := v.run(t, call{name: "indicative_delete", as: trader(1), method: "DELETE", path: indicativePath + "/" + otherID,
				want: http.StatusOK}).object(t)
			if d := gocmp.Diff(askOnly, got); d != "" {
				t.Errorf("deleted record (-want +got):\n%s", d)
			}
			v.run(t, call{as: trader(1), method: "DELETE", path: indicativePath + "/" + otherID, want: http.StatusNotFound})
			if got := ids(v.get(t, viewer(2), indicativePath+"?instrument_id="+dbr, http.StatusOK).array(t)); slices.Contains(got, otherID) {
				t.Errorf("deleted price %s still listed: %v", otherID, got)
			}
		})

		t.Run("expiry", func(t *testing.T) {
			short := v.run(t, call{as: trader(2), method: "POST", path: indicativePath, body: map[string]any{
				"account_id": v.account(2), "instrument_id": ins[2], "bid_price": 97.5, "valid_until": "2026-11-20T14:53:00.000Z",
			}, want: http.StatusOK}).object(t)
			listed := func(query string) bool {
				return slices.Contains(ids(v.get(t, viewer(0), indicativePath+"?instrument_id="+ins[2]+query, http.StatusOK).array(t)), short["id"].(string))
			}
			if !listed("") {
				t.Error("a live price is not listed")
			}
			v.clock.Advance(5 * time.Minute) // 14:54, past valid_until; tokens live 15 minutes
			if listed("") || !listed("&include_expired=true") {
				t.Errorf("expired price: listed %v, with include_expired %v; want false, true", listed(""), listed("&include_expired=true"))
			}
		})

		t.Run("events", func(t *testing.T) {
			var got []string
			for _, e := range v.events(t, trader(0)) {
				if e.Data["instrument_id"] == dbr {
					got = append(got, e.Type+" "+fmt.Sprint(e.Data["id"] == id))
				}
			}
			want := []string{"indicative_price.create true", "indicative_price.create false",
				"indicative_price.update true", "indicative_price.update true", "indicative_price.update true",
				"indicative_price.update true",
				"indicative_price.create false", // the trailing-zeros case
				"indicative_price.delete false"}
			if d := gocmp.Diff(want, got); d != "" {
				t.Errorf("events of instrument %s (-want +got):\n%s", dbr, d)
			}
			for _, tc := range []struct {
				as      who
				account any
				owner   any
			}{
				{trader(0), v.account(0), v.participant(0)},
				{viewer(2), nil, v.participant(0)},
				{viewer(3), nil, nil},
			} {
				for _, e := range v.events(t, tc.as) {
					if e.Type != "indicative_price.create" || e.Data["id"] != id {
						continue
					}
					if e.Data["account_id"] != tc.account || e.Data["participant_id"] != tc.owner || e.Data["bid_yield"] != created["bid_yield"] {
						t.Errorf("as %s: create event account_id %v participant_id %v bid_yield %v; want %v, %v, %v", tc.as,
							e.Data["account_id"], e.Data["participant_id"], e.Data["bid_yield"], tc.account, tc.owner, created["bid_yield"])
					}
				}
			}
		})
	})
}

// yieldOf reads a decimal-text yield of a record.
func yieldOf(t *testing.T, rec map[string]any, key string) udecimal.Decimal {
	t.Helper()
	s, ok := rec[key].(string)
	if !ok {
		t.Fatalf("%s = %#v, want decimal text", key, rec[key])
	}
	d, err := udecimal.Parse(s)
	if err != nil {
		t.Fatalf("%s = %q: %v", key, s, err)
	}
	return d
}

// checkDetails asserts that a validation error names exactly the fields
// want (in any order; nil: no details expected to be checked).
func checkDetails(t *testing.T, r *response, want []string) {
	t.Helper()
	if want == nil {
		return
	}
	var e struct {
		Details []venue.FieldIssue `json:"details"`
	}
	r.decode(t, &e)
	var got []string
	for _, d := range e.Details {
		if !slices.Contains(got, d.Field) {
			got = append(got, d.Field)
		}
	}
	slices.Sort(got)
	want = slices.Sorted(slices.Values(want))
	if d := gocmp.Diff(want, got); d != "" {
		t.Errorf("details fields (-want +got):\n%s\n%s", d, r.body)
	}
}

// unpricedInstrument lists an instrument whose terms are withheld, so no
// yield can be computed for it.
func (v *env) unpricedInstrument(t *testing.T) string {
	t.Helper()
	isin := ""
	for d := '0'; d <= '9' && isin == ""; d++ {
		if s := "XS299900000" + string(d); venue.ValidISIN(s) {
			isin = s
		}
	}
	piece, par := udecimal.MustParse("1000"), udecimal.MustParse("1000")
	d, err := v.svc.CreateInstrument(context.Background(), trading.System, trading.InstrumentInput{Terms: map[string]any{
		"isin": isin, "name": "Private placement", "currency": "EUR", "type": "Undisclosed", "coupon": "Undisclosed",
		"maturity": "Undisclosed"}, MinPiece: &piece, MinIncrement: &piece, ParAmount: &par})
	if err != nil {
		t.Fatalf("CreateInstrument(undisclosed) = %v", err)
	}
	return d.ID
}

// instrumentWithMinPiece returns a demo instrument whose min_piece is s.
func (v *env) instrumentWithMinPiece(t *testing.T, s string) string {
	t.Helper()
	for _, in := range v.get(t, viewer(0), "/api/v1/instruments", http.StatusOK).array(t) {
		if in["min_piece"] == s {
			return in["id"].(string)
		}
	}
	t.Fatalf("no demo instrument with min_piece %s", s)
	return ""
}

// event is one entry of GET /api/v1/events.
type event struct {
	Seq  int64          `json:"seq"`
	Type string         `json:"type"`
	Data map[string]any `json:"data"`
}

// events reads every event w may see.
func (v *env) events(t *testing.T, w who) []event {
	t.Helper()
	var out []event
	v.get(t, w, "/api/v1/events?limit=1000", http.StatusOK).decode(t, &out)
	return out
}
