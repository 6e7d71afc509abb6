package socketio_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/bondvenue/bondvenue/internal/access"
	"github.com/bondvenue/bondvenue/internal/demo"
	"github.com/bondvenue/bondvenue/internal/feed"

	"github.com/quagmt/udecimal"

	"github.com/bondvenue/bondvenue/internal/socketio"
	"github.com/bondvenue/bondvenue/internal/store"
	"github.com/bondvenue/bondvenue/internal/testenv"
	"github.com/bondvenue/bondvenue/internal/trading"
	"github.com/bondvenue/bondvenue/internal/venue"
	"github.com/bondvenue/bondvenue/internal/wire"
)

// The official client lives in testdata/client (npm ci installs it there;
// CI runs with BONDVENUE_TEST_REQUIRE_NODE=1, which makes its absence a
// failure rather than a skip).
const clientDir = "testdata/client"

var (
	buildOnce sync.Once
	buildErr  error
)

// officialClient compiles the TypeScript client once and returns the
// script to run.
func officialClient(t *testing.T) string {
	t.Helper()
	_, nodeErr := exec.LookPath("node")
	_, modErr := os.Stat(filepath.Join(clientDir, "node_modules", "socket.io-client"))
	if nodeErr != nil || modErr != nil {
		if os.Getenv("BONDVENUE_TEST_REQUIRE_NODE") != "" {
			t.Fatalf("the official client is required: node %v, node_modules %v (npm ci --prefix %s)", nodeErr, modErr, clientDir)
		}
		t.Skipf("node or %s/node_modules missing: npm ci --prefix %s", clientDir, clientDir)
	}
	buildOnce.Do(func() {
		out, err := exec.Command(filepath.Join(clientDir, "node_modules", ".bin", "tsc"), "-p", clientDir).CombinedOutput()
		if err != nil {
			buildErr = &buildError{err, string(out)}
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return filepath.Join(clientDir, "dist", "client.js")
}

type buildError struct {
	err error
	out string
}

func (e *buildError) Error() string { return "tsc: " + e.err.Error() + "\n" + e.out }

// line is one line the client printed.
type line struct {
	Reason    string            `json:"reason"`
	NS        string            `json:"ns"`
	Event     string            `json:"event"`
	Args      []json.RawMessage `json:"args"`
	Message   string            `json:"message"`
	Data      json.RawMessage   `json:"data"`
	Transport string            `json:"transport"`
	Client    *int              `json:"client"`   // with CLIENTS=N
	AfterMS   int64             `json:"after_ms"` // of an upgrade: since the connect
}

// runClient starts the official client on transports and returns its
// lines.
// env adds settings of the client (LAST_SEQ, STALL_FILE).
func runClient(t *testing.T, script, url, token, namespaces, transports string, env ...string) *lineLog {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, "node", script)
	cmd.Env = append(os.Environ(), "URL="+url, "TOKEN="+token, "NAMESPACES="+namespaces, "TRANSPORTS="+transports)
	cmd.Env = append(cmd.Env, env...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := &lineLog{used: map[int]bool{}, more: make(chan struct{})}
	go func() {
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			var l line
			if json.Unmarshal(sc.Bytes(), &l) == nil && l.Event != "" {
				lines.mu.Lock()
				lines.seen = append(lines.seen, l)
				close(lines.more)
				lines.more = make(chan struct{})
				lines.mu.Unlock()
			}
		}
		lines.mu.Lock()
		lines.ended = true
		close(lines.more)
		lines.mu.Unlock()
	}()
	t.Cleanup(func() {
		cancel()
		_ = cmd.Wait()
	})
	return lines
}

// expect returns the first line (of all the client printed, in any
// order across namespaces) that matches, waiting for it as long as the
// client prints and the test has time.
func expect(t *testing.T, lines *lineLog, what string, match func(line) bool) line {
	t.Helper()
	expired := testenv.Expired(t)
	for {
		lines.mu.Lock()
		for i, l := range lines.seen {
			if !lines.used[i] && match(l) {
				lines.used[i] = true
				lines.mu.Unlock()
				return l
			}
		}
		more, ended := lines.more, lines.ended
		lines.mu.Unlock()
		if ended {
			t.Fatalf("no %s: the client ended", what)
		}
		select {
		case <-more:
		case <-expired:
			t.Fatalf("no %s when the test's time ran out", what)
		}
	}
}

// lineLog keeps every line a client printed.
type lineLog struct {
	mu   sync.Mutex
	seen []line
	used map[int]bool
	// more is closed (and replaced) when a line comes, and when the
	// client's output ends (ended).
	more  chan struct{}
	ended bool
}

// TestOfficialClient drives the official socket.io-client 4.8, on each
// transport setting (WebSocket only; its defaults, long-polling upgraded to
// WebSocket; long-polling only): a wrong token is refused with
// connect_error 401; a trader connected to four namespaces on one
// connection receives its own offer, the trade, its order and the book's
// price change, each as (record, meta).
func TestOfficialClient(t *testing.T) {
	script := officialClient(t)
	for _, tc := range []struct {
		engine     store.Engine
		transports string
	}{
		{store.SQLite, "websocket"}, {store.Postgres, "websocket"},
		{store.SQLite, "default"}, {store.Postgres, "default"},
		{store.SQLite, "polling"},
	} {
		e := tc.engine
		t.Run(string(e)+"/"+tc.transports, func(t *testing.T) {
			core, creds := testenv.Demo(t, testenv.Open(t, e), testenv.Config{Trading: trading.Config{Logger: slog.New(slog.DiscardHandler)}})
			svc := core.Svc
			srv := httptest.NewServer(socketio.New(core.Access, core.Live, socketio.Config{Logger: slog.New(slog.DiscardHandler)}))
			t.Cleanup(srv.Close)
			ctx := context.Background()
			token := func(i int) (string, venue.Principal) { return traderToken(t, core.Access, creds, i) }

			bad := runClient(t, script, srv.URL, "not-a-token", "/offers", tc.transports)
			l := expect(t, bad, "connect_error", func(l line) bool { return l.Event == "connect_error" })
			if l.Message != "Invalid Token" || string(l.Data) != `{"statusCode":401}` {
				t.Errorf("wrong token: connect_error %q %s", l.Message, l.Data)
			}

			tok0, buyer := token(0)
			_, seller := token(1)
			lines := runClient(t, script, srv.URL, tok0, "/offers,/orders,/trades,/instruments", tc.transports)
			for range 4 {
				expect(t, lines, "subscription", func(l line) bool { return l.Event == "subscription" })
			}
			if tc.transports == "default" {
				expect(t, lines, "upgrade to websocket", func(l line) bool { return l.Event == "upgrade" && l.Transport == "websocket" })
			}

			market, in := book(t, svc)
			price, qty := udecimal.MustParse("99"), in.MinPiece
			if _, err := svc.CreateOffer(ctx, seller, trading.OfferInput{InstrumentID: in.ID, MarketID: market,
				Direction: venue.Ask, Price: &price, Quantity: &qty}); err != nil {
				t.Fatal(err)
			}
			bid, err := svc.CreateOffer(ctx, buyer, trading.OfferInput{InstrumentID: in.ID, MarketID: market,
				Direction: venue.Bid, Price: &price, Quantity: &qty})
			if err != nil || len(bid.Trades) != 1 {
				t.Fatalf("bid = %d trades, %v", len(bid.Trades), err)
			}
			trade := bid.Trades[0]

			record := func(l line, v any) {
				t.Helper()
				if len(l.Args) != 2 {
					t.Fatalf("%s on %s has %d arguments, want record and meta", l.Event, l.NS, len(l.Args))
				}
				var m struct {
					Seq  int64  `json:"seq"`
					Type string `json:"type"`
				}
				if json.Unmarshal(l.Args[0], v) != nil || json.Unmarshal(l.Args[1], &m) != nil || m.Seq == 0 || m.Type != l.Event {
					t.Errorf("%s on %s: %s", l.Event, l.NS, l.Args)
				}
			}
			var offer struct{ ID, Status string }
			record(expect(t, lines, "offer.create of the bid", func(l line) bool { return l.NS == "/offers" && l.Event == "offer.create" }), &offer)
			if offer.ID != bid.ID {
				t.Errorf("offer.create of %s, want the trader's own bid %s (the other firm's ask is not its to see)", offer.ID, bid.ID)
			}
			var tr struct{ ID string }
			record(expect(t, lines, "trade.create", func(l line) bool { return l.NS == "/trades" && l.Event == "trade.create" }), &tr)
			if tr.ID != trade.ID {
				t.Errorf("trade.create of %s, want %s", tr.ID, trade.ID)
			}
			var order struct {
				OfferID   string `json:"offer_id"`
				AccountID string `json:"account_id"`
			}
			record(expect(t, lines, "order.create", func(l line) bool { return l.NS == "/orders" && l.Event == "order.create" }), &order)
			if order.OfferID != bid.ID || order.AccountID == "" {
				t.Errorf("order.create of offer %s with account %q, want the bid's, with its account", order.OfferID, order.AccountID)
			}
			var pc struct {
				InstrumentID string  `json:"instrument_id"`
				LastPrice    float64 `json:"last_price"`
			}
			record(expect(t, lines, "price change after the trade", func(l line) bool {
				return l.NS == "/instruments" && l.Event == "instrument.price_change" && len(l.Args) > 0 &&
					json.Unmarshal(l.Args[0], &pc) == nil && pc.LastPrice != 0
			}), &pc)
			if pc.InstrumentID != in.ID || pc.LastPrice != 99 {
				t.Errorf("price change %+v, want instrument %s last 99", pc, in.ID)
			}
		})
	}
}

// TestOfficialClientFirms: three firms follow every namespace with the
// official client while an RFQ runs between two of them (p0 asks p1 only;
// p1 quotes; p0 accepts), p1 publishes an indicative price and the operator
// news: each firm receives exactly what it may see — the requester its RFQ
// and the quote, the dealer the RFQ and its own quote, the third firm
// neither, nor the trade or its orders — and everyone the public events
// (news, indicative price, the OTC book's price change and its bar). A
// token that expires disconnects its sockets (the venue's clock moved
// past the tokens' 8 s: the test may take as long as the machine needs).
func TestOfficialClientFirms(t *testing.T) {
	script := officialClient(t)
	clock := testenv.NewClock(time.Now())
	core, creds := testenv.Demo(t, testenv.Open(t, store.SQLite), testenv.Config{Trading: trading.Config{Logger: slog.New(slog.DiscardHandler),
		Now: clock.Now}, TokenTTL: 8 * time.Second})
	svc := core.Svc
	srv := httptest.NewServer(socketio.New(core.Access, core.Live, socketio.Config{Logger: slog.New(slog.DiscardHandler), TokenCheck: 100 * time.Millisecond}))
	t.Cleanup(srv.Close)
	ctx := context.Background()
	trader := func(i int) (string, venue.Principal) { return traderToken(t, core.Access, creds, i) }
	all := "/offers,/orders,/trades,/instruments,/ohlc,/news,/indicative-prices"
	clients := make([]*lineLog, 3)
	principals := make([]venue.Principal, 3)
	for i := range clients {
		var tok string
		tok, principals[i] = trader(i)
		clients[i] = runClient(t, script, srv.URL, tok, all, "websocket")
	}
	for _, c := range clients {
		for range 7 {
			expect(t, c, "subscription", func(l line) bool { return l.Event == "subscription" })
		}
	}

	_, in := book(t, svc)
	ms, err := svc.Markets(ctx, trading.System, trading.MarketFilter{}, venue.Page{})
	if err != nil {
		t.Fatal(err)
	}
	var otc string
	for _, m := range ms.Items {
		if m.FacilityType == venue.FacilityOTC {
			otc = m.ID
		}
	}
	qty, price := udecimal.MustParse("1000000"), udecimal.MustParse("101")
	rfq, err := svc.CreateRFQ(ctx, principals[0], trading.OfferInput{InstrumentID: in.ID, MarketID: otc, Direction: venue.Bid,
		Quantity: &qty, Counterparties: []string{principals[1].ParticipantID}})
	if err != nil {
		t.Fatal(err)
	}
	quote, err := svc.CreateOffer(ctx, principals[1], trading.OfferInput{InstrumentID: in.ID, MarketID: otc, Direction: venue.Ask,
		Price: &price, Quantity: &qty, MatchedOfferID: rfq.ID})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.AcceptQuote(ctx, principals[0], quote.ID, venue.Parties{}); err != nil {
		t.Fatal(err)
	}
	bid, ask := udecimal.MustParse("99"), udecimal.MustParse("100")
	if _, err := svc.CreateIndicativePrice(ctx, principals[1], trading.IndicativeInput{InstrumentID: in.ID,
		AccountID: creds.Participants[1].AccountIDs[0], BidPrice: &bid, AskPrice: &ask}); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.CreateNews(ctx, trading.System, trading.NewsInput{Title: "Auction results", Body: "Results."}); err != nil {
		t.Fatal(err)
	}

	// Everyone: the public events (the news last, so all before it have
	// arrived when it has).
	for i, c := range clients {
		expect(t, c, "news", func(l line) bool { return l.NS == "/news" && l.Event == "news.create" })
		expect(t, c, "indicative price", func(l line) bool {
			return l.NS == "/indicative-prices" && l.Event == "indicative_price.create"
		})
		expect(t, c, "the OTC book's price change", func(l line) bool {
			return l.NS == "/instruments" && l.Event == "instrument.price_change"
		})
		expect(t, c, "the bar", func(l line) bool { return l.NS == "/ohlc" && l.Event == "ohlc.update" })
		seen := map[string]int{}
		c.mu.Lock()
		for _, l := range c.seen {
			seen[l.NS+" "+l.Event]++
		}
		c.mu.Unlock()
		want := map[string]int{
			"/offers rfq.create": 1, "/offers rfq.update": 1, "/offers quote.create": 1, "/offers quote.update": 1,
			"/trades trade.create": 1, "/orders order.create": 1,
		}
		if i == 2 { // the third firm was not asked: none of it
			for k := range want {
				want[k] = 0
			}
		}
		for k, n := range want {
			if seen[k] != n {
				t.Errorf("firm %d: %d %s, want %d", i, seen[k], k, n)
			}
		}
	}

	// Tokens live 8 s: every socket of every client is disconnected by the
	// server when they expire.
	clock.Advance(9 * time.Second)
	for _, c := range clients {
		for range 7 {
			l := expect(t, c, "disconnect at token expiry", func(l line) bool { return l.Event == "disconnect" })
			if l.Reason != "io server disconnect" {
				t.Errorf("%s disconnected: %q, want the server's doing", l.NS, l.Reason)
			}
		}
	}
}

// TestOfficialClientUpgradeIdle: on a venue where nothing happens, 50
// official clients on their default transports (long-polling, then the
// upgrade), started 40 ms apart, each move to WebSocket. The client sends
// its upgrade only once its pending poll has ended, so the server must end
// that poll (with a noop) when the probe arrives rather than leave it
// waiting for the next ping — an hour away here, so a poll left waiting
// holds its client's upgrade past the test's time, whatever the machine's
// speed.
func TestOfficialClientUpgradeIdle(t *testing.T) {
	script := officialClient(t)
	const clients = 50
	for _, e := range testenv.Engines {
		t.Run(string(e), func(t *testing.T) {
			core, creds := testenv.Demo(t, testenv.Open(t, e), testenv.Config{Trading: trading.Config{Logger: slog.New(slog.DiscardHandler)}})
			// The tokens outlive the test: their check stays out of the way.
			srv := httptest.NewServer(socketio.New(core.Access, core.Live, socketio.Config{Logger: slog.New(slog.DiscardHandler), TokenCheck: time.Minute,
				PingInterval: time.Hour, PingTimeout: time.Hour}))
			t.Cleanup(srv.Close)
			tok, _ := traderToken(t, core.Access, creds, 0)
			lines := runClient(t, script, srv.URL, tok, "/news", "default", "CLIENTS="+strconv.Itoa(clients), "STAGGER_MS=40")
			upgraded := map[int]bool{}
			slowest := int64(0)
			for range clients {
				l := expect(t, lines, "a client's upgrade", func(l line) bool { return l.Event == "upgrade" })
				if l.Transport != "websocket" || upgraded[*l.Client] {
					t.Errorf("client %d upgraded to %s (upgraded before: %v), want websocket, once", *l.Client, l.Transport, upgraded[*l.Client])
				}
				upgraded[*l.Client] = true
				slowest = max(slowest, l.AfterMS)
			}
			lines.mu.Lock()
			for _, l := range lines.seen {
				if l.Event == "disconnect" {
					t.Errorf("client %d disconnected: %s", *l.Client, l.Reason)
				}
			}
			lines.mu.Unlock()
			if len(upgraded) != clients {
				t.Errorf("%d of %d clients upgraded to websocket", len(upgraded), clients)
			}
			// How long it took is the machine's: reported, not asserted.
			t.Logf("the slowest upgrade came %d ms after its connect", slowest)
		})
	}
}

// traderToken grants demo participant i's trader an access token and
// returns it with the trader's principal.
func traderToken(t *testing.T, tokens *access.Tokens, creds demo.Credentials, i int) (string, venue.Principal) {
	t.Helper()
	p := creds.Participants[i]
	for _, u := range p.Users {
		if u.Role == string(venue.RoleTrader) {
			tok, err := tokens.IssueToken(context.Background(), u.ClientID, u.ClientSecret)
			if err != nil {
				t.Fatal(err)
			}
			return tok.AccessToken, venue.Principal{UserID: u.UserID, ParticipantID: p.ID, Role: venue.RoleTrader}
		}
	}
	t.Fatal("no trader")
	return "", venue.Principal{}
}

// TestOfficialClientSlowConsumer: an official client that stops reading
// while the venue publishes is cut off once its queue (16 frames here) and
// the sockets' buffers are full — the venue never waits for it — and when
// it reads again it sees the disconnect, reconnects with its last seq and
// receives every item exactly once.
func TestOfficialClientSlowConsumer(t *testing.T) {
	script := officialClient(t)
	for _, e := range []store.Engine{store.SQLite, store.Postgres} {
		t.Run(string(e), func(t *testing.T) {
			core, creds := testenv.Demo(t, testenv.Open(t, e), testenv.Config{Trading: trading.Config{Logger: slog.New(slog.DiscardHandler)}})
			svc := core.Svc
			reg := prometheus.NewRegistry()
			srv := httptest.NewUnstartedServer(socketio.New(core.Access, core.Live, socketio.Config{Logger: slog.New(slog.DiscardHandler),
				QueueSize: 16, Registry: reg}))
			// Small send buffers: the kernel holds little of what the
			// client does not read, so the queue fills after a few items.
			srv.Listener = smallBuffers{srv.Listener}
			srv.Start()
			t.Cleanup(srv.Close)
			tok, _ := traderToken(t, core.Access, creds, 0)
			resume := filepath.Join(t.TempDir(), "resume")
			lines := runClient(t, script, srv.URL, tok, "/news", "websocket", "STALL_FILE="+resume)
			expect(t, lines, "connect", func(l line) bool { return l.Event == "connect" })
			expect(t, lines, "subscription", func(l line) bool { return l.Event == "subscription" })

			body := strings.Repeat("The venue publishes a long notice. ", 450) // 15 kB
			var published []int64
			publish := func() {
				t.Helper()
				if _, err := svc.CreateNews(context.Background(), trading.System, trading.NewsInput{
					Title: "Notice " + strconv.Itoa(len(published)), Body: body, Source: "bondvenue"}); err != nil {
					t.Fatal(err)
				}
				seq, err := core.Live.LastEventSeq(context.Background())
				if err != nil {
					t.Fatal(err)
				}
				published = append(published, seq)
			}
			publish()
			expect(t, lines, "the stall after the first item", func(l line) bool { return l.Event == "stall" })
			for disconnects(t, reg, "slow consumer") == 0 {
				if len(published) > 2000 {
					t.Fatal("2000 items published to a client that reads nothing, and it was not cut off")
				}
				publish()
			}
			cutAt := len(published)
			for range 5 { // and a few more while it is away
				publish()
			}
			if err := os.WriteFile(resume, nil, 0o600); err != nil {
				t.Fatal(err)
			}
			expect(t, lines, "disconnect", func(l line) bool { return l.Event == "disconnect" })
			expect(t, lines, "reconnect", func(l line) bool { return l.Event == "connect" })
			got := map[int64]int{}
			for _, seq := range published {
				expect(t, lines, fmt.Sprintf("news of seq %d", seq), func(l line) bool {
					var m struct{ Seq int64 }
					return l.Event == "news.create" && len(l.Args) == 2 && json.Unmarshal(l.Args[1], &m) == nil && m.Seq == seq
				})
				got[seq]++
			}
			// A last item: the socket delivers in sequence order, so a
			// duplicate of an earlier one would come before it.
			publish()
			last := published[len(published)-1]
			expect(t, lines, "the last item", func(l line) bool {
				var m struct{ Seq int64 }
				return l.Event == "news.create" && len(l.Args) == 2 && json.Unmarshal(l.Args[1], &m) == nil && m.Seq == last
			})
			lines.mu.Lock()
			for i, l := range lines.seen {
				if l.Event == "news.create" && !lines.used[i] {
					t.Errorf("news.create delivered twice (or not published here): %s", l.Args)
				}
			}
			lines.mu.Unlock()
			t.Logf("cut off after %d items of 15 kB; %d delivered exactly once after the reconnect", cutAt, len(got))
		})
	}
}

// smallBuffers gives each accepted connection a small send buffer.
type smallBuffers struct{ net.Listener }

func (l smallBuffers) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if tc, ok := c.(*net.TCPConn); ok {
		_ = tc.SetWriteBuffer(8 << 10)
	}
	return c, err
}

// TestOfficialClientDepth: firm B follows /instruments with the official
// client while firm A places bids, amends and cancels one below the best:
// every change reaches B as instrument.depth, each side the book's levels
// on that market exactly as REST's instrument_limits shows them to B. A
// socket that asked for one level (auth.depth) hears only of changes to
// it; a depth out of range is refused.
func TestOfficialClientDepth(t *testing.T) {
	script := officialClient(t)
	for _, e := range testenv.Engines {
		t.Run(string(e), func(t *testing.T) {
			core, creds := testenv.Demo(t, testenv.Open(t, e), testenv.Config{Trading: trading.Config{Logger: slog.New(slog.DiscardHandler)}})
			svc := core.Svc
			srv := httptest.NewServer(socketio.New(core.Access, core.Live, socketio.Config{Logger: slog.New(slog.DiscardHandler)}))
			t.Cleanup(srv.Close)
			ctx := context.Background()
			_, firmA := traderToken(t, core.Access, creds, 0)
			tokB, firmB := traderToken(t, core.Access, creds, 1)
			market, in := book(t, svc)

			bad := runClient(t, script, srv.URL, tokB, "/instruments", "websocket", "DEPTH=0")
			if l := expect(t, bad, "connect_error", func(l line) bool { return l.Event == "connect_error" }); string(l.Data) != `{"statusCode":400}` {
				t.Errorf("depth 0: connect_error %q %s, want 400", l.Message, l.Data)
			}
			full := runClient(t, script, srv.URL, tokB, "/instruments", "websocket")
			top := runClient(t, script, srv.URL, tokB, "/instruments", "websocket", "DEPTH=1")
			for _, c := range []*lineLog{full, top} {
				expect(t, c, "subscription", func(l line) bool { return l.Event == "subscription" })
			}

			// want is B's REST view of the book on the market, rendered.
			want := func(levels int) (bid, ask string) {
				t.Helper()
				d, err := svc.Instrument(ctx, firmB, in.ID, 0)
				if err != nil {
					t.Fatal(err)
				}
				side := func(les []feed.LimitEntry) string {
					out := []wire.LimitEntry{}
					for _, le := range les {
						if le.MarketID == market && len(out) < levels {
							out = append(out, wire.LimitEntryOf(le))
						}
					}
					b, _ := json.Marshal(out)
					return string(b)
				}
				return side(d.Limits.Bid), side(d.Limits.Ask)
			}
			// awaitDepth waits for the depth event showing B's view.
			awaitDepth := func(c *lineLog, levels int, what string) {
				t.Helper()
				bid, ask := want(levels)
				var got depthRecord
				expect(t, c, what, func(l line) bool {
					return l.Event == "instrument.depth" && len(l.Args) == 2 && json.Unmarshal(l.Args[0], &got) == nil &&
						got.InstrumentID == in.ID && got.MarketID == market && string(got.Bid) == bid && string(got.Ask) == ask
				})
			}
			place := func(price string) trading.OfferView {
				t.Helper()
				p, q := udecimal.MustParse(price), in.MinPiece
				o, err := svc.CreateOffer(ctx, firmA, trading.OfferInput{InstrumentID: in.ID, MarketID: market,
					Direction: venue.Bid, Price: &p, Quantity: &q})
				if err != nil {
					t.Fatal(err)
				}
				return o
			}

			place("80")
			awaitDepth(full, 10, "depth with the first bid")
			awaitDepth(top, 1, "one level with the first bid")
			below := place("79")
			awaitDepth(full, 10, "depth with a bid below the best")
			amended := udecimal.MustParse("79.5")
			if _, err := svc.UpdateOffer(ctx, firmA, below.ID, trading.ChangeInput{Price: &amended}); err != nil {
				t.Fatal(err)
			}
			awaitDepth(full, 10, "depth after the amend below the best")
			if _, err := svc.DeleteOffer(ctx, firmA, below.ID); err != nil {
				t.Fatal(err)
			}
			awaitDepth(full, 10, "depth after the cancel below the best")
			place("80.5")
			awaitDepth(full, 10, "depth with a new best bid")
			awaitDepth(top, 1, "one level with the new best bid")

			top.mu.Lock()
			defer top.mu.Unlock()
			n := 0
			for _, l := range top.seen {
				if l.Event == "instrument.depth" {
					n++
				}
			}
			if n != 2 {
				t.Errorf("a socket of one level got %d instrument.depth, want 2 (changes below its level are not its news)", n)
			}
		})
	}
}

// depthRecord is an instrument.depth record, its sides kept as sent.
type depthRecord struct {
	InstrumentID string          `json:"instrument_id"`
	MarketID     string          `json:"market_id"`
	Bid          json.RawMessage `json:"bid"`
	Ask          json.RawMessage `json:"ask"`
	OccurredAt   string          `json:"occurred_at"`
}
