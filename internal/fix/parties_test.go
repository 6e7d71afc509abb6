package fix_test

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/bondvenue/bondvenue/internal/httpapi"
	"github.com/bondvenue/bondvenue/internal/store"
)

// restReader reads records over REST as a demo firm's trader, the way the
// firm's other clients would.
type restReader struct {
	srv   *httptest.Server
	token string
}

func (v *venueEnv) rest(t *testing.T, i int) *restReader {
	t.Helper()
	srv := httptest.NewServer(httpapi.New(httpapi.Deps{Trading: v.svc, Live: v.core.Live, Cluster: v.core.Cluster,
		Engine: v.core.Sequencer, Keys: v.core.Keys, Access: v.core.Access}, httpapi.Config{Logger: slog.New(slog.DiscardHandler)}).Handler())
	t.Cleanup(srv.Close)
	u, _ := v.trader(t, i)
	body, _ := json.Marshal(map[string]string{"grant_type": "client_credentials", "client_id": u.ClientID, "client_secret": u.ClientSecret})
	res, err := http.Post(srv.URL+"/api/v1/auth/token", "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var tok struct {
		AccessToken string `json:"access_token"`
	}
	if err := json.NewDecoder(res.Body).Decode(&tok); err != nil || tok.AccessToken == "" {
		t.Fatalf("token: %v", err)
	}
	return &restReader{srv: srv, token: tok.AccessToken}
}

// get reads path as a JSON object.
func (r *restReader) get(t *testing.T, path string) map[string]any {
	t.Helper()
	req, err := http.NewRequest("GET", r.srv.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+r.token)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var out map[string]any
	if err := json.NewDecoder(res.Body).Decode(&out); err != nil || res.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d, %v", path, res.StatusCode, err)
	}
	return out
}

// wantRecordParties fails unless the REST record shows exactly want's
// parties (by key; a key absent from want must be absent).
func wantRecordParties(t *testing.T, what string, rec map[string]any, want map[string]string) {
	t.Helper()
	for _, k := range []string{"client_id_code", "investment_decision_id", "execution_decision_id", "trading_capacity"} {
		got, has := rec[k]
		w, wantHas := want[k]
		if has != wantHas || (has && got != w) {
			t.Errorf("%s: %s = %v (present %v), want %q (present %v)", what, k, got, has, w, wantHas)
		}
	}
}

// TestOrderParties: a FIX client's Parties (452=3 client id by LEI or short
// code, 122 investment decision, 12 executing trader) and OrderCapacity 528
// on NewOrderSingle, OrderCancelReplaceRequest, QuoteRequest, Quote and
// QuoteResponse reach the order, which its firm reads back over REST;
// the reserved short codes map to own account, PNAL and AGGR; an invalid
// LEI or capacity refuses the message the way the gateway refuses any bad
// field, naming it.
func TestOrderParties(t *testing.T) {
	d := startDriver(t)
	for _, e := range []store.Engine{store.SQLite, store.Postgres} {
		t.Run(string(e), func(t *testing.T) {
			v := newVenue(t, e)
			market, in := v.book(t)
			s := v.logon(t, d, "parties-"+string(e), "PTY0-"+string(e), 0, true)
			rest := v.rest(t, 0)
			account := v.creds.Participants[0].AccountIDs[0]
			const lei = "5493001KJTIIGC8Y1R12"
			order := func(clOrdID string, extra ...any) []any {
				return append([]any{11, clOrdID, 1, account, 48, in.Terms.ISIN, 22, 4, 1301, market, 54, 2, 60, fixNow(),
					38, in.MinPiece, 40, 2, 44, "118", 59, 1}, extra...)
			}
			s.send(t, "D", order("PA1", 528, "A", 453, 3, 448, lei, 447, "N", 452, 3, 448, "pm.1", 447, "P", 452, 122,
				448, "algo-7", 447, "P", 452, 12)...)
			nw := s.msg(t, "8", func(l fixLine) bool { return l.field(11) == "PA1" })
			if nw.field(150) != "0" {
				t.Fatalf("order with parties: %s", nw.Raw)
			}
			wantRecordParties(t, "the order over REST", rest.get(t, "/api/v1/participant/offers/"+nw.field(37)),
				map[string]string{"client_id_code": lei, "investment_decision_id": "pm.1", "execution_decision_id": "algo-7",
					"trading_capacity": "AOTC"})

			// Short code 2 is AGGR; a replace naming 1 restates the parties:
			// PNAL, and no capacity now.
			s.send(t, "D", order("PA2", 528, "R", 453, 1, 448, "2", 447, "P", 452, 3)...)
			nw2 := s.msg(t, "8", func(l fixLine) bool { return l.field(11) == "PA2" && l.field(150) == "0" })
			path := "/api/v1/participant/offers/" + nw2.field(37)
			wantRecordParties(t, "AGGR", rest.get(t, path), map[string]string{"client_id_code": "AGGR", "trading_capacity": "MTCH"})
			s.send(t, "G", 11, "PA3", 41, "PA2", 1, account, 48, in.Terms.ISIN, 22, 4, 54, 2, 60, fixNow(), 38, in.MinPiece,
				40, 2, 44, "118.5", 453, 1, 448, "1", 447, "P", 452, 3)
			s.msg(t, "8", func(l fixLine) bool { return l.field(11) == "PA3" && l.field(150) == "5" })
			wantRecordParties(t, "PNAL", rest.get(t, path), map[string]string{"client_id_code": "PNAL"})
			// A replace without them keeps them; short code 0 is own account.
			s.send(t, "G", 11, "PA4", 41, "PA3", 1, account, 48, in.Terms.ISIN, 22, 4, 54, 2, 60, fixNow(), 38, in.MinPiece,
				40, 2, 44, "118.25")
			s.msg(t, "8", func(l fixLine) bool { return l.field(11) == "PA4" && l.field(150) == "5" })
			wantRecordParties(t, "after a replace without parties", rest.get(t, path), map[string]string{"client_id_code": "PNAL"})
			s.send(t, "G", 11, "PA5", 41, "PA4", 1, account, 48, in.Terms.ISIN, 22, 4, 54, 2, 60, fixNow(), 38, in.MinPiece,
				40, 2, 44, "118.25", 528, "P", 453, 1, 448, "0", 447, "P", 452, 3)
			s.msg(t, "8", func(l fixLine) bool { return l.field(11) == "PA5" && l.field(150) == "5" })
			wantRecordParties(t, "own account", rest.get(t, path), map[string]string{"trading_capacity": "DEAL"})

			// Refused: an LEI with wrong check digits, a capacity the venue
			// does not map, a replace with a bad short code.
			s.send(t, "D", order("PA6", 453, 1, 448, "5493001KJTIIGC8Y1R13", 447, "N", 452, 3)...)
			bad := s.msg(t, "8", func(l fixLine) bool { return l.field(11) == "PA6" })
			if bad.field(150) != "8" || bad.field(103) != "99" || !strings.Contains(bad.field(58), "448 PartyID (452=3)") {
				t.Errorf("an invalid LEI: %s; want 150=8 naming 448 PartyID (452=3)", bad.Raw)
			}
			s.send(t, "D", order("PA7", 528, "W")...)
			bad = s.msg(t, "8", func(l fixLine) bool { return l.field(11) == "PA7" })
			if bad.field(150) != "8" || !strings.Contains(bad.field(58), "528 OrderCapacity") {
				t.Errorf("capacity W: %s; want 150=8 naming 528 OrderCapacity", bad.Raw)
			}
			s.send(t, "G", 11, "PA8", 41, "PA5", 1, account, 48, in.Terms.ISIN, 22, 4, 54, 2, 60, fixNow(), 38, in.MinPiece,
				40, 2, 44, "118.25", 453, 1, 448, "trader/7", 447, "P", 452, 12)
			rj := s.msg(t, "9", func(l fixLine) bool { return l.field(11) == "PA8" })
			if !strings.Contains(rj.field(58), "448 PartyID (452=12)") {
				t.Errorf("a replace with a bad executing trader: %s; want 9 naming 448 PartyID (452=12)", rj.Raw)
			}
			wantRecordParties(t, "after the refused replace", rest.get(t, path), map[string]string{"trading_capacity": "DEAL"})
		})
	}
}

// TestRFQParties: the RFQ flow over FIX carries each side's parties: the
// requester's in the QuoteRequest's entry (with 528 at the top level), the
// dealer's in its Quote, and the requester's accept (QuoteResponse) is
// checked like any order; each firm reads its own record's parties over
// REST, never the other's.
func TestRFQParties(t *testing.T) {
	d := startDriver(t)
	for _, e := range []store.Engine{store.SQLite, store.Postgres} {
		t.Run(string(e), func(t *testing.T) {
			v := newVenue(t, e)
			market, in := v.otcBook(t)
			acc0, acc1 := v.creds.Participants[0].AccountIDs[0], v.creds.Participants[1].AccountIDs[0]
			fix0 := v.logon(t, d, "prfq0-"+string(e), "PRFQ0-"+string(e), 0, true)
			fix1 := v.logon(t, d, "prfq1-"+string(e), "PRFQ1-"+string(e), 1, true)
			rest0, rest1 := v.rest(t, 0), v.rest(t, 1)
			fix0.send(t, "R", 131, "PQ-1", 1, acc0, 1301, market, 528, "A", 146, 1, 55, "[N/A]", 48, in.Terms.ISIN, 22, 4, 54, 1,
				38, in.MinPiece, 453, 2, 448, v.creds.Participants[1].LEI, 447, "N", 452, 17, 448, "C77", 447, "P", 452, 3)
			req := fix1.msg(t, "R", func(l fixLine) bool { return l.field(36010) == v.creds.Participants[0].LEI })
			rfqID := req.field(131)
			mine := map[string]string{"client_id_code": "C77", "trading_capacity": "AOTC"}
			wantRecordParties(t, "the RFQ read by its requester", rest0.get(t, "/api/v1/participant/rfq/"+rfqID), mine)
			wantRecordParties(t, "the RFQ read by its dealer", rest1.get(t, "/api/v1/participant/rfq/"+rfqID), nil)

			fix1.send(t, "S", 117, "PDQ-1", 131, rfqID, 1, acc1, 133, "100.5", 60, fixNow(), 528, "P",
				453, 1, 448, "desk-9", 447, "P", 452, 12)
			quote := fix0.msg(t, "S", func(l fixLine) bool { return l.field(131) == "PQ-1" })
			theirs := map[string]string{"execution_decision_id": "desk-9", "trading_capacity": "DEAL"}
			wantRecordParties(t, "the quote read by its dealer", rest1.get(t, "/api/v1/participant/offers/"+quote.field(117)), theirs)
			view := rest0.get(t, "/api/v1/participant/rfq/"+rfqID)
			for _, q := range view["matched_offers"].([]any) {
				wantRecordParties(t, "the quote read by the requester", q.(map[string]any), nil)
			}

			// A bad capacity on the accept is refused like a bad field of
			// any QuoteResponse; a good accept trades.
			fix0.send(t, "AJ", 693, "PR-1", 11, "PHIT-1", 117, quote.field(117), 131, "PQ-1", 694, 1, 1, acc0, 54, 1,
				60, fixNow(), 528, "I")
			ai := fix0.msg(t, "AI", func(l fixLine) bool { return l.field(693) == "PR-1" })
			if ai.field(297) != "5" || !strings.Contains(ai.field(58), "528 OrderCapacity") {
				t.Errorf("an accept with capacity I: %s; want 297=5 naming 528 OrderCapacity", ai.Raw)
			}
			fix0.send(t, "AJ", 693, "PR-2", 11, "PHIT-2", 117, quote.field(117), 131, "PQ-1", 694, 1, 1, acc0, 54, 1,
				60, fixNow(), 528, "A", 453, 1, 448, "C77", 447, "P", 452, 3)
			fill := fix0.msg(t, "8", func(l fixLine) bool { return l.field(150) == "F" })
			if fill.field(11) != "PHIT-2" {
				t.Errorf("the accept's fill: %s", fill.Raw)
			}
		})
	}
}

// TestPortfolioParties: a list requested over FIX takes its parties from
// its entries (which must name the same) and 528 at the top level; a
// MassQuote takes its Parties and its entries' 528; each firm reads its
// own over REST, never the other's.
func TestPortfolioParties(t *testing.T) {
	d := startDriver(t)
	for _, e := range []store.Engine{store.SQLite, store.Postgres} {
		t.Run(string(e), func(t *testing.T) {
			v := newVenue(t, e)
			market, in := v.otcBook(t)
			fix0 := v.logon(t, d, "plist0-"+string(e), "PLIST0-"+string(e), 0, true)
			fix1 := v.logon(t, d, "plist1-"+string(e), "PLIST1-"+string(e), 1, true)
			rest0, rest1 := v.rest(t, 0), v.rest(t, 1)
			entry := func(side int, client string) []any {
				return []any{55, "[N/A]", 48, in.Terms.ISIN, 22, 4, 54, side, 38, in.MinPiece, 453, 1, 448, client, 447, "P", 452, 3}
			}
			// Entries naming different clients: refused.
			fix0.send(t, "R", append(append([]any{131, "PL-0", 66, "L-0", 1301, market, 528, "A",
				36011, v.creds.Participants[1].LEI, 146, 2}, entry(1, "C1")...), entry(2, "C2")...)...)
			ag := fix0.msg(t, "AG", func(l fixLine) bool { return l.field(131) == "PL-0" })
			if !strings.Contains(ag.field(58), "453 NoPartyIDs") {
				t.Errorf("a list whose entries name different clients: %s", ag.Raw)
			}
			fix0.send(t, "R", append(append([]any{131, "PL-1", 66, "L-1", 1301, market, 528, "A",
				36011, v.creds.Participants[1].LEI, 146, 2}, entry(1, "C1")...), entry(2, "C1")...)...)
			req := fix1.msg(t, "R", func(l fixLine) bool { return l.field(66) != "" })
			listID := req.field(66)
			path := "/api/v1/participant/portfolio-rfq/" + listID
			wantRecordParties(t, "the list read by its requester", rest0.get(t, path), map[string]string{"client_id_code": "C1",
				"trading_capacity": "AOTC"})
			wantRecordParties(t, "the list read by its dealer", rest1.get(t, path), nil)

			fix1.send(t, "i", 117, "PMQ-1", 131, listID, 453, 1, 448, "algo.9", 447, "P", 452, 12, 296, 1, 302, listID, 304, 2,
				295, 2, 299, "1", 133, "100.125", 528, "R", 299, "2", 132, "99.5", 528, "R")
			if ack := fix1.msg(t, "b", func(l fixLine) bool { return l.field(117) == "PMQ-1" }); ack.field(297) != "0" {
				t.Fatalf("MassQuote with parties: %s", ack.Raw)
			}
			dealer := rest1.get(t, path)["quotes"].([]any)
			if len(dealer) != 1 {
				t.Fatalf("the dealer reads %d quotes", len(dealer))
			}
			wantRecordParties(t, "the list quote read by its dealer", dealer[0].(map[string]any),
				map[string]string{"execution_decision_id": "algo.9", "trading_capacity": "MTCH"})
			for _, q := range rest0.get(t, path)["quotes"].([]any) {
				wantRecordParties(t, "the list quote read by the requester", q.(map[string]any), nil)
			}
		})
	}
}
