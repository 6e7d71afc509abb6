package httpapi_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/bondvenue/bondvenue/internal/testenv"
	"github.com/bondvenue/bondvenue/internal/venue"
	"github.com/quagmt/udecimal"
)

// This file drives every offer, RFQ and quote transition and their error
// paths through HTTP, on both engines, asserting statuses, record states and
// figures: the continuous book (resting, depth, crossing, partial fills,
// price-time priority, self-match and non-counterparty skips, market
// orders, all-or-none, amendments, cancels, gtd expiry), validation, risk
// limits, RFQs and quotes, the event log and Idempotency-Key.

const (
	offersPath = "/api/v1/participant/offers"
	rfqPath    = "/api/v1/participant/rfq"
)

// obj is a decoded JSON object; numbers are json.Number, so figures are
// compared exactly.
type obj = map[string]any

// tv is a demo venue with its markets and instruments at hand.
type tv struct {
	*env
	otc, book, aon string
	hours          string   // the continuous market with trading hours
	ins            []string // demo instruments, oldest first
}

func newTV(t *testing.T, v *env) *tv {
	t.Helper()
	x := &tv{env: v, ins: v.instruments(t)}
	for _, m := range v.markets(t) {
		switch {
		case m.FacilityType == venue.FacilityOTC:
			x.otc = m.ID
		case m.Hours != nil:
			x.hours = m.ID
		case m.IsPartialFillAllowed:
			x.book = m.ID
		default:
			x.aon = m.ID
		}
	}
	if x.otc == "" || x.book == "" || x.aon == "" || len(x.ins) < 10 {
		t.Fatalf("demo venue lacks markets or instruments: otc %q book %q aon %q, %d instruments", x.otc, x.book, x.aon, len(x.ins))
	}
	return x
}

// decodeExact decodes a JSON body keeping numbers exact.
func decodeExact(t *testing.T, r *response, v any) {
	t.Helper()
	d := json.NewDecoder(bytes.NewReader(r.body))
	d.UseNumber()
	if err := d.Decode(v); err != nil {
		t.Fatalf("%s %s: decode: %v\n%s", r.req.Method, r.req.URL, err, r.body)
	}
}

// send sends a request as w, requires status want and answers the raw
// response.
func (x *tv) send(t *testing.T, w who, method, path string, body any, want int, header map[string]string) *response {
	t.Helper()
	r := x.do(t, w, method, path, body, header)
	if r.status != want {
		t.Fatalf("%s %s as %s: status %d, want %d\n%.2000s", method, path, w, r.status, want, r.body)
	}
	return r
}

// obj sends a request and answers its JSON object body.
func (x *tv) obj(t *testing.T, w who, method, path string, body any, want int) obj {
	t.Helper()
	var o obj
	decodeExact(t, x.send(t, w, method, path, body, want, nil), &o)
	return o
}

// list GETs a JSON array of objects.
func (x *tv) list(t *testing.T, w who, path string) []obj {
	t.Helper()
	var a []obj
	decodeExact(t, x.send(t, w, "GET", path, nil, http.StatusOK, nil), &a)
	return a
}

// refused sends a request that must fail with status want; for a 400 the
// error details must name exactly the fields given.
func (x *tv) refused(t *testing.T, w who, method, path string, body any, want int, fields ...string) obj {
	t.Helper()
	e := x.obj(t, w, method, path, body, want)
	if want == http.StatusBadRequest && len(fields) > 0 {
		var got []string
		ds, _ := e["details"].([]any)
		for _, d := range ds {
			if f, _ := d.(obj)["field"].(string); !slices.Contains(got, f) {
				got = append(got, f)
			}
		}
		slices.Sort(got)
		fields = slices.Clone(fields)
		slices.Sort(fields)
		if !slices.Equal(got, fields) {
			t.Errorf("%s %s as %s: details fields %v, want %v\n%s", method, path, w, got, fields, e["details"])
		}
	}
	return e
}

// errorText is an error body's human-readable detail.
func errorText(e obj) string { s, _ := e["error"].(string); return s }

// create posts an offer or quote that must be accepted.
func (x *tv) create(t *testing.T, w who, body obj) obj {
	t.Helper()
	o := x.obj(t, w, "POST", offersPath, body, http.StatusOK)
	if in, ok := o["instrument"].(obj); !ok || in["id"] != body["instrument_id"] {
		t.Errorf("created record: instrument = %v, want the nested instrument %v", o["instrument"], body["instrument_id"])
	}
	return o
}

// rfq posts an RFQ that must be accepted.
func (x *tv) rfq(t *testing.T, w who, body obj) obj {
	t.Helper()
	o := x.obj(t, w, "POST", rfqPath, body, http.StatusOK)
	if o["type"] != "request_for_quote" || o["status"] != "created" {
		t.Errorf("created RFQ: type %v status %v", o["type"], o["status"])
	}
	return o
}

// offer is a limit offer body.
func offer(instrument, market, direction, price, quantity string) obj {
	return obj{"instrument_id": instrument, "market_id": market, "direction": direction, "price_per_unit": price, "quantity": quantity}
}

// marketOrder is a market order body.
func marketOrder(instrument, market, direction, quantity string) obj {
	return obj{"instrument_id": instrument, "market_id": market, "direction": direction, "quantity": quantity, "market_order": true}
}

// with returns a copy of b with the key/value pairs kv set (a nil value
// deletes the key).
func set(b obj, kv ...any) obj {
	out := obj{}
	for k, v := range b {
		out[k] = v
	}
	for i := 0; i+1 < len(kv); i += 2 {
		if kv[i+1] == nil {
			delete(out, kv[i].(string))
		} else {
			out[kv[i].(string)] = kv[i+1]
		}
	}
	return out
}

func entity(kv ...any) obj { return obj{"entity": set(obj{}, kv...)} }

func id(o obj) string { s, _ := o["id"].(string); return s }

// dec reads a JSON number or decimal text.
func num(t *testing.T, v any) udecimal.Decimal {
	t.Helper()
	var s string
	switch x := v.(type) {
	case json.Number:
		s = x.String()
	case string:
		s = x
	default:
		t.Fatalf("%#v is not a number or decimal text", v)
	}
	d, err := udecimal.Parse(s)
	if err != nil {
		t.Fatalf("parse %q: %v", s, err)
	}
	return d
}

// wantDec asserts a figure equals want exactly.
func wantDec(t *testing.T, what string, got any, want string) {
	t.Helper()
	if got == nil {
		t.Errorf("%s = null, want %s", what, want)
		return
	}
	if g := num(t, got); !g.Equal(udecimal.MustParse(want)) {
		t.Errorf("%s = %s, want %s", what, g, want)
	}
}

// wantState asserts a record's status, quantity and filled quantity.
func wantState(t *testing.T, o obj, status, quantity, filled string) {
	t.Helper()
	if o["status"] != status {
		t.Errorf("%s %s: status %v, want %s", o["type"], id(o), o["status"], status)
	}
	wantDec(t, fmt.Sprintf("%s %s quantity", o["type"], id(o)), o["quantity"], quantity)
	wantDec(t, fmt.Sprintf("%s %s filled_quantity", o["type"], id(o)), o["filled_quantity"], filled)
}

// state reads a record as w (an offer or quote; an RFQ with rfq set) and
// asserts its state.
func (x *tv) state(t *testing.T, w who, recordID, status, quantity, filled string) obj {
	t.Helper()
	path := offersPath + "/" + recordID
	o := x.obj(t, w, "GET", path, nil, http.StatusOK)
	wantState(t, o, status, quantity, filled)
	return o
}

func (x *tv) rfqState(t *testing.T, w who, rfqID, status string) obj {
	t.Helper()
	o := x.obj(t, w, "GET", rfqPath+"/"+rfqID, nil, http.StatusOK)
	if o["status"] != status {
		t.Errorf("RFQ %s as %s: status %v, want %s", rfqID, w, o["status"], status)
	}
	return o
}

// entry is one instrument_limits entry as a test expects it.
type entry struct {
	offer, participant, limit, quantity string
	cp                                  bool
}

// depth reads an instrument's book as w with market_depth=n.
func (x *tv) depth(t *testing.T, w who, instrument string, n int) (ask, bid []entry) {
	t.Helper()
	in := x.obj(t, w, "GET", fmt.Sprintf("/api/v1/instruments/%s?market_depth=%d", instrument, n), nil, http.StatusOK)
	lim, _ := in["instrument_limits"].(obj)
	read := func(side string) []entry {
		out := []entry{}
		es, _ := lim[side].([]any)
		for _, e := range es {
			m := e.(obj)
			p, _ := m["participant_id"].(string)
			o, _ := m["offer_id"].(string)
			cp, _ := m["is_counterparty_enabled"].(bool)
			out = append(out, entry{offer: o, participant: p, limit: num(t, m["limit"]).String(),
				quantity: num(t, m["quantity"]).String(), cp: cp})
		}
		return out
	}
	return read("ask"), read("bid")
}

func (x *tv) wantDepth(t *testing.T, w who, instrument string, n int, ask, bid []entry) {
	t.Helper()
	for _, e := range [][]entry{ask, bid} {
		for i := range e {
			e[i].limit = udecimal.MustParse(e[i].limit).String()
			e[i].quantity = udecimal.MustParse(e[i].quantity).String()
		}
	}
	gotAsk, gotBid := x.depth(t, w, instrument, n)
	if !slices.Equal(gotAsk, ask) {
		t.Errorf("instrument_limits.ask (depth %d) as %s:\n got %+v\nwant %+v", n, w, gotAsk, ask)
	}
	if !slices.Equal(gotBid, bid) {
		t.Errorf("instrument_limits.bid (depth %d) as %s:\n got %+v\nwant %+v", n, w, gotBid, bid)
	}
}

// tradesOf lists the trades of an offer as w, keyed by the resting (or
// other) side's offer id.
func (x *tv) tradesOf(t *testing.T, w who, offerID string) []obj {
	t.Helper()
	return x.list(t, w, "/api/v1/trades?offer_id="+offerID)
}

// tradeWith finds the trade between offers a and b among ts.
func tradeWith(t *testing.T, ts []obj, ask, bid string) obj {
	t.Helper()
	for _, tr := range ts {
		if tr["ask_order"].(obj)["offer_id"] == ask && tr["bid_order"].(obj)["offer_id"] == bid {
			return tr
		}
	}
	t.Fatalf("no trade between ask %s and bid %s among %d trades", ask, bid, len(ts))
	return nil
}

// fill is what a test expects of a trade.
type fill struct {
	ask, bid             string // offer ids
	askFirm, bidFirm     int
	quantity, clean      string
	askFilled, bidFilled string // the orders' filled_quantity after the fill
	settle, exec         string
	instrument, market   string
}

var ticCodeRE = regexp.MustCompile(`^BV[0-9A-F]{32}$`)

// checkTrade asserts every figure of a trade: accrued interest is the
// instrument analytics' accrued for that nominal and settlement date in
// cents (half away from zero), price = quantity × clean / 100 + accrued.
func (x *tv) checkTrade(t *testing.T, tr obj, f fill) {
	t.Helper()
	where := "trade " + id(tr)
	if tr["status"] != "successful" || tr["execution_type"] != f.exec || tr["settlement_date"] != f.settle ||
		tr["instrument_id"] != f.instrument || tr["market_id"] != f.market {
		t.Errorf("%s: status %v execution_type %v settlement_date %v instrument %v market %v, want successful %s %s %s %s",
			where, tr["status"], tr["execution_type"], tr["settlement_date"], tr["instrument_id"], tr["market_id"],
			f.exec, f.settle, f.instrument, f.market)
	}
	if m, _ := tr["market"].(obj); m == nil || m["id"] != f.market {
		t.Errorf("%s: nested market %v, want %s", where, tr["market"], f.market)
	}
	wantDec(t, where+" quantity", tr["quantity"], f.quantity)
	wantDec(t, where+" price_per_unit", tr["price_per_unit"], f.clean)
	wantDec(t, where+" fee", tr["fee"], "0")
	acc := x.accrued(t, f.instrument, f.settle, f.quantity)
	wantDec(t, where+" accrued_interest", tr["accrued_interest"], acc.String())
	q, c := udecimal.MustParse(f.quantity), udecimal.MustParse(f.clean)
	price := q.Mul(c).Mul(udecimal.MustParse("0.01")).RoundHAZ(2).Add(acc)
	wantDec(t, where+" price", tr["price"], price.String())
	if tic, _ := tr["transaction_identification_code"].(string); !ticCodeRE.MatchString(tic) {
		t.Errorf("%s: transaction_identification_code %q", where, tic)
	}
	for _, side := range []struct {
		name, dir, offer, filled string
		firm                     int
	}{{"ask_order", "ask", f.ask, f.askFilled, f.askFirm}, {"bid_order", "bid", f.bid, f.bidFilled, f.bidFirm}} {
		o, _ := tr[side.name].(obj)
		if o == nil {
			t.Fatalf("%s: no %s", where, side.name)
		}
		if o["id"] != tr[side.name+"_id"] || o["direction"] != side.dir || o["offer_id"] != side.offer ||
			o["participant_id"] != x.participant(side.firm) || o["status"] != "internally_approved" || o["type"] != "limit_order" ||
			o["instrument_id"] != f.instrument || o["market_id"] != f.market {
			t.Errorf("%s: %s = %v, want id %v direction %s offer %s participant %s", where, side.name, o, tr[side.name+"_id"],
				side.dir, side.offer, x.participant(side.firm))
		}
		wantDec(t, where+" "+side.name+".price_per_unit", o["price_per_unit"], f.clean)
		wantDec(t, where+" "+side.name+".price", o["price"], f.clean)
		wantDec(t, where+" "+side.name+".filled_quantity", o["filled_quantity"], side.filled)
	}
}

// accrued is the instrument analytics' accrued interest for nominal
// settling on settle, in cents (half away from zero).
func (x *tv) accrued(t *testing.T, instrument, settle, nominal string) udecimal.Decimal {
	t.Helper()
	an := x.obj(t, viewer(0), "GET", "/api/v1/instruments/"+instrument+"/analytics?settlement_date="+settle+"&nominal="+nominal, nil, http.StatusOK)
	acc := num(t, an["accrued_interest"]).RoundHAZ(2)
	if !acc.IsPos() {
		t.Errorf("analytics accrued %v for %s on %s, want a positive amount", an["accrued_interest"], nominal, settle)
	}
	return acc
}

// validUntil renders an instant relative to the venue clock as the spec's
// input timestamp.
func (x *tv) validUntil(d time.Duration) string {
	return x.clock.Now().Add(d).UTC().Format("2006-01-02 15:04:05")
}

// await polls a record as w until it has status.
func (x *tv) await(t *testing.T, w who, path, status string) obj {
	t.Helper()
	var o obj
	testenv.Wait(t, "GET "+path+" with status "+status, func() bool {
		o = x.obj(t, w, "GET", path, nil, http.StatusOK)
		return o["status"] == status
	})
	return o
}

// riskUse answers GET /participant/risk-limits as w: name → [value, used].
func (x *tv) riskUse(t *testing.T, w who) map[string][2]string {
	t.Helper()
	out := map[string][2]string{}
	for _, l := range x.list(t, w, "/api/v1/participant/risk-limits") {
		out[l["name"].(string)] = [2]string{num(t, l["value"]).String(), num(t, l["used"]).String()}
	}
	return out
}

func (x *tv) wantUse(t *testing.T, w who, maxOffer, all, user string) {
	t.Helper()
	got := x.riskUse(t, w)
	want := map[string]string{venue.LimitMaxOffer: maxOffer, venue.LimitAllOfferSum: all, venue.LimitAllOfferUserSum: user}
	for name, u := range want {
		if got[name][1] != udecimal.MustParse(u).String() {
			t.Errorf("risk limit %s as %s: used %s, want %s", name, w, got[name][1], u)
		}
	}
}

// TestTransitionsBook drives the continuous markets: resting and depth,
// crossing at the resting price, partial fills of the incoming and the
// resting offer, price-time priority, self-match and non-counterparty
// skips, market orders, amendments with and without priority, cancels,
// the all-or-none market, and the errors of each.
func TestTransitionsBook(t *testing.T) {
	fresh(t, func(t *testing.T, v *env) {
		x := newTV(t, v)
		const settle = "2026-11-24" // the pinned Friday + 2 TARGET2 business days
		p := x.participant

		t.Run("rest, depth, cross, priority, partial fills", func(t *testing.T) {
			in := x.ins[0]
			a1 := x.create(t, trader(1), offer(in, x.book, "ask", "99.5", "1000000"))
			a2 := x.create(t, trader(2), offer(in, x.book, "sell", "99.75", "500000"))
			a3 := x.create(t, admin(1), offer(in, x.book, "ask", "99.50", "300000"))
			b1 := x.create(t, trader(0), offer(in, x.book, "buy", "98", "200000"))
			for _, o := range []obj{a1, a2, a3, b1} {
				wantState(t, o, "created", num(t, o["quantity"]).String(), "0")
				if o["type"] != "offer" || o["settlement_date"] != settle || o["validity"] != "gtc" {
					t.Errorf("offer %s: type %v settlement_date %v validity %v", id(o), o["type"], o["settlement_date"], o["validity"])
				}
			}
			if a2["direction"] != "ask" || b1["direction"] != "bid" {
				t.Errorf("aliases: sell → %v, buy → %v; want ask, bid", a2["direction"], b1["direction"])
			}
			wantDec(t, "ask price", a1["price"], "99.5")
			wantDec(t, "offer accrued_interest", a1["accrued_interest"], x.accrued(t, in, settle, "1000000").String())
			wantDec(t, "price_per_unit_clean", a1["price_per_unit_clean"], "99.5")

			// Best price first, then time; per caller.
			x.wantDepth(t, trader(0), in, 2,
				[]entry{{id(a1), p(1), "99.5", "1000000", true}, {id(a3), p(1), "99.5", "300000", true}},
				[]entry{{id(b1), p(0), "98", "200000", false}})
			x.wantDepth(t, viewer(1), in, 0,
				[]entry{{id(a1), p(1), "99.5", "1000000", false}, {id(a3), p(1), "99.5", "300000", false}, {id(a2), p(2), "99.75", "500000", true}},
				[]entry{{id(b1), p(0), "98", "200000", true}})
			x.wantDepth(t, viewer(3), in, 0,
				[]entry{{id(a1), "", "99.5", "1000000", false}, {id(a3), "", "99.5", "300000", false}, {id(a2), "", "99.75", "500000", false}},
				[]entry{{id(b1), "", "98", "200000", false}})

			// A crossing bid trades at the resting price, a1 (older) before
			// a3 at the same price; a3 is left partly filled.
			b2 := x.create(t, trader(0), offer(in, x.book, "bid", "99.6", "1100000"))
			wantState(t, b2, "closed", "1100000", "1100000")
			x.state(t, viewer(1), id(a1), "closed", "1000000", "1000000")
			x.state(t, viewer(1), id(a3), "created", "300000", "100000")
			ts := x.tradesOf(t, viewer(0), id(b2))
			if len(ts) != 2 {
				t.Fatalf("%d trades of %s, want 2", len(ts), id(b2))
			}
			x.checkTrade(t, tradeWith(t, ts, id(a1), id(b2)), fill{ask: id(a1), bid: id(b2), askFirm: 1, bidFirm: 0,
				quantity: "1000000", clean: "99.5", askFilled: "1000000", bidFilled: "1000000", settle: settle,
				exec: "continuous", instrument: in, market: x.book})
			x.checkTrade(t, tradeWith(t, ts, id(a3), id(b2)), fill{ask: id(a3), bid: id(b2), askFirm: 1, bidFirm: 0,
				quantity: "100000", clean: "99.5", askFilled: "100000", bidFilled: "1100000", settle: settle,
				exec: "continuous", instrument: in, market: x.book})
			// The counterparty's account stays hidden in the caller's view.
			if tr := tradeWith(t, ts, id(a1), id(b2)); tr["ask_order"].(obj)["account_id"] != "" || tr["bid_order"].(obj)["account_id"] != x.account(0) {
				t.Errorf("trade orders' account_id as p0: ask %v bid %v", tr["ask_order"].(obj)["account_id"], tr["bid_order"].(obj)["account_id"])
			}

			// A bid sweeping two levels; its rest rests.
			b3 := x.create(t, trader(0), offer(in, x.book, "bid", "99.8", "1000000"))
			wantState(t, b3, "created", "1000000", "700000")
			x.state(t, viewer(1), id(a3), "closed", "300000", "300000")
			x.state(t, viewer(2), id(a2), "closed", "500000", "500000")
			ts = x.tradesOf(t, viewer(0), id(b3))
			if len(ts) != 2 {
				t.Fatalf("%d trades of %s, want 2", len(ts), id(b3))
			}
			x.checkTrade(t, tradeWith(t, ts, id(a3), id(b3)), fill{ask: id(a3), bid: id(b3), askFirm: 1, bidFirm: 0,
				quantity: "200000", clean: "99.5", askFilled: "300000", bidFilled: "200000", settle: settle,
				exec: "continuous", instrument: in, market: x.book})
			x.checkTrade(t, tradeWith(t, ts, id(a2), id(b3)), fill{ask: id(a2), bid: id(b3), askFirm: 2, bidFirm: 0,
				quantity: "500000", clean: "99.75", askFilled: "500000", bidFilled: "700000", settle: settle,
				exec: "continuous", instrument: in, market: x.book})
			x.wantDepth(t, viewer(1), in, 0, []entry{},
				[]entry{{id(b3), p(0), "99.8", "300000", true}, {id(b1), p(0), "98", "200000", true}})

			// An incoming ask partly fills the resting bid at the bid's price.
			a4 := x.create(t, trader(2), offer(in, x.book, "ask", "99.7", "100000"))
			wantState(t, a4, "closed", "100000", "100000")
			x.state(t, viewer(0), id(b3), "created", "1000000", "800000")
			x.checkTrade(t, x.tradesOf(t, viewer(2), id(a4))[0], fill{ask: id(a4), bid: id(b3), askFirm: 2, bidFirm: 0,
				quantity: "100000", clean: "99.8", askFilled: "100000", bidFilled: "800000", settle: settle,
				exec: "continuous", instrument: in, market: x.book})

			// Self-match: another user of the same firm crosses its own bid;
			// nothing trades, both rest.
			s1 := x.create(t, admin(0), offer(in, x.book, "ask", "99.7", "100000"))
			wantState(t, s1, "created", "100000", "0")
			x.state(t, viewer(0), id(b3), "created", "1000000", "800000")
			if n := len(x.tradesOf(t, viewer(0), id(s1))); n != 0 {
				t.Errorf("self-match traded %d times", n)
			}
			x.wantDepth(t, viewer(0), in, 0, []entry{{id(s1), p(0), "99.7", "100000", false}},
				[]entry{{id(b3), p(0), "99.8", "200000", false}, {id(b1), p(0), "98", "200000", false}})

			// Every trade has its own transaction identification code.
			tics := map[string]bool{}
			all := x.list(t, operator, "/api/v1/trades")
			for _, tr := range all {
				tics[tr["transaction_identification_code"].(string)] = true
			}
			if len(all) != 5 || len(tics) != len(all) {
				t.Errorf("%d trades with %d distinct transaction_identification_codes, want 5 and 5", len(all), len(tics))
			}
		})

		t.Run("non-counterparty never trades", func(t *testing.T) {
			in := x.ins[1]
			n1 := x.create(t, trader(3), offer(in, x.book, "bid", "101", "100000"))
			n2 := x.create(t, trader(0), offer(in, x.book, "ask", "100", "100000"))
			wantState(t, n2, "created", "100000", "0")
			n3 := x.create(t, trader(3), marketOrder(in, x.book, "bid", "100000"))
			wantState(t, n3, "cancelled", "100000", "0")
			n4 := x.create(t, trader(1), offer(in, x.book, "ask", "100.5", "100000"))
			wantState(t, n4, "created", "100000", "0")
			x.state(t, viewer(3), id(n1), "created", "100000", "0")
			if ts := x.list(t, viewer(3), "/api/v1/trades"); len(ts) != 0 {
				t.Errorf("participant 3 has %d trades, want 0", len(ts))
			}
			x.wantDepth(t, viewer(0), in, 0,
				[]entry{{id(n2), p(0), "100", "100000", false}, {id(n4), p(1), "100.5", "100000", true}},
				[]entry{{id(n1), "", "101", "100000", false}})
			x.wantDepth(t, viewer(3), in, 0,
				[]entry{{id(n2), "", "100", "100000", false}, {id(n4), "", "100.5", "100000", false}},
				[]entry{{id(n1), p(3), "101", "100000", false}})
		})

		t.Run("market orders", func(t *testing.T) {
			in := x.ins[2]
			m1 := x.create(t, trader(1), offer(in, x.book, "ask", "101", "200000"))
			m2 := x.create(t, trader(2), offer(in, x.book, "ask", "101.5", "300000"))
			m3 := x.create(t, trader(2), offer(in, x.book, "ask", "102", "100000"))
			mo := x.create(t, trader(0), marketOrder(in, x.book, "bid", "1000000"))
			wantState(t, mo, "cancelled", "1000000", "600000")
			if mo["price"] != nil || mo["market_order"] != true {
				t.Errorf("market order: price %v market_order %v, want null and true", mo["price"], mo["market_order"])
			}
			ts := x.tradesOf(t, viewer(0), id(mo))
			if len(ts) != 3 {
				t.Fatalf("%d trades of the market order, want 3", len(ts))
			}
			for _, f := range []fill{
				{ask: id(m1), askFirm: 1, quantity: "200000", clean: "101", askFilled: "200000", bidFilled: "200000"},
				{ask: id(m2), askFirm: 2, quantity: "300000", clean: "101.5", askFilled: "300000", bidFilled: "500000"},
				{ask: id(m3), askFirm: 2, quantity: "100000", clean: "102", askFilled: "100000", bidFilled: "600000"},
			} {
				f.bid, f.bidFirm, f.settle, f.exec, f.instrument, f.market = id(mo), 0, settle, "continuous", in, x.book
				x.checkTrade(t, tradeWith(t, ts, f.ask, id(mo)), f)
			}
			x.wantDepth(t, viewer(0), in, 0, []entry{}, []entry{})
			empty := x.create(t, trader(0), marketOrder(in, x.book, "ask", "100000"))
			wantState(t, empty, "cancelled", "100000", "0")
			x.refused(t, trader(0), "POST", offersPath, marketOrder(in, x.otc, "bid", "100000"), http.StatusBadRequest, "market_order")
		})

		t.Run("amend and cancel", func(t *testing.T) {
			in := x.ins[3]
			c1 := x.create(t, trader(1), offer(in, x.book, "ask", "100", "500000"))
			c2 := x.create(t, trader(2), offer(in, x.book, "ask", "100", "500000"))
			put := func(w who, o obj, ent obj, want int) obj {
				t.Helper()
				return x.obj(t, w, "PUT", offersPath+"/"+id(o), ent, want)
			}
			hit := func(wantAsk obj) {
				t.Helper()
				h := x.create(t, trader(0), offer(in, x.book, "bid", "100", "100000"))
				wantState(t, h, "closed", "100000", "100000")
				if ts := x.tradesOf(t, viewer(0), id(h)); len(ts) != 1 || ts[0]["ask_order"].(obj)["offer_id"] != id(wantAsk) {
					t.Errorf("crossing bid traded with %v, want only %s", ts, id(wantAsk))
				}
			}

			// Down keeps priority.
			up := put(trader(1), c1, entity("quantity", 400000), http.StatusOK)
			wantState(t, up, "created", "400000", "0")
			if up["participant"] == nil || up["account"] == nil || up["market"] == nil || up["instrument"] == nil {
				t.Errorf("amended offer lacks nested participant/account/market/instrument")
			}
			x.wantDepth(t, viewer(0), in, 0, []entry{{id(c1), p(1), "100", "400000", true}, {id(c2), p(2), "100", "500000", true}}, []entry{})
			hit(c1)
			// Up loses it.
			wantState(t, put(admin(1), c1, entity("quantity", "600000"), http.StatusOK), "created", "600000", "100000")
			x.wantDepth(t, viewer(0), in, 0, []entry{{id(c2), p(2), "100", "500000", true}, {id(c1), p(1), "100", "500000", true}}, []entry{})
			hit(c2)
			// A price change loses it, even back to the same level.
			put(trader(2), c2, entity("price_per_unit", "100.05"), http.StatusOK)
			wantDec(t, "amended price", put(trader(2), c2, entity("price_per_unit", 100), http.StatusOK)["price"], "100")
			x.wantDepth(t, viewer(0), in, 0, []entry{{id(c1), p(1), "100", "500000", true}, {id(c2), p(2), "100", "400000", true}}, []entry{})
			hit(c1)
			x.state(t, viewer(1), id(c1), "created", "600000", "200000")

			// An amended price that crosses trades at once, at the resting price.
			h4 := x.create(t, trader(0), offer(in, x.book, "bid", "99", "100000"))
			c2now := put(trader(2), c2, entity("price_per_unit", "98.9"), http.StatusOK)
			wantState(t, c2now, "created", "500000", "200000")
			x.state(t, viewer(0), id(h4), "closed", "100000", "100000")
			x.checkTrade(t, x.tradesOf(t, viewer(0), id(h4))[0], fill{ask: id(c2), bid: id(h4), askFirm: 2, bidFirm: 0,
				quantity: "100000", clean: "99", askFilled: "200000", bidFilled: "100000", settle: settle,
				exec: "continuous", instrument: in, market: x.book})

			// Errors.
			x.refused(t, trader(1), "PUT", offersPath+"/"+id(c1), entity("quantity", 100000), http.StatusBadRequest, "quantity")
			x.refused(t, trader(1), "PUT", offersPath+"/"+id(c1), entity("quantity", 1500500), http.StatusBadRequest, "quantity")
			x.refused(t, trader(1), "PUT", offersPath+"/"+id(c1), entity("price_per_unit", "100.12345"), http.StatusBadRequest, "price_per_unit")
			x.refused(t, trader(1), "PUT", offersPath+"/"+id(c1), entity("price_per_unit", 0), http.StatusBadRequest, "price_per_unit")
			x.refused(t, trader(1), "PUT", offersPath+"/"+id(c1), entity("settlement_date", "2026-12-25"), http.StatusBadRequest, "settlement_date")
			x.refused(t, trader(2), "PUT", offersPath+"/"+id(c1), entity("quantity", 300000), http.StatusNotFound)
			x.refused(t, viewer(1), "PUT", offersPath+"/"+id(c1), entity("quantity", 300000), http.StatusForbidden)
			x.refused(t, operator, "PUT", offersPath+"/"+id(c1), entity("quantity", 300000), http.StatusForbidden)
			x.refused(t, trader(1), "PUT", offersPath+"/"+missingID, entity("quantity", 300000), http.StatusNotFound)
			x.state(t, viewer(1), id(c1), "created", "600000", "200000") // refused amends change nothing

			// Cancel: another firm 404, the owner's firm cancels, then 409.
			x.refused(t, trader(2), "DELETE", offersPath+"/"+id(c1), nil, http.StatusNotFound)
			x.refused(t, viewer(1), "DELETE", offersPath+"/"+id(c1), nil, http.StatusForbidden)
			wantState(t, x.obj(t, admin(1), "DELETE", offersPath+"/"+id(c1), nil, http.StatusOK), "cancelled", "600000", "200000")
			x.refused(t, trader(1), "DELETE", offersPath+"/"+id(c1), nil, http.StatusConflict)
			x.refused(t, trader(1), "PUT", offersPath+"/"+id(c1), entity("quantity", 300000), http.StatusConflict)
			// A filled (closed) offer is a conflict too.
			x.refused(t, trader(0), "PUT", offersPath+"/"+id(h4), entity("quantity", 300000), http.StatusConflict)
			x.refused(t, trader(0), "DELETE", offersPath+"/"+id(h4), nil, http.StatusConflict)
			x.wantDepth(t, viewer(0), in, 0, []entry{{id(c2), p(2), "98.9", "300000", true}}, []entry{})
		})

		t.Run("depth across markets: best price, then time", func(t *testing.T) {
			in := x.ins[6]
			// The continuous book numbers its entries 1, 2, 3; the
			// all-or-none book's first entry, posted last, is 1 there.
			d1 := x.create(t, trader(1), offer(in, x.book, "ask", "101", "100000"))
			d2 := x.create(t, trader(1), offer(in, x.book, "ask", "102", "100000"))
			d3 := x.create(t, trader(1), offer(in, x.book, "ask", "100", "100000"))
			d4 := x.create(t, trader(2), offer(in, x.aon, "ask", "100", "200000"))
			d5 := x.create(t, trader(2), offer(in, x.otc, "ask", "100", "300000"))
			x.wantDepth(t, viewer(0), in, 0, []entry{{id(d3), p(1), "100", "100000", true}, {id(d4), p(2), "100", "200000", true},
				{id(d5), p(2), "100", "300000", true}, {id(d1), p(1), "101", "100000", true}, {id(d2), p(1), "102", "100000", true}}, []entry{})
			x.wantDepth(t, viewer(0), in, 2, []entry{{id(d3), p(1), "100", "100000", true}, {id(d4), p(2), "100", "200000", true}}, []entry{})
		})

		t.Run("a book trade settles on the resting offer's date", func(t *testing.T) {
			in := x.ins[5]
			r := x.create(t, trader(1), set(offer(in, x.book, "ask", "100", "100000"), "settlement_date", "2026-11-27"))
			if r["settlement_date"] != "2026-11-27" {
				t.Errorf("settlement_date %v", r["settlement_date"])
			}
			wantDec(t, "accrued_interest", r["accrued_interest"], x.accrued(t, in, "2026-11-27", "100000").String())
			b := x.create(t, trader(0), set(offer(in, x.book, "bid", "100", "100000"), "settlement_date", "2026-11-25"))
			x.checkTrade(t, x.tradesOf(t, viewer(0), id(b))[0], fill{ask: id(r), bid: id(b), askFirm: 1, bidFirm: 0,
				quantity: "100000", clean: "100", askFilled: "100000", bidFilled: "100000", settle: "2026-11-27",
				exec: "continuous", instrument: in, market: x.book})
		})

		t.Run("all or none", func(t *testing.T) {
			in := x.ins[4]
			f1 := x.create(t, trader(1), offer(in, x.aon, "ask", "100", "300000"))
			f2 := x.create(t, trader(2), offer(in, x.aon, "ask", "100", "500000"))
			// 400k cannot be made of whole 300k and 500k offers: it rests
			// untouched, and so do they.
			g1 := x.create(t, trader(0), offer(in, x.aon, "bid", "100", "400000"))
			wantState(t, g1, "created", "400000", "0")
			x.state(t, viewer(1), id(f1), "created", "300000", "0")
			x.state(t, viewer(2), id(f2), "created", "500000", "0")
			// A market order that cannot fill in full is cancelled whole.
			g2 := x.create(t, trader(0), marketOrder(in, x.aon, "bid", "200000"))
			wantState(t, g2, "cancelled", "200000", "0")
			// 800k = both whole offers.
			g3 := x.create(t, admin(0), offer(in, x.aon, "bid", "100.5", "800000"))
			wantState(t, g3, "closed", "800000", "800000")
			x.state(t, viewer(1), id(f1), "closed", "300000", "300000")
			x.state(t, viewer(2), id(f2), "closed", "500000", "500000")
			ts := x.tradesOf(t, viewer(0), id(g3))
			if len(ts) != 2 {
				t.Fatalf("%d trades, want 2", len(ts))
			}
			x.checkTrade(t, tradeWith(t, ts, id(f1), id(g3)), fill{ask: id(f1), bid: id(g3), askFirm: 1, bidFirm: 0,
				quantity: "300000", clean: "100", askFilled: "300000", bidFilled: "300000", settle: settle,
				exec: "continuous", instrument: in, market: x.aon})
			// The resting 400k bid trades whole against an exact 400k ask.
			f3 := x.create(t, trader(2), offer(in, x.aon, "ask", "100", "400000"))
			wantState(t, f3, "closed", "400000", "400000")
			x.state(t, viewer(0), id(g1), "closed", "400000", "400000")
			// A resting order is never partly filled: a smaller bid rests.
			f4 := x.create(t, trader(1), offer(in, x.aon, "ask", "99", "300000"))
			g4 := x.create(t, trader(0), offer(in, x.aon, "bid", "99", "200000"))
			wantState(t, g4, "created", "200000", "0")
			x.state(t, viewer(1), id(f4), "created", "300000", "0")
		})
	})
}

// TestTransitionsValidation checks that each invalid offer create answers
// 400 naming the field, another firm's ids 404, the roles that may not
// trade 403 — and that none of them created anything; then Idempotency-Key
// on offer create.
func TestTransitionsValidation(t *testing.T) {
	fresh(t, func(t *testing.T, v *env) {
		x := newTV(t, v)
		in := x.ins[0]
		base := offer(in, x.book, "bid", "99", "100000")
		// A market listing none of the instruments.
		bare := x.obj(t, operator, "POST", "/api/v1/admin/markets", obj{"name": "bondvenue Empty", "facility_type": "continues-matching"}, http.StatusOK)

		for _, c := range []struct {
			name   string
			body   obj
			fields []string
		}{
			{"quantity below min_piece", set(base, "quantity", "500"), []string{"quantity"}},
			{"quantity below a 100k min_piece", set(base, "instrument_id", x.ins[8], "quantity", "50000"), []string{"quantity"}},
			{"quantity not a multiple of min_increment", set(base, "quantity", "101500"), []string{"quantity"}},
			{"quantity zero", set(base, "quantity", 0), []string{"quantity"}},
			{"quantity missing", set(base, "quantity", nil), []string{"quantity"}},
			{"price zero", set(base, "price_per_unit", "0"), []string{"price_per_unit"}},
			{"price negative", set(base, "price_per_unit", -99), []string{"price_per_unit"}},
			{"price missing", set(base, "price_per_unit", nil), []string{"price_per_unit"}},
			{"price with too many decimals", set(base, "price_per_unit", "99.12345"), []string{"price_per_unit"}},
			{"settlement on a TARGET2 holiday", set(base, "settlement_date", "2026-12-25"), []string{"settlement_date"}},
			{"settlement on a Saturday", set(base, "settlement_date", "2026-11-21 00:00:00"), []string{"settlement_date"}},
			{"settlement before today", set(base, "settlement_date", "2026-11-19"), []string{"settlement_date"}},
			{"settlement not a date", set(base, "settlement_date", "soon"), []string{"settlement_date"}},
			{"gtd without valid_until", set(base, "validity", "gtd"), []string{"valid_until"}},
			{"gtd in the past", set(base, "validity", "gtd", "valid_until", "2026-11-20 14:47:59"), []string{"valid_until"}},
			{"unknown validity", set(base, "validity", "forever"), []string{"validity"}},
			{"unknown direction", set(base, "direction", "up"), []string{"direction"}},
			{"instrument not listed on the market", set(base, "market_id", id(bare)), []string{"market_id"}},
			{"unknown instrument", set(base, "instrument_id", missingID), []string{"instrument_id"}},
			{"unknown market", set(base, "market_id", missingID), []string{"market_id"}},
		} {
			t.Run(c.name, func(t *testing.T) {
				x.refused(t, trader(0), "POST", offersPath, c.body, http.StatusBadRequest, c.fields...)
			})
		}
		t.Run("another firm's ids", func(t *testing.T) {
			for field, val := range map[string]string{"account_id": x.account(1), "user_id": x.user(trader(1)),
				"settlement_provider_id": x.provider(t, 1), "participant_id": x.participant(1)} {
				x.refused(t, trader(0), "POST", offersPath, set(base, field, val), http.StatusNotFound)
			}
		})
		t.Run("roles", func(t *testing.T) {
			x.refused(t, viewer(0), "POST", offersPath, base, http.StatusForbidden)
			x.refused(t, operator, "POST", offersPath, base, http.StatusForbidden)
			x.refused(t, viewer(0), "POST", rfqPath, set(base, "market_id", x.otc), http.StatusForbidden)
		})
		t.Run("nothing was created", func(t *testing.T) {
			if os := x.list(t, operator, offersPath); len(os) != 0 {
				t.Errorf("%d offers after refused creates, want 0", len(os))
			}
		})

		t.Run("Idempotency-Key", func(t *testing.T) {
			key := map[string]string{"Idempotency-Key": "offer-create-1"}
			first := x.send(t, trader(0), "POST", offersPath, base, http.StatusOK, key)
			if first.header.Get("Idempotent-Replayed") != "" {
				t.Errorf("first answer: Idempotent-Replayed %q", first.header.Get("Idempotent-Replayed"))
			}
			again := x.send(t, trader(0), "POST", offersPath, base, http.StatusOK, key)
			if again.header.Get("Idempotent-Replayed") != "true" || !bytes.Equal(again.body, first.body) {
				t.Errorf("retry: Idempotent-Replayed %q, same body %v", again.header.Get("Idempotent-Replayed"), bytes.Equal(again.body, first.body))
			}
			x.send(t, trader(0), "POST", offersPath, set(base, "quantity", "200000"), http.StatusUnprocessableEntity, key)
			var o obj
			decodeExact(t, first, &o)
			os := x.list(t, viewer(0), offersPath)
			if len(os) != 1 || id(os[0]) != id(o) {
				t.Errorf("offers after a replayed create: %v, want only %s", ids(os), id(o))
			}
			x.wantUse(t, trader(0), "0", "100000", "100000")
			// The key is per user: another user of the firm creates anew.
			other := x.send(t, admin(0), "POST", offersPath, base, http.StatusOK, key)
			if other.header.Get("Idempotent-Replayed") != "" {
				t.Errorf("another user's request was replayed")
			}
			if n := len(x.list(t, viewer(0), offersPath)); n != 2 {
				t.Errorf("%d offers, want 2", n)
			}
		})
	})
}

// TestTransitionsRiskLimits sets small limits through the operator endpoint
// and breaches each, checking the use the participant reads after creates,
// fills, cancels and a refused amendment.
func TestTransitionsRiskLimits(t *testing.T) {
	fresh(t, func(t *testing.T, v *env) {
		x := newTV(t, v)
		in := x.ins[0]
		for name, val := range map[string]string{venue.LimitMaxOffer: "5000000", venue.LimitAllOfferSum: "8000000",
			venue.LimitAllOfferUserSum: "6000000"} {
			l := x.obj(t, operator, "PUT", "/api/v1/admin/participants/"+x.participant(0)+"/risk-limits/"+name, obj{"value": val}, http.StatusOK)
			wantDec(t, name, l["value"], val)
		}
		x.refused(t, trader(0), "PUT", "/api/v1/admin/participants/"+x.participant(0)+"/risk-limits/MAX_OFFER", obj{"value": 1}, http.StatusForbidden)
		x.wantUse(t, trader(0), "0", "0", "0")
		breach := func(w who, body obj, limit, value, use string) {
			t.Helper()
			e := x.refused(t, w, "POST", offersPath, body, http.StatusBadRequest, "quantity")
			for _, s := range []string{limit, "limit " + value, "in use " + use} {
				if !strings.Contains(errorText(e), s) {
					t.Errorf("breach of %s: error %q does not say %q", limit, errorText(e), s)
				}
			}
		}

		breach(trader(0), offer(in, x.book, "bid", "90", "6000000"), venue.LimitMaxOffer, "5000000", "0")
		b := x.create(t, trader(0), offer(in, x.book, "bid", "90", "5000000"))
		x.wantUse(t, trader(0), "0", "5000000", "5000000")
		breach(trader(0), offer(in, x.book, "bid", "90", "2000000"), venue.LimitAllOfferUserSum, "6000000", "5000000")
		// Another user of the firm still has room of its own.
		c := x.create(t, admin(0), offer(in, x.book, "bid", "89", "2000000"))
		x.wantUse(t, admin(0), "0", "7000000", "2000000")
		x.wantUse(t, viewer(0), "0", "7000000", "0")
		breach(admin(0), offer(in, x.book, "bid", "89", "2000000"), venue.LimitAllOfferSum, "8000000", "7000000")
		// Quotes count too: an RFQ's quote from p0 breaches the firm sum.
		r := x.rfq(t, trader(1), obj{"instrument_id": in, "market_id": x.otc, "direction": "ask", "quantity": "2000000",
			"counterparties": []string{x.participant(0)}})
		breach(admin(0), obj{"instrument_id": in, "market_id": x.otc, "direction": "bid", "price_per_unit": "99", "quantity": "2000000",
			"matched_offer_id": id(r)}, venue.LimitAllOfferSum, "8000000", "7000000")

		// A fill frees use; the counterparty's filled offer never counts.
		a := x.create(t, trader(1), offer(in, x.book, "ask", "90", "1000000"))
		wantState(t, a, "closed", "1000000", "1000000")
		x.state(t, viewer(0), id(b), "created", "5000000", "1000000")
		x.wantUse(t, trader(0), "0", "6000000", "4000000")
		x.wantUse(t, trader(1), "0", "0", "0")
		// A cancel frees use.
		x.obj(t, admin(0), "DELETE", offersPath+"/"+id(c), nil, http.StatusOK)
		x.wantUse(t, trader(0), "0", "4000000", "4000000")
		x.wantUse(t, admin(0), "0", "4000000", "0")

		// Amend up: 7m total, 1m filled leaves 6m open, over MAX_OFFER.
		e := x.refused(t, trader(0), "PUT", offersPath+"/"+id(b), entity("quantity", "7000000"), http.StatusBadRequest, "quantity")
		if !strings.Contains(errorText(e), venue.LimitMaxOffer) {
			t.Errorf("amend-up breach: %q does not name %s", errorText(e), venue.LimitMaxOffer)
		}
		x.state(t, viewer(0), id(b), "created", "5000000", "1000000")
		x.wantUse(t, trader(0), "0", "4000000", "4000000")
		// With MAX_OFFER raised, the user sum binds on amend.
		x.obj(t, operator, "PUT", "/api/v1/admin/participants/"+x.participant(0)+"/risk-limits/"+venue.LimitMaxOffer, obj{"value": "10000000"}, http.StatusOK)
		e = x.refused(t, trader(0), "PUT", offersPath+"/"+id(b), entity("quantity", "8000000"), http.StatusBadRequest, "quantity")
		if !strings.Contains(errorText(e), venue.LimitAllOfferUserSum) || !strings.Contains(errorText(e), "in use 4000000") {
			t.Errorf("amend-up breach: %q does not name %s in use 4000000", errorText(e), venue.LimitAllOfferUserSum)
		}
		wantState(t, x.obj(t, trader(0), "PUT", offersPath+"/"+id(b), entity("quantity", "7000000"), http.StatusOK), "created", "7000000", "1000000")
		x.wantUse(t, trader(0), "0", "6000000", "6000000")
		// Amend down frees use.
		x.obj(t, trader(0), "PUT", offersPath+"/"+id(b), entity("quantity", "2000000"), http.StatusOK)
		x.wantUse(t, trader(0), "0", "1000000", "1000000")
	})
}

// TestTransitionsRFQ drives RFQs and quotes: recipients, visibility,
// quoting and its errors, replacement, rejection, accept, executable RFQs,
// updates, cancel and decline.
func TestTransitionsRFQ(t *testing.T) {
	fresh(t, func(t *testing.T, v *env) {
		x := newTV(t, v)
		p := x.participant
		rfqBody := func(in, dir, qty string, cps ...string) obj {
			b := obj{"instrument_id": in, "market_id": x.otc, "direction": dir, "quantity": qty, "settlement_date": "2026-11-25"}
			if cps != nil {
				b["counterparties"] = cps
			}
			return b
		}
		quote := func(in, rfqID, dir, price, qty string) obj {
			return obj{"instrument_id": in, "market_id": x.otc, "direction": dir, "price_per_unit": price, "quantity": qty,
				"matched_offer_id": rfqID}
		}
		recipients := func(o obj) []string {
			var out []string
			cs, _ := o["counterparties"].([]any)
			for _, c := range cs {
				out = append(out, c.(string))
			}
			slices.Sort(out)
			return out
		}
		sorted := func(s ...string) []string { slices.Sort(s); return s }
		quoteIDs := func(o obj) []string {
			var out []string
			qs, _ := o["matched_offers"].([]any)
			for _, q := range qs {
				out = append(out, id(q.(obj)))
			}
			slices.Sort(out)
			return out
		}

		t.Run("recipients", func(t *testing.T) {
			in := x.ins[1]
			all := x.rfq(t, trader(0), rfqBody(in, "bid", "2000000"))
			if got := recipients(all); !slices.Equal(got, sorted(p(1), p(2))) {
				t.Errorf("RFQ to all counterparties: %v, want %v", got, sorted(p(1), p(2)))
			}
			if all["validity"] != "gtd" || all["valid_until"] != "2026-11-20T15:03:00.000Z" {
				t.Errorf("default validity %v until %v, want gtd for 15 minutes", all["validity"], all["valid_until"])
			}
			x.refused(t, trader(3), "POST", rfqPath, rfqBody(in, "bid", "2000000"), http.StatusBadRequest, "counterparties")
			x.refused(t, trader(0), "POST", rfqPath, rfqBody(in, "bid", "2000000", p(3)), http.StatusBadRequest, "counterparties[0]")
			x.refused(t, trader(0), "POST", rfqPath, rfqBody(in, "bid", "2000000", p(1), p(1)), http.StatusBadRequest, "counterparties[1]")
			x.refused(t, trader(0), "POST", rfqPath, set(rfqBody(in, "bid", "2000000"), "market_id", x.book), http.StatusBadRequest, "market_id")
			named := x.rfq(t, trader(0), rfqBody(in, "bid", "1000000", p(1)))
			if got := recipients(named); !slices.Equal(got, []string{p(1)}) {
				t.Errorf("RFQ to p1: recipients %v", got)
			}
			x.refused(t, viewer(2), "GET", rfqPath+"/"+id(named), nil, http.StatusNotFound)
			x.refused(t, viewer(3), "GET", rfqPath+"/"+id(named), nil, http.StatusNotFound)
			if slices.Contains(ids(x.list(t, viewer(2), rfqPath)), id(named)) {
				t.Errorf("p2 lists an RFQ it was not invited to")
			}
			// The invited dealer sees it, without the recipients.
			listed := x.list(t, viewer(1), rfqPath)
			if got := ids(listed); !slices.Equal(got, []string{id(named), id(all)}) {
				t.Errorf("p1 lists RFQs %v, want %v", got, []string{id(named), id(all)})
			}
			for _, r := range listed {
				if _, ok := r["counterparties"]; ok {
					t.Errorf("dealer's RFQ list shows counterparties %v", r["counterparties"])
				}
			}
			got := x.rfqState(t, viewer(1), id(named), "created")
			if _, ok := got["counterparties"]; ok || len(quoteIDs(got)) != 0 {
				t.Errorf("dealer's RFQ: counterparties %v, matched_offers %v", got["counterparties"], got["matched_offers"])
			}
			// matched_offer_id = a resting offer: only its owner is invited.
			rest := x.create(t, trader(2), offer(in, x.book, "ask", "101", "1000000"))
			towards := x.rfq(t, trader(0), set(rfqBody(in, "bid", "1000000"), "matched_offer_id", id(rest)))
			if got := recipients(towards); !slices.Equal(got, []string{p(2)}) || towards["matched_offer_id"] != id(rest) {
				t.Errorf("RFQ towards an offer: recipients %v matched_offer_id %v", got, towards["matched_offer_id"])
			}
			x.refused(t, viewer(1), "GET", rfqPath+"/"+id(towards), nil, http.StatusNotFound)
			x.rfqState(t, viewer(2), id(towards), "created")
			x.refused(t, trader(0), "POST", rfqPath, set(rfqBody(in, "ask", "1000000"), "matched_offer_id", id(rest)), http.StatusBadRequest, "matched_offer_id")
			x.refused(t, trader(0), "POST", rfqPath, set(rfqBody(x.ins[0], "bid", "1000000"), "matched_offer_id", id(rest)), http.StatusBadRequest, "matched_offer_id")
			theirs := x.create(t, trader(3), offer(in, x.book, "ask", "101", "1000000"))
			x.refused(t, trader(0), "POST", rfqPath, set(rfqBody(in, "bid", "1000000"), "matched_offer_id", id(theirs)), http.StatusNotFound)
			x.refused(t, trader(0), "POST", rfqPath, set(rfqBody(in, "bid", "1000000"), "matched_offer_id", missingID), http.StatusNotFound)
		})

		t.Run("quote, replace, reject, accept", func(t *testing.T) {
			in := x.ins[2]
			r := x.rfq(t, trader(0), rfqBody(in, "bid", "2000000", p(1), p(2)))
			rp := rfqPath + "/" + id(r)
			x.refused(t, trader(1), "POST", offersPath, quote(in, id(r), "bid", "100", "2000000"), http.StatusBadRequest, "direction")
			x.refused(t, trader(1), "POST", offersPath, quote(in, id(r), "ask", "100", "1000000"), http.StatusBadRequest, "quantity")
			x.refused(t, trader(3), "POST", offersPath, quote(in, id(r), "ask", "100", "2000000"), http.StatusNotFound)
			x.refused(t, trader(1), "POST", offersPath, quote(in, missingID, "ask", "100", "2000000"), http.StatusNotFound)
			x.refused(t, trader(0), "POST", offersPath, quote(in, id(r), "ask", "100", "2000000"), http.StatusNotFound) // its own RFQ
			x.refused(t, viewer(1), "POST", offersPath, quote(in, id(r), "ask", "100", "2000000"), http.StatusForbidden)

			q1 := x.create(t, trader(1), quote(in, id(r), "ask", "100.10", "2000000"))
			if q1["type"] != "quote" || q1["matched_offer_id"] != id(r) || q1["settlement_date"] != "2026-11-25" {
				t.Errorf("quote: type %v matched_offer_id %v settlement_date %v", q1["type"], q1["matched_offer_id"], q1["settlement_date"])
			}
			wantState(t, q1, "created", "2000000", "0")
			q2 := x.create(t, trader(2), quote(in, id(r), "sell", "100.05", "2000000"))
			// A dealer's second quote replaces its first.
			q3 := x.create(t, admin(1), quote(in, id(r), "ask", "100", "2000000"))
			x.state(t, viewer(1), id(q1), "cancelled", "2000000", "0")
			x.wantUse(t, trader(1), "0", "2000000", "0")

			if got := quoteIDs(x.rfqState(t, viewer(0), id(r), "created")); !slices.Equal(got, sorted(id(q1), id(q2), id(q3))) {
				t.Errorf("requester sees quotes %v, want all three", got)
			}
			if got := quoteIDs(x.rfqState(t, viewer(1), id(r), "created")); !slices.Equal(got, sorted(id(q1), id(q3))) {
				t.Errorf("p1 sees quotes %v, want its own", got)
			}
			if got := quoteIDs(x.rfqState(t, viewer(2), id(r), "created")); !slices.Equal(got, []string{id(q2)}) {
				t.Errorf("p2 sees quotes %v, want its own", got)
			}
			// The requester reads a quote it received, not another's.
			x.state(t, viewer(0), id(q2), "created", "2000000", "0")
			x.refused(t, viewer(2), "GET", offersPath+"/"+id(q3), nil, http.StatusNotFound)
			// Another dealer may not reject a quote; the requester rejects q2.
			x.refused(t, trader(2), "DELETE", offersPath+"/"+id(q3), nil, http.StatusNotFound)
			wantState(t, x.obj(t, trader(0), "DELETE", offersPath+"/"+id(q2), nil, http.StatusOK), "rejected", "2000000", "0")
			x.state(t, viewer(2), id(q2), "rejected", "2000000", "0")
			q4 := x.create(t, trader(2), quote(in, id(r), "ask", "100.02", "2000000"))

			x.refused(t, trader(1), "PUT", offersPath+"/"+id(q3)+"/accept", nil, http.StatusNotFound)
			x.refused(t, viewer(0), "PUT", offersPath+"/"+id(q3)+"/accept", nil, http.StatusForbidden)
			x.refused(t, trader(0), "PUT", offersPath+"/"+id(q2)+"/accept", nil, http.StatusConflict) // rejected
			x.refused(t, trader(0), "PUT", offersPath+"/"+id(q1)+"/accept", nil, http.StatusConflict) // cancelled
			var tr obj
			decodeExact(t, x.send(t, trader(0), "PUT", offersPath+"/"+id(q3)+"/accept", nil, http.StatusOK, nil), &tr)
			x.checkTrade(t, tr, fill{ask: id(q3), bid: id(r), askFirm: 1, bidFirm: 0, quantity: "2000000", clean: "100",
				askFilled: "2000000", bidFilled: "2000000", settle: "2026-11-25", exec: "otc", instrument: in, market: x.otc})
			x.state(t, viewer(1), id(q3), "closed", "2000000", "2000000")
			x.state(t, viewer(2), id(q4), "rejected", "2000000", "0")
			wantState(t, x.rfqState(t, viewer(0), id(r), "closed"), "closed", "2000000", "2000000")
			x.wantUse(t, trader(1), "0", "0", "0")
			x.wantUse(t, trader(2), "0", "1000000", "1000000")                                        // its resting book offer only
			x.refused(t, trader(0), "PUT", offersPath+"/"+id(q3)+"/accept", nil, http.StatusConflict) // closed
			x.refused(t, trader(0), "PUT", offersPath+"/"+id(q4)+"/accept", nil, http.StatusConflict) // rejected with the others
			x.refused(t, trader(2), "POST", offersPath, quote(in, id(r), "ask", "99", "2000000"), http.StatusNotFound)
			x.refused(t, trader(0), "DELETE", rp, nil, http.StatusConflict)
			x.refused(t, trader(0), "PUT", rp, entity("notes", "late"), http.StatusConflict)
			if got := x.tradesOf(t, viewer(2), id(q4)); len(got) != 0 {
				t.Errorf("the rejected dealer has %d trades", len(got))
			}
		})

		t.Run("executable RFQ", func(t *testing.T) {
			in := x.ins[3]
			// It executes at its limit: without one it could never execute.
			x.refused(t, trader(0), "POST", rfqPath, set(rfqBody(in, "bid", "1000000", p(1)), "is_executable", true),
				http.StatusBadRequest, "price_per_unit")
			r := x.rfq(t, trader(0), set(rfqBody(in, "bid", "1000000", p(1), p(2)), "price_per_unit", "99.5", "is_executable", true))
			worse := x.create(t, trader(1), quote(in, id(r), "ask", "99.6", "1000000"))
			wantState(t, worse, "created", "1000000", "0")
			x.rfqState(t, viewer(0), id(r), "created")
			at := x.create(t, trader(2), quote(in, id(r), "ask", "99.5", "1000000"))
			wantState(t, at, "closed", "1000000", "1000000")
			x.state(t, viewer(1), id(worse), "rejected", "1000000", "0")
			x.rfqState(t, viewer(0), id(r), "closed")
			x.checkTrade(t, x.tradesOf(t, viewer(0), id(at))[0], fill{ask: id(at), bid: id(r), askFirm: 2, bidFirm: 0,
				quantity: "1000000", clean: "99.5", askFilled: "1000000", bidFilled: "1000000", settle: "2026-11-25",
				exec: "otc", instrument: in, market: x.otc})
			// A seller's limit: a bid at or above it trades.
			s := x.rfq(t, trader(1), set(rfqBody(in, "ask", "1000000", p(0)), "price_per_unit", "99", "is_executable", true))
			wantState(t, x.create(t, trader(0), quote(in, id(s), "bid", "98.99", "1000000")), "created", "1000000", "0")
			wantState(t, x.create(t, trader(0), quote(in, id(s), "bid", "99.01", "1000000")), "closed", "1000000", "1000000")
			x.rfqState(t, viewer(1), id(s), "closed")
		})

		t.Run("executable RFQ after a change", func(t *testing.T) {
			in := x.ins[3]
			// The limit moves to meet two live quotes: the better one trades.
			r := x.rfq(t, trader(0), set(rfqBody(in, "bid", "1000000", p(1), p(2)), "price_per_unit", "99.5", "is_executable", true))
			qa := x.create(t, trader(1), quote(in, id(r), "ask", "99.8", "1000000"))
			qb := x.create(t, trader(2), quote(in, id(r), "ask", "99.7", "1000000"))
			wantState(t, x.obj(t, trader(1), "PUT", offersPath+"/"+id(qa), entity("price_per_unit", "99.75"), http.StatusOK),
				"created", "1000000", "0") // better, not yet at the limit
			u := x.obj(t, trader(0), "PUT", rfqPath+"/"+id(r), entity("price_per_unit", "99.75"), http.StatusOK)
			wantState(t, u, "closed", "1000000", "1000000")
			x.state(t, viewer(2), id(qb), "closed", "1000000", "1000000")
			x.state(t, viewer(1), id(qa), "rejected", "1000000", "0")
			x.checkTrade(t, x.tradesOf(t, viewer(0), id(qb))[0], fill{ask: id(qb), bid: id(r), askFirm: 2, bidFirm: 0,
				quantity: "1000000", clean: "99.7", askFilled: "1000000", bidFilled: "1000000", settle: "2026-11-25",
				exec: "otc", instrument: in, market: x.otc})
			// A quote improved to the limit trades at once.
			r2 := x.rfq(t, trader(0), set(rfqBody(in, "bid", "1000000", p(1)), "price_per_unit", "99.5", "is_executable", true))
			qc := x.create(t, trader(1), quote(in, id(r2), "ask", "99.6", "1000000"))
			wantState(t, x.obj(t, trader(1), "PUT", offersPath+"/"+id(qc), entity("price_per_unit", "99.5"), http.StatusOK),
				"closed", "1000000", "1000000")
			x.rfqState(t, viewer(0), id(r2), "closed")
			x.checkTrade(t, x.tradesOf(t, viewer(1), id(qc))[0], fill{ask: id(qc), bid: id(r2), askFirm: 1, bidFirm: 0,
				quantity: "1000000", clean: "99.5", askFilled: "1000000", bidFilled: "1000000", settle: "2026-11-25",
				exec: "otc", instrument: in, market: x.otc})
			// Without is_executable a quote at the limit waits for the requester.
			r3 := x.rfq(t, trader(0), set(rfqBody(in, "bid", "1000000", p(1)), "price_per_unit", "99.5"))
			qd := x.create(t, trader(1), quote(in, id(r3), "ask", "99.6", "1000000"))
			x.obj(t, trader(1), "PUT", offersPath+"/"+id(qd), entity("price_per_unit", "99.4"), http.StatusOK)
			x.obj(t, trader(0), "PUT", rfqPath+"/"+id(r3), entity("price_per_unit", "99.8"), http.StatusOK)
			x.state(t, viewer(1), id(qd), "created", "1000000", "0")
			x.obj(t, trader(0), "DELETE", rfqPath+"/"+id(r3), nil, http.StatusOK)
		})

		t.Run("counterparty relation disabled after the request", func(t *testing.T) {
			in := x.ins[3]
			relation := func(enabled bool) {
				x.obj(t, operator, "PUT", "/api/v1/admin/counterparties",
					obj{"participant_id": p(1), "counterparty_id": p(0), "enabled": enabled}, http.StatusOK)
			}
			t.Cleanup(func() { relation(true) })
			r := x.rfq(t, trader(0), set(rfqBody(in, "bid", "1000000", p(1)), "price_per_unit", "99.5", "is_executable", true))
			relation(false)
			x.refused(t, trader(1), "POST", offersPath, quote(in, id(r), "ask", "99", "1000000"), http.StatusConflict)
			relation(true)
			q := x.create(t, trader(1), quote(in, id(r), "ask", "99.6", "1000000"))
			relation(false)
			x.refused(t, trader(0), "PUT", offersPath+"/"+id(q)+"/accept", nil, http.StatusConflict)
			x.refused(t, trader(1), "PUT", offersPath+"/"+id(q), entity("price_per_unit", "99.4"), http.StatusConflict)
			// Neither does a new limit execute with the firm.
			x.obj(t, trader(0), "PUT", rfqPath+"/"+id(r), entity("price_per_unit", "99.6"), http.StatusOK)
			x.state(t, viewer(1), id(q), "created", "1000000", "0")
			relation(true)
			var tr obj
			decodeExact(t, x.send(t, trader(0), "PUT", offersPath+"/"+id(q)+"/accept", nil, http.StatusOK, nil), &tr)
			x.state(t, viewer(1), id(q), "closed", "1000000", "1000000")
		})

		t.Run("update", func(t *testing.T) {
			in := x.ins[4]
			r := x.rfq(t, trader(0), rfqBody(in, "bid", "1000000", p(1), p(2)))
			rp := rfqPath + "/" + id(r)
			qa := x.create(t, trader(1), quote(in, id(r), "ask", "100", "1000000"))
			u := x.obj(t, trader(0), "PUT", rp, entity("notes", "firm size"), http.StatusOK)
			if u["notes"] != "firm size" || !slices.Equal(quoteIDs(u), []string{id(qa)}) {
				t.Errorf("notes update: notes %v quotes %v", u["notes"], quoteIDs(u))
			}
			x.state(t, viewer(1), id(qa), "created", "1000000", "0")
			u = x.obj(t, trader(0), "PUT", rp, entity("quantity", 2000000), http.StatusOK)
			wantState(t, u, "created", "2000000", "0")
			x.state(t, viewer(1), id(qa), "rejected", "1000000", "0")
			x.refused(t, trader(1), "POST", offersPath, quote(in, id(r), "ask", "100", "1000000"), http.StatusBadRequest, "quantity")
			qb := x.create(t, trader(1), quote(in, id(r), "ask", "100", "2000000"))
			u = x.obj(t, trader(0), "PUT", rp, entity("settlement_date", "2026-11-26"), http.StatusOK)
			if u["settlement_date"] != "2026-11-26" {
				t.Errorf("settlement_date %v", u["settlement_date"])
			}
			x.state(t, viewer(1), id(qb), "rejected", "2000000", "0")
			qc := x.create(t, trader(1), quote(in, id(r), "ask", "100", "2000000"))
			if qc["settlement_date"] != "2026-11-26" {
				t.Errorf("new quote settles %v, want the RFQ's 2026-11-26", qc["settlement_date"])
			}
			// Same quantity and date: the quote stays.
			x.obj(t, trader(0), "PUT", rp, entity("quantity", "2000000", "settlement_date", "2026-11-26"), http.StatusOK)
			x.state(t, viewer(1), id(qc), "created", "2000000", "0")
			x.refused(t, trader(0), "PUT", rp, entity("settlement_date", "2026-11-28"), http.StatusBadRequest, "settlement_date")
			x.refused(t, trader(0), "PUT", rp, entity("quantity", "1500"), http.StatusBadRequest, "quantity")
			x.refused(t, trader(1), "PUT", rp, entity("notes", "mine"), http.StatusNotFound)
			x.refused(t, viewer(0), "PUT", rp, entity("notes", "mine"), http.StatusForbidden)
			// A dealer amends its quote's price; its quantity is the request's.
			wantDec(t, "amended quote price", x.obj(t, trader(1), "PUT", offersPath+"/"+id(qc), entity("price_per_unit", "99.9"), http.StatusOK)["price"], "99.9")
			x.refused(t, trader(1), "PUT", offersPath+"/"+id(qc), entity("quantity", "3000000"), http.StatusBadRequest, "quantity")
			x.refused(t, trader(1), "PUT", offersPath+"/"+id(qc), entity("settlement_date", "2026-11-27"), http.StatusBadRequest, "settlement_date")
			wantState(t, x.obj(t, trader(1), "PUT", offersPath+"/"+id(qc), entity("quantity", "2000000", "notes", "firm"), http.StatusOK), "created", "2000000", "0")
			x.refused(t, trader(0), "PUT", offersPath+"/"+id(qc), entity("price_per_unit", "90"), http.StatusNotFound)
			x.state(t, viewer(1), id(qc), "created", "2000000", "0")
			// An RFQ is not an offer, nor an offer an RFQ.
			x.refused(t, viewer(0), "GET", offersPath+"/"+id(r), nil, http.StatusNotFound)
			x.refused(t, trader(0), "PUT", offersPath+"/"+id(r), entity("notes", "x"), http.StatusNotFound)
			x.refused(t, trader(0), "DELETE", offersPath+"/"+id(r), nil, http.StatusNotFound)
			x.refused(t, trader(0), "PUT", offersPath+"/"+id(r)+"/accept", nil, http.StatusNotFound)
			x.refused(t, viewer(1), "GET", rfqPath+"/"+id(qc), nil, http.StatusNotFound)
			x.refused(t, trader(1), "DELETE", rfqPath+"/"+id(qc), nil, http.StatusNotFound)
			x.refused(t, trader(1), "PUT", rfqPath+"/"+id(qc)+"/reject", nil, http.StatusNotFound)
		})

		t.Run("cancel", func(t *testing.T) {
			in := x.ins[5]
			r := x.rfq(t, trader(0), rfqBody(in, "ask", "1000000", p(1), p(2)))
			rp := rfqPath + "/" + id(r)
			q := x.create(t, trader(2), quote(in, id(r), "bid", "98", "1000000"))
			x.refused(t, trader(1), "DELETE", rp, nil, http.StatusNotFound)
			c := x.obj(t, admin(0), "DELETE", rp, nil, http.StatusOK)
			if c["status"] != "cancelled" {
				t.Errorf("cancelled RFQ: status %v", c["status"])
			}
			x.state(t, viewer(2), id(q), "rejected", "1000000", "0")
			x.rfqState(t, viewer(1), id(r), "cancelled")
			x.refused(t, trader(0), "DELETE", rp, nil, http.StatusConflict)
			x.refused(t, trader(0), "PUT", offersPath+"/"+id(q)+"/accept", nil, http.StatusConflict)
			x.refused(t, trader(1), "POST", offersPath, quote(in, id(r), "bid", "98", "1000000"), http.StatusNotFound)
			x.refused(t, trader(1), "PUT", rp+"/reject", nil, http.StatusConflict)
		})

		t.Run("decline", func(t *testing.T) {
			in := x.ins[6]
			r := x.rfq(t, trader(0), rfqBody(in, "bid", "1000000", p(1), p(2)))
			rp := rfqPath + "/" + id(r)
			q := x.create(t, trader(1), quote(in, id(r), "ask", "100", "1000000"))
			x.refused(t, trader(3), "PUT", rp+"/reject", nil, http.StatusNotFound)
			x.refused(t, trader(0), "PUT", rp+"/reject", nil, http.StatusNotFound) // the requester is no dealer
			x.refused(t, viewer(1), "PUT", rp+"/reject", nil, http.StatusForbidden)
			d := x.obj(t, trader(1), "PUT", rp+"/reject", nil, http.StatusOK)
			if d["status"] != "created" {
				t.Errorf("after one decline: RFQ %v", d["status"])
			}
			x.state(t, viewer(1), id(q), "cancelled", "1000000", "0")
			x.refused(t, trader(1), "POST", offersPath, quote(in, id(r), "ask", "100", "1000000"), http.StatusConflict)
			x.refused(t, trader(1), "PUT", rp+"/reject", nil, http.StatusConflict)
			d = x.obj(t, admin(2), "PUT", rp+"/reject", nil, http.StatusOK)
			if d["status"] != "rejected" {
				t.Errorf("after every dealer declined: RFQ %v, want rejected", d["status"])
			}
			x.rfqState(t, viewer(0), id(r), "rejected")
			x.refused(t, trader(0), "PUT", offersPath+"/"+id(q)+"/accept", nil, http.StatusConflict)
		})
	})
}

// TestTransitionsExpiry lets gtd offers, quotes and RFQs expire with no one
// calling: the venue clock is moved past valid_until and the engine's timer
// (armed from that clock) fires.
func TestTransitionsExpiry(t *testing.T) {
	fresh(t, func(t *testing.T, v *env) {
		x := newTV(t, v)
		p := x.participant
		in := x.ins[0]
		soon, later := x.validUntil(time.Second), x.validUntil(time.Hour)
		gtd := x.create(t, trader(0), set(offer(in, x.book, "bid", "99", "100000"), "validity", "gtd", "valid_until", soon))
		if gtd["valid_until"] != "2026-11-20T14:48:01.000Z" || gtd["validity"] != "gtd" {
			t.Errorf("gtd offer: validity %v valid_until %v", gtd["validity"], gtd["valid_until"])
		}
		stays := x.create(t, trader(0), set(offer(in, x.book, "bid", "98", "100000"), "validity", "GTD", "valid_until", later))
		// An RFQ that expires with its quote.
		r := x.rfq(t, trader(0), obj{"instrument_id": in, "market_id": x.otc, "direction": "bid", "quantity": "1000000",
			"validity": "gtd", "valid_until": soon, "counterparties": []string{p(1)}})
		rq := x.create(t, trader(1), obj{"instrument_id": in, "market_id": x.otc, "direction": "ask", "price_per_unit": "100",
			"quantity": "1000000", "matched_offer_id": id(r)})
		// A quote that expires on its own; its RFQ stays open.
		r2 := x.rfq(t, trader(0), obj{"instrument_id": in, "market_id": x.otc, "direction": "bid", "quantity": "1000000",
			"validity": "gtd", "valid_until": later, "counterparties": []string{p(2)}})
		q2 := x.create(t, trader(2), obj{"instrument_id": in, "market_id": x.otc, "direction": "ask", "price_per_unit": "100",
			"quantity": "1000000", "matched_offer_id": id(r2), "validity": "gtd", "valid_until": soon})
		// A gtd offer whose deadline is moved later does not expire then.
		moved := x.create(t, trader(0), set(offer(in, x.book, "bid", "97", "100000"), "validity", "gtd", "valid_until", soon))
		if u := x.obj(t, trader(0), "PUT", offersPath+"/"+id(moved), entity("valid_until", later), http.StatusOK); u["valid_until"] != "2026-11-20T15:48:00.000Z" {
			t.Errorf("moved deadline: valid_until %v", u["valid_until"])
		}
		x.refused(t, trader(0), "PUT", offersPath+"/"+id(moved), entity("valid_until", "2026-11-20 14:00:00"), http.StatusBadRequest, "valid_until")
		gtc := x.create(t, trader(0), offer(in, x.book, "bid", "96", "100000"))
		x.refused(t, trader(0), "PUT", offersPath+"/"+id(gtc), entity("valid_until", later), http.StatusBadRequest, "valid_until")
		x.refused(t, trader(0), "PUT", offersPath+"/"+id(gtc), entity("validity", "gtd"), http.StatusBadRequest, "valid_until")
		x.wantUse(t, trader(0), "0", "400000", "400000")
		x.wantUse(t, trader(1), "0", "1000000", "1000000")

		x.clock.Advance(2 * time.Second)
		wantState(t, x.await(t, viewer(0), offersPath+"/"+id(gtd), "expired"), "expired", "100000", "0")
		x.await(t, viewer(0), rfqPath+"/"+id(r), "expired")
		x.state(t, viewer(1), id(rq), "expired", "1000000", "0")
		x.await(t, viewer(2), offersPath+"/"+id(q2), "expired")
		x.rfqState(t, viewer(0), id(r2), "created")
		x.state(t, viewer(0), id(stays), "created", "100000", "0")
		x.state(t, viewer(0), id(moved), "created", "100000", "0")
		x.wantUse(t, trader(0), "0", "300000", "300000")
		x.wantUse(t, trader(1), "0", "0", "0")
		x.wantUse(t, trader(2), "0", "0", "0")
		x.wantDepth(t, viewer(1), in, 0, []entry{}, []entry{{id(stays), p(0), "98", "100000", true},
			{id(moved), p(0), "97", "100000", true}, {id(gtc), p(0), "96", "100000", true}})

		x.refused(t, trader(0), "PUT", offersPath+"/"+id(rq)+"/accept", nil, http.StatusConflict)
		x.refused(t, trader(0), "PUT", offersPath+"/"+id(q2)+"/accept", nil, http.StatusConflict)
		x.refused(t, trader(0), "PUT", offersPath+"/"+id(gtd), entity("quantity", 200000), http.StatusConflict)
		x.refused(t, trader(0), "DELETE", offersPath+"/"+id(gtd), nil, http.StatusConflict)
		x.refused(t, trader(0), "DELETE", rfqPath+"/"+id(r), nil, http.StatusConflict)
		x.refused(t, trader(1), "POST", offersPath, obj{"instrument_id": in, "market_id": x.otc, "direction": "ask",
			"price_per_unit": "100", "quantity": "1000000", "matched_offer_id": id(r)}, http.StatusNotFound)
		// An expired offer no longer trades.
		wantState(t, x.create(t, trader(1), offer(in, x.book, "ask", "99", "100000")), "created", "100000", "0")
	})
}

// TestTransitionsExpiryBeforeTimer sends commands after records' deadlines
// but before the engine's timer fires (it is armed ten minutes of real
// time ahead): a command never trades with, accepts or amends a record that
// expired before it, and the records read expired at once.
func TestTransitionsExpiryBeforeTimer(t *testing.T) {
	fresh(t, func(t *testing.T, v *env) {
		x := newTV(t, v)
		p := x.participant
		in := x.ins[0]
		soon, later := x.validUntil(10*time.Minute), x.validUntil(time.Hour)
		ask := x.create(t, trader(1), set(offer(in, x.book, "ask", "99", "100000"), "validity", "gtd", "valid_until", soon))
		r := x.rfq(t, trader(0), obj{"instrument_id": in, "market_id": x.otc, "direction": "bid", "quantity": "1000000",
			"validity": "gtd", "valid_until": later, "counterparties": []string{p(1)}})
		q := x.create(t, trader(1), obj{"instrument_id": in, "market_id": x.otc, "direction": "ask", "price_per_unit": "100",
			"quantity": "1000000", "matched_offer_id": id(r), "validity": "gtd", "valid_until": soon})
		r2 := x.rfq(t, trader(0), obj{"instrument_id": in, "market_id": x.otc, "direction": "bid", "quantity": "1000000",
			"validity": "gtd", "valid_until": soon, "counterparties": []string{p(2)}})
		q2 := x.create(t, trader(2), obj{"instrument_id": in, "market_id": x.otc, "direction": "ask", "price_per_unit": "100",
			"quantity": "1000000", "matched_offer_id": id(r2)})

		x.clock.Advance(11 * time.Minute) // tokens live 15
		bid := x.create(t, trader(0), offer(in, x.book, "bid", "100", "100000"))
		wantState(t, bid, "created", "100000", "0")
		if tr := x.tradesOf(t, trader(0), id(bid)); len(tr) != 0 {
			t.Errorf("a bid traded with an expired ask: %v", tr)
		}
		x.refused(t, trader(0), "PUT", offersPath+"/"+id(q)+"/accept", nil, http.StatusConflict)
		x.refused(t, trader(0), "PUT", offersPath+"/"+id(q2)+"/accept", nil, http.StatusConflict)
		x.refused(t, trader(1), "PUT", offersPath+"/"+id(ask), entity("quantity", 200000), http.StatusConflict)
		x.state(t, viewer(1), id(ask), "expired", "100000", "0")
		x.state(t, viewer(1), id(q), "expired", "1000000", "0")
		x.rfqState(t, viewer(0), id(r), "created")
		x.rfqState(t, viewer(0), id(r2), "expired")
		x.state(t, viewer(2), id(q2), "expired", "1000000", "0")
		x.wantUse(t, trader(1), "0", "0", "0")
	})
}

// TestTransitionsEvents checks GET /events: the types a participant sees in
// order (its own and those it is party to, nothing of unrelated firms),
// the gap-free sequence the operator sees, and paging with Link.
func TestTransitionsEvents(t *testing.T) {
	fresh(t, func(t *testing.T, v *env) {
		x := newTV(t, v)
		p := x.participant
		events := func(w who, after int) []obj {
			return x.list(t, w, fmt.Sprintf("/api/v1/events?after=%d&limit=1000", after))
		}
		before := events(operator, 0)
		base := 0
		if len(before) > 0 {
			n, _ := before[len(before)-1]["seq"].(json.Number).Int64()
			base = int(n)
		}

		in := x.ins[0]
		e1 := x.create(t, trader(0), offer(in, x.book, "bid", "99", "100000"))
		e2 := x.create(t, trader(1), offer(in, x.book, "ask", "99", "300000"))
		e3 := x.create(t, trader(3), offer(in, x.book, "bid", "98", "100000"))
		r := x.rfq(t, trader(0), obj{"instrument_id": x.ins[1], "market_id": x.otc, "direction": "bid", "quantity": "1000000"})
		q := x.create(t, trader(1), obj{"instrument_id": x.ins[1], "market_id": x.otc, "direction": "ask", "price_per_unit": "100",
			"quantity": "1000000", "matched_offer_id": id(r)})
		x.send(t, trader(0), "PUT", offersPath+"/"+id(q)+"/accept", nil, http.StatusOK, nil)
		e4 := x.create(t, trader(2), offer(in, x.book, "bid", "99", "100000")) // p1 and p2 trade
		e5 := x.create(t, trader(0), offer(x.ins[2], x.book, "bid", "90", "100000"))
		x.obj(t, trader(0), "DELETE", offersPath+"/"+id(e5), nil, http.StatusOK)

		type ev struct{ typ, id string }
		seen := func(w who) []ev {
			var out []ev
			for _, e := range events(w, base) {
				d := e["data"].(obj)
				if e["type"] == "tape.publish" { // the public tape: every reader's, by trade
					out = append(out, ev{"tape.publish", d["trade_id"].(string)})
					continue
				}
				out = append(out, ev{e["type"].(string), id(d)})
			}
			return out
		}
		trade := func(offerID string) string { return id(x.tradesOf(t, operator, offerID)[0]) }
		t1, t2, t3 := trade(id(e1)), trade(id(q)), trade(id(e4))
		// Each trade is on the public tape at once (small sizes), right
		// after its trade.create, for every reader.
		p1, p2, p3 := ev{"tape.publish", t1}, ev{"tape.publish", t2}, ev{"tape.publish", t3}
		want := map[who][]ev{
			viewer(0): {{"offer.create", id(e1)}, {"trade.create", t1}, p1, {"offer.update", id(e1)},
				{"rfq.create", id(r)}, {"quote.create", id(q)}, {"trade.create", t2}, p2, {"quote.update", id(q)}, {"rfq.update", id(r)},
				p3, {"offer.create", id(e5)}, {"offer.delete", id(e5)}},
			viewer(1): {{"offer.create", id(e2)}, {"trade.create", t1}, p1, {"offer.update", id(e2)},
				{"rfq.create", id(r)}, {"quote.create", id(q)}, {"trade.create", t2}, p2, {"quote.update", id(q)}, {"rfq.update", id(r)},
				{"trade.create", t3}, p3, {"offer.update", id(e2)}},
			viewer(2): {p1, {"rfq.create", id(r)}, p2, {"rfq.update", id(r)}, {"offer.create", id(e4)}, {"trade.create", t3}, p3,
				{"offer.update", id(e4)}},
			viewer(3): {p1, {"offer.create", id(e3)}, p2, p3},
		}
		for w, evs := range want {
			if got := seen(w); !slices.Equal(got, evs) {
				t.Errorf("events as %s:\n got %v\nwant %v", w, got, evs)
			}
		}

		t.Run("operator sees a gap-free sequence", func(t *testing.T) {
			all := events(operator, 0)
			for i, e := range all {
				if n, _ := e["seq"].(json.Number).Int64(); n != int64(i+1) {
					t.Fatalf("event %d has seq %d", i, n)
				}
			}
			if len(all)-base != 20 {
				t.Errorf("%d events since the baseline, want 20", len(all)-base)
			}
		})

		t.Run("a dealer's events do not name the other recipients", func(t *testing.T) {
			for _, e := range append(events(viewer(1), base), events(viewer(2), base)...) {
				if strings.HasPrefix(e["type"].(string), "rfq.") {
					if cs, ok := e["data"].(obj)["counterparties"]; ok {
						t.Errorf("%s seen by the dealer carries counterparties %v", e["type"], cs)
					}
				}
			}
			for _, e := range events(viewer(0), base) {
				if e["type"] == "rfq.create" {
					if cs, _ := e["data"].(obj)["counterparties"].([]any); len(cs) != 2 || !slices.Contains(cs, any(p(1))) || !slices.Contains(cs, any(p(2))) {
						t.Errorf("the requester's rfq.create: counterparties %v", cs)
					}
				}
			}
		})

		t.Run("paging with Link", func(t *testing.T) {
			full := events(viewer(0), base)
			var paged []obj
			next := fmt.Sprintf("/api/v1/events?after=%d&limit=3", base)
			linkRE := regexp.MustCompile(`^<(/api/v1/events\?after=(\d+)&limit=3)>; rel="next"$`)
			for pages := 0; next != ""; pages++ {
				if pages > 10 {
					t.Fatal("paging does not end")
				}
				r := x.send(t, viewer(0), "GET", next, nil, http.StatusOK, nil)
				var page []obj
				decodeExact(t, r, &page)
				paged = append(paged, page...)
				next = ""
				if l := r.header.Get("Link"); l != "" {
					m := linkRE.FindStringSubmatch(l)
					if m == nil {
						t.Fatalf("Link %q", l)
					}
					if last := page[len(page)-1]["seq"].(json.Number).String(); m[2] != last {
						t.Errorf("Link after=%s, want the page's last seq %s", m[2], last)
					}
					next = m[1]
				} else if len(page) == 3 {
					t.Errorf("a full page without Link")
				}
			}
			if len(paged) != len(full) {
				t.Fatalf("paged %d events, want %d", len(paged), len(full))
			}
			for i := range full {
				if full[i]["seq"] != paged[i]["seq"] {
					t.Errorf("paged event %d: seq %v, want %v", i, paged[i]["seq"], full[i]["seq"])
				}
			}
		})
	})
}
