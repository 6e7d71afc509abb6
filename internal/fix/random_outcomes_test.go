package fix_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"math/rand"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/quagmt/udecimal"

	"github.com/bondvenue/bondvenue/internal/demo"
	"github.com/bondvenue/bondvenue/internal/httpapi"
	"github.com/bondvenue/bondvenue/internal/store"
	"github.com/bondvenue/bondvenue/internal/testenv"
	"github.com/bondvenue/bondvenue/internal/trading"
	"github.com/bondvenue/bondvenue/internal/venue"
)

// TestRandomOutcomes drives N random RFQs (1–10 dealers each, some of them
// FIX sessions, the rest REST) through quotes, replacements, declines,
// withdrawals, passes, quantity amends, cancels, expiries and accepts, and
// checks every quote's outcome (and the done quote's cover price) against
// a model computed here from the actions taken: on REST (the requester's
// and the dealer's reads), on the event log (the last event of each
// quote), and on FIX (the dealer's last QuoteStatusReport 58, and the
// QuoteResponse 694 of a losing FIX dealer). A dealer never reads another
// dealer's price, nor the done price, on REST, its events or FIX.
//
// BONDVENUE_TEST_RFQ_OUTCOMES sets N (default 40, 100 with
// BONDVENUE_LONG_TESTS=1); BONDVENUE_TEST_RFQ_SEED replays a seed (printed
// by every run).
func TestRandomOutcomes(t *testing.T) {
	n := 40
	if os.Getenv("BONDVENUE_LONG_TESTS") != "" {
		n = 100
	}
	if s := os.Getenv("BONDVENUE_TEST_RFQ_OUTCOMES"); s != "" {
		var err error
		if n, err = strconv.Atoi(s); err != nil || n < 1 {
			t.Fatalf("BONDVENUE_TEST_RFQ_OUTCOMES=%q: want a positive count", s)
		}
	}
	seed := time.Now().UnixNano()
	if s := os.Getenv("BONDVENUE_TEST_RFQ_SEED"); s != "" {
		var err error
		if seed, err = strconv.ParseInt(s, 10, 64); err != nil {
			t.Fatalf("BONDVENUE_TEST_RFQ_SEED=%q: %v", s, err)
		}
	}
	d := startDriver(t)
	for _, e := range []store.Engine{store.SQLite, store.Postgres} {
		t.Run(string(e), func(t *testing.T) {
			t.Logf("seed %d, %d RFQs (replay: BONDVENUE_TEST_RFQ_SEED=%d BONDVENUE_TEST_RFQ_OUTCOMES=%d)", seed, n, seed, n)
			start := time.Now()
			x := newRandVenue(t, d, e, rand.New(rand.NewSource(seed)))
			for range n {
				x.runRFQ(t)
				x.skipSeen()
				if x.pending() >= 10 { // open RFQs count against the firms' risk limits
					x.finishPending(t)
				}
			}
			x.finishPending(t)
			x.check(t)
			t.Logf("%d RFQs, %d quote records (%d over FIX), %d FIX dealers, in %s; outcomes %v", n, len(x.quotes), x.fixQuotes(),
				x.fixDealers(), time.Since(start).Round(time.Millisecond), x.tally())
		})
	}
}

// rdealer is one dealer firm of the random test.
type rdealer struct {
	name    string
	p       venue.Principal
	cred    demo.UserCred
	account string
	token   string
	fix     *fixSession // nil: the dealer quotes and declines over REST
}

// rquote is one quote record as the model knows it.
type rquote struct {
	id, clientID string // clientID: the FIX QuoteID (117) of a FIX quote
	rfq          *rrfq
	dealer       *rdealer
	price        string // "" for a decline's record
	order        int    // time priority: the order of creation
	expiring     bool   // sent with a short valid_until
	outcome      string // the model's
	cover        string // the model's cover price of the done quote ("" = null)
}

// rrfq is one RFQ of the model.
type rrfq struct {
	id        string
	dir       string // the requester's direction
	qty       int64  // in min pieces
	dealers   []*rdealer
	live      map[*rdealer]*rquote
	declined  map[*rdealer]bool
	quotes    []*rquote
	ended     bool
	ending    string    // what ends it after the bulk wait: "expire" (the RFQ), "qexpire" (quotes; then accept or cancel)
	expiresAt time.Time // latest expiry the test waits for
}

type randVenue struct {
	v         *venueEnv
	d         *driver
	engine    store.Engine
	rng       *rand.Rand
	srv       *httptest.Server
	market    string
	in        venue.Instrument
	requester *rdealer
	dealers   []*rdealer
	rfqs      []*rrfq
	quotes    []*rquote
	usedPx    map[string]bool
	order     int
	cid       int
	snap      []fixLine // the driver's lines when the checks began
	// clock is the venue's: it stands still while the RFQs run, so that
	// a quote or an RFQ with a deadline expires only when the test moves
	// it on (finishPending), however long the steps take.
	clock *testenv.Clock
}

func newRandVenue(t *testing.T, d *driver, e store.Engine, rng *rand.Rand) *randVenue {
	t.Helper()
	ctx := context.Background()
	db := testenv.Open(t, e)
	clock := testenv.NewClock(time.Now())
	core, creds := testenv.Demo(t, db, testenv.Config{Trading: trading.Config{Logger: slog.New(slog.DiscardHandler), RateLimit: 1e9, RateBurst: 1e9,
		Now: clock.Now}})
	svc := core.Svc
	v := &venueEnv{core: core, svc: svc, creds: creds, logs: &syncBuffer{}, db: db}
	v.start(t)
	srv := httptest.NewServer(httpapi.New(httpapi.Deps{Trading: svc, Live: core.Live, Cluster: core.Cluster, Engine: core.Sequencer, Keys: core.Keys, Access: core.Access, Records: core.Records}, httpapi.Config{Logger: slog.New(slog.DiscardHandler),
		TokenRateLimit: 1e9, TokenRateBurst: 1e9}).Handler())
	t.Cleanup(srv.Close)
	x := &randVenue{v: v, d: d, engine: e, rng: rng, srv: srv, usedPx: map[string]bool{}, clock: clock}
	x.market, x.in = v.otcBook(t)
	demoFirm := func(i int) *rdealer {
		u, p := v.trader(t, i)
		return &rdealer{name: fmt.Sprintf("p%d", i), p: p, cred: u, account: creds.Participants[i].AccountIDs[0]}
	}
	x.requester = demoFirm(0)
	x.dealers = []*rdealer{demoFirm(1), demoFirm(2)}
	// Eight more dealer firms, each the requester's counterparty.
	for k := range 8 {
		x.dealers = append(x.dealers, x.addFirm(t, ctx, k))
	}
	for _, r := range append([]*rdealer{x.requester}, x.dealers...) {
		r.token = x.token(t, r.cred)
	}
	// About half of the dealers (at least one) quote and decline over FIX.
	for i, dl := range x.dealers {
		if i == 0 || rng.Intn(2) == 0 {
			name := fmt.Sprintf("rnd-%s-%d", e, i)
			dl.fix = x.logonAs(t, name, strings.ToUpper(name), dl.cred)
		}
	}
	return x
}

// addFirm creates dealer firm k as internal/demo does: participant,
// account, trader with an API credential, limits, settlement provider, and
// the counterparty relation with the requester.
func (x *randVenue) addFirm(t *testing.T, ctx context.Context, k int) *rdealer {
	t.Helper()
	svc, sys := x.v.svc, trading.System
	ptr := func(s string) *string { return &s }
	prefix := fmt.Sprintf("529900RNDQ%08d", k+1)
	lei := prefix + venue.LEICheckDigits(prefix)
	code := fmt.Sprintf("RD%d", k)
	bic := fmt.Sprintf("RNDQDEF%dXXX", k)
	p, err := svc.CreateParticipant(ctx, sys, trading.ParticipantInput{LEI: &lei, Name: ptr(fmt.Sprintf("Random Dealer %d AG", k)),
		CategoryName: ptr("professional"), Country: ptr("DE"), City: ptr("Frankfurt"), PostalCode: ptr("60311"),
		Address: ptr(fmt.Sprintf("Neue Mainzer Str. %d", k+1)), State: ptr(""), LegalForm: ptr("AG"),
		RegistrationNumber: ptr(fmt.Sprintf("HRB 9%05d", k)), TaxNumber: ptr(fmt.Sprintf("DE8B 9%05d", k)),
		CSD: ptr("Clearstream Banking AG"), CSDBIC11: ptr("DAKVDEFFXXX"), CustodyAccountNumber: ptr(code + "-7100"),
		CustodyAccountBeneficiaryBIC8: ptr(bic[:8])})
	if err != nil {
		t.Fatalf("dealer firm %d: %v", k, err)
	}
	acc, err := svc.CreateAccount(ctx, sys, trading.AccountInput{ParticipantID: p.ID, Number: code + "-0001", Type: "agent"})
	if err != nil {
		t.Fatalf("dealer firm %d account: %v", k, err)
	}
	role := venue.RoleTrader
	u, err := svc.CreateUser(ctx, sys, trading.UserInput{ParticipantID: &p.ID, Email: ptr(fmt.Sprintf("trading@rd%d.example", k)), Role: &role})
	if err != nil {
		t.Fatalf("dealer firm %d user: %v", k, err)
	}
	cred, err := svc.IssueCredential(ctx, sys, u.ID)
	if err != nil {
		t.Fatalf("dealer firm %d credential: %v", k, err)
	}
	for name, v := range map[string]string{venue.LimitMaxOffer: "50000000", venue.LimitAllOfferSum: "1000000000",
		venue.LimitAllOfferUserSum: "1000000000", venue.LimitMaxOfferValue: "200000000"} {
		val := udecimal.MustParse(v)
		if _, err := svc.SetRiskLimit(ctx, sys, p.ID, trading.RiskLimitInput{Name: name, Value: &val}); err != nil {
			t.Fatalf("dealer firm %d limit %s: %v", k, name, err)
		}
	}
	sp, err := svc.CreateSettlementProvider(ctx, sys, venue.SettlementProvider{
		ParticipantID: p.ID, AccountID: acc.ID, Provider: "Clearstream Banking Frankfurt", Type: "custodian", Enabled: true,
		PSET: "DAKVDEFFXXX", AgentName: p.Name, AgentBIC: bic, AgentNumber: fmt.Sprintf("8%03d", k),
		LocalCode: fmt.Sprintf("%04d", 8100+k), CSDBIC11: "DAKVDEFFXXX", CustodyAccountNumber: code + "-CUST-01",
		BeneficiaryBIC8: bic[:8], BuyrSellName: p.Name, BuyrSellBIC: bic, Safe: "CBF", SwiatID: bic, D7ID: fmt.Sprintf("D8%05d", k),
	})
	if err != nil {
		t.Fatalf("dealer firm %d provider: %v", k, err)
	}
	if _, err := svc.SetParticipantDefaultProvider(ctx, sys, sp.ID, p.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.SetAccountDefaultProvider(ctx, sys, sp.ID, acc.ID); err != nil {
		t.Fatal(err)
	}
	on := true
	if _, err := svc.SetCounterparty(ctx, sys, x.requester.p.ParticipantID, p.ID, &on); err != nil {
		t.Fatalf("dealer firm %d counterparty: %v", k, err)
	}
	return &rdealer{name: fmt.Sprintf("rd%d", k), account: acc.ID,
		p:    venue.Principal{UserID: u.ID, ParticipantID: p.ID, Role: venue.RoleTrader, ClientID: cred.ClientID},
		cred: demo.UserCred{UserID: u.ID, Email: u.Email, Role: string(role), ClientID: cred.ClientID, ClientSecret: cred.Secret}}
}

func (x *randVenue) logonAs(t *testing.T, name, compID string, u demo.UserCred) *fixSession {
	t.Helper()
	s := x.d.session(name)
	x.d.do(t, map[string]any{"op": "logon", "id": name, "host": "127.0.0.1", "port": x.v.port, "sender": compID,
		"target": "BONDVENUE", "username": u.ClientID, "password": u.ClientSecret, "reset": true, "heartbeat": 30})
	s.wait(t, "logon", func(l fixLine) bool { return l.Event == "logon" })
	return s
}

// --- REST ---

type jobj = map[string]any

func (x *randVenue) token(t *testing.T, u demo.UserCred) string {
	t.Helper()
	var body struct {
		AccessToken string `json:"access_token"`
	}
	st, b := x.call(t, "", "POST", "/api/v1/auth/token", jobj{"grant_type": "client_credentials", "client_id": u.ClientID,
		"client_secret": u.ClientSecret})
	if st != http.StatusOK || json.Unmarshal(b, &body) != nil {
		t.Fatalf("token: %d %s", st, b)
	}
	return body.AccessToken
}

// call sends one request and returns its status and body.
func (x *randVenue) call(t *testing.T, token, method, path string, body any) (int, []byte) {
	t.Helper()
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			t.Fatal(err)
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, x.srv.URL+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := x.srv.Client().Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, b
}

// must sends a request that must succeed and decodes its answer into out.
func (x *randVenue) must(t *testing.T, who *rdealer, method, path string, body, out any) {
	t.Helper()
	st, b := x.call(t, who.token, method, path, body)
	if st != http.StatusOK && st != http.StatusCreated {
		t.Fatalf("%s %s as %s: status %d: %s", method, path, who.name, st, b)
	}
	if out != nil {
		d := json.NewDecoder(bytes.NewReader(b))
		d.UseNumber()
		if err := d.Decode(out); err != nil {
			t.Fatalf("%s %s: %v: %s", method, path, err, b)
		}
	}
}

// --- the run ---

// price returns a price never used before in this venue (4 decimals, the
// last one not 0, so its text is the same however it is written), from 99
// to 101: well inside the price collar around the last trade.
func (x *randVenue) price() string {
	for {
		p := fmt.Sprintf("%d.%03d%d", 99+x.rng.Intn(2), x.rng.Intn(1000), 1+x.rng.Intn(9))
		if !x.usedPx[p] {
			x.usedPx[p] = true
			return p
		}
	}
}

func (x *randVenue) qty(pieces int64) string {
	return x.in.MinPiece.Mul(udecimal.MustFromInt64(pieces, 0)).String()
}

// validUntil is a valid_until about secs seconds away on the venue's
// clock (REST takes whole seconds), and when it is.
func (x *randVenue) validUntil(secs int) (string, time.Time) {
	at := x.clock.Now().UTC().Add(time.Duration(secs) * time.Second).Truncate(time.Second)
	return at.Format("2006-01-02 15:04:05"), at
}

func (x *randVenue) runRFQ(t *testing.T) {
	t.Helper()
	rng := x.rng
	k := 1 + rng.Intn(10)
	dealers := slices.Clone(x.dealers)
	rng.Shuffle(len(dealers), func(a, b int) { dealers[a], dealers[b] = dealers[b], dealers[a] })
	r := &rrfq{dir: []string{venue.Bid, venue.Ask}[rng.Intn(2)], qty: 1 + int64(rng.Intn(3)), dealers: dealers[:k],
		live: map[*rdealer]*rquote{}, declined: map[*rdealer]bool{}}
	switch p := rng.Intn(100); {
	case p < 6:
		r.ending = "expire"
	case p < 12:
		r.ending = "qexpire"
	}
	var cps []string
	for _, dl := range r.dealers {
		cps = append(cps, dl.p.ParticipantID)
	}
	body := jobj{"instrument_id": x.in.ID, "market_id": x.market, "direction": r.dir, "quantity": x.qty(r.qty), "counterparties": cps}
	if r.ending == "expire" {
		vu, at := x.validUntil(4) // the venue's clock stands still meanwhile
		body["validity"], body["valid_until"] = "gtd", vu
		r.expiresAt = at
	}
	var created jobj
	x.must(t, x.requester, "POST", "/api/v1/participant/rfq", body, &created)
	r.id, _ = created["id"].(string)
	x.rfqs = append(x.rfqs, r)

	steps := rng.Intn(2*k + 4)
	if r.ending == "expire" {
		steps = min(steps, 6)
	}
	for range steps {
		if r.ended {
			break
		}
		x.step(t, r)
	}
	if r.ended {
		return
	}
	switch r.ending {
	case "expire":
		return // it expires on its own; checked after the bulk wait
	case "qexpire":
		// Some quotes expire on their own; the RFQ is decided after.
		for _, dl := range r.dealers {
			if !r.declined[dl] && rng.Intn(2) == 0 {
				x.quote(t, r, dl, true)
			}
		}
		return
	}
	x.end(t, r)
}

// step is one random action on an open RFQ.
func (x *randVenue) step(t *testing.T, r *rrfq) {
	t.Helper()
	rng := x.rng
	dl := r.dealers[rng.Intn(len(r.dealers))]
	live := r.liveQuotes()
	switch p := rng.Intn(100); {
	case p < 55:
		if !r.declined[dl] {
			x.quote(t, r, dl, false)
		}
	case p < 63:
		if !r.declined[dl] {
			x.decline(t, r, dl)
		}
	case p < 73:
		if q := r.live[dl]; q != nil { // the dealer withdraws its quote
			x.must(t, dl, "DELETE", "/api/v1/participant/offers/"+q.id, nil, nil)
			x.close(r, q, venue.OutcomeWithdrawn)
		}
	case p < 83:
		if len(live) > 0 { // the requester passes on a quote
			q := live[rng.Intn(len(live))]
			x.must(t, x.requester, "DELETE", "/api/v1/participant/offers/"+q.id, nil, nil)
			x.close(r, q, venue.OutcomePassed)
		}
	case p < 89:
		// The requester amends the quantity: every live quote is passed.
		r.qty = 1 + (r.qty+int64(rng.Intn(2)))%3
		x.must(t, x.requester, "PUT", "/api/v1/participant/rfq/"+r.id, jobj{"entity": jobj{"quantity": x.qty(r.qty)}}, nil)
		for _, q := range live {
			x.close(r, q, venue.OutcomePassed)
		}
	case p < 93:
		if r.ending == "" {
			x.end(t, r)
		}
	}
}

func (r *rrfq) liveQuotes() []*rquote {
	var out []*rquote
	for _, q := range r.live {
		out = append(out, q)
	}
	slices.SortFunc(out, func(a, b *rquote) int { return a.order - b.order })
	return out
}

func (x *randVenue) close(r *rrfq, q *rquote, outcome string) {
	q.outcome = outcome
	delete(r.live, q.dealer)
}

// quote is a dealer's new quote (replacing its live one): a price never
// used before, or now and then exactly another live quote's (a tie).
func (x *randVenue) quote(t *testing.T, r *rrfq, dl *rdealer, expiring bool) {
	t.Helper()
	px := x.price()
	if live := r.liveQuotes(); len(live) > 0 && x.rng.Intn(6) == 0 {
		if o := live[x.rng.Intn(len(live))]; o.dealer != dl {
			px = o.price
		}
	}
	x.order++
	q := &rquote{rfq: r, dealer: dl, price: px, order: x.order, expiring: expiring}
	var vu string
	if expiring {
		var at time.Time
		vu, at = x.validUntil(2)
		if at.After(r.expiresAt) {
			r.expiresAt = at
		}
	}
	if dl.fix != nil {
		x.cid++
		q.clientID = fmt.Sprintf("RQ-%s-%d", x.engine, x.cid)
		tag := 133
		if r.dir == venue.Ask {
			tag = 132
		}
		fields := []any{117, q.clientID, 131, r.id, 1, dl.account, tag, px, 60, fixNow()}
		if expiring {
			at, _ := time.Parse("2006-01-02 15:04:05", vu)
			fields = append(fields, 62, at.UTC().Format("20060102-15:04:05.000"))
		}
		dl.fix.send(t, "S", fields...)
		ai := dl.fix.msg(t, "AI", func(l fixLine) bool {
			return l.field(117) == q.clientID && (l.field(297) == "16" || l.field(297) == "5")
		})
		if ai.field(297) != "16" {
			t.Fatalf("FIX quote %s of %s on RFQ %s refused: %s", q.clientID, dl.name, r.id, ai.Raw)
		}
		o, err := x.v.svc.OfferByClientOrderID(context.Background(), dl.p, q.clientID)
		if err != nil {
			t.Fatalf("the FIX quote %s: %v", q.clientID, err)
		}
		q.id = o.ID
	} else {
		side := venue.Ask
		if r.dir == venue.Ask {
			side = venue.Bid
		}
		body := jobj{"instrument_id": x.in.ID, "market_id": x.market, "direction": side, "price_per_unit": px,
			"quantity": x.qty(r.qty), "matched_offer_id": r.id}
		if expiring {
			body["validity"], body["valid_until"] = "gtd", vu
		}
		var o jobj
		x.must(t, dl, "POST", "/api/v1/participant/offers", body, &o)
		q.id, _ = o["id"].(string)
	}
	if prev := r.live[dl]; prev != nil {
		x.close(r, prev, venue.OutcomeWithdrawn)
	}
	r.live[dl] = q
	r.quotes = append(r.quotes, q)
	x.quotes = append(x.quotes, q)
}

// decline is a dealer declining the RFQ (FIX AG or REST reject): its live
// quote is withdrawn and a record of the decline made; when every dealer
// has declined, the RFQ ends.
func (x *randVenue) decline(t *testing.T, r *rrfq, dl *rdealer) {
	t.Helper()
	known := map[string]bool{}
	for _, q := range r.quotes {
		known[q.id] = true
	}
	if dl.fix != nil {
		dl.fix.send(t, "AG", 131, r.id, 658, 10, 146, 1, 55, "[N/A]", 48, x.in.Terms.ISIN, 22, 4)
	} else {
		x.must(t, dl, "PUT", "/api/v1/participant/rfq/"+r.id+"/reject", nil, nil)
	}
	// The decline's record: the dealer's record of the RFQ the test does
	// not know yet (waited for when the decline went over FIX).
	var rec string
	testenv.Wait(t, fmt.Sprintf("the record of dealer %s's decline of RFQ %s", dl.name, r.id), func() bool {
		v, err := x.v.svc.RFQ(context.Background(), dl.p, r.id)
		if err != nil {
			t.Fatalf("dealer %s reads RFQ %s: %v", dl.name, r.id, err)
		}
		for _, q := range v.MatchedOffers {
			if q.ParticipantID == dl.p.ParticipantID && !known[q.ID] {
				rec = q.ID
			}
		}
		return rec != ""
	})
	if q := r.live[dl]; q != nil {
		x.close(r, q, venue.OutcomeWithdrawn)
	}
	x.order++
	q := &rquote{id: rec, rfq: r, dealer: dl, order: x.order, outcome: venue.OutcomeDeclined}
	r.quotes = append(r.quotes, q)
	x.quotes = append(x.quotes, q)
	r.declined[dl] = true
	if len(r.declined) == len(r.dealers) {
		r.ended = true
	}
}

// end ends an open RFQ: the requester accepts a live quote (if any) or
// cancels the RFQ.
func (x *randVenue) end(t *testing.T, r *rrfq) {
	t.Helper()
	live := r.liveQuotes()
	if len(live) == 0 || x.rng.Intn(5) == 0 {
		x.must(t, x.requester, "DELETE", "/api/v1/participant/rfq/"+r.id, nil, nil)
		for _, q := range live {
			x.close(r, q, venue.OutcomeCancelled)
		}
		r.ended = true
		return
	}
	done := live[x.rng.Intn(len(live))]
	x.must(t, x.requester, "PUT", "/api/v1/participant/offers/"+done.id+"/accept", nil, nil)
	x.accepted(r, done)
}

// accepted is the model of an accept: the done quote; a live quote at the
// done price is tied (and the cover price is the done price); otherwise
// the best other live quote for the requester (then the earliest) is the
// cover, and the rest are done away.
func (x *randVenue) accepted(r *rrfq, done *rquote) {
	var others []*rquote
	for _, q := range r.liveQuotes() {
		if q != done {
			others = append(others, q)
		}
	}
	dec := func(s string) udecimal.Decimal { return udecimal.MustParse(s) }
	better := func(a, b *rquote) bool { // a beats b for the requester
		if c := dec(a.price).Cmp(dec(b.price)); c != 0 {
			return (c < 0) == (r.dir == venue.Bid)
		}
		return a.order < b.order
	}
	var cover *rquote
	tied := false
	for _, q := range others {
		if dec(q.price).Equal(dec(done.price)) {
			q.outcome, tied = venue.OutcomeTied, true
		} else if cover == nil || better(q, cover) {
			cover = q
		}
	}
	switch {
	case tied:
		done.cover = done.price
	case cover != nil:
		cover.outcome, done.cover = venue.OutcomeCover, cover.price
	}
	for _, q := range others {
		if q.outcome == "" {
			q.outcome = venue.OutcomeDoneAway
		}
		delete(r.live, q.dealer)
	}
	done.outcome = venue.OutcomeDone
	delete(r.live, done.dealer)
	r.ended = true
}

// finishPending waits once for every short validity to pass, then ends
// the RFQs left for it: an expiring RFQ's live quotes expired with it; an
// RFQ with expiring quotes is decided among the quotes still live.
func (x *randVenue) finishPending(t *testing.T) {
	t.Helper()
	var last time.Time
	for _, r := range x.rfqs {
		if !r.ended && r.expiresAt.After(last) {
			last = r.expiresAt
		}
	}
	// The venue's clock moves past the last deadline; its timer, armed
	// for the deadline's distance, finds them past when it fires. (An RFQ
	// left for quotes to expire may have got none that expire: it has no
	// deadline, and is ended below all the same.)
	if !last.IsZero() {
		x.clock.Advance(last.Sub(x.clock.Now()) + 1500*time.Millisecond)
	}
	for _, r := range x.rfqs {
		if r.ended || r.ending == "" {
			continue
		}
		for _, q := range r.liveQuotes() {
			if r.ending == "expire" || q.expiring {
				x.close(r, q, venue.OutcomeExpired)
			}
		}
		if r.ending == "expire" {
			x.awaitStatus(t, r, "expired")
			r.ended = true
			continue
		}
		// Every expiring quote has expired by now (the venue says so
		// before the RFQ is decided).
		for _, q := range r.quotes {
			if q.expiring && q.outcome == venue.OutcomeExpired {
				x.awaitQuote(t, q, "expired")
			}
		}
		x.end(t, r)
	}
}

func (x *randVenue) awaitStatus(t *testing.T, r *rrfq, status string) {
	t.Helper()
	testenv.Wait(t, fmt.Sprintf("RFQ %s %s", r.id, status), func() bool {
		var v jobj
		x.must(t, x.requester, "GET", "/api/v1/participant/rfq/"+r.id, nil, &v)
		return v["status"] == status
	})
}

func (x *randVenue) awaitQuote(t *testing.T, q *rquote, status string) {
	t.Helper()
	testenv.Wait(t, fmt.Sprintf("quote %s %s", q.id, status), func() bool {
		var v jobj
		x.must(t, q.dealer, "GET", "/api/v1/participant/offers/"+q.id, nil, &v)
		return v["status"] == status
	})
}

// --- the checks ---

func str(v any) string {
	switch s := v.(type) {
	case nil:
		return ""
	case string:
		return s
	case json.Number:
		return s.String()
	}
	return fmt.Sprint(v)
}

// sameDec compares a decimal the venue wrote with the model's ("" = null).
func sameDec(got any, want string) bool {
	g := str(got)
	if g == "" || want == "" {
		return g == want
	}
	a, err1 := udecimal.Parse(g)
	b, err2 := udecimal.Parse(want)
	return err1 == nil && err2 == nil && a.Equal(b)
}

var outcomes = []string{venue.OutcomeDone, venue.OutcomeCover, venue.OutcomeTied, venue.OutcomeDoneAway, venue.OutcomePassed,
	venue.OutcomeDeclined, venue.OutcomeWithdrawn, venue.OutcomeExpired, venue.OutcomeCancelled}

func (x *randVenue) check(t *testing.T) {
	t.Helper()
	for _, r := range x.rfqs {
		if !r.ended || len(r.live) != 0 {
			t.Fatalf("test bug: RFQ %s left open in the model (ended %v, ending %q, %d live, %d quotes, declined %d of %d)", r.id, r.ended, r.ending, len(r.live), len(r.quotes), len(r.declined), len(r.dealers))
		}
	}
	byID := map[string]*rquote{}
	for _, q := range x.quotes {
		if q.outcome == "" || !slices.Contains(outcomes, q.outcome) {
			t.Fatalf("test bug: quote %s has model outcome %q", q.id, q.outcome)
		}
		byID[q.id] = q
	}
	// The event log as the requester reads it: the last event of each
	// quote, and where each RFQ starts.
	last := map[string]jobj{}
	created := map[string]int64{}
	for after := int64(0); ; {
		var evs []jobj
		x.must(t, x.requester, "GET", fmt.Sprintf("/api/v1/events?after=%d&limit=1000", after), nil, &evs)
		for _, ev := range evs {
			seq, _ := ev["seq"].(json.Number).Int64()
			after = seq
			data, _ := ev["data"].(jobj)
			typ := str(ev["type"])
			id := str(data["id"])
			if strings.HasPrefix(typ, "quote.") {
				// One outcome: once set, no later event changes it.
				if prev := str(last[id]["outcome"]); prev != "" && str(data["outcome"]) != prev {
					t.Errorf("quote %s: event %d (%s) has outcome %q after %q", id, seq, typ, str(data["outcome"]), prev)
				}
				last[id] = data
			}
			if typ == "rfq.create" {
				created[id] = seq
			}
		}
		if len(evs) < 1000 {
			break
		}
	}

	x.checkFIX(t)
	idx := x.fixIndex()
	for _, r := range x.rfqs {
		// REST, as the requester: every quote of the RFQ, with the
		// model's outcome and cover price.
		var view jobj
		x.must(t, x.requester, "GET", "/api/v1/participant/rfq/"+r.id, nil, &view)
		got := map[string]jobj{}
		list, _ := view["matched_offers"].([]any)
		for _, o := range list {
			q, _ := o.(jobj)
			got[str(q["id"])] = q
		}
		if len(got) != len(r.quotes) {
			t.Errorf("RFQ %s: the requester reads %d quote records, the model has %d", r.id, len(got), len(r.quotes))
		}
		for _, q := range r.quotes {
			rec, ok := got[q.id]
			if !ok {
				t.Errorf("RFQ %s: the requester does not read quote %s of %s (model %s)", r.id, q.id, q.dealer.name, q.outcome)
				continue
			}
			x.checkRecord(t, "the requester's RFQ read", q, rec)
			var own jobj
			x.must(t, q.dealer, "GET", "/api/v1/participant/offers/"+q.id, nil, &own)
			x.checkRecord(t, "the dealer's quote read", q, own)
			if ev, ok := last[q.id]; !ok {
				t.Errorf("quote %s: no event", q.id)
			} else {
				x.checkRecord(t, "its last event", q, ev)
			}
		}
		x.checkLeaks(t, r, created[r.id], idx)
	}
	for id := range last {
		if byID[id] == nil {
			t.Errorf("the event log has quote %s the model does not know", id)
		}
	}
}

func (x *randVenue) checkRecord(t *testing.T, where string, q *rquote, rec jobj) {
	t.Helper()
	if o := str(rec["outcome"]); o != q.outcome {
		t.Errorf("RFQ %s, quote %s of %s (price %s): outcome %q in %s, model %q", q.rfq.id, q.id, q.dealer.name, q.price, o, where, q.outcome)
	}
	if !sameDec(rec["cover_price"], q.cover) {
		t.Errorf("RFQ %s, quote %s of %s: cover_price %v in %s, model %q", q.rfq.id, q.id, q.dealer.name, rec["cover_price"], where, q.cover)
	}
	if !sameDec(rec["price"], q.price) && !sameDec(rec["price_per_unit"], q.price) {
		t.Errorf("RFQ %s, quote %s of %s: price %v/%v in %s, model %q", q.rfq.id, q.id, q.dealer.name, rec["price"], rec["price_per_unit"], where, q.price)
	}
}

// checkLeaks: no dealer of r reads the price of another dealer's quote on
// r (the done price included), unless it quoted that price itself (a tie)
// or won with it as its cover price,
// in its reads of the RFQ and of its quotes, its events from the RFQ's
// start (less the public tape's), and the FIX messages it received about
// the RFQ.
func (x *randVenue) checkLeaks(t *testing.T, r *rrfq, startSeq int64, idx map[string]map[string][]int) {
	t.Helper()
	if startSeq == 0 {
		t.Errorf("RFQ %s: no rfq.create event for the requester", r.id)
	}
	for _, dl := range r.dealers {
		own := map[string]bool{} // prices it may read: its own, and the cover price when it won
		for _, q := range r.quotes {
			if q.dealer == dl && q.price != "" {
				own[q.price] = true
			}
			if q.dealer == dl && q.cover != "" {
				own[q.cover] = true
			}
		}
		var secrets []string
		for _, q := range r.quotes {
			if q.dealer != dl && q.price != "" && !own[q.price] {
				secrets = append(secrets, q.price)
			}
		}
		if len(secrets) == 0 {
			continue
		}
		paths := []string{"/api/v1/participant/rfq/" + r.id, fmt.Sprintf("/api/v1/events?after=%d&limit=1000", startSeq-1)}
		for _, q := range r.quotes {
			if q.dealer == dl {
				paths = append(paths, "/api/v1/participant/offers/"+q.id)
			}
		}
		for _, p := range paths {
			st, b := x.call(t, dl.token, "GET", p, nil)
			if st != http.StatusOK {
				t.Errorf("GET %s as %s: status %d", p, dl.name, st)
			}
			if strings.HasPrefix(p, "/api/v1/events") {
				// The public tape shows every trade's price to every reader
				// (post-trade transparency, naming no RFQ nor dealer).
				var evs []jobj
				if err := json.Unmarshal(b, &evs); err != nil {
					t.Fatalf("GET %s: %v", p, err)
				}
				evs = slices.DeleteFunc(evs, func(e jobj) bool { return e["type"] == "tape.publish" })
				b, _ = json.Marshal(evs)
			}
			for _, s := range secrets {
				if containsNumber(string(b), s) {
					t.Errorf("RFQ %s: GET %s as %s shows another dealer's price %s", r.id, p, dl.name, s)
				}
			}
		}
		if dl.fix == nil {
			continue
		}
		seen := map[int]bool{}
		keys := []string{r.id}
		for _, q := range r.quotes {
			keys = append(keys, q.id, q.clientID)
		}
		for _, key := range keys {
			for _, i := range idx[dl.fix.name][key] {
				l := x.snap[i]
				if seen[i] {
					continue
				}
				seen[i] = true
				for _, s := range secrets {
					if strings.Contains(l.Raw, "="+s+"|") {
						t.Errorf("RFQ %s: FIX dealer %s receives another dealer's price %s: %s", r.id, dl.name, s, l.Raw)
					}
				}
			}
		}
	}
}

// fixIndex indexes the messages each session received by the RFQ (131)
// and quote (117) they name: session name → id → line numbers in x.snap.
func (x *randVenue) fixIndex() map[string]map[string][]int {
	x.d.mu.Lock()
	defer x.d.mu.Unlock()
	x.snap = slices.Clone(x.d.lines)
	idx := map[string]map[string][]int{}
	for i, l := range x.snap {
		if l.Event != "msg" {
			continue
		}
		m := idx[l.ID]
		if m == nil {
			m = map[string][]int{}
			idx[l.ID] = m
		}
		for _, tag := range []int{131, 117} {
			if id := l.field(tag); id != "" {
				m[id] = append(m[id], i)
			}
		}
	}
	return idx
}

// sessionLines is every message a session received so far.
func (x *randVenue) sessionLines(s *fixSession) []fixLine {
	x.d.mu.Lock()
	defer x.d.mu.Unlock()
	var out []fixLine
	for _, l := range x.d.lines {
		if l.ID == s.name && l.Event == "msg" {
			out = append(out, l)
		}
	}
	return out
}

// checkFIX: each FIX dealer's quote ends with a QuoteStatusReport whose 58
// is the model's outcome (and no other outcome before), and a losing one
// gets a QuoteResponse 694 = 4 (cover) or 5 (done away; 58 tied when
// tied); no other quote gets a QuoteResponse. Each FIX dealer got the
// QuoteRequest of each of its RFQs.
func (x *randVenue) checkFIX(t *testing.T) {
	t.Helper()
	// Wait for the last reports (they follow the commits).
	deadline, limited := testenv.Deadline(t)
	for ; ; time.Sleep(20 * time.Millisecond) {
		missing := ""
		final, aj := map[string]bool{}, map[string]bool{}
		for _, dl := range x.dealers {
			if dl.fix == nil {
				continue
			}
			for _, l := range x.sessionLines(dl.fix) {
				switch {
				case l.Type == "AI" && l.field(58) != "":
					final[l.field(117)] = true
				case l.Type == "AJ":
					aj[l.field(117)] = true
				}
			}
		}
		for _, q := range x.quotes {
			lost := q.outcome == venue.OutcomeCover || q.outcome == venue.OutcomeDoneAway || q.outcome == venue.OutcomeTied
			if q.clientID != "" && (!final[q.clientID] || (lost && !aj[q.clientID])) {
				missing = q.clientID
			}
		}
		if missing == "" {
			break
		}
		if limited && time.Now().After(deadline) {
			t.Errorf("FIX quote %s: no final QuoteStatusReport (or QuoteResponse) when the test's time ran out", missing)
			break
		}
	}
	time.Sleep(200 * time.Millisecond) // a report too many would come now
	for _, dl := range x.dealers {
		if dl.fix == nil {
			continue
		}
		ais, ajs, rs := map[string][]fixLine{}, map[string][]fixLine{}, map[string]bool{}
		for _, l := range x.sessionLines(dl.fix) {
			switch l.Type {
			case "AI":
				ais[l.field(117)] = append(ais[l.field(117)], l)
			case "AJ":
				ajs[l.field(117)] = append(ajs[l.field(117)], l)
			case "R":
				rs[l.field(131)] = true
			}
		}
		for _, r := range x.rfqs {
			if slices.Contains(r.dealers, dl) && !rs[r.id] {
				t.Errorf("FIX dealer %s got no QuoteRequest for RFQ %s", dl.name, r.id)
			}
		}
		for _, q := range x.quotes {
			if q.dealer != dl || q.clientID == "" {
				continue
			}
			var ended []string
			for _, l := range ais[q.clientID] {
				if o := l.field(58); o != "" {
					ended = append(ended, o)
				}
			}
			if len(ended) != 1 || ended[0] != q.outcome {
				t.Errorf("RFQ %s: FIX dealer %s's quote %s (%s): AI outcomes %v, model %q", q.rfq.id, dl.name, q.clientID, q.id, ended, q.outcome)
			}
			want := map[string]string{venue.OutcomeCover: "4", venue.OutcomeDoneAway: "5", venue.OutcomeTied: "5"}[q.outcome]
			aj := ajs[q.clientID]
			switch {
			case want == "" && len(aj) > 0:
				t.Errorf("RFQ %s: FIX dealer %s's quote %s (%s) gets a QuoteResponse: %s", q.rfq.id, dl.name, q.clientID, q.outcome, aj[0].Raw)
			case want != "" && len(aj) != 1:
				t.Errorf("RFQ %s: FIX dealer %s's quote %s (%s) gets %d QuoteResponses", q.rfq.id, dl.name, q.clientID, q.outcome, len(aj))
			case want != "":
				text := ""
				if q.outcome == venue.OutcomeTied {
					text = venue.OutcomeTied
				}
				if aj[0].field(694) != want || aj[0].field(58) != text || aj[0].field(131) != q.rfq.id {
					t.Errorf("RFQ %s: FIX dealer %s's quote %s (model %s): QuoteResponse 694=%q 58=%q, want %s %q: %s", q.rfq.id,
						dl.name, q.clientID, q.outcome, aj[0].field(694), aj[0].field(58), want, text, aj[0].Raw)
				}
			}
		}
	}
}

func (x *randVenue) fixQuotes() int {
	n := 0
	for _, q := range x.quotes {
		if q.clientID != "" {
			n++
		}
	}
	return n
}

func (x *randVenue) fixDealers() int {
	n := 0
	for _, dl := range x.dealers {
		if dl.fix != nil {
			n++
		}
	}
	return n
}

// containsNumber reports whether text holds the number s on its own (not
// as a part of a longer number).
func containsNumber(text, s string) bool {
	digit := func(c byte) bool { return c >= '0' && c <= '9' }
	for i := 0; ; {
		j := strings.Index(text[i:], s)
		if j < 0 {
			return false
		}
		j += i
		end := j + len(s)
		if (j == 0 || !digit(text[j-1])) && (end == len(text) || !digit(text[end])) {
			return true
		}
		i = j + 1
	}
}

// skipSeen makes the sessions' waits start from now: the lines before
// are kept for the final checks, which read them all.
func (x *randVenue) skipSeen() {
	x.d.mu.Lock()
	defer x.d.mu.Unlock()
	for _, dl := range x.dealers {
		if dl.fix != nil {
			dl.fix.next = len(x.d.lines)
		}
	}
}

// tally counts the model's outcomes (the run's coverage, in its log).
func (x *randVenue) tally() map[string]int {
	m := map[string]int{}
	for _, q := range x.quotes {
		m[q.outcome]++
	}
	return m
}

// pending counts the RFQs left for finishPending.
func (x *randVenue) pending() int {
	n := 0
	for _, r := range x.rfqs {
		if !r.ended {
			n++
		}
	}
	return n
}
