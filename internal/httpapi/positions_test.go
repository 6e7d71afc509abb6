package httpapi_test

import (
	"cmp"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"
)

// TestPositions: a firm's positions by instrument and account follow its
// trades by average cost, through zero, by the parts of an allocation
// where it allocated, marked at the instrument's latest trade (a trade
// between other firms moves the mark); the filters select, the operator
// reads any firm's, and bad filters are refused naming the field or
// answer 404 for what is not the caller's.
func TestPositions(t *testing.T) {
	fresh(t, func(t *testing.T, v *env) {
		x := newTV(t, v)
		in, other := x.ins[2], x.ins[5]
		accs := v.creds.Participants[0].AccountIDs
		const path = "/api/v1/participant/positions"
		with := func(b obj, kv ...any) obj {
			for i := 0; i < len(kv); i += 2 {
				b[kv[i].(string)] = kv[i+1]
			}
			return b
		}

		// Firm 0 buys 2 m at 99.5 from firm 1 and allocates 1.5 m of it to
		// its second account; then sells 3 m at 100 to firm 1 from its
		// first account.
		x.create(t, trader(1), offer(in, x.book, "ask", "99.5", "2000000"))
		buy := x.create(t, trader(0), with(offer(in, x.book, "bid", "99.5", "2000000"), "account_id", accs[0]))
		trades := x.tradesOf(t, trader(0), id(buy))
		if len(trades) != 1 {
			t.Fatalf("trades of the buy = %d, want 1", len(trades))
		}
		x.obj(t, trader(0), "POST", "/api/v1/trades/"+id(trades[0])+"/allocations",
			obj{"allocations": []obj{{"account_id": accs[1], "quantity": "1500000"}, {"account_id": accs[0], "quantity": "500000"}}}, http.StatusOK)
		x.create(t, trader(1), offer(in, x.book, "bid", "100", "3000000"))
		x.create(t, trader(0), with(offer(in, x.book, "ask", "100", "3000000"), "account_id", accs[0]))

		type pos struct {
			Participant, Account, Net, Bought, Sold, Average, Realised, Unrealised, Mark string
			Fills                                                                        int
		}
		str := func(a any) string {
			if a == nil {
				return "null"
			}
			return a.(string)
		}
		read := func(w who, query string) []pos {
			t.Helper()
			var out []pos
			for _, p := range x.list(t, w, path+query) {
				if p["instrument_id"] != in {
					t.Errorf("position %v: instrument, want %s", p, in)
				}
				if p["currency"] != "EUR" || p["isin"] == "" {
					t.Errorf("position %v: currency, isin", p)
				}
				if p["mark_source"] != "last_trade" || p["mark_market_id"] != x.book || p["mark_at"] == nil {
					t.Errorf("position %v: mark source, market, time", p)
				}
				out = append(out, pos{Participant: p["participant_id"].(string), Account: p["account_id"].(string),
					Net: str(p["net_nominal"]), Bought: str(p["bought_nominal"]), Sold: str(p["sold_nominal"]),
					Average: str(p["average_price"]), Realised: str(p["realised_pnl"]), Unrealised: str(p["unrealised_pnl"]),
					Mark: str(p["mark_price"]), Fills: fills(p["fills"])})
			}
			return out
		}
		// The answer is by firm, ISIN and account.
		sorted := func(ps []pos) []pos {
			slices.SortFunc(ps, func(a, b pos) int {
				return cmp.Or(strings.Compare(a.Participant, b.Participant), strings.Compare(a.Account, b.Account))
			})
			return ps
		}
		check := func(name string, got, want []pos) {
			t.Helper()
			if diff := gocmp.Diff(want, got); diff != "" {
				t.Errorf("%s (-want +got):\n%s", name, diff)
			}
		}
		p0, p1, p2 := v.participant(0), v.participant(1), v.participant(2)
		// Account 0: bought 0.5 m at 99.5, sold 3 m at 100: 2 500 realised,
		// short 2.5 m at 100. Account 1: long 1.5 m at 99.5, marked at 100.
		firm0 := []pos{
			{p0, accs[0], "-2500000", "500000", "3000000", "100", "2500.00", "0.00", "100", 2},
			{p0, accs[1], "1500000", "1500000", "0", "99.5", "0.00", "7500.00", "100", 1},
		}
		check("firm 0", read(trader(0), ""), sorted(firm0))

		// Firm 2 buys 1 m at 100.25 from firm 1: firm 1 goes flat, and the
		// mark moves for every firm.
		x.create(t, trader(2), offer(in, x.book, "bid", "100.25", "1000000"))
		x.create(t, trader(1), offer(in, x.book, "ask", "100.25", "1000000"))
		firm0 = []pos{
			{p0, accs[0], "-2500000", "500000", "3000000", "100", "2500.00", "-6250.00", "100.25", 2},
			{p0, accs[1], "1500000", "1500000", "0", "99.5", "0.00", "11250.00", "100.25", 1},
		}
		sorted(firm0)
		check("firm 0 after the mark moved", read(admin(0), ""), firm0)
		// Firm 1: sold 2 m at 99.5, bought 3 m at 100 (−10 000 on the 2 m
		// short, long 1 m at 100), sold 1 m at 100.25 (+2 500): flat.
		firm1 := []pos{{p1, v.account(1), "0", "3000000", "3000000", "null", "-7500.00", "0.00", "100.25", 3}}
		check("firm 1", read(trader(1), ""), firm1)
		firm2 := []pos{{p2, v.account(2), "1000000", "1000000", "0", "100.25", "0.00", "0.00", "100.25", 1}}

		// Filters, and the operator's view.
		check("firm 0, account 1", read(trader(0), "?account_id="+accs[1]), []pos{firm0[slices.IndexFunc(firm0, func(p pos) bool { return p.Account == accs[1] })]})
		check("firm 0, another instrument", read(trader(0), "?instrument_id="+other), nil)
		check("firm 0 naming itself", read(trader(0), "?participant_id="+p0+"&instrument_id="+in), firm0)
		check("the operator, firm 1", read(operator, "?participant_id="+p1), firm1)
		all := append(append(append([]pos(nil), firm0...), firm1...), firm2...)
		check("the operator, every firm", read(operator, "?instrument_id="+in), sorted(all))
		v.run(t, call{name: "positions_list", as: trader(0), method: "GET", path: path, want: http.StatusOK})

		x.refused(t, trader(0), "GET", path+"?participant_id="+p1, nil, http.StatusNotFound)
		x.refused(t, trader(0), "GET", path+"?account_id="+v.account(1), nil, http.StatusNotFound)
		x.refused(t, operator, "GET", path+"?participant_id="+p1+"&account_id="+accs[0], nil, http.StatusNotFound)
		x.refused(t, trader(0), "GET", path+"?instrument_id=0190a6a0-0000-7000-8000-000000000000", nil, http.StatusNotFound)
		x.refused(t, trader(0), "GET", path+"?instrument_id=x&account_id=y&participant_id=z", nil, http.StatusBadRequest,
			"participant_id", "instrument_id", "account_id")
		x.refused(t, viewer(0), "GET", path, nil, http.StatusForbidden)
	})
}

// fills reads a JSON integer the list decoded exactly.
func fills(a any) int {
	n, _ := a.(json.Number).Int64()
	return int(n)
}
