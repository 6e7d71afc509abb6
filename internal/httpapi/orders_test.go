package httpapi_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	gocmp "github.com/google/go-cmp/cmp"
)

// TestTradeOrders checks what a trade's orders nest, as each party and the
// operator see them, and the trade.create event both parties read: an RFQ
// trade (firm 0's gtc RFQ, firm 1's gtd quote) and a book trade (firm 0's
// gtd bid resting, firm 1's gtc ask crossing it).
func TestTradeOrders(t *testing.T) {
	fresh(t, func(t *testing.T, v *env) {
		x := newTV(t, v)
		base := x.lastSeq(t)

		rfq := x.rfq(t, trader(0), obj{"instrument_id": x.ins[1], "market_id": x.otc, "direction": "bid",
			"quantity": "1000000", "validity": "gtc"})
		quote := x.create(t, trader(1), obj{"instrument_id": x.ins[1], "market_id": x.otc, "direction": "ask",
			"price_per_unit": "100.5", "quantity": "1000000", "matched_offer_id": id(rfq),
			"validity": "gtd", "valid_until": "2026-11-20 16:30:00"})
		accepted := x.obj(t, trader(0), "PUT", offersPath+"/"+id(quote)+"/accept", nil, http.StatusOK)

		bid := x.create(t, trader(0), set(offer(x.ins[3], x.book, "bid", "99", "100000"),
			"validity", "gtd", "valid_until", "2026-11-21 09:15:00", "notes", "firm 0's own"))
		ask := x.create(t, trader(1), offer(x.ins[3], x.book, "ask", "99", "100000"))
		book := tradeWith(t, x.tradesOf(t, trader(0), id(bid)), id(ask), id(bid))

		// What each side of each trade must show; its offer as its firm's
		// list shows it (read now that trading is over).
		type side struct {
			firm      int
			offer     obj
			expiresAt any
		}
		listed := func(firm int, path, offerID string) obj {
			for _, o := range x.list(t, trader(firm), path) {
				if id(o) == offerID {
					return o
				}
			}
			t.Fatalf("%s as %s does not list %s", path, trader(firm), offerID)
			return nil
		}
		trades := []struct {
			name     string
			id       string
			ask, bid side
		}{
			{"rfq", id(accepted),
				side{1, listed(1, offersPath, id(quote)), "2026-11-20T16:30:00.000Z"},
				side{0, listed(0, rfqPath, id(rfq)), nil}},
			{"book", id(book),
				side{1, listed(1, offersPath, id(ask)), nil},
				side{0, listed(0, offersPath, id(bid)), "2026-11-21T09:15:00.000Z"}},
		}

		for _, tr := range trades {
			for _, w := range []who{viewer(0), trader(1), operator} {
				t.Run(fmt.Sprintf("%s trade as %s", tr.name, w), func(t *testing.T) {
					got := x.obj(t, w, "GET", "/api/v1/trades/"+tr.id, nil, http.StatusOK)
					listed := tradeWith(t, x.list(t, w, "/api/v1/trades?instrument_id="+got["instrument_id"].(string)),
						id(tr.ask.offer), id(tr.bid.offer))
					equal(t, "the trade as the list shows it", got, listed)
					instrument := x.listedInstrument(t, w, got["instrument_id"].(string))
					for _, s := range []struct {
						key string
						side
					}{{"ask_order", tr.ask}, {"bid_order", tr.bid}} {
						o := got[s.key].(obj)
						x.checkOrder(t, w, s.key, o, s.side.firm, s.offer, s.expiresAt, instrument)
					}
				})
			}
		}

		t.Run("the accept answer is the trade", func(t *testing.T) {
			equal(t, "PUT …/accept", accepted, x.obj(t, trader(0), "GET", "/api/v1/trades/"+id(accepted), nil, http.StatusOK))
		})

		// Both parties read the one trade.create event: the trade as the
		// operator reads it, flat, with neither order's account.
		for _, tr := range trades {
			want := x.obj(t, operator, "GET", "/api/v1/trades/"+tr.id, nil, http.StatusOK)
			delete(want, "market")
			for _, key := range []string{"ask_order", "bid_order"} {
				o := want[key].(obj)
				for _, nested := range []string{"account", "participant", "instrument", "offer"} {
					delete(o, nested)
				}
				o["account_id"] = ""
			}
			for _, w := range []who{viewer(0), viewer(1), operator} {
				t.Run(fmt.Sprintf("%s trade.create as %s", tr.name, w), func(t *testing.T) {
					data := x.tradeEvent(t, w, base, tr.id)
					if d := gocmp.Diff(want, data); d != "" {
						t.Errorf("trade.create data (-want +got):\n%s", d)
					}
				})
			}
		}
	})
}

// checkOrder checks a trade's order o as w sees it; firm owns it, offer is
// its offer as firm's list shows it, instrument the trade's instrument as
// lists show it.
func (x *tv) checkOrder(t *testing.T, w who, key string, o obj, firm int, offer obj, expiresAt any, instrument obj) {
	t.Helper()
	own := w == operator || w.firm == firm
	if o["participant_id"] != x.participant(firm) || o["offer_id"] != id(offer) || o["instrument_id"] != id(instrument) {
		t.Errorf("%s: participant_id %v offer_id %v instrument_id %v, want %s, %s, %s", key,
			o["participant_id"], o["offer_id"], o["instrument_id"], x.participant(firm), id(offer), id(instrument))
	}
	if o["expires_at"] != expiresAt {
		t.Errorf("%s: expires_at = %v, want %v", key, o["expires_at"], expiresAt)
	}

	// The account: the firm's own, as the account answers show it nested;
	// none of the other firm's.
	if own {
		want := x.obj(t, w, "GET", "/api/v1/accounts/"+x.account(firm), nil, http.StatusOK)
		want["participant"] = nil
		if o["account_id"] != x.account(firm) {
			t.Errorf("%s: account_id = %v, want %s", key, o["account_id"], x.account(firm))
		}
		equal(t, key+".account", want, o["account"])
	} else {
		if o["account_id"] != "" {
			t.Errorf("%s: account_id = %v, want empty on the other firm's order", key, o["account_id"])
		}
		if a, ok := o["account"]; !ok || a != nil {
			t.Errorf("%s: account = %v, want null on the other firm's order", key, a)
		}
	}

	// The participant as GET /participants/{id} answers it to w: in full
	// for its own firm, the public fields of the other.
	equal(t, key+".participant", x.obj(t, w, "GET", "/api/v1/participants/"+x.participant(firm), nil, http.StatusOK), o["participant"])
	if p, _ := o["participant"].(obj); !own && len(p) != 7 {
		t.Errorf("%s: the other firm's participant has %d fields, want the 7 public ones", key, len(p))
	}

	equal(t, key+".instrument", instrument, o["instrument"])

	// The offer: the other firm's redacted as lists redact another firm's
	// records, and without its notes.
	want := offer
	if !own {
		want = set(offer, "account_id", "", "user_id", "", "counterparties", nil, "notes", "")
		want["settlement_provider_id"] = nil
	}
	equal(t, key+".offer", want, o["offer"])
}

// listedInstrument is an instrument as GET /instruments lists it, without
// its book (a nested instrument carries none).
func (x *tv) listedInstrument(t *testing.T, w who, instrumentID string) obj {
	t.Helper()
	for _, in := range x.list(t, w, "/api/v1/instruments?limit=1000") {
		if id(in) == instrumentID {
			in["instrument_limits"] = obj{"ask": []any{}, "bid": []any{}}
			return in
		}
	}
	t.Fatalf("GET /instruments does not list %s", instrumentID)
	return nil
}

// lastSeq is the last event's sequence number.
func (x *tv) lastSeq(t *testing.T) int {
	t.Helper()
	evs := x.list(t, operator, "/api/v1/events?limit=1000")
	if len(evs) == 0 {
		return 0
	}
	n, _ := evs[len(evs)-1]["seq"].(json.Number).Int64()
	return int(n)
}

// tradeEvent returns the data of the trade.create event of trade as w
// reads it after seq, checked against the TradeRecord schema the document
// gives it.
func (x *tv) tradeEvent(t *testing.T, w who, after int, trade string) obj {
	t.Helper()
	r := x.send(t, w, "GET", fmt.Sprintf("/api/v1/events?after=%d&limit=1000", after), nil, http.StatusOK, nil)
	var evs []obj
	decodeExact(t, r, &evs)
	var plain []struct {
		Data any `json:"data"`
	}
	if err := json.Unmarshal(r.body, &plain); err != nil {
		t.Fatal(err)
	}
	for i, e := range evs {
		d := e["data"].(obj)
		if e["type"] != "trade.create" || id(d) != trade {
			continue
		}
		doc, err := document()
		if err != nil {
			t.Fatal(err)
		}
		if err := doc.Components.Schemas["TradeRecord"].Value.VisitJSON(plain[i].Data, openapi3.VisitAsResponse()); err != nil {
			t.Errorf("trade.create data does not match schema TradeRecord: %v", err)
		}
		return d
	}
	t.Fatalf("no trade.create of %s among %d events as %s", trade, len(evs), w)
	return nil
}

// equal reports whether got is want, failing the test with the difference
// otherwise.
func equal(t *testing.T, what string, want, got any) bool {
	t.Helper()
	if d := gocmp.Diff(want, got); d != "" {
		t.Errorf("%s (-want +got):\n%s", what, d)
		return false
	}
	return true
}
