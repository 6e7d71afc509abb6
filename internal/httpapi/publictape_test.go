package httpapi_test

import (
	"net/http"
	"net/url"
	"strconv"
	"testing"
	"time"
)

// tapeOf reads the public tape as w and returns its entries by trade id.
func (x *tv) tapeOf(t *testing.T, w who, query string) map[string]obj {
	t.Helper()
	out := map[string]obj{}
	for _, e := range x.list(t, w, "/api/v1/tape?"+query) {
		out[e["trade_id"].(string)] = e
	}
	return out
}

// TestPublicTape: with the fake clock, a trade below the smallest deferred
// size is on the public tape at once, whole; a 20 m trade in the Bund
// (the most liquid sovereigns' 15–50 m band) shows no earlier than its
// price is due, to the second, then its price without its size (LMTF),
// then its size at 19:00 Central European time (FULF). The engine
// publishes each part as a tape.publish event and records when on the
// trade; from and to bound the trade time; any caller reads it.
func TestPublicTape(t *testing.T) {
	fresh(t, func(t *testing.T, v *env) {
		x := newTV(t, v)
		bund := x.ins[0]
		trade := func(qty string) obj {
			x.create(t, trader(1), offer(bund, x.book, "ask", "99.5", qty))
			b := x.create(t, trader(0), offer(bund, x.book, "bid", "99.5", qty))
			ts := x.tradesOf(t, trader(0), id(b))
			if len(ts) != 1 {
				t.Fatalf("%d trades of %s, want 1", len(ts), qty)
			}
			return ts[0]
		}
		after := x.lastSeq(t)
		small, big := trade("10000000"), trade("20000000")
		start := v.clock.Now()
		pub := func(tr obj) obj { return tr["publication"].(obj) }
		if p := pub(small); p["deferral"] != "SL0" || p["published_price_at"] == nil || p["published_volume_at"] == nil {
			t.Errorf("small trade's publication = %v, want SL0 published at once", p)
		}
		priceDue, volumeDue := start.Add(15*time.Minute), time.Date(2026, 11, 20, 18, 0, 0, 0, time.UTC)
		if p := pub(big); p["deferral"] != "SL1" || p["price_due_at"] != priceDue.Format("2006-01-02T15:04:05.000Z") ||
			p["volume_due_at"] != "2026-11-20T18:00:00.000Z" || p["published_price_at"] != nil || p["published_volume_at"] != nil {
			t.Errorf("20 m trade's publication = %v, want SL1 due at %s and 18:00 UTC, unpublished", p, priceDue)
		}
		tape := x.tapeOf(t, viewer(2), "instrument_id="+bund)
		if e, ok := tape[id(small)]; !ok || e["quantity"] == nil || len(e["flags"].([]any)) != 0 || e["isin"] == "" ||
			e["mic"] != "BVEN" || e["tvtic"] != small["transaction_identification_code"] || e["participant_id"] != nil {
			t.Errorf("the small trade on the tape = %v, want it whole, unflagged", e)
		}
		if _, ok := tape[id(big)]; ok {
			t.Errorf("the 20 m trade is on the tape before its price is due")
		}
		tapeEvents := func() []obj {
			var out []obj
			for _, e := range x.list(t, viewer(2), "/api/v1/events?limit=1000&after="+strconv.Itoa(after)) {
				if e["type"] == "tape.publish" {
					out = append(out, e["data"].(obj))
				}
			}
			return out
		}
		if evs := tapeEvents(); len(evs) != 1 || evs[0]["trade_id"] != id(small) {
			t.Fatalf("tape.publish events after the trades = %v, want the small trade's", evs)
		}

		// A second before the price is due: still off the tape; at it: on.
		advance := func(to time.Time) {
			v.clock.Advance(to.Sub(v.clock.Now()))
			for _, w := range []who{viewer(2), trader(0), trader(1), operator} {
				v.signInAgain(w)
			}
		}
		advance(priceDue.Add(-time.Second))
		if _, ok := x.tapeOf(t, viewer(2), "instrument_id="+bund)[id(big)]; ok {
			t.Errorf("the 20 m trade is on the tape a second before its price is due")
		}
		advance(priceDue)
		e, ok := x.tapeOf(t, viewer(2), "instrument_id="+bund)[id(big)]
		if !ok || e["quantity"] != nil || num(t, e["price"]).String() != "99.5" || len(e["flags"].([]any)) != 1 || e["flags"].([]any)[0] != "LMTF" {
			t.Errorf("the 20 m trade when its price is due = %v, want its price, no size, LMTF", e)
		}
		// The engine publishes with its next batch.
		x.obj(t, operator, "GET", "/api/v1/admin/participants/"+v.participant(0)+"/kill-switch", nil, http.StatusOK)
		evs := tapeEvents()
		if len(evs) != 2 || evs[1]["trade_id"] != id(big) || evs[1]["quantity"] != nil {
			t.Errorf("tape.publish events once the price is due = %v, want the 20 m trade's price", evs)
		}
		if p := pub(x.obj(t, trader(0), "GET", "/api/v1/trades/"+id(big), nil, http.StatusOK)); p["published_price_at"] != priceDue.Format("2006-01-02T15:04:05.000Z") ||
			p["published_volume_at"] != nil {
			t.Errorf("the 20 m trade's publication after the price = %v", p)
		}

		advance(volumeDue.Add(-time.Second))
		if e := x.tapeOf(t, viewer(2), "instrument_id="+bund)[id(big)]; e["quantity"] != nil {
			t.Errorf("the 20 m trade's size shows a second before it is due: %v", e)
		}
		advance(volumeDue)
		e = x.tapeOf(t, viewer(2), "instrument_id="+bund)[id(big)]
		if num(t, e["quantity"]).String() != "20000000" || e["flags"].([]any)[0] != "FULF" {
			t.Errorf("the 20 m trade at 19:00 CET = %v, want its size, FULF", e)
		}
		x.obj(t, operator, "GET", "/api/v1/admin/participants/"+v.participant(0)+"/kill-switch", nil, http.StatusOK)
		if evs := tapeEvents(); len(evs) != 3 || evs[2]["trade_id"] != id(big) || num(t, evs[2]["quantity"]).String() != "20000000" {
			t.Errorf("tape.publish events once the size is due = %v", evs)
		}

		// from and to bound the trade time.
		between := "from=" + url.QueryEscape(start.Add(-time.Minute).Format(time.RFC3339)) + "&to=" + url.QueryEscape(start.Add(time.Minute).Format(time.RFC3339))
		if got := x.tapeOf(t, viewer(2), between); len(got) != 2 {
			t.Errorf("tape between = %d entries, want the 2 trades", len(got))
		}
		if got := x.tapeOf(t, viewer(2), "from="+url.QueryEscape(start.Add(time.Minute).Format(time.RFC3339))); len(got) != 0 {
			t.Errorf("tape after the trades = %v, want none", got)
		}
		x.refused(t, viewer(2), "GET", "/api/v1/tape?from=yesterday", nil, http.StatusBadRequest, "from")
	})
}
