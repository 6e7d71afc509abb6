package httpapi_test

import (
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/quagmt/udecimal"
)

// TestAllocations: each firm splits its side of a trade to its own
// accounts once; the parts' quantities, accrued interest and settlement
// amounts sum to the trade's exactly, the residual cent on the largest
// part; bad splits are refused naming the field; an allocation after
// 23:00 Central European time on the trade date is accepted and marked
// late; each firm reads its own allocation, on REST and as an
// allocation.create event, and never the other firm's.
func TestAllocations(t *testing.T) {
	fresh(t, func(t *testing.T, v *env) {
		x := newTV(t, v)
		in := x.ins[3]
		// The allocations' deadline is 23:00 on the trade date in the
		// market's time zone.
		v.run(t, call{as: operator, method: "PUT", path: "/api/v1/admin/markets/" + x.otc,
			body: obj{"entity": obj{"timezone": "Europe/Brussels"}}, want: http.StatusOK})
		rfq := x.rfq(t, trader(0), obj{"instrument_id": in, "market_id": x.otc, "direction": "bid", "quantity": "3000000",
			"counterparties": []string{v.participant(1)}})
		q := x.create(t, trader(1), obj{"instrument_id": in, "market_id": x.otc, "direction": "ask", "price_per_unit": "99.987",
			"quantity": "3000000", "matched_offer_id": id(rfq)})
		tr := x.obj(t, trader(0), "PUT", offersPath+"/"+id(q)+"/accept", nil, http.StatusOK)
		tradeID := id(tr)
		path := "/api/v1/trades/" + tradeID + "/allocations"
		accs := v.creds.Participants[0].AccountIDs
		part := func(acc, qty string) obj { return obj{"account_id": acc, "quantity": qty} }
		body := func(parts ...obj) obj { return obj{"allocations": parts} }

		// Refused, naming what is wrong.
		x.refused(t, trader(0), "POST", path, body(part(accs[0], "1000000"), part(accs[1], "1000000")), http.StatusBadRequest, "allocations")
		x.refused(t, trader(0), "POST", path, body(part(v.account(1), "3000000")), http.StatusBadRequest, "allocations[0].account_id")
		x.refused(t, trader(0), "POST", path, body(part(accs[0], "1500000"), part(accs[0], "1500000")), http.StatusBadRequest,
			"allocations[1].account_id")
		x.refused(t, trader(0), "POST", path, body(part(accs[0], "2999500"), part(accs[1], "500")), http.StatusBadRequest,
			"allocations[0].quantity", "allocations[1].quantity")
		x.refused(t, trader(0), "POST", path, body(part(accs[0], "-1000000"), part(accs[1], "4000000")), http.StatusBadRequest,
			"allocations[0].quantity")
		x.refused(t, trader(0), "POST", path, obj{}, http.StatusBadRequest, "allocations")
		x.refused(t, viewer(0), "POST", path, body(part(accs[0], "3000000")), http.StatusForbidden)
		x.refused(t, trader(2), "POST", path, body(part(v.account(2), "3000000")), http.StatusNotFound)
		x.refused(t, trader(0), "GET", path, nil, http.StatusNotFound) // not yet allocated

		after := x.lastSeq(t)
		var got obj
		decodeExact(t, v.run(t, call{name: "trades_allocate", as: trader(0), method: "POST", path: path,
			body: body(part(accs[1], "1500000"), part(accs[2], "1000000"), part(accs[0], "500000")), want: http.StatusOK}), &got)
		if got["trade_id"] != tradeID || got["direction"] != "bid" || got["late"] != false {
			t.Errorf("allocation = %v, want the trade's bid side, not late", got)
		}
		parts, _ := got["allocations"].([]any)
		if len(parts) != 3 {
			t.Fatalf("allocation parts = %v, want 3", got["allocations"])
		}
		sumQ, sumA, sumP := udecimal.Zero, udecimal.Zero, udecimal.Zero
		for i, p := range parts {
			m := p.(obj)
			if m["account_id"] != []string{accs[1], accs[2], accs[0]}[i] || m["late"] != false || id(m) == "" {
				t.Errorf("part %d = %v", i, m)
			}
			sumQ, sumA, sumP = sumQ.Add(num(t, m["quantity"])), sumA.Add(num(t, m["accrued_interest"])), sumP.Add(num(t, m["price"]))
		}
		wantDec(t, "quantities' sum", sumQ.String(), num(t, tr["quantity"]).String())
		wantDec(t, "accrued interest's sum", sumA.String(), num(t, tr["accrued_interest"]).String())
		wantDec(t, "settlement amounts' sum", sumP.String(), num(t, tr["price"]).String())
		// Each smaller part is its share rounded to the cent; the largest
		// (the first) takes the rest.
		for _, f := range []string{"accrued_interest", "price"} {
			total := num(t, tr[f])
			rest := total
			for i, qty := range []int64{1500000, 1000000, 500000} {
				share, _ := total.Mul(udecimal.MustFromInt64(qty, 0)).Div(udecimal.MustFromInt64(3000000, 0))
				got := num(t, parts[i].(obj)[f])
				if i > 0 && !got.Equal(share.RoundHAZ(2)) {
					t.Errorf("part %d %s = %s, want its share %s to the cent", i, f, got, share)
				}
				if i > 0 {
					rest = rest.Sub(got)
				}
			}
			if got := num(t, parts[0].(obj)[f]); !got.Equal(rest) {
				t.Errorf("largest part's %s = %s, want the rest %s", f, got, rest)
			}
		}

		// Once per side; read back by the firm only.
		x.refused(t, trader(0), "POST", path, body(part(accs[0], "3000000")), http.StatusConflict)
		var back obj
		decodeExact(t, v.run(t, call{name: "trades_allocation_get", as: viewer(0), method: "GET", path: path, want: http.StatusOK}), &back)
		if back["trade_id"] != tradeID || len(back["allocations"].([]any)) != 3 {
			t.Errorf("allocation read back = %v", back)
		}
		x.refused(t, trader(1), "GET", path, nil, http.StatusNotFound) // firm 1 has not allocated its side
		var mine []obj
		decodeExact(t, v.run(t, call{name: "allocations_list", as: viewer(0), method: "GET", path: "/api/v1/allocations", want: http.StatusOK}), &mine)
		if len(mine) != 1 || mine[0]["trade_id"] != tradeID {
			t.Errorf("firm 0's allocations = %v, want the one", mine)
		}
		if theirs := x.list(t, viewer(1), "/api/v1/allocations"); len(theirs) != 0 {
			t.Errorf("firm 1's allocations before it allocates = %v, want none", theirs)
		}
		x.refused(t, trader(2), "GET", path, nil, http.StatusNotFound)
		allocEvents := func(w who) []obj {
			var out []obj
			for _, e := range x.list(t, w, "/api/v1/events?limit=1000&after="+strconv.Itoa(after)) {
				if e["type"] == "allocation.create" {
					out = append(out, e)
				}
			}
			return out
		}
		if es := allocEvents(viewer(0)); len(es) != 1 || es[0]["data"].(obj)["trade_id"] != tradeID {
			t.Errorf("allocation events as firm 0 = %v, want the one", es)
		}
		if es := allocEvents(viewer(1)); len(es) != 0 {
			t.Errorf("allocation events as firm 1 = %v, want none", es)
		}

		// Past 23:00 in Brussels (22:00 UTC in November) the seller's
		// allocation is accepted and late.
		v.clock.Advance(time.Date(2026, 11, 20, 22, 0, 0, 0, time.UTC).Sub(v.clock.Now()))
		v.signInAgain(trader(1)) // its token expired meanwhile
		sell := x.obj(t, trader(1), "POST", path, body(part(v.creds.Participants[1].AccountIDs[2], "3000000")), http.StatusOK)
		if sell["direction"] != "ask" || sell["late"] != true || sell["allocations"].([]any)[0].(obj)["late"] != true {
			t.Errorf("late allocation = %v, want the ask side marked late", sell)
		}
		wantDec(t, "whole-side part's amount", sell["allocations"].([]any)[0].(obj)["price"], num(t, tr["price"]).String())
	})
}

// TestMarketBusinessDay: a market's business day is in its own time zone.
// An RFQ done at 00:15 in Berlin on 2 December (23:15 UTC on the 1st)
// trades on 2 December there: it settles on that date's lag, its
// allocations are due at 23:00 Berlin time on the 2nd, a deferred size is
// due at 19:00 Berlin time on the 2nd, and the market's settlement date
// defaults to the 2nd as the trade date.
func TestMarketBusinessDay(t *testing.T) {
	fresh(t, func(t *testing.T, v *env) {
		x := newTV(t, v)
		in := x.ins[3]
		v.run(t, call{as: operator, method: "PUT", path: "/api/v1/admin/markets/" + x.otc,
			body: obj{"entity": obj{"timezone": "Europe/Berlin", "settlement_lag": 2}}, want: http.StatusOK})
		v.clock.Advance(time.Date(2026, 12, 1, 23, 15, 0, 0, time.UTC).Sub(v.clock.Now()))
		for _, w := range []who{trader(0), trader(1)} {
			v.signInAgain(w)
		}
		sd := x.obj(t, trader(0), "GET", "/api/v1/markets/"+x.otc+"/settlement-date", nil, http.StatusOK)
		if sd["trade_date"] != "2026-12-02" || sd["settlement_date"] != "2026-12-04" {
			t.Errorf("market settlement date now = %v, want trade date 2026-12-02 settling 2026-12-04", sd)
		}
		rfq := x.rfq(t, trader(0), obj{"instrument_id": in, "market_id": x.otc, "direction": "bid", "quantity": "20000000",
			"counterparties": []string{v.participant(1)}})
		q := x.create(t, trader(1), obj{"instrument_id": in, "market_id": x.otc, "direction": "ask", "price_per_unit": "99.5",
			"quantity": "20000000", "matched_offer_id": id(rfq)})
		tr := x.obj(t, trader(0), "PUT", offersPath+"/"+id(q)+"/accept", nil, http.StatusOK)
		if tr["settlement_date"] != "2026-12-04" {
			t.Errorf("trade settles %v, want 2026-12-04 (T+2 from the Berlin trade date 2026-12-02, not the UTC 2026-12-01)", tr["settlement_date"])
		}
		pub, _ := tr["publication"].(obj)
		if pub["volume_due_at"] != "2026-12-02T18:00:00.000Z" {
			t.Errorf("deferred size due %v, want 19:00 Berlin time on 2026-12-02 (2026-12-02T18:00:00.000Z)", pub["volume_due_at"])
		}
		// 21:59 UTC on the 2nd is 22:59 in Berlin: on time.
		v.clock.Advance(time.Date(2026, 12, 2, 21, 59, 0, 0, time.UTC).Sub(v.clock.Now()))
		v.signInAgain(trader(0))
		alloc := x.obj(t, trader(0), "POST", "/api/v1/trades/"+id(tr)+"/allocations",
			obj{"allocations": []obj{{"account_id": v.creds.Participants[0].AccountIDs[0], "quantity": "20000000"}}}, http.StatusOK)
		if alloc["late"] != false {
			t.Errorf("allocation at 22:59 Berlin time on the trade date = %v, want not late", alloc)
		}
	})
}
