package httpapi_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestQuoteOutcomes: every quote ends with exactly one outcome, the done
// quote carries the cover price, a dealer's decline is a record of its own
// (so it reads as declined after a reload), and a losing dealer never reads
// the done price or another dealer's price.
func TestQuoteOutcomes(t *testing.T) {
	fresh(t, func(t *testing.T, v *env) {
		x := newTV(t, v)
		in := x.ins[3]
		// A third dealer: the fourth demo firm becomes the requester's counterparty.
		x.send(t, operator, "PUT", "/api/v1/admin/counterparties",
			obj{"participant_id": v.participant(0), "counterparty_id": v.participant(3), "enabled": true}, http.StatusOK, nil)
		rfq := func(qty string) obj {
			return x.rfq(t, trader(0), obj{"instrument_id": in, "market_id": x.otc, "direction": "bid", "quantity": qty,
				"counterparties": []string{v.participant(1), v.participant(2), v.participant(3)}})
		}
		quote := func(w who, r obj, price string) obj {
			return x.create(t, w, obj{"instrument_id": in, "market_id": x.otc, "direction": "ask", "price_per_unit": price,
				"quantity": r["quantity"], "matched_offer_id": id(r)})
		}
		// ended reads a quote as w and checks its status, outcome and cover.
		ended := func(w who, q obj, status, outcome string, cover any) obj {
			t.Helper()
			got := x.obj(t, w, "GET", offersPath+"/"+id(q), nil, http.StatusOK)
			if got["status"] != status || got["outcome"] != outcome {
				t.Errorf("quote %s as %s: status %v outcome %v, want %s %s", id(q), w, got["status"], got["outcome"], status, outcome)
			}
			if cover == nil {
				if got["cover_price"] != nil {
					t.Errorf("quote %s as %s: cover_price %v, want null", id(q), w, got["cover_price"])
				}
			} else {
				wantDec(t, "cover_price of "+id(q), got["cover_price"], cover.(string))
			}
			return got
		}
		accept := func(q obj) {
			x.send(t, trader(0), "PUT", offersPath+"/"+id(q)+"/accept", nil, http.StatusOK, nil)
		}

		t.Run("tied", func(t *testing.T) {
			r := rfq("1000000")
			q1, q2, q3 := quote(trader(1), r, "100.2000"), quote(trader(2), r, "100.1000"), quote(trader(3), r, "100.1000")
			if q1["outcome"] != nil {
				t.Errorf("open quote: outcome %v, want null", q1["outcome"])
			}
			accept(q2)
			ended(trader(2), q2, "closed", "done", "100.1")
			ended(trader(0), q2, "closed", "done", "100.1")
			ended(trader(3), q3, "rejected", "tied", nil)
			ended(trader(1), q1, "rejected", "done_away", nil)
		})

		t.Run("cover and decline", func(t *testing.T) {
			r := rfq("2000000")
			q1, q2 := quote(trader(1), r, "101.2345"), quote(trader(2), r, "100.9876")
			x.send(t, trader(3), "PUT", rfqPath+"/"+id(r)+"/reject", nil, http.StatusOK, nil)
			// The decline is the dealer's own record: it reads so after a reload.
			got := x.obj(t, trader(3), "GET", rfqPath+"/"+id(r), nil, http.StatusOK)
			mine, _ := got["matched_offers"].([]any)
			if len(mine) != 1 || mine[0].(obj)["outcome"] != "declined" || mine[0].(obj)["price"] != nil ||
				mine[0].(obj)["participant_id"] != v.participant(3) || mine[0].(obj)["status"] != "cancelled" {
				t.Fatalf("declining dealer's RFQ: matched_offers %v, want its one decline record without price", got["matched_offers"])
			}
			decline := mine[0].(obj)
			seq := x.lastSeq(t)
			accept(q1) // the requester takes the worse quote: the better one is the cover
			ended(trader(1), q1, "closed", "done", "100.9876")
			ended(trader(0), q1, "closed", "done", "100.9876")
			ended(trader(2), q2, "rejected", "cover", nil)
			ended(trader(3), decline, "cancelled", "declined", nil)

			// The requester sees every quote's outcome, the decline included.
			all := map[string]any{}
			qs, _ := x.obj(t, trader(0), "GET", rfqPath+"/"+id(r), nil, http.StatusOK)["matched_offers"].([]any)
			for _, q := range qs {
				all[q.(obj)["participant_id"].(string)] = q.(obj)["outcome"]
			}
			want := map[string]any{v.participant(1): "done", v.participant(2): "cover", v.participant(3): "declined"}
			if fmt.Sprint(all) != fmt.Sprint(want) {
				t.Errorf("requester's quotes by dealer: outcomes %v, want %v", all, want)
			}

			// Losers read nothing of the done price nor of another's price.
			// (The public tape is left out: post-trade transparency shows
			// every trade's price to every reader, with no RFQ or dealer.)
			for _, c := range []struct {
				w      who
				secret []string
			}{{trader(2), []string{"101.2345"}}, {trader(3), []string{"101.2345", "100.9876"}},
				{viewer(2), []string{"101.2345"}}, {admin(3), []string{"101.2345", "100.9876"}}} {
				for _, path := range []string{rfqPath + "/" + id(r), rfqPath + "?limit=100", offersPath + "?limit=100",
					offersPath + "/" + id(q2), "/api/v1/trades?limit=100",
					fmt.Sprintf("/api/v1/events?after=%d&limit=1000", seq)} {
					r := x.do(t, c.w, "GET", path, nil, nil)
					body := string(r.body)
					if strings.HasPrefix(path, "/api/v1/events") { // less the public tape's events
						var evs []obj
						decodeExact(t, r, &evs)
						evs = slices.DeleteFunc(evs, func(e obj) bool { return e["type"] == "tape.publish" })
						b, _ := json.Marshal(evs)
						body = string(b)
					}
					for _, s := range c.secret {
						if strings.Contains(strings.ReplaceAll(body, "\"", ""), strings.TrimRight(s, "0")) {
							t.Errorf("GET %s as %s (status %d) shows %s", path, c.w, r.status, s)
						}
					}
				}
			}
		})

		t.Run("withdrawn, passed, cancelled", func(t *testing.T) {
			r := rfq("3000000")
			first := quote(trader(1), r, "100.5000")
			second := quote(trader(1), r, "100.4000") // replaces the first
			ended(trader(1), first, "cancelled", "withdrawn", nil)
			x.send(t, trader(0), "DELETE", offersPath+"/"+id(second), nil, http.StatusOK, nil)
			ended(trader(1), second, "rejected", "passed", nil)
			q2 := quote(trader(2), r, "100.3000")
			q3 := quote(trader(3), r, "100.3500")
			x.send(t, trader(3), "DELETE", offersPath+"/"+id(q3), nil, http.StatusOK, nil)
			ended(trader(3), q3, "cancelled", "withdrawn", nil)
			x.send(t, trader(0), "DELETE", rfqPath+"/"+id(r), nil, http.StatusOK, nil)
			ended(trader(2), q2, "rejected", "cancelled", nil)
		})

		t.Run("expired", func(t *testing.T) {
			r := x.rfq(t, trader(0), obj{"instrument_id": in, "market_id": x.otc, "direction": "bid", "quantity": "4000000",
				"counterparties": []string{v.participant(1)}, "validity": "gtd", "valid_until": x.validUntil(time.Second)})
			q := quote(trader(1), r, "100.6000")
			v.clock.Advance(2 * time.Second)
			x.await(t, trader(1), rfqPath+"/"+id(r), "expired")
			ended(trader(1), q, "expired", "expired", nil)
		})
	})
}
