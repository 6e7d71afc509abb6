package httpapi_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/quagmt/udecimal"

	"github.com/bondvenue/bondvenue/internal/testenv"
)

const portfolioPath = "/api/v1/participant/portfolio-rfq"

// TestPortfolioRFQ: a two-sided list to three dealers through REST — quotes
// priced whole with the venue's bond maths, each dealer reading only its
// own, a replaced quote withdrawn, a decline, bad quotes refused naming the
// line — then an accept that trades every line in one answer, with the
// trades' settlement amounts adding up to the quote's net proceeds and each
// line's amount matching an independent computation from the instrument's
// analytics; and an accept refused whole, naming the line, while one line's
// instrument is halted.
func TestPortfolioRFQ(t *testing.T) {
	fresh(t, func(t *testing.T, v *env) {
		x := newTV(t, v)
		x.send(t, operator, "PUT", "/api/v1/admin/counterparties",
			obj{"participant_id": v.participant(0), "counterparty_id": v.participant(3), "enabled": true}, http.StatusOK, nil)
		dealers := []string{v.participant(1), v.participant(2), v.participant(3)}
		const n = 12
		var lines []obj
		for i := range n {
			dir := "bid"
			if i%3 == 1 {
				dir = "ask"
			}
			lines = append(lines, obj{"instrument_id": x.ins[i%10], "direction": dir, "quantity": fmt.Sprint((i%4 + 1) * 1000000)})
		}
		create := func() obj {
			t.Helper()
			r := x.obj(t, trader(0), "POST", portfolioPath, obj{"market_id": x.otc, "counterparties": dealers, "lines": lines}, http.StatusOK)
			ls, _ := r["lines"].([]any)
			if r["status"] != "created" || len(ls) != n || ls[0].(obj)["line_id"] != "1" || ls[n-1].(obj)["line_id"] != fmt.Sprint(n) {
				t.Fatalf("created list: status %v, %d lines, want created with %d lines numbered 1..%d", r["status"], len(ls), n, n)
			}
			return r
		}
		// prices quotes every line near 100, better for the requester by
		// edge (lower where it buys, higher where it sells).
		prices := func(edge string) []obj {
			out := make([]obj, n)
			e := udecimal.MustParse(edge)
			for i, l := range lines {
				p := udecimal.MustParse(fmt.Sprintf("100.0%d", i%5)).Sub(e)
				if l["direction"] == "ask" {
					p = p.Add(e).Add(e)
				}
				out[i] = obj{"line_id": fmt.Sprint(i + 1), "price_per_unit": p.String()}
			}
			return out
		}
		quote := func(w who, r obj, ls []obj) obj {
			t.Helper()
			got := x.obj(t, w, "POST", portfolioPath+"/"+id(r)+"/quotes", obj{"lines": ls}, http.StatusOK)
			qs, _ := got["quotes"].([]any)
			if len(qs) == 0 {
				t.Fatalf("quote as %s: the answer shows no quote", w)
			}
			return qs[len(qs)-1].(obj)
		}

		r := create()
		path := portfolioPath + "/" + id(r)
		// A dealer reads the list without who else was asked.
		if got := x.obj(t, trader(1), "GET", path, nil, http.StatusOK); len(got["counterparties"].([]any)) != 0 || got["account_id"] != "" {
			t.Errorf("dealer's view: counterparties %v account %v, want none", got["counterparties"], got["account_id"])
		}

		// Bad quotes are refused whole, naming the line.
		missing := prices("0.1")[1:]
		x.refused(t, trader(1), "POST", path+"/quotes", obj{"lines": missing}, http.StatusBadRequest, "lines")
		unknown := prices("0.1")
		unknown[0] = obj{"line_id": "999", "price_per_unit": "100"}
		x.refused(t, trader(1), "POST", path+"/quotes", obj{"lines": unknown}, http.StatusBadRequest, "lines[0].line_id")
		fat := prices("0.1")
		fat[4]["price_per_unit"] = "10010" // a 100× price
		e := x.refused(t, trader(1), "POST", path+"/quotes", obj{"lines": fat}, http.StatusBadRequest, "lines[4].price_per_unit")
		if !strings.Contains(errorText(e), "line 5") {
			t.Errorf("100× price refusal %q does not name line 5", errorText(e))
		}
		x.refused(t, trader(0), "POST", path+"/quotes", obj{"lines": prices("0")}, http.StatusNotFound)

		first := quote(trader(1), r, prices("0.05"))
		q1 := quote(trader(1), r, prices("0.10")) // replaces the first
		q2 := quote(trader(2), r, prices("0.20"))
		x.send(t, trader(3), "PUT", path+"/reject", nil, http.StatusOK, nil)
		x.refused(t, trader(3), "POST", path+"/quotes", obj{"lines": prices("0.3")}, http.StatusConflict)

		// The requester reads every quote; a dealer only its own.
		all := x.obj(t, trader(0), "GET", path, nil, http.StatusOK)["quotes"].([]any)
		if len(all) != 4 {
			t.Fatalf("requester reads %d quote records, want 4 (withdrawn, live, live, declined)", len(all))
		}
		if all[0].(obj)["id"] != id(first) || all[0].(obj)["outcome"] != "withdrawn" || all[3].(obj)["outcome"] != "declined" ||
			all[3].(obj)["net_proceeds"] != nil {
			t.Errorf("quote records: %v", all)
		}
		for _, q := range x.obj(t, trader(2), "GET", path, nil, http.StatusOK)["quotes"].([]any) {
			if q.(obj)["participant_id"] != v.participant(2) {
				t.Errorf("dealer 2 reads a quote of %v", q.(obj)["participant_id"])
			}
		}

		// Net proceeds, computed independently: each line's accrued from the
		// instrument's analytics at the list's settlement date, cents rounded
		// half away from zero, plus quantity × price / 100 to the cent.
		settle := r["settlement_date"].(string)
		want := udecimal.Zero
		for i, l := range lines {
			ql := q2["lines"].([]any)[i].(obj)
			qty, price := num(t, l["quantity"]), num(t, ql["price_per_unit"])
			a := x.obj(t, trader(0), "GET", fmt.Sprintf("/api/v1/instruments/%s/analytics?settlement_date=%s&nominal=%s",
				l["instrument_id"], settle, qty), nil, http.StatusOK)
			acc := num(t, a["accrued_interest"]).RoundHAZ(2)
			amount, err := qty.Mul(price).Div64(100)
			if err != nil {
				t.Fatal(err)
			}
			amount = amount.RoundHAZ(2).Add(acc)
			wantDec(t, fmt.Sprintf("line %d accrued", i+1), ql["accrued_interest"], acc.String())
			wantDec(t, fmt.Sprintf("line %d settlement amount", i+1), ql["settlement_amount"], amount.String())
			if l["direction"] == "ask" {
				want = want.Add(amount)
			} else {
				want = want.Sub(amount)
			}
		}
		wantDec(t, "net proceeds", q2["net_proceeds"], want.String())

		// The accept trades every line at once.
		seq := x.lastSeq(t)
		acc := x.obj(t, trader(0), "PUT", path+"/quotes/"+id(q2)+"/accept", nil, http.StatusOK)
		trades, _ := acc["trades"].([]any)
		if acc["status"] != "closed" || len(trades) != n {
			t.Fatalf("accept: status %v, %d trades, want closed with %d", acc["status"], len(trades), n)
		}
		sum := udecimal.Zero
		for i, tr := range trades {
			tr := tr.(obj)
			l, ql := lines[i], q2["lines"].([]any)[i].(obj)
			if tr["portfolio_rfq_id"] != id(r) || tr["instrument_id"] != l["instrument_id"] {
				t.Errorf("trade %d: portfolio_rfq_id %v instrument %v", i, tr["portfolio_rfq_id"], tr["instrument_id"])
			}
			wantDec(t, fmt.Sprintf("trade %d price_per_unit", i), tr["price_per_unit"], num(t, ql["price_per_unit"]).String())
			wantDec(t, fmt.Sprintf("trade %d quantity", i), tr["quantity"], num(t, l["quantity"]).String())
			if l["direction"] == "ask" {
				sum = sum.Add(num(t, tr["price"]))
			} else {
				sum = sum.Sub(num(t, tr["price"]))
			}
			if got := acc["lines"].([]any)[i].(obj)["trade_id"]; got != id(tr) {
				t.Errorf("line %d trade_id %v, want %s", i+1, got, id(tr))
			}
		}
		wantDec(t, "the trades' settlement amounts, signed", sum.String(), want.String())

		// Outcomes by net proceeds; the losing dealer sees neither the done
		// quote nor the lines' trades.
		byID := map[string]obj{}
		for _, q := range acc["quotes"].([]any) {
			byID[id(q.(obj))] = q.(obj)
		}
		if byID[id(q2)]["outcome"] != "done" || byID[id(q1)]["outcome"] != "cover" {
			t.Errorf("outcomes: q2 %v, q1 %v; want done, cover", byID[id(q2)]["outcome"], byID[id(q1)]["outcome"])
		}
		wantDec(t, "cover_net_proceeds", byID[id(q2)]["cover_net_proceeds"], num(t, q1["net_proceeds"]).String())
		lost := x.obj(t, trader(1), "GET", path, nil, http.StatusOK)
		for _, q := range lost["quotes"].([]any) {
			if q.(obj)["participant_id"] != v.participant(1) {
				t.Errorf("losing dealer reads a quote of %v", q.(obj)["participant_id"])
			}
		}
		if lost["lines"].([]any)[0].(obj)["trade_id"] != nil {
			t.Errorf("losing dealer reads the lines' trades")
		}
		// Each line is an ordinary trade on the winner's blotter and in the
		// event log; the losing dealer's events show its own quotes only.
		blotter := x.list(t, trader(2), "/api/v1/trades?limit=1000")
		found := 0
		for _, tr := range blotter {
			if tr["portfolio_rfq_id"] == id(r) {
				found++
			}
		}
		if found != n {
			t.Errorf("dealer 2's blotter holds %d of the list's trades, want %d", found, n)
		}
		evs := x.list(t, trader(1), fmt.Sprintf("/api/v1/events?after=%d&limit=1000", seq))
		types := map[string]int{}
		for _, ev := range evs {
			types[ev["type"].(string)]++
			if d, ok := ev["data"].(obj); ok && ev["type"] == "portfolio_rfq.update" {
				for _, q := range d["quotes"].([]any) {
					if q.(obj)["participant_id"] != v.participant(1) {
						t.Errorf("losing dealer's event shows a quote of %v", q.(obj)["participant_id"])
					}
				}
			}
		}
		if types["portfolio_rfq.update"] != 1 || types["trade.create"] != 0 {
			t.Errorf("losing dealer's events after the accept: %v, want one portfolio_rfq.update and no trade", types)
		}
		x.refused(t, trader(0), "PUT", path+"/quotes/"+id(q1)+"/accept", nil, http.StatusNotFound)

		// All or nothing: a halt on one line refuses the whole accept.
		r2 := create()
		path2 := portfolioPath + "/" + id(r2)
		q := quote(trader(1), r2, prices("0.1"))
		halt := "/api/v1/admin/markets/" + x.otc + "/instruments/" + x.ins[7] + "/halt"
		x.send(t, operator, "PUT", halt, obj{"halted": true, "reason": "corporate action"}, http.StatusOK, nil)
		before := len(x.list(t, trader(0), "/api/v1/trades?limit=1000"))
		e = x.refused(t, trader(0), "PUT", path2+"/quotes/"+id(q)+"/accept", nil, http.StatusConflict)
		if !strings.Contains(errorText(e), "line 8") {
			t.Errorf("halted accept: %q does not name line 8", errorText(e))
		}
		if after := len(x.list(t, trader(0), "/api/v1/trades?limit=1000")); after != before {
			t.Errorf("a refused accept made %d trades", after-before)
		}
		x.send(t, operator, "PUT", halt, obj{"halted": false}, http.StatusOK, nil)
		if got := x.obj(t, trader(0), "PUT", path2+"/quotes/"+id(q)+"/accept", nil, http.StatusOK); len(got["trades"].([]any)) != n {
			t.Errorf("accept after the halt: %d trades, want %d", len(got["trades"].([]any)), n)
		}

		// Cancel and pass.
		r3 := create()
		path3 := portfolioPath + "/" + id(r3)
		q3 := quote(trader(2), r3, prices("0.1"))
		passed := x.obj(t, trader(0), "PUT", path3+"/quotes/"+id(q3)+"/reject", nil, http.StatusOK)
		if passed["quotes"].([]any)[0].(obj)["outcome"] != "passed" || passed["status"] != "created" {
			t.Errorf("passed quote: %v, list %v", passed["quotes"], passed["status"])
		}
		q3b := quote(trader(2), r3, prices("0.1"))
		gone := x.obj(t, trader(0), "DELETE", path3, nil, http.StatusOK)
		if gone["status"] != "cancelled" || gone["quotes"].([]any)[1].(obj)["outcome"] != "cancelled" || id(gone["quotes"].([]any)[1].(obj)) != id(q3b) {
			t.Errorf("cancelled list: %v %v", gone["status"], gone["quotes"])
		}
		if l := x.list(t, trader(1), portfolioPath+"?status=closed"); len(l) != 2 {
			t.Errorf("dealer 1 lists %d closed lists, want 2", len(l))
		}
	})
}

// TestPortfolioRFQInvalid: a list is checked line by line and refused
// whole, naming every bad field.
func TestPortfolioRFQInvalid(t *testing.T) {
	fresh(t, func(t *testing.T, v *env) {
		x := newTV(t, v)
		line := obj{"instrument_id": x.ins[0], "direction": "bid", "quantity": "1000000"}
		x.refused(t, trader(0), "POST", portfolioPath, obj{"market_id": x.otc, "lines": []obj{}}, http.StatusBadRequest, "lines")
		x.refused(t, trader(0), "POST", portfolioPath, obj{"market_id": x.otc, "lines": []obj{line,
			{"instrument_id": x.ins[1], "direction": "up", "quantity": "1000000"}}}, http.StatusBadRequest, "lines[1].direction")
		x.refused(t, trader(0), "POST", portfolioPath, obj{"market_id": x.otc, "lines": []obj{line,
			{"instrument_id": x.ins[1], "direction": "ask", "quantity": "x"}}}, http.StatusBadRequest, "lines[1].quantity")
		x.refused(t, trader(0), "POST", portfolioPath, obj{"market_id": x.book, "lines": []obj{line}}, http.StatusBadRequest, "market_id")
		many := make([]obj, 201)
		for i := range many {
			many[i] = line
		}
		x.refused(t, trader(0), "POST", portfolioPath, obj{"market_id": x.otc, "lines": many}, http.StatusBadRequest, "lines")
		x.refused(t, viewer(0), "POST", portfolioPath, obj{"market_id": x.otc, "lines": []obj{line}}, http.StatusForbidden)
		// A firm not asked does not see the list.
		r := x.obj(t, trader(0), "POST", portfolioPath, obj{"market_id": x.otc, "counterparties": []string{v.participant(1)},
			"lines": []obj{line}}, http.StatusOK)
		x.refused(t, trader(2), "GET", portfolioPath+"/"+id(r), nil, http.StatusNotFound)
		x.refused(t, trader(2), "PUT", portfolioPath+"/"+id(r)+"/reject", nil, http.StatusNotFound)
		if l := x.list(t, trader(2), portfolioPath); len(l) != 0 {
			t.Errorf("a firm not asked lists %d lists", len(l))
		}
	})
}

// TestPortfolioRFQGolden keeps the answer of every portfolio RFQ route.
func TestPortfolioRFQGolden(t *testing.T) {
	fresh(t, func(t *testing.T, v *env) {
		x := newTV(t, v)
		body := obj{"market_id": x.otc, "counterparties": []string{v.participant(1), v.participant(2)}, "notes": "quarter-end rebalance",
			"lines": []obj{{"instrument_id": x.ins[0], "direction": "bid", "quantity": "1000000"},
				{"instrument_id": x.ins[1], "direction": "ask", "quantity": "2000000"}}}
		created := func(r *response) obj {
			var o obj
			decodeExact(t, r, &o)
			return o
		}
		r := created(v.run(t, call{name: "portfolio_rfq_create", as: trader(0), method: "POST", path: portfolioPath, body: body, want: http.StatusOK}))
		path := portfolioPath + "/" + id(r)
		v.run(t, call{name: "portfolio_rfq_list", as: trader(1), method: "GET", path: portfolioPath, want: http.StatusOK})
		lines := func(a, b string) obj {
			return obj{"lines": []obj{{"line_id": "1", "price_per_unit": a}, {"line_id": "2", "price_per_unit": b}}}
		}
		q1 := created(v.run(t, call{name: "portfolio_rfq_quote", as: trader(1), method: "POST", path: path + "/quotes",
			body: lines("100.25", "99.75"), want: http.StatusOK}))["quotes"].([]any)[0].(obj)
		q2 := created(x.send(t, trader(2), "POST", path+"/quotes", lines("100.5", "99.5"), http.StatusOK, nil))["quotes"].([]any)[0].(obj)
		v.run(t, call{name: "portfolio_rfq_get", as: trader(0), method: "GET", path: path, want: http.StatusOK})
		v.run(t, call{name: "portfolio_rfq_quote_reject", as: trader(0), method: "PUT", path: path + "/quotes/" + id(q2) + "/reject", want: http.StatusOK})
		v.run(t, call{name: "portfolio_rfq_accept", as: trader(0), method: "PUT", path: path + "/quotes/" + id(q1) + "/accept", want: http.StatusOK})
		r2 := created(x.send(t, trader(0), "POST", portfolioPath, body, http.StatusOK, nil))
		v.run(t, call{name: "portfolio_rfq_decline", as: trader(2), method: "PUT", path: portfolioPath + "/" + id(r2) + "/reject", want: http.StatusOK})
		v.run(t, call{name: "portfolio_rfq_cancel", as: trader(0), method: "DELETE", path: portfolioPath + "/" + id(r2), want: http.StatusOK})
	})
}

// TestPortfolioRFQEnds: a quote with a deadline expires on its own while
// the list stays open; the list expires at its deadline with its live
// quotes; and an accept that would break the requester's per-record limit
// on one line is refused whole, naming the line.
func TestPortfolioRFQEnds(t *testing.T) {
	fresh(t, func(t *testing.T, v *env) {
		x := newTV(t, v)
		lines := []obj{{"instrument_id": x.ins[0], "direction": "bid", "quantity": "1000000"},
			{"instrument_id": x.ins[1], "direction": "ask", "quantity": "3000000"}}
		create := func(until time.Duration) (obj, string) {
			r := x.obj(t, trader(0), "POST", portfolioPath, obj{"market_id": x.otc, "counterparties": []string{v.participant(1), v.participant(2)},
				"valid_until": x.validUntil(until), "lines": lines}, http.StatusOK)
			return r, portfolioPath + "/" + id(r)
		}
		quote := func(w who, path string, until string) obj {
			body := obj{"lines": []obj{{"line_id": "1", "price_per_unit": "100.1"}, {"line_id": "2", "price_per_unit": "99.9"}}}
			if until != "" {
				body["valid_until"] = until
			}
			qs := x.obj(t, w, "POST", path+"/quotes", body, http.StatusOK)["quotes"].([]any)
			return qs[len(qs)-1].(obj)
		}
		quoteStatus := func(path, quoteID string) (string, any) {
			for _, q := range x.obj(t, trader(0), "GET", path, nil, http.StatusOK)["quotes"].([]any) {
				if id(q.(obj)) == quoteID {
					return q.(obj)["status"].(string), q.(obj)["outcome"]
				}
			}
			return "", nil
		}

		_, path := create(time.Minute)
		short := quote(trader(1), path, x.validUntil(time.Second))
		long := quote(trader(2), path, "")
		v.clock.Advance(2 * time.Second)
		testenv.Wait(t, "the quote past its deadline expired", func() bool {
			st, _ := quoteStatus(path, id(short))
			return st == "expired"
		})
		if st, _ := quoteStatus(path, id(long)); st != "created" {
			t.Errorf("the other quote is %s, want still live", st)
		}
		x.refused(t, trader(0), "PUT", path+"/quotes/"+id(short)+"/accept", nil, http.StatusNotFound)
		v.clock.Advance(time.Minute)
		// The engine's timer runs on real time: the next command's batch
		// expires what the test clock made due.
		_, path2 := create(time.Minute)
		x.await(t, trader(0), path, "expired")
		if st, outcome := quoteStatus(path, id(long)); st != "expired" || outcome != "expired" {
			t.Errorf("the live quote of an expired list: %s %v, want expired expired", st, outcome)
		}
		x.refused(t, trader(1), "POST", path+"/quotes", obj{"lines": []obj{{"line_id": "1", "price_per_unit": "100"},
			{"line_id": "2", "price_per_unit": "100"}}}, http.StatusNotFound)

		// The requester's MAX_OFFER lowered below line 2's nominal after the
		// quote: the accept is refused whole, naming line 2.
		path = path2
		q := quote(trader(1), path, "")
		limit := "/api/v1/admin/participants/" + v.participant(0) + "/risk-limits/MAX_OFFER"
		before := x.riskUse(t, trader(0))["MAX_OFFER"][0]
		x.send(t, operator, "PUT", limit, obj{"value": "2000000"}, http.StatusOK, nil)
		e := x.refused(t, trader(0), "PUT", path+"/quotes/"+id(q)+"/accept", nil, http.StatusBadRequest, "lines[1].quantity")
		if !strings.Contains(errorText(e), "line 2") || !strings.Contains(errorText(e), "MAX_OFFER") {
			t.Errorf("refused accept: %q", errorText(e))
		}
		if st, _ := quoteStatus(path, id(q)); st != "created" {
			t.Errorf("after the refused accept the quote is %s, want still live", st)
		}
		x.send(t, operator, "PUT", limit, obj{"value": before}, http.StatusOK, nil)
		if got := x.obj(t, trader(0), "PUT", path+"/quotes/"+id(q)+"/accept", nil, http.StatusOK); len(got["trades"].([]any)) != 2 {
			t.Errorf("accept within the limit: %v trades", len(got["trades"].([]any)))
		}
	})
}

// TestPortfolioRFQIdempotent: a list sent twice with one Idempotency-Key is
// one list, and an accept retried with its key answers the same trades
// again instead of a 404 for the list it closed.
func TestPortfolioRFQIdempotent(t *testing.T) {
	fresh(t, func(t *testing.T, v *env) {
		x := newTV(t, v)
		body := obj{"market_id": x.otc, "counterparties": []string{v.participant(1)},
			"lines": []obj{{"instrument_id": x.ins[0], "direction": "bid", "quantity": "1000000"}}}
		var first, again obj
		decodeExact(t, x.send(t, trader(0), "POST", portfolioPath, body, http.StatusOK, map[string]string{"Idempotency-Key": "list-1"}), &first)
		decodeExact(t, x.send(t, trader(0), "POST", portfolioPath, body, http.StatusOK, map[string]string{"Idempotency-Key": "list-1"}), &again)
		if id(first) == "" || id(again) != id(first) {
			t.Fatalf("a list sent twice with one key: %s then %s", id(first), id(again))
		}
		if l := x.list(t, trader(0), portfolioPath); len(l) != 1 {
			t.Errorf("%d lists after the retry, want 1", len(l))
		}
		path := portfolioPath + "/" + id(first)
		qs := x.obj(t, trader(1), "POST", path+"/quotes", obj{"lines": []obj{{"line_id": "1", "price_per_unit": "100.1"}}}, http.StatusOK)["quotes"].([]any)
		accept := path + "/quotes/" + id(qs[0].(obj)) + "/accept"
		var a1, a2 obj
		decodeExact(t, x.send(t, trader(0), "PUT", accept, nil, http.StatusOK, map[string]string{"Idempotency-Key": "accept-1"}), &a1)
		decodeExact(t, x.send(t, trader(0), "PUT", accept, nil, http.StatusOK, map[string]string{"Idempotency-Key": "accept-1"}), &a2)
		t1, t2 := a1["trades"].([]any), a2["trades"].([]any)
		if len(t1) != 1 || len(t2) != 1 || id(t1[0].(obj)) != id(t2[0].(obj)) {
			t.Errorf("a retried accept: trades %v then %v, want the same one trade", t1, t2)
		}
	})
}
