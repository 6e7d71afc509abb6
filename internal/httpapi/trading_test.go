package httpapi_test

import (
	"net/http"
	"testing"

	"github.com/bondvenue/bondvenue/internal/venue"
)

// TestTradingWire pins the wire formats of offers, RFQs, quotes, trades and
// events along one trading session, in order on a fresh venue per engine.
// The trading rules themselves are the trading package's to test.
func TestTradingWire(t *testing.T) {
	fresh(t, func(t *testing.T, v *env) {
		ins := v.instruments(t)
		var otc, book string
		for _, m := range v.markets(t) {
			switch {
			case m.FacilityType == venue.FacilityOTC:
				otc = m.ID
			case m.IsPartialFillAllowed:
				book = m.ID
			}
		}
		offers := "/api/v1/participant/offers"

		bid := v.run(t, call{name: "offers_create", as: trader(0), method: "POST", path: offers, body: map[string]any{
			"instrument_id": ins[0], "market_id": book, "direction": "bid", "price_per_unit": "99.5", "quantity": 1000000,
			"validity": "gtc", "notes": "core book", "id": missingID, "status": "closed", "filled_quantity": 5,
			"accrued_interest": "1", "createdAt": "2020-01-01", "unknown": true}, want: 200}).object(t)
		bidID := bid["id"].(string)
		t.Run("create answers the record", func(t *testing.T) {
			if bidID == missingID || bid["status"] != "created" || bid["filled_quantity"] != float64(0) || bid["type"] != "offer" {
				t.Errorf("created offer id %v status %v filled %v type %v", bidID, bid["status"], bid["filled_quantity"], bid["type"])
			}
			if _, ok := bid["price"].(float64); !ok {
				t.Errorf("price = %#v, want a JSON number", bid["price"])
			}
			if _, ok := bid["accrued_interest"].(string); !ok {
				t.Errorf("accrued_interest = %#v, want decimal text", bid["accrued_interest"])
			}
			if in, ok := bid["instrument"].(map[string]any); !ok || in["id"] != ins[0] {
				t.Errorf("instrument = %v, want the nested instrument", bid["instrument"])
			}
		})

		v.runAll(t, []call{
			{name: "offers_create_invalid", as: trader(0), method: "POST", path: offers,
				body: map[string]any{"direction": "up", "quantity": "many", "validity": "forever"}, want: 400},
			{as: trader(0), method: "POST", path: offers, body: raw(`{"direction": 1}`), want: 400},
			{name: "offers_create_viewer", as: viewer(0), method: "POST", path: offers,
				body: map[string]any{"instrument_id": ins[0], "market_id": book, "direction": "bid", "price_per_unit": 99, "quantity": 1000}, want: 403},
			{as: operator, method: "POST", path: offers,
				body: map[string]any{"instrument_id": ins[0], "market_id": book, "direction": "bid", "price_per_unit": 99, "quantity": 1000}, want: 403},
			{name: "offers_list", as: viewer(0), method: "GET", path: offers, want: 200},
			{name: "offers_get", as: viewer(0), method: "GET", path: offers + "/" + bidID, want: 200},
			{as: viewer(1), method: "GET", path: offers + "/" + bidID, want: 404},
			{name: "offers_update", as: admin(0), method: "PUT", path: offers + "/" + bidID,
				body: map[string]any{"entity": map[string]any{"quantity": 500000, "notes": "amended", "status": "closed"}}, want: 200},
			{name: "offers_update_invalid", as: admin(0), method: "PUT", path: offers + "/" + bidID,
				body: map[string]any{"entity": map[string]any{}}, want: 400},
			{name: "instruments_get_book", as: viewer(1), method: "GET", path: "/api/v1/instruments/" + ins[0] + "?market_depth=0", want: 200},
			{name: "offers_create_matching", as: trader(1), method: "POST", path: offers, body: map[string]any{
				"instrument_id": ins[0], "market_id": book, "direction": "sell", "price_per_unit": 99.25, "quantity": "200000"}, want: 200},
			{name: "trades_list", as: viewer(0), method: "GET", path: "/api/v1/trades", want: 200},
		})

		trades := v.get(t, viewer(0), "/api/v1/trades", http.StatusOK).array(t)
		if len(trades) != 1 {
			t.Fatalf("%d trades, want 1", len(trades))
		}
		tradeID := trades[0]["id"].(string)
		v.runAll(t, []call{
			{name: "trades_get", as: viewer(1), method: "GET", path: "/api/v1/trades/" + tradeID, want: 200},
			{as: viewer(2), method: "GET", path: "/api/v1/trades/" + tradeID, want: 404},
			{as: operator, method: "GET", path: "/api/v1/trades/" + tradeID, want: 200},
			{name: "offers_delete", as: trader(0), method: "DELETE", path: offers + "/" + bidID, want: 200},
			{name: "offers_delete_again", as: trader(0), method: "DELETE", path: offers + "/" + bidID, want: 409},
		})

		// An RFQ answered by two dealers: one quotes, the other declines.
		rfqs := "/api/v1/participant/rfq"
		rfq := v.run(t, call{name: "rfq_create", as: trader(0), method: "POST", path: rfqs, body: map[string]any{
			"instrument_id": ins[1], "market_id": otc, "direction": "bid", "quantity": "2000000",
			"counterparties": []string{v.participant(1), v.participant(2)}, "settlement_date": "2026-11-25 00:00:00",
			"validity": "gtd", "valid_until": "2026-11-20 16:00:00", "status": "created"}, want: 200}).object(t)
		rfqID := rfq["id"].(string)
		v.runAll(t, []call{
			{name: "rfq_create_invalid", as: trader(0), method: "POST", path: rfqs,
				body: map[string]any{"instrument_id": ins[1], "market_id": otc, "direction": "bid", "quantity": 2000000,
					"counterparties": []string{v.participant(3)}}, want: 400},
			{name: "rfq_list", as: viewer(1), method: "GET", path: rfqs, want: 200},
			{name: "rfq_get_dealer", as: viewer(1), method: "GET", path: rfqs + "/" + rfqID, want: 200},
			{as: viewer(3), method: "GET", path: rfqs + "/" + rfqID, want: 404},
			{name: "rfq_update", as: trader(0), method: "PUT", path: rfqs + "/" + rfqID,
				body: map[string]any{"entity": map[string]any{"notes": "size firm"}}, want: 200},
			{name: "quotes_create", as: trader(1), method: "POST", path: offers, body: map[string]any{
				"instrument_id": ins[1], "market_id": otc, "direction": "ask", "price_per_unit": "100.125", "quantity": 2000000,
				"matched_offer_id": rfqID}, want: 200},
			{name: "rfq_reject", as: trader(2), method: "PUT", path: rfqs + "/" + rfqID + "/reject", want: 200},
			{name: "rfq_get_requester", as: viewer(0), method: "GET", path: rfqs + "/" + rfqID, want: 200},
		})
		quotes := v.get(t, viewer(0), rfqs+"/"+rfqID, http.StatusOK).object(t)["matched_offers"].([]any)
		// One live quote and the declining dealer's record, without price.
		var quoteID string
		var declines int
		for _, q := range quotes {
			q := q.(map[string]any)
			switch {
			case q["status"] == "created" && q["outcome"] == nil:
				quoteID = q["id"].(string)
			case q["outcome"] == "declined" && q["price"] == nil && q["participant_id"] == v.participant(2):
				declines++
			}
		}
		if len(quotes) != 2 || quoteID == "" || declines != 1 {
			t.Fatalf("RFQ has %d quotes (live %q, %d declines), want one live quote and one decline", len(quotes), quoteID, declines)
		}
		v.runAll(t, []call{
			{as: trader(1), method: "PUT", path: offers + "/" + quoteID + "/accept", want: 404}, // only the requester accepts
			{name: "offers_accept", as: trader(0), method: "PUT", path: offers + "/" + quoteID + "/accept", want: 200},
			{name: "offers_accept_again", as: trader(0), method: "PUT", path: offers + "/" + quoteID + "/accept", want: 409},
		})

		other := v.run(t, call{as: trader(0), method: "POST", path: rfqs, body: map[string]any{
			"instrument_id": ins[1], "market_id": otc, "direction": "ask", "quantity": 1000000}, want: 200}).object(t)
		v.runAll(t, []call{
			{name: "rfq_cancel", as: trader(0), method: "DELETE", path: rfqs + "/" + other["id"].(string), want: 200},
			{as: trader(0), method: "DELETE", path: rfqs + "/" + other["id"].(string), want: 409},
			{name: "indicative_list", as: viewer(2), method: "GET", path: "/api/v1/participant/indicative-price", want: 200},
			{name: "events_list", as: viewer(0), method: "GET", path: "/api/v1/events?limit=5", want: 200},
			{name: "events_invalid", as: viewer(0), method: "GET", path: "/api/v1/events?after=-1&limit=0", want: 400},
		})

		t.Run("events in sequence order", func(t *testing.T) {
			evs := v.get(t, viewer(0), "/api/v1/events?limit=1000", http.StatusOK).array(t)
			last := 0.0
			for _, e := range evs {
				if seq := e["seq"].(float64); seq <= last {
					t.Errorf("event seq %v after %v", seq, last)
				} else {
					last = seq
				}
			}
			rest := v.get(t, viewer(0), "/api/v1/events?limit=1000&after=3", http.StatusOK).array(t)
			if len(evs) > 3 && len(rest) > 0 && rest[0]["seq"].(float64) <= 3 {
				t.Errorf("after=3 starts at seq %v", rest[0]["seq"])
			}
		})
	})
}
