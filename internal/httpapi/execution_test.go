package httpapi_test

import (
	"encoding/csv"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestExecutionRecord: an RFQ's best-execution record names every invited
// dealer with each quote or decline, to the microsecond, the market when
// the RFQ was sent and when a quote was accepted, the cover and the saving
// against it; the requester's firm and the operator read it, a dealer does
// not; the list answers JSON or CSV (one row per quote).
func TestExecutionRecord(t *testing.T) {
	fresh(t, func(t *testing.T, v *env) {
		x := newTV(t, v)
		in := x.ins[4]
		x.send(t, operator, "PUT", "/api/v1/admin/counterparties",
			obj{"participant_id": v.participant(0), "counterparty_id": v.participant(3), "enabled": true}, http.StatusOK, nil)
		// The market around the bond: a book and an indicative price.
		x.create(t, trader(1), offer(in, x.book, "bid", "99.9", "100000"))
		x.create(t, trader(2), offer(in, x.book, "ask", "100.3", "100000"))
		x.send(t, trader(2), "POST", indicativePath, obj{"account_id": v.account(2), "instrument_id": in,
			"bid_price": "99.8", "ask_price": "100.4", "bid_quantity": "1000000", "ask_quantity": "1000000"}, http.StatusOK, nil)

		sent := v.clock.Now()
		r := x.rfq(t, trader(0), obj{"instrument_id": in, "market_id": x.otc, "direction": "bid", "quantity": "1000000",
			"counterparties": []string{v.participant(1), v.participant(2), v.participant(3)}})
		step := func(us int64) { v.clock.Advance(time.Duration(us) * time.Microsecond) }
		quote := func(w who, price string) obj {
			return x.create(t, w, obj{"instrument_id": in, "market_id": x.otc, "direction": "ask", "price_per_unit": price,
				"quantity": "1000000", "matched_offer_id": id(r)})
		}
		step(1_234_567)
		q1 := quote(trader(1), "100.2")
		step(250_001)
		quote(trader(2), "100.1")
		step(3)
		q2 := quote(trader(2), "100.05") // replaces its first
		step(2_000_000)
		x.send(t, trader(3), "PUT", rfqPath+"/"+id(r)+"/reject", nil, http.StatusOK, nil)
		// The book moves before the accept.
		x.create(t, trader(1), offer(in, x.book, "bid", "100", "100000"))
		step(10)
		accepted := v.clock.Now()
		x.send(t, trader(0), "PUT", offersPath+"/"+id(q1)+"/accept", nil, http.StatusOK, nil)

		path := rfqPath + "/" + id(r) + "/execution-record"
		rec := x.obj(t, trader(0), "GET", path, nil, http.StatusOK)
		micro := func(at time.Time) string { return at.UTC().Format("2006-01-02T15:04:05.000000Z") }
		for k, want := range map[string]any{"rfq_id": id(r), "requester_id": v.participant(0), "status": "closed",
			"sent_at": micro(sent), "accepted_at": micro(accepted), "done_quote_id": id(q1), "direction": "bid"} {
			if rec[k] != want {
				t.Errorf("record %s = %v, want %v", k, rec[k], want)
			}
		}
		wantDec(t, "done_price", rec["done_price"], "100.2")
		wantDec(t, "cover_price", rec["cover_price"], "100.05")
		wantDec(t, "saving_vs_cover", rec["saving_vs_cover"], "-0.15")
		wantDec(t, "saving_vs_cover_amount", rec["saving_vs_cover_amount"], "-1500")
		atSent, atAccept := rec["market_at_sent"].(obj), rec["market_at_accept"].(obj)
		wantDec(t, "best bid at sent", atSent["best_bid"], "99.9")
		wantDec(t, "best ask at sent", atSent["best_ask"], "100.3")
		wantDec(t, "indicative mid at sent", atSent["indicative_mid"], "100.1")
		wantDec(t, "best bid at accept", atAccept["best_bid"], "100")
		if atSent["at"] != micro(sent) || atAccept["at"] != micro(accepted) {
			t.Errorf("marks at %v and %v, want %s and %s", atSent["at"], atAccept["at"], micro(sent), micro(accepted))
		}

		dealers := map[string]obj{}
		for _, d := range rec["dealers"].([]any) {
			dealers[d.(obj)["participant_id"].(string)] = d.(obj)
		}
		if len(dealers) != 3 {
			t.Fatalf("record names %d dealers, want the 3 invited", len(dealers))
		}
		for i, want := range map[int]struct {
			outcome  string
			response string
			quotes   []string // outcome of each quote record, oldest first
		}{1: {"done", "1234567", []string{"done"}}, 2: {"cover", "1484568", []string{"withdrawn", "cover"}},
			3: {"declined", "3484571", []string{"declined"}}} {
			d := dealers[v.participant(i)]
			if d["outcome"] != want.outcome || d["invited_at"] != micro(sent) {
				t.Errorf("dealer %d: outcome %v invited %v, want %s %s", i, d["outcome"], d["invited_at"], want.outcome, micro(sent))
			}
			wantDec(t, "response_time_us of dealer "+v.participant(i), d["response_time_us"], want.response)
			qs := d["quotes"].([]any)
			var got []string
			for _, q := range qs {
				got = append(got, q.(obj)["outcome"].(string))
			}
			if strings.Join(got, ",") != strings.Join(want.quotes, ",") {
				t.Errorf("dealer %d quote outcomes %v, want %v", i, got, want.quotes)
			}
		}
		last := dealers[v.participant(2)]["quotes"].([]any)[1].(obj)
		if last["quote_id"] != id(q2) || last["quoted_at"] != micro(sent.Add(1_484_571*time.Microsecond)) || last["yield"] == nil {
			t.Errorf("dealer 2's last quote: %v", last)
		}
		if d := dealers[v.participant(3)]["quotes"].([]any)[0].(obj); d["price"] != nil || d["yield"] != nil {
			t.Errorf("a decline has no price: %v", d)
		}

		v.run(t, call{name: "rfq_execution_record", as: trader(0), method: "GET", path: path, want: http.StatusOK})
		v.run(t, call{name: "rfq_execution_records", as: viewer(0), method: "GET",
			path: rfqPath + "/execution-records?from=" + sent.Format("2006-01-02"), want: http.StatusOK})

		// Who reads it.
		x.obj(t, viewer(0), "GET", path, nil, http.StatusOK)
		x.obj(t, operator, "GET", path, nil, http.StatusOK)
		x.refused(t, trader(1), "GET", path, nil, http.StatusNotFound)
		x.refused(t, trader(0), "GET", rfqPath+"/"+missingID+"/execution-record", nil, http.StatusNotFound)

		// The list, by period, and as CSV.
		day := "?from=" + sent.Format("2006-01-02")
		if got := x.list(t, trader(0), rfqPath+"/execution-records"+day); len(got) != 1 || got[0]["rfq_id"] != id(r) {
			t.Errorf("requester's records of the day: %d, want its RFQ", len(got))
		}
		if got := x.list(t, trader(1), rfqPath+"/execution-records"+day); len(got) != 0 {
			t.Errorf("a dealer lists %d records, want none of another firm's RFQs", len(got))
		}
		if got := x.list(t, operator, rfqPath+"/execution-records"+day+"&to="+sent.Add(time.Second).Format("2006-01-02T15:04:05Z")); len(got) != 1 {
			t.Errorf("operator's records of the first second: %d, want 1", len(got))
		}
		x.refused(t, trader(0), "GET", rfqPath+"/execution-records?from=2026-11-21&to=2026-11-20", nil, http.StatusBadRequest, "to")
		x.refused(t, trader(0), "GET", rfqPath+"/execution-records?from=yesterday", nil, http.StatusBadRequest, "from")
		resp := x.send(t, trader(0), "GET", rfqPath+"/execution-records"+day, nil, http.StatusOK, map[string]string{"Accept": "text/csv"})
		if ct := resp.header.Get("Content-Type"); !strings.HasPrefix(ct, "text/csv") {
			t.Errorf("CSV answer's Content-Type %q", ct)
		}
		if !strings.Contains(string(resp.body), "\r\n") {
			t.Errorf("CSV rows do not end in CRLF (RFC 4180)")
		}
		rows, err := csv.NewReader(strings.NewReader(string(resp.body))).ReadAll()
		if err != nil {
			t.Fatalf("CSV: %v", err)
		}
		if len(rows) != 5 { // the header, dealer 1's quote, dealer 2's two, dealer 3's decline
			t.Fatalf("CSV has %d rows, want 5:\n%s", len(rows), resp.body)
		}
		col := map[string]int{}
		for i, h := range rows[0] {
			col[h] = i
		}
		outcomes := map[string]int{}
		for _, row := range rows[1:] {
			outcomes[row[col["outcome"]]]++
			if row[col["rfq_id"]] != id(r) || row[col["saving_vs_cover_amount"]] != "-1500" || row[col["best_ask_at_sent"]] != "100.3" {
				t.Errorf("CSV row %v", row)
			}
		}
		if outcomes["done"] != 1 || outcomes["cover"] != 1 || outcomes["withdrawn"] != 1 || outcomes["declined"] != 1 {
			t.Errorf("CSV outcomes %v", outcomes)
		}
	})
}
