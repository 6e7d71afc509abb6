package httpapi_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/bondvenue/bondvenue/internal/testenv"
)

// partyKeys are the keys of an order's parties, in bodies and records.
var partyKeys = []string{"client_id_code", "investment_decision_id", "execution_decision_id", "trading_capacity"}

// withParties is body with the parties of ps (key, value, ...) set.
func withParties(body obj, ps obj) obj {
	for k, v := range ps {
		body[k] = v
	}
	return body
}

// wantParties fails unless record shows exactly the parties of want
// (none when want is nil).
func wantParties(t *testing.T, what string, record obj, want obj) {
	t.Helper()
	for _, k := range partyKeys {
		got, has := record[k]
		w, wantHas := want[k]
		if has != wantHas || (has && got != w) {
			t.Errorf("%s: %s = %v (present %v), want %v (present %v)", what, k, got, has, w, wantHas)
		}
	}
}

// TestOrderParties: the client's identifiers for the order records go in
// with every order over REST — an offer, an amendment, an RFQ, a quote, a
// portfolio list and its quote, and both accepts — and come back to the
// order's own firm only: another firm reading the record (a dealer its
// RFQ, a requester its quotes) sees none of them. Orders without them
// read as before, with no such key.
func TestOrderParties(t *testing.T) {
	fresh(t, func(t *testing.T, v *env) {
		x := newTV(t, v)
		mine := obj{"client_id_code": "5493001KJTIIGC8Y1R12", "investment_decision_id": "pm.desk-1",
			"execution_decision_id": "ALGO_7", "trading_capacity": "AOTC"}
		dealers := obj{"client_id_code": "PNAL", "trading_capacity": "MTCH"}

		// An offer: its owner reads what it gave, on the answer and on GET.
		o := x.create(t, trader(0), withParties(offer(x.ins[0], x.book, "bid", "95", "100000"), mine))
		wantParties(t, "created offer", o, mine)
		read := x.send(t, viewer(0), "GET", offersPath+"/"+id(o), nil, http.StatusOK, nil)
		v.golden(t, "offer_with_parties", read)
		var got obj
		decodeExact(t, read, &got)
		wantParties(t, "offer read by its owner", got, mine)
		plain := x.create(t, trader(0), offer(x.ins[0], x.book, "bid", "94", "100000"))
		wantParties(t, "an offer without parties", plain, nil)
		// An amendment that names any of them restates all four.
		amended := x.obj(t, trader(0), "PUT", offersPath+"/"+id(o), entity("client_id_code", "AGGR"), http.StatusOK)
		wantParties(t, "amended offer", amended, obj{"client_id_code": "AGGR"})
		amended = x.obj(t, trader(0), "PUT", offersPath+"/"+id(o), entity("notes", "only notes"), http.StatusOK)
		wantParties(t, "offer amended without parties", amended, obj{"client_id_code": "AGGR"})

		// An RFQ to firm 1, firm 1's quote, and the accept.
		rfq := x.rfq(t, trader(0), withParties(obj{"instrument_id": x.ins[0], "market_id": x.otc, "direction": "bid",
			"quantity": "100000", "counterparties": []string{v.participant(1)}}, mine))
		wantParties(t, "created RFQ", rfq, mine)
		wantParties(t, "RFQ read by its dealer", x.obj(t, trader(1), "GET", rfqPath+"/"+id(rfq), nil, http.StatusOK), nil)
		q := x.create(t, trader(1), withParties(set(offer(x.ins[0], x.otc, "ask", "100", "100000"), "matched_offer_id", id(rfq)), dealers))
		wantParties(t, "quote read by its dealer", q, dealers)
		view := x.obj(t, trader(0), "GET", rfqPath+"/"+id(rfq), nil, http.StatusOK)
		wantParties(t, "RFQ read by its requester", view, mine)
		for _, m := range view["matched_offers"].([]any) {
			wantParties(t, "quote read by the requester", m.(obj), nil)
		}
		x.refused(t, trader(0), "PUT", offersPath+"/"+id(q)+"/accept", obj{"trading_capacity": "BROKER"},
			http.StatusBadRequest, "trading_capacity")
		x.send(t, trader(0), "PUT", offersPath+"/"+id(q)+"/accept", mine, http.StatusOK, nil)

		// A portfolio list to firm 1, its quote, and the accept.
		line := obj{"instrument_id": x.ins[0], "direction": "bid", "quantity": "1000000"}
		list := x.obj(t, trader(0), "POST", portfolioPath, withParties(obj{"market_id": x.otc,
			"counterparties": []string{v.participant(1)}, "lines": []obj{line}}, mine), http.StatusOK)
		wantParties(t, "created list", list, mine)
		path := portfolioPath + "/" + id(list)
		wantParties(t, "list read by its dealer", x.obj(t, trader(1), "GET", path, nil, http.StatusOK), nil)
		quoted := x.obj(t, trader(1), "POST", path+"/quotes", withParties(obj{"lines": []obj{{"line_id": "1", "price_per_unit": "100"}}},
			dealers), http.StatusOK)
		lq := quoted["quotes"].([]any)[0].(obj)
		wantParties(t, "list quote read by its dealer", lq, dealers)
		for _, pq := range x.obj(t, trader(0), "GET", path, nil, http.StatusOK)["quotes"].([]any) {
			wantParties(t, "list quote read by the requester", pq.(obj), nil)
		}
		x.refused(t, trader(0), "PUT", path+"/quotes/"+id(lq)+"/accept", obj{"client_id_code": "5493001KJTIIGC8Y1R13"},
			http.StatusBadRequest, "client_id_code")
		done := x.obj(t, trader(0), "PUT", path+"/quotes/"+id(lq)+"/accept", mine, http.StatusOK)
		if done["status"] != "closed" || len(done["trades"].([]any)) != 1 {
			t.Errorf("accepted list: status %v, %d trades", done["status"], len(done["trades"].([]any)))
		}
	})
}

// TestOrderPartiesAcceptWithoutBody: an accept as clients sent it before
// the route took a body — none, with or without a Content-Type — trades.
func TestOrderPartiesAcceptWithoutBody(t *testing.T) {
	fresh(t, func(t *testing.T, v *env) {
		x := newTV(t, v)
		for _, header := range []map[string]string{nil, {"Content-Type": "text/plain"}} {
			rfq := x.rfq(t, trader(0), obj{"instrument_id": x.ins[0], "market_id": x.otc, "direction": "bid",
				"quantity": "100000", "counterparties": []string{v.participant(1)}})
			q := x.create(t, trader(1), set(offer(x.ins[0], x.otc, "ask", "100", "100000"), "matched_offer_id", id(rfq)))
			x.send(t, trader(0), "PUT", offersPath+"/"+id(q)+"/accept", nil, http.StatusOK, header)
		}
	})
}

// TestOrderPartiesInvalid: a bad value of any of the four is refused with
// 400 naming it, on every body that takes them.
func TestOrderPartiesInvalid(t *testing.T) {
	fresh(t, func(t *testing.T, v *env) {
		x := newTV(t, v)
		o := x.create(t, trader(0), offer(x.ins[0], x.book, "bid", "90", "100000"))
		bodies := []struct {
			name, method, path string
			body               func(ps obj) obj
		}{
			{"offer", "POST", offersPath, func(ps obj) obj { return withParties(offer(x.ins[0], x.book, "bid", "95", "100000"), ps) }},
			{"rfq", "POST", rfqPath, func(ps obj) obj {
				return withParties(obj{"instrument_id": x.ins[0], "market_id": x.otc, "direction": "bid", "quantity": "100000"}, ps)
			}},
			{"amendment", "PUT", offersPath + "/" + id(o), func(ps obj) obj { return obj{"entity": ps} }},
			{"list", "POST", portfolioPath, func(ps obj) obj {
				return withParties(obj{"market_id": x.otc, "lines": []obj{{"instrument_id": x.ins[0], "direction": "bid",
					"quantity": "1000000"}}}, ps)
			}},
		}
		values := []struct {
			name, key string
			value     any
		}{
			{"LEI check digits", "client_id_code", "5493001KJTIIGC8Y1R13"},
			{"client id too long", "client_id_code", strings.Repeat("C", 51)},
			{"client id not a code", "client_id_code", "client 7"},
			{"investment decision too long", "investment_decision_id", strings.Repeat("p", 51)},
			{"execution decision not a code", "execution_decision_id", "trader/7"},
			{"capacity", "trading_capacity", "AGENCY"},
			{"capacity in lower case", "trading_capacity", "deal"},
			{"capacity not a string", "trading_capacity", 7},
		}
		for _, b := range bodies {
			for _, val := range values {
				t.Run(b.name+"/"+val.name, func(t *testing.T) {
					x.refused(t, trader(0), b.method, b.path, b.body(obj{val.key: val.value}), http.StatusBadRequest, val.key)
				})
			}
		}
		if n := len(x.list(t, viewer(0), offersPath)); n != 1 {
			t.Errorf("%d offers after the refusals, want 1", n)
		}
	})
}

// TestOrderPartiesRestart: an offer resting in a continuous book keeps its
// parties across a restart of the venue (the engine rebuilt from the
// database) and the amendments after it.
func TestOrderPartiesRestart(t *testing.T) {
	fresh(t, func(t *testing.T, v *env) {
		x := newTV(t, v)
		mine := obj{"client_id_code": "client42", "investment_decision_id": "pm1", "execution_decision_id": "algo.2",
			"trading_capacity": "MTCH"}
		o := x.create(t, trader(0), withParties(offer(x.ins[0], x.book, "bid", "95", "100000"), mine))
		v.core.Close()
		v.core = testenv.Started(t, v.db, options{}.service(v.clock.Now))
		v.svc = v.core.Svc
		v.serve(t, options{})
		wantParties(t, "offer after a restart", x.obj(t, trader(0), "GET", offersPath+"/"+id(o), nil, http.StatusOK), mine)
		amended := x.obj(t, trader(0), "PUT", offersPath+"/"+id(o), entity("quantity", "200000"), http.StatusOK)
		wantParties(t, "offer amended after a restart", amended, mine)
	})
}
