package orderrecords_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/quagmt/udecimal"

	"github.com/bondvenue/bondvenue/internal/httpapi"
	"github.com/bondvenue/bondvenue/internal/records"
	"github.com/bondvenue/bondvenue/internal/store"
	"github.com/bondvenue/bondvenue/internal/testenv"
	"github.com/bondvenue/bondvenue/internal/trading"
	"github.com/bondvenue/bondvenue/internal/venue"
)

// rig is a demo venue on a fake clock served over HTTP, with the
// operator's token.
type rig struct {
	v     *testenv.DemoVenue
	clock *testenv.Clock
	srv   *httptest.Server
	token string
}

func newRig(t *testing.T, e store.Engine) *rig {
	t.Helper()
	clock := testenv.NewClock(time.Date(2026, 12, 7, 9, 0, 0, 0, time.UTC))
	db := testenv.Open(t, e)
	v := testenv.NewDemoVenueClocked(t, db, clock.Now)
	r := &rig{v: v, clock: clock}
	core := v.Core
	r.srv = httptest.NewServer(httpapi.New(httpapi.Deps{Trading: core.Svc, Live: core.Live, Cluster: core.Cluster, Engine: core.Sequencer,
		Keys: core.Keys, Access: core.Access, Records: core.Records}, httpapi.Config{Logger: slog.New(slog.DiscardHandler), Now: clock.Now}).Handler())
	t.Cleanup(r.srv.Close)
	body, _ := json.Marshal(map[string]string{"grant_type": "client_credentials", "client_id": v.Creds.Operator.ClientID,
		"client_secret": v.Creds.Operator.ClientSecret})
	res, err := http.Post(r.srv.URL+"/api/v1/auth/token", "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var tok struct {
		AccessToken string `json:"access_token"`
	}
	if err := json.NewDecoder(res.Body).Decode(&tok); err != nil || tok.AccessToken == "" {
		t.Fatalf("operator token: %v (status %d)", err, res.StatusCode)
	}
	r.token = tok.AccessToken
	return r
}

// get is an authenticated GET as the operator.
func (r *rig) get(t *testing.T, path, accept string) *http.Response {
	t.Helper()
	req, _ := http.NewRequest("GET", r.srv.URL+path, nil)
	req.Header.Set("Authorization", "Bearer "+r.token)
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// exported is the day's records as NDJSON objects, over HTTP.
func (r *rig) exported(t *testing.T, day string) []map[string]any {
	t.Helper()
	res := r.get(t, "/api/v1/admin/order-records?date="+day, records.NDJSON)
	defer res.Body.Close()
	if res.StatusCode != 200 {
		b, _ := io.ReadAll(res.Body)
		t.Fatalf("export: %d %s", res.StatusCode, b)
	}
	var out []map[string]any
	sc := bufio.NewScanner(res.Body)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("export line %q: %v", sc.Text(), err)
		}
		out = append(out, m)
	}
	return out
}

func dec(s string) *udecimal.Decimal {
	d := udecimal.MustParse(s)
	return &d
}

// want is one expected record: its event, order type, side, status and,
// on a fill, its liquidity flag.
type want struct{ event, typ, side, status, liquidity string }

func (w want) String() string {
	return fmt.Sprintf("%s %s %s %s %s", w.event, w.typ, w.side, w.status, w.liquidity)
}

func gotOf(m map[string]any) want {
	s := func(k string) string {
		v, _ := m[k].(string)
		return v
	}
	return want{s("event"), s("order_type"), s("buy_sell"), s("order_status"), s("passive_aggressive")}
}

// TestOrderRecordCodes: every path that enters, changes, fills or ends an
// order writes exactly the records it should, with their codes, in the
// commit of the event; the export numbers them 1..n.
func TestOrderRecordCodes(t *testing.T) {
	testenv.ForEach(t, func(t *testing.T, e store.Engine) {
		ctx := context.Background()
		r := newRig(t, e)
		v := r.v
		a, b := v.Principal(t, 0, venue.RoleTrader), v.Principal(t, 1, venue.RoleTrader)
		adminA := v.Principal(t, 0, venue.RoleAdmin)
		operator := venue.Principal{UserID: v.Creds.Operator.UserID, Role: venue.RoleOperator}
		otc := v.OTC(t)
		offer := func(p venue.Principal, market, dir, price, qty string) (trading.OfferView, error) {
			return v.Svc.CreateOffer(ctx, p, trading.OfferInput{InstrumentID: v.Instrument, MarketID: market, Direction: dir,
				Price: dec(price), Quantity: dec(qty)})
		}
		must := func(_ any, err error) {
			t.Helper()
			if err != nil {
				t.Fatal(err)
			}
		}
		var restingID string
		var rfqID, quoteID string
		steps := []struct {
			name string
			do   func(t *testing.T)
			want []want
		}{
			{"a bid rests", func(t *testing.T) {
				o, err := offer(a, v.Partial, "bid", "99", "5000")
				must(o, err)
				restingID = o.ID
			}, []want{{"NEWO", "LIMIT", "BUYI", "ACTI", ""}}},
			{"the member amends it", func(t *testing.T) {
				must(v.Svc.UpdateOffer(ctx, a, restingID, trading.ChangeInput{Price: dec("99.5")}))
			}, []want{{"REME", "LIMIT", "BUYI", "ACTI", ""}}},
			{"an ask fills part of it", func(t *testing.T) {
				must(offer(b, v.Partial, "ask", "99.5", "2000"))
			}, []want{{"NEWO", "LIMIT", "SELL", "ACTI", ""}, {"PARF", "LIMIT", "BUYI", "ACTI", "PASV"}, {"FILL", "LIMIT", "SELL", "INAC", "AGRE"}}},
			{"the member cancels the rest", func(t *testing.T) {
				must(v.Svc.DeleteOffer(ctx, a, restingID))
			}, []want{{"CAME", "LIMIT", "BUYI", "INAC", ""}}},
			{"a market order with nothing to trade expires", func(t *testing.T) {
				must(v.Svc.CreateOffer(ctx, a, trading.OfferInput{InstrumentID: v.Instrument, MarketID: v.Partial, Direction: "bid",
					Quantity: dec("1000"), MarketOrder: true}))
			}, []want{{"NEWO", "MARKET", "BUYI", "ACTI", ""}, {"EXPI", "MARKET", "BUYI", "INAC", ""}}},
			{"a gtd ask expires", func(t *testing.T) {
				until := r.clock.Now().Add(time.Minute)
				must(v.Svc.CreateOffer(ctx, b, trading.OfferInput{InstrumentID: v.Instrument, MarketID: v.Partial, Direction: "ask",
					Price: dec("101"), Quantity: dec("1000"), Validity: venue.GTD, ValidUntil: &until}))
				r.clock.Advance(2 * time.Minute)
				must(v.Svc.SetHalt(ctx, operator, v.Partial, v.Instrument, trading.HaltInput{Halted: ptr(false), Reason: "no change"}))
			}, []want{{"NEWO", "LIMIT", "SELL", "ACTI", ""}, {"EXPI", "LIMIT", "SELL", "INAC", ""}}},
			{"a halt refuses a new order", func(t *testing.T) {
				must(v.Svc.SetHalt(ctx, operator, v.Partial, v.Instrument, trading.HaltInput{Halted: ptr(true), Reason: "test"}))
				if _, err := offer(a, v.Partial, "bid", "99", "1000"); err == nil {
					t.Fatal("an order on a halted instrument was accepted")
				}
				must(v.Svc.SetHalt(ctx, operator, v.Partial, v.Instrument, trading.HaltInput{Halted: ptr(false), Reason: "test over"}))
			}, []want{{"REMO", "LIMIT", "BUYI", "INAC", ""}}},
			{"a price off the tick is refused before the engine", func(t *testing.T) {
				if _, err := offer(b, v.Partial, "ask", "99.1234567891", "1000"); err == nil {
					t.Fatal("a price of ten decimals was accepted")
				}
			}, []want{{"REMO", "LIMIT", "SELL", "INAC", ""}}},
			{"the firm's own kill switch cancels as the member", func(t *testing.T) {
				must(offer(a, v.Partial, "bid", "98", "1000"))
				must(v.Svc.SetKillSwitch(ctx, adminA, "", true))
				must(v.Svc.SetKillSwitch(ctx, adminA, "", false))
			}, []want{{"NEWO", "LIMIT", "BUYI", "ACTI", ""}, {"CAME", "LIMIT", "BUYI", "INAC", ""}}},
			{"the operator's kill switch cancels as the venue", func(t *testing.T) {
				must(offer(a, v.Partial, "bid", "98", "1000"))
				must(v.Svc.SetKillSwitch(ctx, operator, a.ParticipantID, true))
				must(v.Svc.SetKillSwitch(ctx, operator, a.ParticipantID, false))
			}, []want{{"NEWO", "LIMIT", "BUYI", "ACTI", ""}, {"CAMO", "LIMIT", "BUYI", "INAC", ""}}},
			{"cancel on disconnect cancels as the venue", func(t *testing.T) {
				o, err := offer(a, v.Partial, "bid", "98", "1000")
				must(o, err)
				must(v.Svc.Run(ctx, trading.Command{Op: trading.OpCancelOnDisconnect, Principal: a, ID: o.ID}))
			}, []want{{"NEWO", "LIMIT", "BUYI", "ACTI", ""}, {"CAMO", "LIMIT", "BUYI", "INAC", ""}}},
			{"an RFQ and a quote", func(t *testing.T) {
				rfq, err := v.Svc.CreateRFQ(ctx, a, trading.OfferInput{InstrumentID: v.Instrument, MarketID: otc, Direction: "bid",
					Quantity: dec("1000"), Counterparties: []string{b.ParticipantID}})
				must(rfq, err)
				rfqID = rfq.ID
				q, err := v.Svc.CreateOffer(ctx, b, trading.OfferInput{InstrumentID: v.Instrument, MarketID: otc, Direction: "ask",
					Price: dec("100"), Quantity: dec("1000"), MatchedOfferID: rfqID})
				must(q, err)
				quoteID = q.ID
			}, []want{{"NEWO", "RFQ", "BUYI", "INDI", ""}, {"NEWO", "QUOTE", "SELL", "FIRM", ""}}},
			{"the requester accepts the quote", func(t *testing.T) {
				must(v.Svc.AcceptQuote(ctx, a, quoteID, venue.Parties{ClientID: "AGGR", InvestmentDecision: "PM7", Capacity: "AOTC"}))
			}, []want{{"NEWO", "ACCEPT", "BUYI", "ACTI", ""}, {"FILL", "QUOTE", "SELL", "FIRM", "PASV"},
				{"FILL", "ACCEPT", "BUYI", "INAC", "AGRE"}, {"CHME", "RFQ", "BUYI", "INDI", ""}}},
		}
		seen := 0
		for _, s := range steps {
			r.clock.Advance(time.Second)
			s.do(t)
			recs := r.exported(t, "2026-12-07")
			var got []want
			for _, m := range recs[seen:] {
				got = append(got, gotOf(m))
			}
			if fmt.Sprint(got) != fmt.Sprint(s.want) {
				t.Errorf("%s: records\n got %v\nwant %v", s.name, got, s.want)
			}
			for i, m := range recs {
				if n, _ := m["sequence_number"].(float64); int(n) != i+1 {
					t.Fatalf("%s: record %d has sequence number %v", s.name, i+1, m["sequence_number"])
				}
			}
			seen = len(recs)
		}
		recs := r.exported(t, "2026-12-07")
		for _, m := range recs {
			if m["event"] == "REMO" && m["reason"] == nil {
				t.Errorf("a rejection without its reason: %v", m)
			}
			if m["segment_mic"] != "BVEN" || m["price_notation"] != "PERC" || m["quantity_notation"] != "NOML" ||
				m["order_type_classification"] != "LMTO" || m["execution_within_firm"] != m["user_id"] {
				t.Errorf("a record without the venue's constant fields or the default executor: %v", m)
			}
			// The accept names its client and decision maker; every other
			// order takes the defaults.
			wantParties := [3]any{nil, nil, "DEAL"}
			if m["order_type"] == "ACCEPT" {
				wantParties = [3]any{"AGGR", "PM7", "AOTC"}
			}
			if got := [3]any{m["client_id"], m["investment_decision_within_firm"], m["trading_capacity"]}; got != wantParties {
				t.Errorf("%s %s: parties %v, want %v", m["event"], m["order_type"], got, wantParties)
			}
			if ts, _ := m["event_time"].(string); len(ts) != len("2026-12-07T09:00:01.000000Z") || !strings.HasSuffix(ts, "Z") {
				t.Errorf("event time %q is not UTC to the microsecond", ts)
			}
		}
		_ = rfqID
	})
}

func ptr[T any](v T) *T { return &v }

// TestOrderRecordExport: the export's formats, its header row, its
// filters, and its refusals.
func TestOrderRecordExport(t *testing.T) {
	testenv.ForEach(t, func(t *testing.T, e store.Engine) {
		ctx := context.Background()
		r := newRig(t, e)
		v := r.v
		a, b := v.Principal(t, 0, venue.RoleTrader), v.Principal(t, 1, venue.RoleTrader)
		for _, p := range []venue.Principal{a, b} {
			r.clock.Advance(time.Second)
			if _, err := v.Svc.CreateOffer(ctx, p, trading.OfferInput{InstrumentID: v.Instrument, MarketID: v.Partial, Direction: "bid",
				Price: dec("97"), Quantity: dec("1000"), Notes: "a note, with \"quotes\""}); err != nil {
				t.Fatal(err)
			}
		}
		res := r.get(t, "/api/v1/admin/order-records?date=2026-12-07", "text/csv")
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != 200 || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/csv") {
			t.Fatalf("CSV export: %d %s", res.StatusCode, res.Header.Get("Content-Type"))
		}
		rows, err := csv.NewReader(bytes.NewReader(body)).ReadAll()
		if err != nil {
			t.Fatalf("CSV export is not RFC 4180: %v", err)
		}
		if len(rows) != 3 || rows[0][0] != "1 submitting_entity_id" || rows[0][10] != "15 sequence_number" || rows[2][10] != "2" {
			t.Fatalf("CSV export: %d rows, header %v, second record %v", len(rows), rows[0], rows[len(rows)-1])
		}
		if !bytes.Contains(body, []byte("\r\n")) {
			t.Error("CSV rows do not end in CRLF")
		}
		if n := len(r.exported(t, "2026-12-07")); n != 2 {
			t.Errorf("NDJSON export: %d records, want 2", n)
		}
		res = r.get(t, "/api/v1/admin/order-records?date=2026-12-07&participant_id="+b.ParticipantID, records.NDJSON)
		body, _ = io.ReadAll(res.Body)
		res.Body.Close()
		if lines := strings.Count(string(body), "\n"); lines != 1 || !strings.Contains(string(body), b.ParticipantID) {
			t.Errorf("export filtered by participant: %d lines: %s", lines, body)
		}
		if n := len(r.exported(t, "2026-12-08")); n != 0 {
			t.Errorf("another day's export holds %d records", n)
		}
		for _, c := range []struct {
			path, accept string
			want         int
		}{
			{"/api/v1/admin/order-records", "", 400},
			{"/api/v1/admin/order-records?date=07-12-2026", "", 400},
			{"/api/v1/admin/order-records?date=2026-12-07", "application/pdf", 406},
		} {
			res := r.get(t, c.path, c.accept)
			res.Body.Close()
			if res.StatusCode != c.want {
				t.Errorf("GET %s (Accept %q) = %d, want %d", c.path, c.accept, res.StatusCode, c.want)
			}
		}
	})
}
