package httpapi_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/quagmt/udecimal"

	"github.com/bondvenue/bondvenue/internal/testenv"
	"github.com/bondvenue/bondvenue/internal/trading"
	"github.com/bondvenue/bondvenue/internal/venue"
)

// collarPath is the price collar a client reads before it sends a price.
func collarPath(instrument, market string) string {
	return "/api/v1/instruments/" + instrument + "/price-collar?market_id=" + market
}

// wantText fails unless the error body's text holds every part.
func wantText(t *testing.T, e obj, parts ...string) {
	t.Helper()
	text := errorText(e)
	if ds, ok := e["details"].([]any); ok {
		for _, d := range ds {
			is, _ := d.(obj)["issue"].(string)
			text += " " + is
		}
	}
	for _, p := range parts {
		if !strings.Contains(text, p) {
			t.Errorf("error %q lacks %q", text, p)
		}
	}
}

// TestPriceCollar: a price far from the instrument's reference price is
// refused before it reaches the book, on offers, amendments, RFQ limits
// and quotes; the refusal names the collar, the reference and its source,
// and the mistaken price never shows as anyone's best bid. The reference
// is the last trade today, else the book's mid, else none (the absolute
// band up to max_price_percent). The operator's collar setting binds at
// once and is in the event log.
func TestPriceCollar(t *testing.T) {
	fresh(t, func(t *testing.T, v *env) {
		x := newTV(t, v)
		in := x.ins[3]

		c := x.obj(t, viewer(2), "GET", collarPath(in, x.book), nil, http.StatusOK)
		if c["reference_price"] != nil || c["price_collar_percent"] != "10" || num(t, c["high"]).String() != "200" {
			t.Errorf("collar with no reference = %v, want none, 10 %%, up to 200", c)
		}
		// The fat finger on an empty book: 9750 is above the absolute band.
		e := x.refused(t, trader(1), "POST", offersPath, offer(in, x.book, "bid", "9750", "1000000"), http.StatusBadRequest, "price_per_unit")
		wantText(t, e, "price collar", "max_price_percent 200")

		x.create(t, trader(0), offer(in, x.book, "ask", "98", "1000000"))
		bid := x.create(t, trader(1), offer(in, x.book, "bid", "97", "1000000"))
		c = x.obj(t, viewer(2), "GET", collarPath(in, x.book), nil, http.StatusOK)
		if num(t, c["reference_price"]).String() != "97.5" || c["reference_source"] != "mid of the best bid and ask" ||
			num(t, c["low"]).String() != "87.75" || num(t, c["high"]).String() != "107.25" {
			t.Errorf("collar on the book = %v, want 97.5 (mid) from 87.75 to 107.25", c)
		}
		// The bid at 9750 meant 97.50: refused, naming collar, reference and source.
		e = x.refused(t, trader(1), "POST", offersPath, offer(in, x.book, "bid", "9750", "1000000"), http.StatusBadRequest, "price_per_unit")
		wantText(t, e, "price collar", "97.5", "mid of the best bid and ask", "87.75", "107.25")
		if _, b := x.depth(t, trader(2), in, 0); len(b) != 1 || b[0].limit != "97" {
			t.Errorf("bids after the refused fat finger = %v, want the one bid at 97", b)
		}
		x.refused(t, trader(1), "POST", offersPath, offer(in, x.book, "bid", "107.5", "1000000"), http.StatusBadRequest, "price_per_unit")
		// An amendment's new price is checked too.
		e = x.refused(t, trader(1), "PUT", offersPath+"/"+id(bid), entity("price_per_unit", "120"), http.StatusBadRequest, "price_per_unit")
		wantText(t, e, "price collar")

		// A trade today becomes the reference, on every market.
		x.create(t, trader(1), offer(in, x.book, "bid", "98", "1000000"))
		c = x.obj(t, viewer(2), "GET", collarPath(in, x.otc), nil, http.StatusOK)
		if num(t, c["reference_price"]).String() != "98" || c["reference_source"] != "last trade today" {
			t.Errorf("collar on the OTC market after a trade = %v, want 98 (last trade today)", c)
		}
		// RFQ limits and quotes are collared as offers are.
		e = x.refused(t, trader(1), "POST", rfqPath, obj{"instrument_id": in, "market_id": x.otc, "direction": "bid", "quantity": "1000000",
			"price_per_unit": "150", "is_executable": true, "counterparties": []string{x.participant(0)}}, http.StatusBadRequest, "price_per_unit")
		wantText(t, e, "price collar", "last trade today")
		r := x.rfq(t, trader(1), obj{"instrument_id": in, "market_id": x.otc, "direction": "bid", "quantity": "1000000",
			"counterparties": []string{x.participant(0)}})
		x.refused(t, trader(0), "POST", offersPath, obj{"instrument_id": in, "market_id": x.otc, "direction": "ask", "price_per_unit": "9800",
			"quantity": "1000000", "matched_offer_id": id(r)}, http.StatusBadRequest, "price_per_unit")

		// The operator narrows the collar: it binds at once and is logged.
		before := x.lastSeq(t)
		m := x.obj(t, operator, "PUT", "/api/v1/admin/markets/"+x.book, entity("price_collar_percent", "5"), http.StatusOK)
		if m["price_collar_percent"] != "5" || m["max_price_percent"] != "200" {
			t.Errorf("market after the update = %v, want collar 5, max price 200", m)
		}
		x.refused(t, trader(1), "POST", offersPath, offer(in, x.book, "bid", "92", "1000000"), http.StatusBadRequest, "price_per_unit")
		x.create(t, trader(1), offer(in, x.book, "bid", "93.5", "1000000"))
		x.refused(t, operator, "PUT", "/api/v1/admin/markets/"+x.book, entity("price_collar_percent", "0"), http.StatusBadRequest, "price_collar_percent")
		x.refused(t, operator, "PUT", "/api/v1/admin/markets/"+x.book, entity("max_price_percent", "lots"), http.StatusBadRequest, "max_price_percent")
		var logged bool
		for _, ev := range x.list(t, operator, "/api/v1/events?limit=1000&after="+strconv.Itoa(before)) {
			if d, _ := ev["data"].(obj); ev["type"] == "market.update" && d["market_id"] == x.book && d["price_collar_percent"] == "5" {
				logged = true
			}
		}
		if !logged {
			t.Errorf("no market.update event with the new collar after seq %d", before)
		}
	})
}

// TestMaxOfferValue: one record's value (quantity × clean price / 100) is
// capped by the firm's MAX_OFFER_VALUE, listed with the other limits.
func TestMaxOfferValue(t *testing.T) {
	fresh(t, func(t *testing.T, v *env) {
		x := newTV(t, v)
		in := x.ins[4]
		if got := x.riskUse(t, trader(0))[venue.LimitMaxOfferValue]; got[0] != "200000000" {
			t.Errorf("MAX_OFFER_VALUE on the demo = %v, want 200000000", got)
		}
		x.obj(t, operator, "PUT", "/api/v1/admin/participants/"+x.participant(0)+"/risk-limits/"+venue.LimitMaxOfferValue,
			map[string]any{"value": "1000000"}, http.StatusOK)
		e := x.refused(t, trader(0), "POST", offersPath, offer(in, x.book, "ask", "99", "2000000"), http.StatusBadRequest, "quantity")
		wantText(t, e, venue.LimitMaxOfferValue, "1000000", "1980000")
		o := x.create(t, trader(0), offer(in, x.book, "ask", "99", "1000000"))
		// An amendment that raises the value past the limit is refused.
		e = x.refused(t, trader(0), "PUT", offersPath+"/"+id(o), entity("price_per_unit", "101"), http.StatusBadRequest, "quantity")
		wantText(t, e, venue.LimitMaxOfferValue)
		e = x.refused(t, trader(0), "POST", rfqPath, obj{"instrument_id": in, "market_id": x.otc, "direction": "bid", "quantity": "2000000",
			"price_per_unit": "99", "counterparties": []string{x.participant(1)}}, http.StatusBadRequest, "quantity")
		wantText(t, e, venue.LimitMaxOfferValue)
	})
}

// TestKillSwitch: the firm admin's kill switch cancels every open offer,
// quote and RFQ of the firm in one sequencer batch (1 000 resting offers
// here) and refuses the firm's new offers, quotes and RFQs until it is
// turned off; the operator reads and sets any firm's; each change is in the
// event log.
func TestKillSwitch(t *testing.T) {
	fresh(t, func(t *testing.T, v *env) {
		x := newTV(t, v)
		ctx := context.Background()
		p0 := v.principal(trader(0))
		const resting = 1000
		var wg sync.WaitGroup
		errs := make(chan error, resting)
		for w := range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := w; i < resting; i += 8 {
					price := udecimal.MustParse("90").Add(udecimal.MustFromInt64(int64(i%100), 2))
					qty := udecimal.MustParse("1000")
					_, err := v.svc.CreateOffer(ctx, p0, trading.OfferInput{InstrumentID: x.ins[i%8], MarketID: x.book,
						Direction: venue.Bid, Price: &price, Quantity: &qty})
					if err != nil {
						errs <- err
					}
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatalf("resting bid: %v", err)
		}
		in := x.ins[0]
		// An RFQ of the firm, and a quote of the firm on another's RFQ.
		x.rfq(t, trader(0), obj{"instrument_id": in, "market_id": x.otc, "direction": "ask", "quantity": "1000000",
			"counterparties": []string{x.participant(1)}})
		theirs := x.rfq(t, trader(1), obj{"instrument_id": in, "market_id": x.otc, "direction": "bid", "quantity": "1000000",
			"counterparties": []string{x.participant(0)}})
		quote := x.create(t, trader(0), obj{"instrument_id": in, "market_id": x.otc, "direction": "ask", "price_per_unit": "95",
			"quantity": "1000000", "matched_offer_id": id(theirs)})

		k := x.obj(t, admin(0), "GET", "/api/v1/participant/kill-switch", nil, http.StatusOK)
		if k["enabled"] != false || k["updatedAt"] != nil {
			t.Errorf("kill switch before = %v, want off, never set", k)
		}
		x.refused(t, trader(0), "PUT", "/api/v1/participant/kill-switch", obj{"enabled": true}, http.StatusForbidden)
		x.refused(t, admin(0), "PUT", "/api/v1/participant/kill-switch", obj{}, http.StatusBadRequest, "enabled")

		batches0, commands0, _ := v.core.Sequencer.Counters()
		seq := x.lastSeq(t)
		start := time.Now()
		k = x.obj(t, admin(0), "PUT", "/api/v1/participant/kill-switch", obj{"enabled": true}, http.StatusOK)
		t.Logf("kill switch on: %s cancelled in %v", k["cancelled"], time.Since(start))
		if k["enabled"] != true || k["participant_id"] != x.participant(0) || k["cancelled"] != json.Number(strconv.Itoa(resting+2)) {
			t.Errorf("kill switch answer = %v, want on, %d cancelled", k, resting+2)
		}
		// One batch: the engine ran exactly one command, in one batch, for
		// it. The engine counts a batch after its answers (the batches,
		// then the commands).
		var batches, commands int64
		testenv.Wait(t, "the kill switch's batch counted", func() bool {
			batches, commands, _ = v.core.Sequencer.Counters()
			return commands != commands0
		})
		if batches-batches0 != 1 || commands-commands0 != 1 {
			t.Errorf("kill switch ran in %d batches of %d commands, want one batch of one", batches-batches0, commands-commands0)
		}
		deletes, killed := 0, 0
		for after := seq; ; {
			evs := x.list(t, operator, "/api/v1/events?limit=1000&after="+strconv.Itoa(after))
			if len(evs) == 0 {
				break
			}
			for _, ev := range evs {
				switch ev["type"] {
				case "offer.delete", "rfq.delete", "quote.delete":
					deletes++
				case "participant.kill_switch":
					killed++
				}
			}
			n, _ := evs[len(evs)-1]["seq"].(json.Number).Int64()
			after = int(n)
		}
		if deletes != resting+2 || killed != 1 {
			t.Errorf("events after the kill switch: %d cancels and %d participant.kill_switch, want %d and 1", deletes, killed, resting+2)
		}
		x.state(t, trader(0), id(quote), "cancelled", "1000000", "0")

		suspended := "trading is suspended for this participant: kill switch"
		e := x.refused(t, trader(0), "POST", offersPath, offer(in, x.book, "bid", "95", "1000"), http.StatusForbidden)
		wantText(t, e, suspended)
		e = x.refused(t, trader(0), "POST", rfqPath, obj{"instrument_id": in, "market_id": x.otc, "direction": "ask", "quantity": "1000000",
			"counterparties": []string{x.participant(1)}}, http.StatusForbidden)
		wantText(t, e, suspended)
		again := x.rfq(t, trader(1), obj{"instrument_id": in, "market_id": x.otc, "direction": "bid", "quantity": "1000000",
			"counterparties": []string{x.participant(0)}})
		e = x.refused(t, trader(0), "POST", offersPath, obj{"instrument_id": in, "market_id": x.otc, "direction": "ask", "price_per_unit": "95",
			"quantity": "1000000", "matched_offer_id": id(again)}, http.StatusForbidden)
		wantText(t, e, suspended)
		// Another firm trades on.
		x.create(t, trader(1), offer(in, x.book, "bid", "95", "1000"))

		k = x.obj(t, operator, "GET", "/api/v1/admin/participants/"+x.participant(0)+"/kill-switch", nil, http.StatusOK)
		if k["enabled"] != true || k["updatedAt"] == nil {
			t.Errorf("kill switch as the operator reads it = %v, want on", k)
		}
		k = x.obj(t, operator, "PUT", "/api/v1/admin/participants/"+x.participant(0)+"/kill-switch", obj{"enabled": false}, http.StatusOK)
		if k["enabled"] != false || k["cancelled"] != json.Number("0") {
			t.Errorf("kill switch off = %v", k)
		}
		x.create(t, trader(0), offer(in, x.book, "bid", "95", "1000"))
		x.refused(t, admin(0), "GET", "/api/v1/admin/participants/"+x.participant(0)+"/kill-switch", nil, http.StatusForbidden)
		x.refused(t, admin(0), "PUT", "/api/v1/admin/participants/"+x.participant(1)+"/kill-switch", obj{"enabled": true}, http.StatusForbidden)
	})
}

// TestHalt: while the operator halts an instrument on a market, new
// offers, amendments that move price or raise quantity, RFQs, quotes and
// accepts there are refused with 409 naming the halt and its reason;
// cancels and cuts go through and nothing trades; the halt is public in
// the event log and the collar endpoint shows it. Resumed, it trades again.
func TestHalt(t *testing.T) {
	fresh(t, func(t *testing.T, v *env) {
		x := newTV(t, v)
		in := x.ins[5]
		halt := func(market string) string {
			return "/api/v1/admin/markets/" + market + "/instruments/" + in + "/halt"
		}
		ask := x.create(t, trader(0), offer(in, x.book, "ask", "99", "2000"))
		bid := x.create(t, trader(1), offer(in, x.book, "bid", "98", "1000"))
		r := x.rfq(t, trader(1), obj{"instrument_id": in, "market_id": x.otc, "direction": "bid", "quantity": "1000000",
			"counterparties": []string{x.participant(0)}})
		q := x.create(t, trader(0), obj{"instrument_id": in, "market_id": x.otc, "direction": "ask", "price_per_unit": "99",
			"quantity": "1000000", "matched_offer_id": id(r)})

		x.refused(t, admin(0), "PUT", halt(x.book), obj{"halted": true, "reason": "x"}, http.StatusForbidden)
		x.refused(t, operator, "PUT", halt(x.book), obj{"halted": true}, http.StatusBadRequest, "reason")
		seq := x.lastSeq(t)
		const reason = "pending issuer announcement"
		h := x.obj(t, operator, "PUT", halt(x.book), obj{"halted": true, "reason": reason}, http.StatusOK)
		if h["halted"] != true || h["reason"] != reason || h["market_id"] != x.book || h["instrument_id"] != in {
			t.Errorf("halt answer = %v", h)
		}
		x.obj(t, operator, "PUT", halt(x.otc), obj{"halted": true, "reason": reason}, http.StatusOK)

		halted := func(e obj) { t.Helper(); wantText(t, e, "halted", reason) }
		halted(x.refused(t, trader(1), "POST", offersPath, offer(in, x.book, "bid", "99", "1000"), http.StatusConflict))
		halted(x.refused(t, trader(0), "PUT", offersPath+"/"+id(ask), entity("price_per_unit", "98.5"), http.StatusConflict))
		halted(x.refused(t, trader(0), "PUT", offersPath+"/"+id(ask), entity("quantity", "3000"), http.StatusConflict))
		halted(x.refused(t, trader(1), "POST", rfqPath, obj{"instrument_id": in, "market_id": x.otc, "direction": "bid",
			"quantity": "1000000", "counterparties": []string{x.participant(0)}}, http.StatusConflict))
		halted(x.refused(t, trader(0), "POST", offersPath, obj{"instrument_id": in, "market_id": x.otc, "direction": "ask",
			"price_per_unit": "98", "quantity": "1000000", "matched_offer_id": id(r)}, http.StatusConflict))
		halted(x.refused(t, trader(1), "PUT", offersPath+"/"+id(q)+"/accept", nil, http.StatusConflict))
		// A cut in quantity and a cancel go through.
		x.obj(t, trader(0), "PUT", offersPath+"/"+id(ask), entity("quantity", "1000"), http.StatusOK)
		x.obj(t, trader(1), "DELETE", offersPath+"/"+id(bid), nil, http.StatusOK)
		c := x.obj(t, viewer(2), "GET", collarPath(in, x.book), nil, http.StatusOK)
		if c["halted"] != true || c["halt_reason"] != reason {
			t.Errorf("collar while halted = %v, want halted with the reason", c)
		}
		var logged int
		for _, ev := range x.list(t, viewer(2), "/api/v1/events?limit=1000&after="+strconv.Itoa(seq)) {
			if d, _ := ev["data"].(obj); ev["type"] == "instrument.halt" && d["halted"] == true && d["reason"] == reason {
				logged++
			}
		}
		if logged != 2 {
			t.Errorf("instrument.halt events another firm reads: %d, want 2", logged)
		}

		x.obj(t, operator, "PUT", halt(x.book), obj{"halted": false}, http.StatusOK)
		b := x.create(t, trader(1), offer(in, x.book, "bid", "99", "1000"))
		wantState(t, b, "closed", "1000", "1000")
	})
}

// TestControlsWire records the pre-trade controls' answers and refusals as
// golden files.
func TestControlsWire(t *testing.T) {
	fresh(t, func(t *testing.T, v *env) {
		x := newTV(t, v)
		in := x.ins[6]
		halt := "/api/v1/admin/markets/" + x.book + "/instruments/" + in + "/halt"
		x.create(t, trader(0), offer(in, x.book, "ask", "99", "1000"))
		x.create(t, trader(1), offer(in, x.book, "bid", "98", "1000"))
		v.runAll(t, []call{
			{name: "price_collar", as: viewer(2), method: "GET", path: collarPath(in, x.book), want: 200},
			{name: "price_collar_none", as: viewer(2), method: "GET", path: collarPath(x.ins[7], x.book), want: 200},
			{name: "offers_create_outside_collar", as: trader(2), method: "POST", path: offersPath,
				body: offer(in, x.book, "bid", "9750", "1000"), want: 400},
			{name: "kill_switch_get", as: viewer(2), method: "GET", path: "/api/v1/participant/kill-switch", want: 200},
			{name: "kill_switch_on", as: admin(2), method: "PUT", path: "/api/v1/participant/kill-switch", body: obj{"enabled": true}, want: 200},
			{name: "offers_create_kill_switch", as: trader(2), method: "POST", path: offersPath,
				body: offer(in, x.book, "bid", "98", "1000"), want: 403},
			{name: "admin_kill_switch_get", as: operator, method: "GET", path: "/api/v1/admin/participants/" + x.participant(2) + "/kill-switch", want: 200},
			{name: "admin_kill_switch_off", as: operator, method: "PUT", path: "/api/v1/admin/participants/" + x.participant(2) + "/kill-switch",
				body: obj{"enabled": false}, want: 200},
			{name: "admin_halt", as: operator, method: "PUT", path: halt, body: obj{"halted": true, "reason": "pending issuer announcement"}, want: 200},
			{name: "offers_create_halted", as: trader(2), method: "POST", path: offersPath,
				body: offer(in, x.book, "bid", "98", "1000"), want: 409},
			{name: "price_collar_halted", as: viewer(2), method: "GET", path: collarPath(in, x.book), want: 200},
			{name: "admin_markets_update_collar", as: operator, method: "PUT", path: "/api/v1/admin/markets/" + x.book,
				body: entity("price_collar_percent", "5", "max_price_percent", "150"), want: 200},
			{name: "admin_book_replay", as: operator, method: "GET", path: "/api/v1/admin/markets/" + x.book + "/instruments/" + in + "/book", want: 200},
			{name: "admin_order_records", as: operator, method: "GET", path: "/api/v1/admin/order-records?date=2026-11-20&instrument_id=" + in,
				want: 200},
			{name: "admin_audit_log", as: operator, method: "GET", path: "/api/v1/admin/audit-log?entity=halt", want: 200},
		})
	})
}
