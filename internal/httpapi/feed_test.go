package httpapi_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	gocmp "github.com/google/go-cmp/cmp"

	"github.com/bondvenue/bondvenue/internal/feed"
	"github.com/bondvenue/bondvenue/internal/subscribe"
	"github.com/bondvenue/bondvenue/internal/testenv"
	"github.com/bondvenue/bondvenue/internal/wire"
)

// TestFeedRedactionAsREST is one table over readers × event types: what a
// reader receives from the committed-event feed is what the REST interface
// shows that reader of the same record. The scenario has a continuous
// trade (p0 with p1), an RFQ of p0 to p1 and p2 with a quote from each, one
// accepted, an indicative price of p1 and a news item; the readers are the
// operator, the requester, the dealer that traded, the dealer that did not
// and a firm that is nobody's counterparty.
func TestFeedRedactionAsREST(t *testing.T) {
	fresh(t, func(t *testing.T, v *env) {
		x := newTV(t, v)
		readers := []who{operator, viewer(0), viewer(1), viewer(2), viewer(3)}
		base := x.list(t, operator, "/api/v1/events?after=0&limit=1000")
		after := int64(0)
		if len(base) > 0 {
			after, _ = base[len(base)-1]["seq"].(json.Number).Int64()
		}
		got := map[who]*feedLog{}
		for _, w := range readers {
			sub, err := v.core.Live.Subscribe(t.Context(), v.principal(w), after, feed.EventFilter{})
			if err != nil {
				t.Fatalf("Subscribe(%s) = %v", w, err)
			}
			t.Cleanup(sub.Close)
			got[w] = &feedLog{}
			go got[w].read(sub)
		}

		in, other := x.ins[0], x.ins[1]
		x.create(t, trader(0), offer(in, x.book, "bid", "99", "100000"))
		x.create(t, trader(1), offer(in, x.book, "ask", "99", "300000"))
		r := x.rfq(t, trader(0), obj{"instrument_id": other, "market_id": x.otc, "direction": "bid", "quantity": "1000000"})
		quote := func(w who, price string) obj {
			return x.create(t, w, obj{"instrument_id": other, "market_id": x.otc, "direction": "ask", "price_per_unit": price,
				"quantity": "1000000", "matched_offer_id": id(r)})
		}
		q1, _ := quote(trader(1), "100"), quote(trader(2), "101")
		x.send(t, trader(0), "PUT", offersPath+"/"+id(q1)+"/accept", nil, http.StatusOK, nil)
		x.obj(t, trader(1), "POST", indicativePath, obj{"instrument_id": in, "account_id": x.account(1), "bid_price": "98",
			"ask_price": "99.5"}, http.StatusOK)
		x.obj(t, operator, "POST", "/api/v1/admin/news", obj{"title": "Auction results", "body": "Results."}, http.StatusOK)

		checked := map[string]int{}
		for _, w := range readers {
			rest := x.list(t, w, fmt.Sprintf("/api/v1/events?after=%d&limit=1000", after))
			evs := got[w].await(t, w, len(rest))
			// The log's events are GET /events's; each trade's order.create
			// of the reader's own orders, and each change of a book's best
			// prices, follow the event they derive from (compared below).
			i := 0
			for _, e := range evs {
				if derived(e) {
					continue
				}
				if want, _ := rest[i]["seq"].(json.Number).Int64(); e.Seq != want || e.Type != rest[i]["type"] {
					t.Fatalf("%s: event %d is %d %s, GET /events has %v %v", w, i, e.Seq, e.Type, rest[i]["seq"], rest[i]["type"])
				}
				i++
			}
			// The newest event of each record is compared with the record
			// as REST reads it now.
			latest := map[string]feed.Event{}
			var order []string
			for _, e := range evs {
				k := recordKey(e)
				if _, ok := latest[k]; !ok {
					order = append(order, k)
				}
				latest[k] = e
			}
			for _, k := range order {
				e := latest[k]
				x.sameAsREST(t, w, e)
				checked[fmt.Sprintf("%s as %s", strings.SplitN(e.Type, ".", 2)[0], w)]++
			}
		}
		// Every reader saw every kind of record it may see.
		for _, want := range []string{"offer as operator", "rfq as operator", "quote as operator", "trade as operator",
			"order as operator", "indicative_price as operator", "instrument as operator", "news as operator",
			"offer as p0-viewer", "rfq as p0-viewer", "quote as p0-viewer", "trade as p0-viewer", "order as p0-viewer",
			"rfq as p1-viewer", "quote as p1-viewer", "trade as p1-viewer", "order as p1-viewer",
			"rfq as p2-viewer", "quote as p2-viewer", "instrument as p2-viewer", "indicative_price as p2-viewer",
			"instrument as p3-viewer", "indicative_price as p3-viewer", "news as p3-viewer"} {
			if checked[want] == 0 {
				t.Errorf("no %s record compared", want)
			}
		}
		for _, unseen := range []string{"offer as p3-viewer", "rfq as p3-viewer", "quote as p3-viewer", "trade as p3-viewer",
			"order as p3-viewer", "trade as p2-viewer", "order as p2-viewer"} {
			if checked[unseen] != 0 {
				t.Errorf("%s: %d records, want none", unseen, checked[unseen])
			}
		}
	})
}

// feedLog collects a subscription's events.
type feedLog struct {
	mu     sync.Mutex
	events []feed.Event
	err    error
	done   bool
}

func (f *feedLog) read(sub *subscribe.Subscription) {
	for e := range sub.C {
		f.mu.Lock()
		f.events = append(f.events, e)
		f.mu.Unlock()
	}
	f.mu.Lock()
	f.err, f.done = sub.Err(), true
	f.mu.Unlock()
}

// derived reports whether e is one the feed derives from an event of the
// log, under its sequence number.
func derived(e feed.Event) bool {
	return e.Type == feed.EventOrderCreate || e.Type == feed.EventPriceChange || e.Type == feed.EventDepth
}

// logged counts the events of the log among evs.
func logged(evs []feed.Event) int {
	n := 0
	for _, e := range evs {
		if !derived(e) {
			n++
		}
	}
	return n
}

// await waits for n events of the log (and what derives from them).
func (f *feedLog) await(t *testing.T, w who, n int) []feed.Event {
	t.Helper()
	deadline, limited := testenv.Deadline(t)
	for {
		f.mu.Lock()
		evs, done, err := append([]feed.Event(nil), f.events...), f.done, f.err
		f.mu.Unlock()
		switch {
		case logged(evs) >= n:
			time.Sleep(100 * time.Millisecond) // anything beyond n arrives meanwhile
			f.mu.Lock()
			defer f.mu.Unlock()
			if logged(f.events) != n {
				t.Fatalf("%s received %d events of the log, GET /events answers %d", w, logged(f.events), n)
			}
			return f.events
		case done:
			t.Fatalf("%s: subscription ended after %d of %d events: %v", w, logged(evs), n, err)
		case limited && time.Now().After(deadline):
			t.Fatalf("%s received %d of %d events when the test's time ran out", w, logged(evs), n)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// recordKey names the record an event is about.
func recordKey(e feed.Event) string {
	rec := eventRecord(e)
	if e.PriceChange != nil {
		return "price " + e.PriceChange.InstrumentID + " " + e.PriceChange.MarketID
	}
	if e.Depth != nil {
		return "depth " + e.Depth.InstrumentID + " " + e.Depth.MarketID
	}
	if e.Tape != nil {
		return "tape " + e.Tape.TradeID
	}
	return e.Type[:strings.Index(e.Type, ".")] + " " + fmt.Sprint(rec["id"])
}

// eventRecord is e's record as the adapters render it.
func eventRecord(e feed.Event) obj {
	b, _ := json.Marshal(wire.RecordOf(e))
	var out obj
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	_ = d.Decode(&out)
	return out
}

// without is a REST record without the objects it nests.
func without(o obj, nested ...string) obj {
	out := obj{}
	for k, v := range o {
		out[k] = v
	}
	for _, k := range nested {
		delete(out, k)
	}
	return out
}

// sameAsREST compares the record of e, as w received it, with the record
// REST shows w now.
func (x *tv) sameAsREST(t *testing.T, w who, e feed.Event) {
	t.Helper()
	rec := eventRecord(e)
	compare := func(what string, want obj) {
		t.Helper()
		if d := gocmp.Diff(want, rec); d != "" {
			t.Errorf("%s as %s: the feed's record differs from REST's (-REST +feed):\n%s", what, w, d)
		}
	}
	offerNested := []string{"instrument", "market", "participant", "account", "user", "matched_offers"}
	switch family := e.Type[:strings.Index(e.Type, ".")]; family {
	case "offer", "quote":
		compare(e.Type, without(x.obj(t, w, "GET", offersPath+"/"+fmt.Sprint(rec["id"]), nil, http.StatusOK), offerNested...))
	case "rfq":
		compare(e.Type, without(x.obj(t, w, "GET", rfqPath+"/"+fmt.Sprint(rec["id"]), nil, http.StatusOK), offerNested...))
	case "trade":
		// Both parties read the one event: neither order names its account
		// there; REST shows the other firm's order without one too.
		rest := x.obj(t, w, "GET", "/api/v1/trades/"+fmt.Sprint(rec["id"]), nil, http.StatusOK)
		want := without(rest, "market")
		for _, side := range []string{"ask_order", "bid_order"} {
			o := without(want[side].(obj), "account", "participant", "instrument", "offer")
			if w != operator && o["participant_id"] != x.participant(w.firm) && o["account_id"] != "" {
				t.Errorf("REST shows %s the other firm's account %v", w, o["account_id"])
			}
			o["account_id"] = ""
			want[side] = o
		}
		compare(e.Type, want)
	case "order":
		// An order event is the reader's own order as its trade shows it.
		for _, tr := range x.list(t, w, "/api/v1/trades?offer_id="+fmt.Sprint(rec["offer_id"])) {
			for _, side := range []string{"ask_order", "bid_order"} {
				if o := tr[side].(obj); o["id"] == rec["id"] {
					compare(e.Type, without(o, "account", "participant", "instrument", "offer"))
					return
				}
			}
		}
		t.Errorf("order %v as %s: no trade of REST's carries it", rec["id"], w)
	case "indicative_price":
		for _, ip := range x.list(t, w, indicativePath+"?instrument_id="+fmt.Sprint(rec["instrument_id"])) {
			if ip["id"] == rec["id"] {
				compare(e.Type, ip)
				return
			}
		}
		t.Errorf("indicative price %v as %s: not in REST's list", rec["id"], w)
	case "instrument":
		if e.Depth != nil { // the top 10 of each side on the market, as the book shows them
			in := x.obj(t, w, "GET", "/api/v1/instruments/"+fmt.Sprint(rec["instrument_id"])+"?market_depth=0", nil, http.StatusOK)
			limits := in["instrument_limits"].(obj)
			want := without(rec)
			for _, side := range []string{"bid", "ask"} {
				l := []any{}
				for _, le := range limits[side].([]any) {
					if le.(obj)["market_id"] == rec["market_id"] && len(l) < 10 {
						l = append(l, le)
					}
				}
				want[side] = l
			}
			compare(e.Type, want)
			return
		}
		// The best of each side as the instrument's book shows it (only
		// the one market has firm offers in this scenario).
		in := x.obj(t, w, "GET", "/api/v1/instruments/"+fmt.Sprint(rec["instrument_id"])+"?market_depth=1", nil, http.StatusOK)
		limits := in["instrument_limits"].(obj)
		want := without(rec)
		for _, side := range []string{"bid", "ask"} {
			want[side] = nil
			if l, _ := limits[side].([]any); len(l) > 0 {
				want[side] = l[0]
			}
		}
		compare(e.Type, want)
	case "news":
		for _, n := range x.list(t, w, "/api/v1/news") {
			if n["id"] == rec["id"] {
				compare(e.Type, n)
				return
			}
		}
		t.Errorf("news %v as %s: not in REST's list", rec["id"], w)
	case "tape":
		// The trade on the public tape as REST's tape shows it (published
		// whole at once in this scenario).
		for _, p := range x.list(t, w, "/api/v1/tape?limit=1000&instrument_id="+fmt.Sprint(rec["instrument_id"])) {
			if p["trade_id"] == rec["trade_id"] {
				compare(e.Type, p)
				return
			}
		}
		t.Errorf("tape entry of trade %v as %s: not on REST's tape", rec["trade_id"], w)
	default:
		t.Errorf("event type %s not compared", e.Type)
	}
}
