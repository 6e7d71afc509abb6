package main

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/bondvenue/bondvenue/internal/demo"
	"github.com/bondvenue/bondvenue/internal/records"
	"github.com/bondvenue/bondvenue/internal/store"
	"github.com/bondvenue/bondvenue/internal/testenv"
	"github.com/bondvenue/bondvenue/internal/venue"
	"github.com/quagmt/udecimal"
)

// TestCrashDurability runs the real binary, drives trading load through
// HTTP from several clients and kills the process with SIGKILL at a random
// moment, round after round on the same database. The load is offers on
// the continuous markets (creates, some crossing, cancels and amends) and
// whole RFQs (request, quote, accept); half the creates and every accept
// carry an Idempotency-Key, and a request the kill left unanswered is sent
// again with its key after the restart, as a client would. After every
// kill it checks the database directly: everything a client got a 2xx for
// is there, in that state or a later one; nothing is duplicated, and no
// retried request applied twice; every offer's trades add up to its filled
// quantity; the event log has no gaps. Every restart must rebuild the
// engine and take new offers.
func TestCrashDurability(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and kills it repeatedly")
	}
	rounds := 20
	if os.Getenv("BONDVENUE_LONG_TESTS") != "" {
		rounds = 100
	}
	bin := buildBinary(t)
	testenv.ForEach(t, func(t *testing.T, e store.Engine) {
		seed := uint64(time.Now().UnixNano())
		t.Logf("seed %d", seed)
		rng := rand.New(rand.NewPCG(seed, 7))
		h := &crashHarness{t: t, bin: bin, dataDir: t.TempDir(), dbURL: testenv.DatabaseURL(t, e),
			offers: map[string]*ackedOffer{}, trades: map[string]ackedTrade{}, last: map[string]venue.Offer{},
			appliedKeys: map[string]bool{}}
		start := time.Now()
		for round := range rounds {
			h.start(round == 0)
			if round == 0 {
				h.setup()
			} else {
				h.newOfferWorks(round)
				h.retryUnanswered(round)
			}
			h.load(rng, time.Duration(100+rng.IntN(700))*time.Millisecond) // ends with kill -9
			h.verify(round)
		}
		// A last restart: the engine rebuilds, serves, and shuts down
		// gracefully.
		h.start(false)
		h.newOfferWorks(rounds)
		h.retryUnanswered(rounds)
		h.terminate()
		h.verify(rounds)
		h.mu.Lock()
		defer h.mu.Unlock()
		t.Logf("%d kill -9 rounds in %v: %d requests answered 2xx, %d 4xx, %d unanswered; %d acknowledged offers, %d acknowledged trades, %d RFQs traded; %d keyed requests retried after a kill (%d answered 200); %d trades, %d events and %d order records in the database",
			rounds, time.Since(start).Round(time.Millisecond), h.acks.Load(), h.rejects.Load(), h.unanswered.Load(),
			len(h.offers), len(h.trades), h.rfqTrades.Load(), h.retried, h.retriedOK, h.dbTrades, h.dbEvents, h.dbRecords)
	})
}

// built is cmd/bondvenue's binary, built once for the test process (every
// test that runs it shares it) and removed by TestMain.
var built struct {
	once sync.Once
	dir  string
	bin  string
	err  error
}

// buildBinary returns the binary of cmd/bondvenue, built on first use.
func buildBinary(t *testing.T) string {
	t.Helper()
	built.once.Do(func() {
		if built.dir, built.err = os.MkdirTemp("", "bondvenue-test-"); built.err != nil {
			return
		}
		goTool := "go"
		if p, err := exec.LookPath("go"); err == nil {
			goTool = p
		} else if root := os.Getenv("GOROOT"); root != "" {
			goTool = filepath.Join(root, "bin", "go")
		}
		bin := filepath.Join(built.dir, "bondvenue")
		if out, err := exec.Command(goTool, "build", "-o", bin, ".").CombinedOutput(); err != nil {
			built.err = fmt.Errorf("go build: %v\n%s", err, out)
			return
		}
		built.bin = bin
	})
	if built.err != nil {
		t.Fatal(built.err)
	}
	return built.bin
}

// stillTime reports whether a test may wait on: how long a restart or a
// takeover takes is the machine's business, and a wait gives up only when
// the test binary's time is about to run out (testenv.Deadline).
func stillTime(t testing.TB) bool {
	d, ok := testenv.Deadline(t)
	return !ok || time.Now().Before(d)
}

// TestMain removes the binary the tests built.
func TestMain(m *testing.M) {
	code := m.Run()
	if built.dir != "" {
		os.RemoveAll(built.dir)
	}
	os.Exit(code)
}

// ackedOffer is the last state of an offer a client got a 2xx for.
type ackedOffer struct {
	status           string
	quantity, filled udecimal.Decimal
	// unsure is set when an amend went unanswered: it may have changed the
	// quantity or not.
	unsure bool
}

// ackedTrade is a trade a client read with a 2xx.
type ackedTrade struct {
	code     string
	quantity udecimal.Decimal
}

// crashTrader is one load client: a demo user and its open offers.
type crashTrader struct {
	name        string
	token       string
	firm        int      // demo participant index
	participant string   // its id
	own         []string // offers acknowledged open, as far as it knows
}

// keyedRequest is a request sent with an Idempotency-Key that the kill
// left unanswered: it is sent again after the restart.
type keyedRequest struct {
	tr           *crashTrader
	method, path string
	key          string
	body         any
	trade        bool // the answer is a trade (an accept), not an offer
}

type crashHarness struct {
	t       *testing.T
	bin     string
	dataDir string
	dbURL   string // empty: SQLite in dataDir
	addr    string // empty: a free port each start
	// liveTick, when set, runs the demo with its live demo market on,
	// stepping every liveTick (TestBrowserLiveDemo); by default the demo
	// is quiet.
	liveTick time.Duration
	// env, when set, adds settings (KEY=value) to the server's environment.
	env []string

	*proc // the server (in cluster mode, the instance started last)
	http  *http.Client

	// Cluster mode (TestFailover): several instances on one PostgreSQL
	// database; requests go to each in turn, and kill ends the leader.
	cluster  int
	procs    []*proc
	next     atomic.Int64
	killedAt time.Time
	failover []time.Duration // kill → first acknowledged command, per round
	// partition: kill cuts the leader off the database instead (cutOff
	// is then its index).
	partition bool
	cutOff    int
	// streams are the official client's subscriptions, one per instance.
	streams       map[*proc]*streamClient
	operatorToken string
	riskRetries   int // risk-use reads answered 503 and retried

	traders                       []*crashTrader
	partial, allOrNone            string
	otc                           string
	instrument                    string
	nonCounterparty               string // demo participant 3
	acks                          atomic.Int64
	mu                            sync.Mutex
	offers                        map[string]*ackedOffer
	trades                        map[string]ackedTrade
	last                          map[string]venue.Offer // the database's offers at the previous check
	dbTrades, dbEvents, dbRecords int
	unanswered, rejects           atomic.Int64
	rfqTrades                     atomic.Int64
	keys                          atomic.Int64
	// Keyed requests: those left unanswered by a kill, and the keys of
	// creates known applied (answered 2xx, first or on a retry),
	// whose offer (its notes carry the key) must be there exactly once.
	unansweredKeyed    []keyedRequest
	appliedKeys        map[string]bool
	retried, retriedOK int
}

var crashListening = regexp.MustCompile(`bondvenue listening on (http://[0-9.:]+)`)

// proc is one running serve process.
type proc struct {
	cmd    *exec.Cmd
	done   chan struct{} // closed when the process has exited
	exit   error         // its exit status, once done
	stdout *lockedBuffer
	stderr *lockedBuffer
	base   string
}

// start runs `serve` (with --demo when demo is set) and waits for
// /readyz.
func (h *crashHarness) start(demoData bool) {
	h.proc = h.spawn(demoData)
}

// spawn starts one serve process and waits for its /readyz.
func (h *crashHarness) spawn(demoData bool) *proc {
	t := h.t
	t.Helper()
	addr := h.addr
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	args := []string{"serve", "--addr", addr, "--data-dir", h.dataDir, "--fix-addr", "127.0.0.1:0"}
	if h.dbURL != "" {
		args = append(args, "--database-url", h.dbURL)
	}
	switch {
	case demoData && h.liveTick > 0: // the live demo market, on a short tick
		args = append(args, "--demo")
	case demoData: // the quiet demo: the tests drive the demo firms themselves
		args = append(args, "--demo", "--demo-market=false")
	}
	cmd := exec.Command(h.bin, args...)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "BONDVENUE_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	// The harness's load is meant to reach the sequencer: the per-credential
	// rate limit and the queue budget (admission control, tested on its own
	// in internal/trading) are lifted.
	cmd.Env = append(cmd.Env, "BONDVENUE_TOKEN_TTL=2h", "BONDVENUE_RATE_LIMIT=1000000", "BONDVENUE_QUEUE_BUDGET=0", "BONDVENUE_LOG_LEVEL=warn")
	if h.liveTick > 0 {
		cmd.Env = append(cmd.Env, "BONDVENUE_DEMO_MARKET_TICK="+h.liveTick.String())
	}
	cmd.Env = append(cmd.Env, h.env...)
	p := &proc{cmd: cmd, stdout: &lockedBuffer{}, stderr: &lockedBuffer{}, done: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = p.stdout, p.stderr
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", h.bin, err)
	}
	go func() {
		p.exit = cmd.Wait()
		close(p.done)
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Kill() // fails harmlessly when it already exited
		<-p.done
	})
	for p.base == "" {
		if m := crashListening.FindStringSubmatch(p.stdout.String()); m != nil {
			p.base = m[1]
			break
		}
		select {
		case <-p.done:
			t.Fatalf("serve exited before listening: %v\nstderr:\n%s", p.exit, p.stderr.String())
		case <-time.After(10 * time.Millisecond):
		}
		if !stillTime(t) {
			t.Fatalf("serve did not report its address when the test's time ran out; stderr:\n%s", p.stderr.String())
		}
	}
	if h.http == nil {
		h.http = &http.Client{Timeout: 20 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 16}}
	}
	for {
		resp, err := h.http.Get(p.base + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return p
			}
		}
		if !stillTime(t) {
			t.Fatalf("/readyz never answered 200; stderr:\n%s", p.stderr.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// kill ends the server with SIGKILL: no shutdown, no flush. In cluster
// mode it ends the leader and starts a standby in its place.
func (h *crashHarness) kill() {
	h.t.Helper()
	if h.cluster > 0 {
		h.killLeader()
		return
	}
	if err := h.cmd.Process.Kill(); err != nil {
		h.t.Fatalf("kill: %v", err)
	}
	<-h.done
	h.http.CloseIdleConnections()
}

// terminate stops the server with SIGTERM and expects a clean exit.
func (h *crashHarness) terminate() {
	h.t.Helper()
	if err := h.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		h.t.Fatalf("SIGTERM: %v", err)
	}
	select {
	case <-h.done:
		if h.exit != nil {
			h.t.Errorf("serve after SIGTERM: %v\nstderr:\n%s", h.exit, h.stderr.String())
		}
	case <-testenv.Expired(h.t):
		h.t.Fatalf("serve did not stop after SIGTERM when the test's time ran out")
	}
	h.http.CloseIdleConnections()
}

// call sends one request with a bearer token and decodes a 2xx answer into
// out. err is set only when no answer came back.
func (h *crashHarness) call(token, method, path string, body, out any) (int, error) {
	status, _, err := h.callKey(token, method, path, "", body, out)
	return status, err
}

// callKey is call with an Idempotency-Key (none when key is empty); it
// also returns the answer's body.
func (h *crashHarness) callKey(token, method, path, key string, body, out any) (int, []byte, error) {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return 0, nil, err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, h.target()+path, rd)
	if err != nil {
		return 0, nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if key != "" {
		req.Header.Set("Idempotency-Key", key)
	}
	resp, err := h.http.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return 0, nil, err // the answer was cut off: not acknowledged
	}
	if resp.StatusCode/100 == 2 && out != nil {
		if err := json.Unmarshal(b, out); err != nil {
			return resp.StatusCode, b, fmt.Errorf("decode %s %s answer %s: %w", method, path, b, err)
		}
	}
	return resp.StatusCode, b, nil
}

// mustCall is call for setup requests, which must answer 200.
func (h *crashHarness) mustCall(token, method, path string, body, out any) {
	h.t.Helper()
	status, err := h.call(token, method, path, body, out)
	if err != nil || status != http.StatusOK {
		h.t.Fatalf("%s %s = %d, %v; want 200", method, path, status, err)
	}
}

// setup reads the demo credentials, signs the load clients in, finds the
// markets and a bond, and raises the open-quantity limits so the load is
// about durability, not risk.
func (h *crashHarness) setup() {
	t := h.t
	t.Helper()
	creds, err := demo.ReadCredentials(filepath.Join(h.dataDir, demo.CredentialsFile))
	if err != nil {
		t.Fatal(err)
	}
	token := func(u demo.UserCred) string {
		t.Helper()
		form := url.Values{"grant_type": {"client_credentials"}, "client_id": {u.ClientID}, "client_secret": {u.ClientSecret}}
		resp, err := h.http.PostForm(h.base+"/api/v1/auth/token", form)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var tok struct {
			AccessToken string `json:"access_token"`
		}
		if err := json.NewDecoder(resp.Body).Decode(&tok); err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("token for %s: status %d, %v", u.Email, resp.StatusCode, err)
		}
		return tok.AccessToken
	}
	op := token(creds.Operator)
	for i, p := range creds.Participants {
		for _, name := range []string{venue.LimitAllOfferSum, venue.LimitAllOfferUserSum} {
			h.mustCall(op, "PUT", "/api/v1/admin/participants/"+p.ID+"/risk-limits/"+name, map[string]string{"value": "1000000000000"}, nil)
		}
		for _, u := range p.Users {
			// Admins and traders of the three counterparties trade; of
			// participant 3, which has no counterparty, the trader only.
			if u.Role == string(venue.RoleTrader) || (u.Role == string(venue.RoleAdmin) && i < 3) {
				h.traders = append(h.traders, &crashTrader{name: fmt.Sprintf("participant %d %s", i, u.Role), token: token(u),
					firm: i, participant: p.ID})
			}
		}
	}
	h.nonCounterparty = creds.Participants[3].ID
	var markets []struct {
		ID                   string `json:"id"`
		FacilityType         string `json:"facility_type"`
		IsPartialFillAllowed bool   `json:"is_partial_fill_allowed"`
		Hours                any    `json:"trading_hours"`
	}
	h.mustCall(h.traders[0].token, "GET", "/api/v1/markets", nil, &markets)
	for _, m := range markets {
		switch {
		case m.Hours != nil: // the demo's market with trading hours
		case m.FacilityType == venue.FacilityContinuous && m.IsPartialFillAllowed:
			h.partial = m.ID
		case m.FacilityType == venue.FacilityContinuous:
			h.allOrNone = m.ID
		default:
			h.otc = m.ID
		}
	}
	var instruments []struct {
		ID       string `json:"id"`
		MinPiece string `json:"min_piece"`
	}
	h.mustCall(h.traders[0].token, "GET", "/api/v1/instruments", nil, &instruments)
	for _, in := range instruments {
		if in.MinPiece == "1000" {
			h.instrument = in.ID
		}
	}
	if h.partial == "" || h.allOrNone == "" || h.otc == "" || h.instrument == "" {
		t.Fatalf("demo venue: partial market %q, all-or-none market %q, OTC market %q, 1000-piece bond %q", h.partial, h.allOrNone,
			h.otc, h.instrument)
	}
}

// offerAnswer is the part of an offer record the test reads.
type offerAnswer struct {
	ID       string      `json:"id"`
	Status   string      `json:"status"`
	Quantity json.Number `json:"quantity"`
	Filled   json.Number `json:"filled_quantity"`
}

// ack records an acknowledged offer state.
func (h *crashHarness) ack(a offerAnswer) error {
	q, err1 := udecimal.Parse(a.Quantity.String())
	f, err2 := udecimal.Parse(a.Filled.String())
	if err1 != nil || err2 != nil || a.ID == "" {
		return fmt.Errorf("offer answer %+v: quantity %v, filled %v", a, err1, err2)
	}
	h.acks.Add(1)
	h.mu.Lock()
	defer h.mu.Unlock()
	h.offers[a.ID] = &ackedOffer{status: a.Status, quantity: q, filled: f}
	return nil
}

func (h *crashHarness) createBody(rng *rand.Rand) map[string]any {
	levels := []string{"99.5", "99.75", "100", "100.25", "100.5"}
	dir, k := venue.Ask, rng.IntN(len(levels)-1)
	if rng.IntN(2) == 0 {
		dir, k = venue.Bid, k+1 // bids lean up, asks down: many offers trade
	}
	body := map[string]any{"instrument_id": h.instrument, "market_id": h.partial, "direction": dir,
		"price_per_unit": levels[k], "quantity": fmt.Sprint((1 + rng.IntN(5)) * 100_000)}
	if rng.IntN(5) == 0 {
		body["market_id"], body["quantity"] = h.allOrNone, fmt.Sprint((1+rng.IntN(3))*100_000)
	}
	return body
}

// newOfferWorks checks that a restarted server takes a new offer.
func (h *crashHarness) newOfferWorks(round int) {
	h.t.Helper()
	var a offerAnswer
	body := h.createBody(rand.New(rand.NewPCG(uint64(round), 1)))
	status, err := h.call(h.traders[0].token, "POST", "/api/v1/participant/offers", body, &a)
	for (err != nil || h.failingOver(status)) && h.cluster > 0 && stillTime(h.t) {
		time.Sleep(20 * time.Millisecond) // a takeover under way
		status, err = h.call(h.traders[0].token, "POST", "/api/v1/participant/offers", body, &a)
	}
	if err != nil || status != http.StatusOK {
		h.t.Fatalf("round %d: POST /participant/offers after restart = %d, %v; want 200\nstderr:\n%s", round, status, err, h.stderr.String())
	}
	if err := h.ack(a); err != nil {
		h.t.Fatal(err)
	}
	h.traders[0].own = append(h.traders[0].own, a.ID)
}

// load runs every trader until the server is killed after delay.
func (h *crashHarness) load(rng *rand.Rand, delay time.Duration) {
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for _, tr := range h.traders {
		seed := rng.Uint64()
		wg.Go(func() { h.trade(tr, rand.New(rand.NewPCG(seed, 3)), stop) })
	}
	time.Sleep(delay)
	h.kill()
	close(stop)
	wg.Wait()
}

// trade sends creates (some crossing), cancels and amends, recording each
// acknowledged state, until stop.
func (h *crashHarness) trade(tr *crashTrader, rng *rand.Rand, stop <-chan struct{}) {
	for {
		select {
		case <-stop:
			return
		default:
		}
		op := rng.IntN(11)
		if len(tr.own) == 0 && op < 10 {
			op = 0
		}
		var a offerAnswer
		switch {
		case op == 10:
			if tr.firm < 3 {
				h.rfq(tr, rng)
			}
			continue
		case op < 6:
			body, key := h.createBody(rng), ""
			if rng.IntN(2) == 0 { // keyed: its notes name the key, to find the offer
				key = fmt.Sprintf("create-%d", h.keys.Add(1))
				body["notes"] = key
			}
			status, _, err := h.callKey(tr.token, "POST", "/api/v1/participant/offers", key, body, &a)
			if key != "" {
				h.keyed(keyedRequest{tr: tr, method: "POST", path: "/api/v1/participant/offers", key: key, body: body}, status, err)
			}
			if h.answered(tr, "create", status, err, a) && a.Status == venue.StatusCreated {
				tr.own = append(tr.own, a.ID)
			}
		case op < 8:
			k := rng.IntN(len(tr.own))
			id := tr.own[k]
			status, err := h.call(tr.token, "DELETE", "/api/v1/participant/offers/"+id, nil, &a)
			if h.answered(tr, "cancel", status, err, a) || status == http.StatusConflict {
				tr.own = append(tr.own[:k], tr.own[k+1:]...)
			}
		default:
			k := rng.IntN(len(tr.own))
			id := tr.own[k]
			h.mu.Lock()
			o := h.offers[id]
			qty := o.filled.Add(udecimal.MustFromInt64(int64(1+rng.IntN(3))*100_000, 0))
			h.mu.Unlock()
			body := map[string]any{"entity": map[string]any{"quantity": qty.String()}}
			status, err := h.call(tr.token, "PUT", "/api/v1/participant/offers/"+id, body, &a)
			if err != nil || h.failingOver(status) { // a 503 passed on from a dying leader: applied or not
				h.mu.Lock()
				h.offers[id].unsure = true
				h.mu.Unlock()
			}
			if (h.answered(tr, "amend", status, err, a) && a.Status != venue.StatusCreated) || status == http.StatusConflict {
				tr.own = append(tr.own[:k], tr.own[k+1:]...)
			}
		}
		if a.ID == "" || a.Filled.String() == "0" {
			continue
		}
		// Fills: read the offer's trades; each answered one is
		// acknowledged.
		var trades []tradeAnswer
		status, err := h.call(tr.token, "GET", "/api/v1/trades?offer_id="+a.ID, nil, &trades)
		if err != nil || status != http.StatusOK {
			continue
		}
		for _, x := range trades {
			h.ackTrade(x)
		}
	}
}

// tradeAnswer is the part of a trade record the test reads.
type tradeAnswer struct {
	ID       string      `json:"id"`
	Code     string      `json:"transaction_identification_code"`
	Quantity json.Number `json:"quantity"`
}

// rfq runs one RFQ of tr to a dealer of another firm: request, quote,
// accept (with an Idempotency-Key), acknowledging each answered step.
func (h *crashHarness) rfq(tr *crashTrader, rng *rand.Rand) {
	var dealers []*crashTrader
	for _, d := range h.traders {
		if d.firm != tr.firm && d.firm < 3 {
			dealers = append(dealers, d)
		}
	}
	dealer := dealers[rng.IntN(len(dealers))]
	dir, other := venue.Bid, venue.Ask
	if rng.IntN(2) == 0 {
		dir, other = other, dir
	}
	var r, q offerAnswer
	status, err := h.call(tr.token, "POST", "/api/v1/participant/rfq", map[string]any{"instrument_id": h.instrument,
		"market_id": h.otc, "direction": dir, "quantity": "1000000", "counterparties": []string{dealer.participant}}, &r)
	if !h.answered(tr, "rfq", status, err, r) {
		return
	}
	var qb []byte
	status, qb, err = h.callKey(dealer.token, "POST", "/api/v1/participant/offers", "", map[string]any{"instrument_id": h.instrument,
		"market_id": h.otc, "direction": other, "price_per_unit": "100", "quantity": "1000000", "matched_offer_id": r.ID}, &q)
	if status == http.StatusNotFound {
		h.t.Logf("quote on RFQ %s (its answer %+v): %s", r.ID, r, qb)
	}
	if !h.answered(dealer, "quote", status, err, q) {
		return
	}
	req := keyedRequest{tr: tr, method: "PUT", path: "/api/v1/participant/offers/" + q.ID + "/accept",
		key: fmt.Sprintf("accept-%d", h.keys.Add(1)), trade: true}
	var x tradeAnswer
	status, _, err = h.callKey(tr.token, req.method, req.path, req.key, nil, &x)
	h.keyed(req, status, err)
	if err == nil && status == http.StatusOK {
		h.ackTrade(x)
		h.rfqTrades.Add(1)
	} else if err == nil && status/100 == 5 && !h.failingOver(status) {
		h.t.Errorf("%s: accept answered %d", tr.name, status)
	}
}

// ackTrade records an acknowledged trade.
func (h *crashHarness) ackTrade(x tradeAnswer) {
	q, err := udecimal.Parse(x.Quantity.String())
	if err != nil || x.ID == "" {
		h.t.Errorf("trade answer %+v: %v", x, err)
		return
	}
	h.acks.Add(1)
	h.mu.Lock()
	defer h.mu.Unlock()
	h.trades[x.ID] = ackedTrade{code: x.Code, quantity: q}
}

// keyed notes what became of a keyed request: applied when answered 2xx,
// to send again after the restart when unanswered.
func (h *crashHarness) keyed(req keyedRequest, status int, err error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	switch {
	case err != nil || h.failingOver(status):
		h.unansweredKeyed = append(h.unansweredKeyed, req)
	case status/100 == 2 && !req.trade:
		h.appliedKeys[req.key] = true
	}
}

// retryUnanswered sends every keyed request the last kill left unanswered
// again, with its key, as a client does after reconnecting. Each is
// answered as the first request would have been: it was not applied and
// runs now, or it was applied and gets its kept answer or, when the answer
// was lost with the process, the answer made from what its commit kept.
// It is never applied twice, which verify checks.
func (h *crashHarness) retryUnanswered(round int) {
	t := h.t
	t.Helper()
	h.mu.Lock()
	reqs := h.unansweredKeyed
	h.unansweredKeyed = nil
	h.mu.Unlock()
	for _, req := range reqs {
		var a offerAnswer
		var tr tradeAnswer
		var out any = &a
		if req.trade {
			out = &tr
		}
		status, body, err := h.callKey(req.tr.token, req.method, req.path, req.key, req.body, out)
		for (err != nil || h.failingOver(status)) && h.cluster > 0 && stillTime(h.t) {
			time.Sleep(20 * time.Millisecond) // an instance still passing to the old leader
			status, body, err = h.callKey(req.tr.token, req.method, req.path, req.key, req.body, out)
		}
		h.retried++
		switch {
		case err != nil:
			t.Fatalf("round %d: retry of %s %s (key %s): %v", round, req.method, req.path, req.key, err)
		case status == http.StatusOK && req.trade:
			h.retriedOK++
			h.ackTrade(tr)
		case status == http.StatusOK:
			h.retriedOK++
			if err := h.ack(a); err != nil {
				t.Error(err)
			}
			if a.Status == venue.StatusCreated {
				req.tr.own = append(req.tr.own, a.ID)
			}
			h.mu.Lock()
			h.appliedKeys[req.key] = true
			h.mu.Unlock()
		case status == http.StatusConflict && req.trade:
			// The quote closed or expired meanwhile: nothing applied.
			h.rejects.Add(1)
		default:
			t.Errorf("round %d: retry of %s %s (key %s) answered %d: %s", round, req.method, req.path, req.key, status, body)
		}
	}
}

// answered records a 2xx offer answer and reports whether there was one.
// A 400 (an amend below a fill that happened meanwhile) or a 409 (an offer
// filled meanwhile) is fine. A 5xx, a 401 (a token lost) or a 404 (an
// acknowledged offer lost) is not: a crash must never cause them.
func (h *crashHarness) answered(tr *crashTrader, op string, status int, err error, a offerAnswer) bool {
	switch {
	case err != nil || h.failingOver(status):
		h.unanswered.Add(1)
		return false
	case status/100 == 5 || status == http.StatusUnauthorized || status == http.StatusNotFound:
		h.t.Errorf("%s: %s answered %d", tr.name, op, status)
		return false
	case status/100 != 2:
		h.rejects.Add(1)
		return false
	}
	if err := h.ack(a); err != nil {
		h.t.Errorf("%s: %s: %v", tr.name, op, err)
		return false
	}
	return true
}

// verify checks the database of the stopped server.
func (h *crashHarness) verify(round int) {
	t := h.t
	t.Helper()
	ctx := context.Background()
	db, err := store.Open(ctx, store.Config{URL: h.dbURL, DataDir: h.dataDir})
	if err != nil {
		t.Fatalf("round %d: open database: %v", round, err)
	}
	defer db.Close()
	// On PostgreSQL a batch goes to the server whole, COMMIT included, so
	// one that the process sent just before it was killed may still be
	// committing. Taking the sequencer lease, as the next engine does
	// before it rebuilds, waits for such a batch or makes it fail its
	// lease check, so the checks below read a database at rest. (In
	// cluster mode the new leader did so when it took over, before the
	// command newOfferWorks saw acknowledged; taking it here would fence
	// that leader.)
	if err := db.SequencerTx(ctx, func(tx *store.Tx) error {
		if h.cluster > 0 {
			return nil
		}
		_, err := tx.AcquireLease(ctx, "crash test")
		return err
	}); err != nil {
		t.Fatalf("round %d: take the sequencer lease: %v", round, err)
	}
	var offers []venue.Offer
	if err := db.View(ctx, func(tx *store.Tx) error {
		var err error
		offers, _, err = tx.Offers(ctx, store.OfferFilter{}, venue.Page{})
		return err
	}); err != nil {
		t.Fatalf("round %d: read offers: %v", round, err)
	}
	raw := h.rawDB(t)
	defer raw.Close()
	fail := func(format string, args ...any) {
		t.Helper()
		t.Errorf("after round %d: %s", round, fmt.Sprintf(format, args...))
	}

	// Offers: each once, 0 ≤ filled ≤ quantity, closed means filled.
	byID := map[string]venue.Offer{}
	for _, o := range offers {
		if _, dup := byID[o.ID]; dup {
			fail("offer %s is in the database twice", o.ID)
		}
		byID[o.ID] = o
		if !o.Quantity.IsPos() || o.Filled.IsNeg() || o.Filled.GreaterThan(o.Quantity) {
			fail("offer %s: quantity %s, filled %s; want 0 ≤ filled ≤ quantity", o.ID, o.Quantity, o.Filled)
		}
		if o.Status == venue.StatusClosed && !o.Filled.Equal(o.Quantity) {
			fail("offer %s closed with %s of %s filled", o.ID, o.Filled, o.Quantity)
		}
		// Nothing acknowledged or committed goes back.
		if p, ok := h.last[o.ID]; ok && (o.Filled.LessThan(p.Filled) || (!p.Open() && o.Status != p.Status)) {
			fail("offer %s went back from %s with %s filled to %s with %s filled", o.ID, p.Status, p.Filled, o.Status, o.Filled)
		}
	}
	for id, p := range h.last {
		if _, ok := byID[id]; !ok {
			fail("offer %s (%s) was in the database and is gone", id, p.Status)
		}
	}
	h.last = byID

	// A keyed create is there at most once, exactly once if it was
	// applied: a retry never applies it again.
	perKey := map[string]int{}
	for _, o := range offers {
		if strings.HasPrefix(o.Notes, "create-") {
			perKey[o.Notes]++
		}
	}
	h.mu.Lock()
	for key, n := range perKey {
		if n > 1 {
			fail("the request with Idempotency-Key %s created %d offers", key, n)
		}
	}
	for key := range h.appliedKeys {
		if perKey[key] != 1 {
			fail("the applied request with Idempotency-Key %s has %d offers, want 1", key, perKey[key])
		}
	}
	h.mu.Unlock()

	// Every acknowledged offer is there, in that state or a later one.
	h.mu.Lock()
	for id, a := range h.offers {
		o, ok := byID[id]
		switch {
		case !ok:
			fail("acknowledged offer %s (%s) is missing", id, a.status)
		case a.status != venue.StatusCreated && o.Status != a.status:
			fail("offer %s acknowledged %s is %s", id, a.status, o.Status)
		case o.Filled.LessThan(a.filled):
			fail("offer %s acknowledged with %s filled has %s filled", id, a.filled, o.Filled)
		case !a.unsure && !o.Quantity.Equal(a.quantity):
			fail("offer %s acknowledged with quantity %s has quantity %s", id, a.quantity, o.Quantity)
		}
	}
	h.mu.Unlock()

	// Trades: each id and transaction code once, with an ask and a bid
	// order, never within one firm nor with the participant without
	// counterparties; per offer they add up to its filled quantity.
	rows, err := raw.QueryContext(ctx, `SELECT t.id, t.transaction_identification_code, t.quantity, t.ask_participant_id,
		t.bid_participant_id, o.offer_id, o.direction FROM trades t JOIN orders o ON o.trade_id = t.id`)
	if err != nil {
		t.Fatalf("round %d: read trades: %v", round, err)
	}
	type tradeRow struct {
		code, qty, ask, bid string
		sides               []string
	}
	trades, codes := map[string]*tradeRow{}, map[string]string{}
	sums := map[string]udecimal.Decimal{}
	for rows.Next() {
		var id, code, qty, ask, bid, offer, dir string
		if err := rows.Scan(&id, &code, &qty, &ask, &bid, &offer, &dir); err != nil {
			t.Fatal(err)
		}
		tr := trades[id]
		if tr == nil {
			tr = &tradeRow{code: code, qty: qty, ask: ask, bid: bid}
			trades[id] = tr
			if other, dup := codes[code]; dup {
				fail("transaction_identification_code %s on trades %s and %s", code, other, id)
			}
			codes[code] = id
		}
		tr.sides = append(tr.sides, dir)
		q, err := udecimal.Parse(qty)
		if err != nil {
			fail("trade %s quantity %q: %v", id, qty, err)
		}
		sums[offer] = sums[offer].Add(q)
		if o, ok := byID[offer]; !ok || o.Direction != dir {
			fail("trade %s has a %s order of offer %s, which is not a %s offer in the database", id, dir, offer, dir)
		}
	}
	if err := rows.Close(); err != nil {
		t.Fatal(err)
	}
	var count int
	if err := raw.QueryRowContext(ctx, "SELECT COUNT(*) FROM trades").Scan(&count); err != nil {
		t.Fatal(err)
	}
	if count != len(trades) {
		fail("%d trades, %d of them with orders", count, len(trades))
	}
	for id, tr := range trades {
		if len(tr.sides) != 2 || tr.sides[0] == tr.sides[1] {
			fail("trade %s has orders %v, want one ask and one bid", id, tr.sides)
		}
		if tr.ask == tr.bid || tr.ask == h.nonCounterparty || tr.bid == h.nonCounterparty {
			fail("trade %s between participants %s and %s, who are not counterparties", id, tr.ask, tr.bid)
		}
	}
	for id, o := range byID {
		if !sums[id].Equal(o.Filled) {
			fail("%s %s: filled %s, its trades add up to %s", o.Type, id, o.Filled, sums[id])
		}
	}
	h.mu.Lock()
	for id, a := range h.trades {
		tr, ok := trades[id]
		if !ok {
			fail("acknowledged trade %s (%s) is missing", id, a.code)
			continue
		}
		if q, _ := udecimal.Parse(tr.qty); tr.code != a.code || !q.Equal(a.quantity) {
			fail("trade %s acknowledged as %s of %s is %s of %s", id, a.code, a.quantity, tr.code, tr.qty)
		}
	}
	h.dbTrades = len(trades)
	h.mu.Unlock()

	// The event log is 1..N without gaps.
	rows, err = raw.QueryContext(ctx, "SELECT seq FROM events ORDER BY seq")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var n int64
	for rows.Next() {
		var seq int64
		if err := rows.Scan(&seq); err != nil {
			t.Fatal(err)
		}
		n++
		if seq != n {
			fail("event seq %d where %d belongs: the log has a gap", seq, n)
			break
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	h.dbEvents = int(n)
	h.verifyRecords(round, raw, byID, fail)
	if t.Failed() {
		t.FailNow()
	}
}

// verifyRecords checks the order records after a crash: numbered 1..N
// with no gap or duplicate, a NEWO for every acknowledged offer, and no
// record of an offer, quote or RFQ the database does not hold (a refused
// order's REMO names an order that never was one).
func (h *crashHarness) verifyRecords(round int, raw *sql.DB, offers map[string]venue.Offer, fail func(string, ...any)) {
	t := h.t
	t.Helper()
	rows, err := raw.QueryContext(context.Background(), "SELECT seq, order_id, data FROM order_records ORDER BY seq")
	if err != nil {
		t.Fatalf("round %d: read order records: %v", round, err)
	}
	defer rows.Close()
	var n int64
	entered := map[string]bool{}
	for rows.Next() {
		var seq int64
		var id, data string
		if err := rows.Scan(&seq, &id, &data); err != nil {
			t.Fatal(err)
		}
		n++
		if seq != n {
			fail("order record %d where %d belongs: the records have a gap", seq, n)
			return
		}
		r, err := records.Decode(seq, []byte(data))
		if err != nil {
			fail("%v", err)
			return
		}
		event, typ := r.Value("event"), r.Value("order_type")
		if event == records.New {
			entered[id] = true
		}
		own := typ == records.TypeLimit || typ == records.TypeMarket || typ == records.TypeQuote || typ == records.TypeRFQ
		if _, ok := offers[id]; own && event != records.Rejected && !ok {
			fail("order record %d (%s) names order %s, which the database does not hold", seq, event, id)
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	for id := range h.offers {
		if !entered[id] {
			fail("acknowledged offer %s has no NEWO record", id)
		}
	}
	h.dbRecords = int(n)
}

// rawDB opens the database with plain SQL, for the checks the store has no
// query for (the store registers both drivers).
func (h *crashHarness) rawDB(t *testing.T) *sql.DB {
	t.Helper()
	driver, dsn := "pgx", h.dbURL
	if h.dbURL == "" {
		driver, dsn = "sqlite", "file:"+filepath.Join(h.dataDir, "bondvenue.db")+"?_pragma=busy_timeout(10000)"
	}
	db, err := sql.Open(driver, dsn)
	if err != nil {
		t.Fatal(err)
	}
	return db
}

// lockedBuffer is an io.Writer the test reads while the process writes.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
