// Command bvstream measures the live streams' fan-out: a demo venue on
// loopback with N subscribers, half on /offers (as the operator, who sees
// every offer) and half on /instruments (as traders), while offers are
// entered at a steady rate. It reports the delay from an event's commit to
// its receipt (p50, p99), the events delivered per second, anything a
// subscriber that keeps up did not receive, and the process's CPU per
// delivered event (server and subscribers share the process). With
// --subscribers-process the subscribers run in a process of their own
// (this command started again), so the server's CPU per delivered event is
// measured alone, and the subscribers' beside it.
//
//	go run ./cmd/bvstream --subscribers 1000 --rate 200 --duration 10s
//	go run ./cmd/bvstream --subscribers 1000 --rate 100 --duration 10s --subscribers-process
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"runtime/pprof"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/coder/websocket"
	"github.com/quagmt/udecimal"

	"github.com/bondvenue/bondvenue/internal/auth"
	"github.com/bondvenue/bondvenue/internal/demo"
	"github.com/bondvenue/bondvenue/internal/socketio"
	"github.com/bondvenue/bondvenue/internal/store"
	"github.com/bondvenue/bondvenue/internal/testenv"
	"github.com/bondvenue/bondvenue/internal/trading"
	"github.com/bondvenue/bondvenue/internal/venue"
)

func main() {
	if os.Getenv(childEnv) != "" {
		if err := runChild(context.Background(), os.Args[1:]); err != nil {
			fmt.Fprintln(os.Stderr, "bvstream subscribers:", err)
			os.Exit(1)
		}
		return
	}
	if err := run(context.Background(), os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "bvstream:", err)
		os.Exit(1)
	}
}

type config struct {
	subscribers int
	rate        float64
	duration    time.Duration
	warmup      time.Duration
	databaseURL string
	cpuProfile  string
	// outOfProcess runs the subscribers in a child process.
	outOfProcess bool
}

func run(ctx context.Context, args []string) error {
	_, err := measure(ctx, args)
	return err
}

// measure runs the measurement that args describe, prints it and answers
// what the subscribers measured.
func measure(ctx context.Context, args []string) (result, error) {
	fs := flag.NewFlagSet("bvstream", flag.ContinueOnError)
	var c config
	fs.IntVar(&c.subscribers, "subscribers", 1000, "connected subscribers, half on /offers, half on /instruments")
	fs.Float64Var(&c.rate, "rate", 200, "offers entered per second")
	fs.DurationVar(&c.duration, "duration", 10*time.Second, "measured time")
	fs.DurationVar(&c.warmup, "warmup", 2*time.Second, "unmeasured time before")
	fs.StringVar(&c.databaseURL, "database-url", "", "an empty PostgreSQL database (default: SQLite in a temporary directory)")
	fs.StringVar(&c.cpuProfile, "cpuprofile", "", "write a CPU profile of the measured time to this file")
	fs.BoolVar(&c.outOfProcess, "subscribers-process", false, "run the subscribers in a process of their own")
	if err := fs.Parse(args); err != nil {
		return result{}, err
	}
	dir, err := os.MkdirTemp("", "bvstream-*")
	if err != nil {
		return result{}, err
	}
	defer os.RemoveAll(dir)
	db, err := store.Open(ctx, store.Config{URL: c.databaseURL, DataDir: dir})
	if err != nil {
		return result{}, err
	}
	defer db.Close()
	if _, err := db.Migrate(ctx); err != nil {
		return result{}, err
	}
	log := slog.New(slog.DiscardHandler)
	h := auth.FastHasher
	v := testenv.Wire(db, testenv.Config{Trading: trading.Config{Hasher: &h, Logger: log, RateLimit: 1e6}, TokenTTL: time.Hour})
	if err := v.Start(ctx); err != nil {
		return result{}, err
	}
	defer v.Close()
	svc := v.Svc
	creds, _, err := demo.Load(ctx, svc, dir, "")
	if err != nil {
		return result{}, err
	}
	// The load's bids and asks sit far apart on purpose (they never cross):
	// the widest price collar lets them rest.
	wide := udecimal.MustParse("100")
	wideMs, err := svc.Markets(ctx, trading.System, trading.MarketFilter{}, venue.Page{})
	if err != nil {
		return result{}, err
	}
	for _, m := range wideMs.Items {
		if _, err := svc.UpdateMarket(ctx, trading.System, m.ID, trading.MarketInput{PriceCollarPercent: &wide}); err != nil {
			return result{}, err
		}
	}
	unlimited := udecimal.MustParse("999999999999999999")
	for _, p := range creds.Participants {
		for _, name := range trading.RiskLimitNames() {
			if _, err := svc.SetRiskLimit(ctx, trading.System, p.ID, trading.RiskLimitInput{Name: name, Value: &unlimited}); err != nil {
				return result{}, err
			}
		}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return result{}, err
	}
	// One credential holds many of the subscribers: its socket limit is raised.
	srv := &http.Server{Handler: socketio.New(v.Access, v.Live, socketio.Config{Logger: log, MaxSocketsPerCredential: c.subscribers})}
	go func() { _ = srv.Serve(ln) }()
	defer srv.Close()
	url := "ws://" + ln.Addr().String() + "/socket.io/?EIO=4&transport=websocket"

	opTok, err := v.Access.IssueToken(ctx, creds.Operator.ClientID, creds.Operator.ClientSecret)
	if err != nil {
		return result{}, err
	}
	var traders []venue.Principal
	var traderToks []string
	for _, p := range creds.Participants[:3] {
		for _, u := range p.Users {
			if u.Role == string(venue.RoleTrader) {
				tok, err := v.Access.IssueToken(ctx, u.ClientID, u.ClientSecret)
				if err != nil {
					return result{}, err
				}
				traders = append(traders, venue.Principal{UserID: u.UserID, ParticipantID: p.ID, Role: venue.RoleTrader})
				traderToks = append(traderToks, tok.AccessToken)
			}
		}
	}

	toks := subscriberTokens(c.subscribers, opTok.AccessToken, traderToks)
	st := &stats{}
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var subs []*subscriber
	var wg sync.WaitGroup
	var child *childProcess
	if c.outOfProcess {
		if child, err = startChild(cctx, url, toks, c); err != nil {
			return result{}, err
		}
	} else if subs, err = subscribe(cctx, url, toks, st, &wg); err != nil {
		return result{}, err
	}

	// Offers at the rate: bids and asks that do not cross, so each event
	// is an offer.create and, when the best moves, a price change.
	ins, err := svc.Instruments(ctx, trading.System, trading.InstrumentFilter{}, venue.Page{})
	if err != nil {
		return result{}, err
	}
	ms, err := svc.Markets(ctx, trading.System, trading.MarketFilter{}, venue.Page{})
	if err != nil {
		return result{}, err
	}
	var market string
	for _, m := range ms.Items {
		if m.FacilityType == venue.FacilityContinuous && m.IsPartialFillAllowed && m.Hours == nil {
			market = m.ID
		}
	}
	gen := func(stop <-chan struct{}) {
		t := time.NewTicker(time.Duration(float64(time.Second) / c.rate))
		defer t.Stop()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			case <-t.C:
			}
			in := ins.Items[i%len(ins.Items)]
			dir, cents := venue.Bid, int64(8000+i%1000)
			if i%2 == 1 {
				dir, cents = venue.Ask, int64(11000+i%1000)
			}
			price := udecimal.MustFromInt64(cents, 2)
			qty := in.MinPiece
			go func() {
				_, _ = svc.CreateOffer(ctx, traders[i%len(traders)], trading.OfferInput{InstrumentID: in.ID, MarketID: market,
					Direction: dir, Price: &price, Quantity: &qty})
			}()
		}
	}
	stop := make(chan struct{})
	go gen(stop)
	time.Sleep(c.warmup)
	st.reset()
	if c.cpuProfile != "" {
		f, err := os.Create(c.cpuProfile)
		if err != nil {
			return result{}, err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return result{}, err
		}
		defer pprof.StopCPUProfile()
	}
	cpu0 := cpuTime()
	start := time.Now()
	time.Sleep(c.duration)
	elapsed := time.Since(start)
	cpu := cpuTime() - cpu0
	var r result
	delivered, lat := st.snapshot()
	if child != nil {
		r, err = child.result()
	}
	close(stop)
	cancel()
	wg.Wait() // the readers are done: their errors may be read
	if err != nil {
		return result{}, err
	}
	if child == nil {
		r = resultOf(delivered, lat, subs)
	}

	fmt.Printf("subscribers %d (offers %d, instruments %d), offers entered %.0f/s for %s\n",
		c.subscribers, (c.subscribers+1)/2, c.subscribers/2, c.rate, c.duration)
	fmt.Printf("delivered   %d events, %.0f/s\n", r.Delivered, float64(r.Delivered)/elapsed.Seconds())
	fmt.Printf("commit → receipt  p50 %s  p99 %s  max %s\n", r.P50, r.P99, r.Max)
	if r.Delivered > 0 {
		if child != nil {
			fmt.Printf("server CPU per delivered event %.1f µs; the subscribers' process %.1f µs\n",
				float64(cpu.Microseconds())/float64(r.Delivered), float64(r.CPU.Microseconds())/float64(r.Delivered))
		} else {
			fmt.Printf("process CPU per delivered event %.1f µs (server and subscribers)\n",
				float64(cpu.Microseconds())/float64(r.Delivered))
		}
	}
	fmt.Printf("subscribers disconnected by the server: %d\n", r.Dropped)
	return r, nil
}

// subscriberTokens gives each of n subscribers its namespace's token:
// even ones the operator's on /offers, odd ones a trader's on /instruments.
func subscriberTokens(n int, operator string, traders []string) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = operator
		if i%2 == 1 {
			out[i] = traders[i%len(traders)]
		}
	}
	return out
}

func namespaceOf(i int) string {
	if i%2 == 1 {
		return "/instruments"
	}
	return "/offers"
}

// subscribe connects a subscriber per token and reads each in a goroutine
// of wg until ctx ends.
func subscribe(ctx context.Context, url string, toks []string, st *stats, wg *sync.WaitGroup) ([]*subscriber, error) {
	subs := make([]*subscriber, len(toks))
	for i, tok := range toks {
		s, err := connect(ctx, url, namespaceOf(i), tok)
		if err != nil {
			return nil, fmt.Errorf("subscriber %d: %w", i, err)
		}
		subs[i] = s
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.read(ctx, st)
		}()
	}
	return subs, nil
}

// result is what the subscribers measured.
type result struct {
	Delivered     int64
	P50, P99, Max time.Duration
	Dropped       int
	CPU           time.Duration // of the subscribers' own process, when out of process
}

// resultOf sums up the delays and the subscribers, whose readers have
// ended.
func resultOf(delivered int64, lat []time.Duration, subs []*subscriber) result {
	slices.Sort(lat)
	pct := func(p float64) time.Duration {
		if len(lat) == 0 {
			return 0
		}
		return lat[min(len(lat)-1, int(p*float64(len(lat))))]
	}
	r := result{Delivered: delivered, P50: pct(0.50), P99: pct(0.99), Max: pct(1)}
	for _, s := range subs {
		if s.err != nil && !errors.Is(s.err, context.Canceled) {
			r.Dropped++
		}
	}
	return r
}

// childEnv marks the process that runs only the subscribers.
const childEnv = "BVSTREAM_SUBSCRIBERS"

// childProcess is the subscribers' process: it says "ready" once every
// subscriber is connected, measures for warmup then duration from then,
// and prints its result as one line of JSON.
type childProcess struct {
	cmd *exec.Cmd
	out *bufio.Scanner
}

func startChild(ctx context.Context, url string, toks []string, c config) (*childProcess, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, exe, "--url", url, "--warmup", c.warmup.String(), "--duration", c.duration.String())
	cmd.Env = append(os.Environ(), childEnv+"=1")
	cmd.Stdin = strings.NewReader(strings.Join(toks, "\n"))
	cmd.Stderr = os.Stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	ch := &childProcess{cmd: cmd, out: bufio.NewScanner(stdout)}
	if !ch.out.Scan() || ch.out.Text() != "ready" {
		_ = cmd.Wait()
		return nil, fmt.Errorf("the subscribers' process did not get ready: %q", ch.out.Text())
	}
	return ch, nil
}

func (ch *childProcess) result() (result, error) {
	var r result
	if !ch.out.Scan() {
		return r, fmt.Errorf("the subscribers' process ended without a result: %v", ch.cmd.Wait())
	}
	if err := json.Unmarshal(ch.out.Bytes(), &r); err != nil {
		return r, err
	}
	return r, ch.cmd.Wait()
}

// runChild is the subscribers' process: one subscriber per token read from
// standard input.
func runChild(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("bvstream subscribers", flag.ContinueOnError)
	url := fs.String("url", "", "the server's WebSocket URL")
	warmup := fs.Duration("warmup", 2*time.Second, "unmeasured time")
	duration := fs.Duration("duration", 10*time.Second, "measured time")
	if err := fs.Parse(args); err != nil {
		return err
	}
	in, err := io.ReadAll(os.Stdin)
	if err != nil {
		return err
	}
	toks := strings.Fields(string(in))
	st := &stats{}
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	subs, err := subscribe(cctx, *url, toks, st, &wg)
	if err != nil {
		return err
	}
	fmt.Println("ready")
	time.Sleep(*warmup)
	st.reset()
	cpu0 := cpuTime()
	time.Sleep(*duration)
	cpu := cpuTime() - cpu0
	delivered, lat := st.snapshot()
	cancel()
	wg.Wait()
	r := resultOf(delivered, lat, subs)
	r.CPU = cpu
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	fmt.Println(string(b))
	return nil
}

// subscriber is one Engine.IO WebSocket client on one namespace.
type subscriber struct {
	ws  *websocket.Conn
	nsp string
	err error
}

func connect(ctx context.Context, url, nsp, token string) (*subscriber, error) {
	dctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	ws, _, err := websocket.Dial(dctx, url, nil)
	if err != nil {
		return nil, err
	}
	ws.SetReadLimit(1 << 20)
	if _, _, err := ws.Read(dctx); err != nil { // the open packet
		return nil, err
	}
	if err := ws.Write(dctx, websocket.MessageText, []byte("40"+nsp+`,{"token":"`+token+`"}`)); err != nil {
		return nil, err
	}
	for range 2 { // the connect answer and the subscription event
		_, b, err := ws.Read(dctx)
		if err != nil {
			return nil, err
		}
		if strings.HasPrefix(string(b), "44") {
			return nil, fmt.Errorf("connect_error %s", b)
		}
	}
	return &subscriber{ws: ws, nsp: nsp}, nil
}

// read receives events until ctx ends, recording each one's delay.
func (s *subscriber) read(ctx context.Context, st *stats) {
	defer s.ws.CloseNow()
	prefix := "42" + s.nsp + ","
	for {
		_, b, err := s.ws.Read(ctx)
		if err != nil {
			s.err = err
			if ctx.Err() != nil {
				s.err = context.Canceled
			}
			return
		}
		now := time.Now()
		switch {
		case string(b) == "2":
			_ = s.ws.Write(ctx, websocket.MessageText, []byte("3"))
		case strings.HasPrefix(string(b), prefix):
			// Only the meta's occurred_at is read, from the end of the
			// frame: decoding whole records would cost the subscribers
			// more CPU than the server spends sending them.
			i := bytes.LastIndex(b, occurredAt)
			if i < 0 {
				continue
			}
			rest := b[i+len(occurredAt):]
			end := bytes.IndexByte(rest, '"')
			if end < 0 {
				continue
			}
			if at, err := time.Parse(venue.TimestampLayout, string(rest[:end])); err == nil {
				st.add(now.Sub(at))
			}
		}
	}
}

var occurredAt = []byte(`"occurred_at":"`)

// stats gathers the delays of the events received.
type stats struct {
	mu  sync.Mutex
	lat []time.Duration
	n   atomic.Int64
}

func (s *stats) add(d time.Duration) {
	s.n.Add(1)
	s.mu.Lock()
	s.lat = append(s.lat, d)
	s.mu.Unlock()
}

func (s *stats) reset() {
	s.mu.Lock()
	s.lat = s.lat[:0]
	s.n.Store(0)
	s.mu.Unlock()
}

func (s *stats) snapshot() (int64, []time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.n.Load(), slices.Clone(s.lat)
}

// cpuTime is the process's user and system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
