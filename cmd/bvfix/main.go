// Command bvfix measures order entry over FIX against the same orders over
// REST, in one run on one venue: a demo venue on loopback (its FIX acceptor
// and its HTTP API), then for each session count the same stream of limit
// orders that rest (bids 80.00–89.99, asks 110.00–119.99, so nothing fills)
// entered as NewOrderSingle → ExecutionReport New over FIX sessions with a
// window of pipelined orders each, and as POST /api/v1/offers over as many
// keep-alive HTTP connections. It reports orders/s and the round trip p50
// and p99 of each, and FIX's throughput as a ratio of REST's.
//
//	go run ./cmd/bvfix --sessions 1,8 --duration 10s
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/quagmt/udecimal"

	"github.com/bondvenue/bondvenue/internal/demo"
	"github.com/bondvenue/bondvenue/internal/fix"
	"github.com/bondvenue/bondvenue/internal/fix/fixraw"
	"github.com/bondvenue/bondvenue/internal/fix/fixstore"
	"github.com/bondvenue/bondvenue/internal/httpapi"
	"github.com/bondvenue/bondvenue/internal/store"
	"github.com/bondvenue/bondvenue/internal/testenv"
	"github.com/bondvenue/bondvenue/internal/trading"
	"github.com/bondvenue/bondvenue/internal/venue"
)

func main() {
	if err := run(context.Background(), os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "bvfix:", err)
		os.Exit(1)
	}
}

type config struct {
	sessions    []int
	window      int
	duration    time.Duration
	warmup      time.Duration
	databaseURL string
}

func run(ctx context.Context, args []string, out io.Writer) error {
	fs := flag.NewFlagSet("bvfix", flag.ContinueOnError)
	var c config
	sessions := fs.String("sessions", "1,8", "session (and REST connection) counts to measure")
	fs.IntVar(&c.window, "window", 8, "FIX orders in flight per session (pipelined)")
	fs.DurationVar(&c.duration, "duration", 10*time.Second, "measured time per run")
	fs.DurationVar(&c.warmup, "warmup", 2*time.Second, "unmeasured warm-up per run")
	fs.StringVar(&c.databaseURL, "database-url", "", "postgres://… of an empty database (default: SQLite in a temporary directory)")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of the measured runs to this file")
	if err := fs.Parse(args); err != nil {
		return err
	}
	for _, f := range strings.Split(*sessions, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			return fmt.Errorf("--sessions: %q is not a count", f)
		}
		c.sessions = append(c.sessions, n)
	}
	v, err := start(ctx, c)
	if err != nil {
		return err
	}
	defer v.close()
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	fmt.Fprintf(out, "bvfix: engine %s, %s measured after %s warm-up per run, FIX window %d; %d CPUs\n\n",
		v.db.Engine(), c.duration, c.warmup, c.window, runtime.NumCPU())
	fmt.Fprintf(out, "%-18s %10s %9s %9s %12s\n", "run", "orders/s", "p50 ms", "p99 ms", "FIX/REST")
	for _, n := range c.sessions {
		rest, err := v.measure(ctx, c, n, v.restWorker)
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "%-18s %10.0f %9.2f %9.2f %12s\n", fmt.Sprintf("REST %d conn", n), rest.rate(), ms(rest.p(0.5)), ms(rest.p(0.99)), "")
		fx, err := v.measure(ctx, c, n, v.fixWorker)
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "%-18s %10.0f %9.2f %9.2f %12.2f\n", fmt.Sprintf("FIX %d session", n), fx.rate(), ms(fx.p(0.5)), ms(fx.p(0.99)), fx.rate()/rest.rate())
	}
	return nil
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// venueRig is the venue under measurement.
type venueRig struct {
	db      *store.DB
	core    *testenv.Venue
	svc     *trading.Service
	gw      *fix.Gateway
	srv     *http.Server
	url     string
	dir     string
	traders []demo.UserCred
	account map[string]string // client id → account id
	isin    string
	instrID string
	market  string
	next    int // order numbers, for distinct ClOrdIDs and prices
	mu      sync.Mutex
}

func start(ctx context.Context, c config) (*venueRig, error) {
	v := &venueRig{account: map[string]string{}}
	cfg := store.Config{}
	if c.databaseURL != "" {
		cfg.URL = c.databaseURL
	} else {
		dir, err := os.MkdirTemp("", "bvfix-")
		if err != nil {
			return nil, err
		}
		v.dir, cfg.DataDir = dir, dir
	}
	db, err := store.Open(ctx, cfg)
	if err != nil {
		return nil, err
	}
	v.db = db
	if _, err := db.Migrate(ctx); err != nil {
		return nil, err
	}
	quiet := slog.New(slog.DiscardHandler)
	v.core = testenv.Wire(db, testenv.Config{Trading: trading.Config{Logger: quiet, RateLimit: 1e9}, TokenTTL: time.Hour})
	v.svc = v.core.Svc
	creds, _, err := demo.Load(ctx, v.svc, v.dir, "")
	if err != nil {
		return nil, err
	}
	// The load's bids and asks sit far apart on purpose (they never cross):
	// the widest price collar lets them rest.
	wide := udecimal.MustParse("100")
	wideMs, err := v.svc.Markets(ctx, trading.System, trading.MarketFilter{}, venue.Page{})
	if err != nil {
		return nil, err
	}
	for _, m := range wideMs.Items {
		if _, err := v.svc.UpdateMarket(ctx, trading.System, m.ID, trading.MarketInput{PriceCollarPercent: &wide}); err != nil {
			return nil, err
		}
	}
	unlimited := udecimal.MustParse("999999999999999999")
	for _, p := range creds.Participants {
		for _, name := range trading.RiskLimitNames() {
			if _, err := v.svc.SetRiskLimit(ctx, trading.System, p.ID, trading.RiskLimitInput{Name: name, Value: &unlimited}); err != nil {
				return nil, err
			}
		}
		for _, u := range p.Users {
			if u.Role == string(venue.RoleTrader) {
				v.traders = append(v.traders, u)
				v.account[u.ClientID] = p.AccountIDs[0]
			}
		}
	}
	// One firm per session (every FIX session of a firm receives every
	// report of the firm's orders, as the REST clients of a firm would):
	// firms beyond the demo's are onboarded here.
	if err := v.addFirms(ctx, max(slices.Max(c.sessions)-len(v.traders), 0), unlimited); err != nil {
		return nil, err
	}
	if err := v.core.Start(ctx); err != nil {
		return nil, err
	}
	ms, err := v.svc.Markets(ctx, trading.System, trading.MarketFilter{FacilityType: venue.FacilityContinuous}, venue.Page{Limit: 100})
	if err != nil || len(ms.Items) == 0 {
		return nil, fmt.Errorf("a continuous market: %v", err)
	}
	v.market = ms.Items[0].ID
	for _, m := range slices.Backward(ms.Items) {
		if m.Hours == nil { // a book open around the clock
			v.market = m.ID
		}
	}
	list, err := v.svc.Instruments(ctx, trading.System, trading.InstrumentFilter{MarketID: v.market}, venue.Page{Limit: 1})
	if err != nil || len(list.Items) == 0 {
		return nil, fmt.Errorf("an instrument: %v", err)
	}
	v.isin, v.instrID = list.Items[0].Terms.ISIN, list.Items[0].ID
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	v.url = "http://" + ln.Addr().String()
	v.srv = &http.Server{Handler: httpapi.New(httpapi.Deps{Trading: v.svc, Live: v.core.Live, Cluster: v.core.Cluster, Engine: v.core.Sequencer, Keys: v.core.Keys, Access: v.core.Access, Records: v.core.Records, Positions: v.core.Positions}, httpapi.Config{Logger: quiet}).Handler(), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = v.srv.Serve(ln) }()
	v.gw, err = fix.New(fix.Deps{Trading: v.svc, Live: v.core.Live, Cluster: v.core.Cluster, Keys: v.core.Keys, Access: v.core.Access}, fixstore.New(v.db), fix.Config{Addr: "127.0.0.1:0", Logger: quiet})
	if err != nil {
		return nil, err
	}
	if err := v.gw.Start(); err != nil {
		return nil, err
	}
	return v, nil
}

// addFirms onboards n firms, each with an account, a trader and its
// credential, and unlimited risk limits.
func (v *venueRig) addFirms(ctx context.Context, n int, limit udecimal.Decimal) error {
	sys := trading.System
	for i := range n {
		name, country := fmt.Sprintf("bvfix firm %d", i+1), "DE"
		prefix := fmt.Sprintf("BVFIX%013d", i+1)
		lei := prefix + venue.LEICheckDigits(prefix)
		p, err := v.svc.CreateParticipant(ctx, sys, trading.ParticipantInput{Name: &name, LEI: &lei, Country: &country})
		if err != nil {
			return fmt.Errorf("firm %d: %w", i+1, err)
		}
		a, err := v.svc.CreateAccount(ctx, sys, trading.AccountInput{ParticipantID: p.ID, Number: fmt.Sprintf("BVFIX-%d", i+1), Type: "agent"})
		if err != nil {
			return err
		}
		email, role := fmt.Sprintf("trader%d@bvfix.example", i+1), venue.RoleTrader
		u, err := v.svc.CreateUser(ctx, sys, trading.UserInput{ParticipantID: &p.ID, Email: &email, Role: &role})
		if err != nil {
			return err
		}
		cred, err := v.svc.IssueCredential(ctx, sys, u.ID)
		if err != nil {
			return err
		}
		for _, name := range trading.RiskLimitNames() {
			if _, err := v.svc.SetRiskLimit(ctx, sys, p.ID, trading.RiskLimitInput{Name: name, Value: &limit}); err != nil {
				return err
			}
		}
		v.traders = append(v.traders, demo.UserCred{UserID: u.ID, ClientID: cred.ClientID, ClientSecret: cred.Secret})
		v.account[cred.ClientID] = a.ID
	}
	return nil
}

func (v *venueRig) close() {
	v.gw.Stop()
	_ = v.srv.Close()
	v.core.Close()
	_ = v.db.Close()
	if v.dir != "" {
		_ = os.RemoveAll(v.dir)
	}
}

// order returns the next order's number, side and price (cents of a
// percent): alternately a bid at 80.00–89.99 and an ask at 110.00–119.99.
func (v *venueRig) order() (n int, side string, cents int) {
	v.mu.Lock()
	v.next++
	n = v.next
	v.mu.Unlock()
	if n%2 == 0 {
		return n, "bid", 8000 + n%1000
	}
	return n, "ask", 11000 + n%1000
}

func price(cents int) string { return fmt.Sprintf("%d.%02d", cents/100, cents%100) }

// result is one run's round trips and count.
type result struct {
	rtts    []time.Duration
	elapsed time.Duration
}

func (r *result) rate() float64 { return float64(len(r.rtts)) / r.elapsed.Seconds() }

func (r *result) p(q float64) time.Duration {
	if len(r.rtts) == 0 {
		return 0
	}
	return r.rtts[min(len(r.rtts)-1, int(q*float64(len(r.rtts))))]
}

// worker enters orders as one session or connection until the deadline,
// recording the round trips that start after from.
type worker func(ctx context.Context, c config, i int, from, until time.Time, rec func(time.Duration)) error

// measure runs n workers for the warm-up and the measured time.
func (v *venueRig) measure(ctx context.Context, c config, n int, w worker) (*result, error) {
	from := time.Now().Add(c.warmup)
	until := from.Add(c.duration)
	var mu sync.Mutex
	res := &result{elapsed: c.duration}
	rec := func(d time.Duration) {
		mu.Lock()
		res.rtts = append(res.rtts, d)
		mu.Unlock()
	}
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = w(ctx, c, i, from, until, rec)
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	slices.Sort(res.rtts)
	return res, nil
}

// restWorker posts offers over one keep-alive connection, one at a time.
func (v *venueRig) restWorker(ctx context.Context, _ config, i int, from, until time.Time, rec func(time.Duration)) error {
	u := v.traders[i%len(v.traders)]
	tok, err := v.core.Access.IssueToken(ctx, u.ClientID, u.ClientSecret)
	if err != nil {
		return err
	}
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 1, DisableCompression: true}}
	defer client.CloseIdleConnections()
	for time.Now().Before(until) {
		_, side, cents := v.order()
		body := `{"instrument_id":"` + v.instrID + `","market_id":"` + v.market + `","account_id":"` + v.account[u.ClientID] +
			`","direction":"` + side + `","price_per_unit":"` + price(cents) + `","quantity":"100000"}`
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, v.url+"/api/v1/participant/offers", strings.NewReader(body))
		if err != nil {
			return err
		}
		req.Header.Set("Authorization", "Bearer "+tok.AccessToken)
		req.Header.Set("Content-Type", "application/json")
		t0 := time.Now()
		resp, err := client.Do(req)
		if err != nil {
			return err
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusCreated {
			return fmt.Errorf("POST /participant/offers: %d %s", resp.StatusCode, b)
		}
		if t0.After(from) {
			rec(time.Since(t0))
		}
	}
	return nil
}

// fixWorker enters NewOrderSingles over one FIX session, window of them in
// flight, and times each to its ExecutionReport New.
func (v *venueRig) fixWorker(_ context.Context, c config, i int, from, until time.Time, rec func(time.Duration)) error {
	u := v.traders[i%len(v.traders)]
	comp := fmt.Sprintf("BVFIX%d-%d", i, time.Now().UnixNano())
	conn, err := fixraw.Dial(v.gw.Addr().String(), comp, "BONDVENUE")
	if err != nil {
		return err
	}
	defer conn.Close()
	if err := conn.Logon(u.ClientID, u.ClientSecret); err != nil {
		return err
	}
	account := v.account[u.ClientID]
	slots := make(chan struct{}, c.window)
	var mu sync.Mutex
	sent := map[string]time.Time{}
	readErr := make(chan error, 1)
	go func() {
		for {
			m, err := conn.Next(30 * time.Second)
			if err != nil {
				readErr <- err
				return
			}
			if fixraw.Field(m, 35) != "8" {
				continue
			}
			switch fixraw.Field(m, 150) {
			case "0":
				mu.Lock()
				t0, ok := sent[fixraw.Field(m, 11)]
				delete(sent, fixraw.Field(m, 11))
				mu.Unlock()
				if ok {
					if t0.After(from) {
						rec(time.Since(t0))
					}
					<-slots
				}
			case "8":
				readErr <- fmt.Errorf("order rejected: %s", fixraw.Text(m))
				return
			}
		}
	}()
	for time.Now().Before(until) {
		select {
		case slots <- struct{}{}:
		case err := <-readErr:
			return err
		}
		n, side, cents := v.order()
		cl := comp + "-" + strconv.Itoa(n)
		fixSide := "1"
		if side == "ask" {
			fixSide = "2"
		}
		mu.Lock()
		sent[cl] = time.Now()
		mu.Unlock()
		if err := conn.Send("D", "11", cl, "1", account, "48", v.isin, "22", "4", "1301", v.market, "54", fixSide,
			"60", time.Now().UTC().Format("20060102-15:04:05.000"), "38", "100000", "40", "2", "44", price(cents), "59", "1"); err != nil {
			return err
		}
	}
	// Wait for the last answers (not measured).
	deadline := time.Now().Add(30 * time.Second)
	for len(slots) > 0 && time.Now().Before(deadline) {
		select {
		case err := <-readErr:
			return err
		case <-time.After(10 * time.Millisecond):
		}
	}
	_ = conn.Send("5")
	return nil
}
