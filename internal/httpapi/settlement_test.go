package httpapi_test

import (
	"fmt"
	"net/http"
	"slices"
	"testing"

	"github.com/bondvenue/bondvenue/internal/feed"

	"github.com/bondvenue/bondvenue/internal/demo"
	"github.com/bondvenue/bondvenue/internal/testenv"
)

// linksPath is the operator's settlement link table.
const linksPath = "/api/v1/admin/settlement-links"

// linksWithout is the demo's links less the pair a–b.
func linksWithout(a, b string) [][]string {
	var out [][]string
	for _, l := range demo.SettlementLinks {
		if (l[0] == a && l[1] == b) || (l[0] == b && l[1] == a) {
			continue
		}
		out = append(out, l)
	}
	return out
}

// TestSettlementCompatibility: two firms whose CSDs cannot settle with
// each other cannot trade. An accept between them is refused with 409
// naming both CSDs, so is a quote; on the book the other's offer reads
// is_counterparty_enabled false and a crossing offer skips it, as it
// skips a non-counterparty's; a firm whose CSD is linked trades with it.
// The operator's link table binds at once.
func TestSettlementCompatibility(t *testing.T) {
	fresh(t, func(t *testing.T, v *env) {
		x := newTV(t, v)
		in := x.ins[3]
		// The demo: firm 0 settles at Clearstream Banking AG, 1 at
		// Euroclear France, 2 at Euroclear Nederland, all linked (T2S).
		got := x.obj(t, operator, "GET", linksPath, nil, http.StatusOK)
		if ls, _ := got["links"].([]any); len(ls) != len(demo.SettlementLinks) {
			t.Fatalf("demo links = %v, want %d pairs", got["links"], len(demo.SettlementLinks))
		}
		const cbf, ef = "DAKVDEFFXXX", "SICVFRPPXXX"
		rfq := x.rfq(t, trader(0), obj{"instrument_id": in, "market_id": x.otc, "direction": "bid", "quantity": "1000000",
			"counterparties": []string{v.participant(1), v.participant(2)}})
		quote := func(w who, price string) obj {
			return obj{"instrument_id": in, "market_id": x.otc, "direction": "ask", "price_per_unit": price,
				"quantity": "1000000", "matched_offer_id": id(rfq)}
		}
		q1 := x.create(t, trader(1), quote(trader(1), "100.10"))

		// The link between the two firms' CSDs goes.
		x.send(t, operator, "PUT", linksPath, obj{"links": linksWithout(cbf, ef)}, http.StatusOK, nil)
		e := x.refused(t, trader(0), "PUT", offersPath+"/"+id(q1)+"/accept", nil, http.StatusConflict)
		wantText(t, e, cbf, ef, "cannot settle together")
		x.state(t, trader(0), id(q1), "created", "1000000", "0")
		e = x.refused(t, trader(1), "POST", offersPath, quote(trader(1), "100.05"), http.StatusConflict)
		wantText(t, e, cbf, ef)
		// Firm 2's CSD is still linked with firm 0's: its quote trades.
		q2 := x.create(t, trader(2), quote(trader(2), "100.20"))
		x.send(t, trader(0), "PUT", offersPath+"/"+id(q2)+"/accept", nil, http.StatusOK, nil)
		x.state(t, trader(2), id(q2), "closed", "1000000", "1000000")

		// The book: firm 1's ask is not tradable for firm 0, and is for firm 2,
		// on REST and on the stream (the price change each reads).
		after, err := v.core.Live.LastEventSeq(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		streams := map[who]*feedLog{}
		for _, w := range []who{trader(0), trader(2)} {
			sub, err := v.core.Live.Subscribe(t.Context(), v.principal(w), after, feed.EventFilter{Types: []string{feed.EventPriceChange}})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(sub.Close)
			streams[w] = &feedLog{}
			go streams[w].read(sub)
		}
		ask := x.create(t, trader(1), offer(in, x.book, "ask", "99", "1000000"))
		for w, want := range map[who]bool{trader(0): false, trader(2): true} {
			var seen *feed.LimitEntry
			testenv.Wait(t, fmt.Sprintf("the ask on %v's stream", w), func() bool {
				streams[w].mu.Lock()
				defer streams[w].mu.Unlock()
				for _, e := range streams[w].events {
					if e.PriceChange != nil && e.PriceChange.Ask != nil && e.PriceChange.Ask.OfferID == id(ask) {
						seen = e.PriceChange.Ask
					}
				}
				return seen != nil
			})
			if seen == nil || seen.IsCounterpartyEnabled != want || (!want && seen.ParticipantID != "") {
				t.Errorf("the ask on %s's stream: %+v, want is_counterparty_enabled %v", w, seen, want)
			}
		}
		a0, _ := x.depth(t, trader(0), in, 0)
		a2, _ := x.depth(t, trader(2), in, 0)
		if len(a0) != 1 || a0[0].cp || a0[0].participant != "" || len(a2) != 1 || !a2[0].cp {
			t.Errorf("ask as firm 0 %v (want not tradable, anonymous), as firm 2 %v (want tradable)", a0, a2)
		}
		bid := x.create(t, trader(0), offer(in, x.book, "bid", "99", "500000"))
		wantState(t, bid, "created", "500000", "0")
		x.state(t, trader(1), id(ask), "created", "1000000", "0")
		x.create(t, trader(2), offer(in, x.book, "bid", "99", "400000"))
		x.state(t, trader(1), id(ask), "created", "1000000", "400000")

		// The link is back: the next crossing offer trades.
		x.send(t, operator, "PUT", linksPath, obj{"links": demo.SettlementLinks}, http.StatusOK, nil)
		if a0, _ := x.depth(t, trader(0), in, 0); len(a0) != 1 || !a0[0].cp {
			t.Errorf("ask as firm 0 with the link back = %v, want tradable", a0)
		}
		x.create(t, trader(0), offer(in, x.book, "bid", "99", "600000"))
		x.state(t, trader(1), id(ask), "closed", "1000000", "1000000")
	})
}

// TestSettlementLinksValidation: the link table takes pairs of BIC11s,
// names what is wrong, and reads back in order, each pair once.
func TestSettlementLinksValidation(t *testing.T) {
	fresh(t, func(t *testing.T, v *env) {
		x := newTV(t, v)
		v.runAll(t, []call{
			{name: "admin_settlement_links_get", as: operator, method: "GET", path: linksPath, want: 200},
			{name: "admin_settlement_links_put", as: operator, method: "PUT", path: linksPath, body: obj{"links": demo.SettlementLinks}, want: 200},
		})
		for _, body := range []obj{{}, {"links": [][]string{{"MGTCBEBEXXX"}}}, {"links": [][]string{{"MGTCBEBEXXX", "MGTCBEBEXXX"}}},
			{"links": [][]string{{"MGTCBEBE", "CEDELULLXXX"}}}} {
			x.refused(t, operator, "PUT", linksPath, body, http.StatusBadRequest)
		}
		x.refused(t, trader(0), "PUT", linksPath, obj{"links": [][]string{}}, http.StatusForbidden)
		got := x.obj(t, operator, "PUT", linksPath, obj{"links": [][]string{{"mgtcbebexxx", "CEDELULLXXX"}, {"CEDELULLXXX", "MGTCBEBEXXX"}}},
			http.StatusOK)
		ls, _ := got["links"].([]any)
		if len(ls) != 1 || !slices.Equal(toStrings(ls[0]), []string{"CEDELULLXXX", "MGTCBEBEXXX"}) {
			t.Errorf("links = %v, want the one pair in order", got["links"])
		}
	})
}

func toStrings(v any) []string {
	var out []string
	a, _ := v.([]any)
	for _, s := range a {
		str, _ := s.(string)
		out = append(out, str)
	}
	return out
}
