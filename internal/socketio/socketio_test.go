package socketio_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/coder/websocket"
	"github.com/quagmt/udecimal"

	"github.com/bondvenue/bondvenue/internal/demo"
	"github.com/bondvenue/bondvenue/internal/socketio"
	"github.com/bondvenue/bondvenue/internal/store"
	"github.com/bondvenue/bondvenue/internal/testenv"
	"github.com/bondvenue/bondvenue/internal/trading"
	"github.com/bondvenue/bondvenue/internal/venue"
)

// venueEnv is a demo venue with the stream adapter on a loopback server.
type venueEnv struct {
	core  *testenv.Venue
	svc   *trading.Service
	creds demo.Credentials
	url   string // ws://…/socket.io/?EIO=4&transport=websocket
	http  string
}

func newVenue(t *testing.T, e store.Engine, cfg socketio.Config) *venueEnv {
	t.Helper()
	core, creds := testenv.Demo(t, testenv.Open(t, e), testenv.Config{Trading: trading.Config{Logger: slog.New(slog.DiscardHandler)}})
	svc := core.Svc
	cfg.Logger = slog.New(slog.DiscardHandler)
	srv := httptest.NewServer(socketio.New(core.Access, core.Live, cfg))
	t.Cleanup(srv.Close)
	return &venueEnv{core: core, svc: svc, creds: creds, http: srv.URL + "/socket.io/",
		url: "ws" + strings.TrimPrefix(srv.URL, "http") + "/socket.io/?EIO=4&transport=websocket"}
}

// user is demo participant i's user of role.
func (v *venueEnv) user(t *testing.T, i int, role venue.Role) (demo.UserCred, venue.Principal) {
	t.Helper()
	p := v.creds.Participants[i]
	for _, u := range p.Users {
		if u.Role == string(role) {
			return u, venue.Principal{UserID: u.UserID, ParticipantID: p.ID, Role: role, ClientID: u.ClientID}
		}
	}
	t.Fatalf("no %s in participant %d", role, i)
	return demo.UserCred{}, venue.Principal{}
}

func (v *venueEnv) token(t *testing.T, i int, role venue.Role) string {
	t.Helper()
	u, _ := v.user(t, i, role)
	tok, err := v.core.Access.IssueToken(context.Background(), u.ClientID, u.ClientSecret)
	if err != nil {
		t.Fatal(err)
	}
	return tok.AccessToken
}

// client is a raw Engine.IO client: it reads frames and answers pings
// unless told not to.
type client struct {
	t      *testing.T
	ws     *websocket.Conn
	frames chan string
	noPong bool
	// pinged gets a value for each ping answered.
	pinged chan struct{}
}

func dial(t *testing.T, url string, noPong bool) (*client, string) {
	t.Helper()
	ws, _, err := websocket.Dial(context.Background(), url, nil)
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	c := &client{t: t, ws: ws, frames: make(chan string, 1024), noPong: noPong, pinged: make(chan struct{}, 1024)}
	go func() {
		defer close(c.frames)
		for {
			_, b, err := ws.Read(context.Background())
			if err != nil {
				return
			}
			if string(b) == "2" && !c.noPong {
				_ = ws.Write(context.Background(), websocket.MessageText, []byte("3"))
				select {
				case c.pinged <- struct{}{}:
				default:
				}
				continue
			}
			c.frames <- string(b)
		}
	}()
	t.Cleanup(func() { ws.CloseNow() })
	return c, c.next()
}

func (c *client) send(s string) {
	c.t.Helper()
	if err := c.ws.Write(context.Background(), websocket.MessageText, []byte(s)); err != nil {
		c.t.Fatalf("send %q: %v", s, err)
	}
}

// next is the next frame (a ping, too, for a client that does not pong).
func (c *client) next() string {
	c.t.Helper()
	select {
	case f, ok := <-c.frames:
		if !ok {
			c.t.Fatal("connection closed")
		}
		return f
	case <-testenv.Expired(c.t):
		c.t.Fatal("no frame before the test's time ran out")
	}
	return ""
}

// waitClosed waits until the server closes the connection.
func (c *client) waitClosed() {
	c.t.Helper()
	expired := testenv.Expired(c.t)
	for {
		select {
		case _, ok := <-c.frames:
			if !ok {
				return
			}
		case <-expired:
			c.t.Fatal("the connection still open when the test's time ran out")
		}
	}
}

// waitPings waits until the client has answered n pings.
func (c *client) waitPings(n int) {
	c.t.Helper()
	expired := testenv.Expired(c.t)
	for range n {
		select {
		case <-c.pinged:
		case <-expired:
			c.t.Fatalf("fewer than %d pings answered when the test's time ran out", n)
		}
	}
}

// event decodes `42<nsp>,[name, args…]`.
func event(t *testing.T, frame, nsp string) (string, []json.RawMessage) {
	t.Helper()
	p := "42" + nsp + ","
	if !strings.HasPrefix(frame, p) {
		t.Fatalf("frame %q is not an event on %s", frame, nsp)
	}
	var arr []json.RawMessage
	if err := json.Unmarshal([]byte(frame[len(p):]), &arr); err != nil || len(arr) == 0 {
		t.Fatalf("frame %q: %v", frame, err)
	}
	var name string
	_ = json.Unmarshal(arr[0], &name)
	return name, arr[1:]
}

func TestHandshakeAndNamespaces(t *testing.T) {
	for _, e := range testenv.Engines {
		t.Run(string(e), func(t *testing.T) {
			v := newVenue(t, e, socketio.Config{})
			// A first connection starts what the venue keeps running
			// (the feed's tailer and listener, pooled connections); what
			// a connection starts must end with it.
			warm, _ := dial(t, v.url, false)
			warm.send(`40/news,{"token":"` + v.token(t, 2, venue.RoleViewer) + `"}`)
			warm.next()
			warm.next()
			warm.ws.Close(websocket.StatusNormalClosure, "")
			testenv.Wait(t, "the first connection's goroutines ended", func() bool { return connGoroutines() == 0 })
			before := runtime.NumGoroutine()
			c, open := dial(t, v.url, false)
			var hs struct {
				SID          string   `json:"sid"`
				Upgrades     []string `json:"upgrades"`
				PingInterval int      `json:"pingInterval"`
				PingTimeout  int      `json:"pingTimeout"`
				MaxPayload   int      `json:"maxPayload"`
			}
			if !strings.HasPrefix(open, "0") || json.Unmarshal([]byte(open[1:]), &hs) != nil || hs.SID == "" ||
				hs.Upgrades == nil || hs.PingInterval != 25000 || hs.PingTimeout != 20000 || hs.MaxPayload != 64<<10 {
				t.Fatalf("open packet %q", open)
			}

			c.send(`40/offers,{"token":"nope"}`)
			if f := c.next(); f != `44/offers,{"message":"Invalid Token","data":{"statusCode":401}}` {
				t.Errorf("bad token: %q", f)
			}
			c.send(`40/offers`)
			if f := c.next(); f != `44/offers,{"message":"Invalid Token","data":{"statusCode":401}}` {
				t.Errorf("no token: %q", f)
			}
			c.send(`40/nope,{}`)
			if f := c.next(); f != `44/nope,{"message":"Invalid namespace"}` {
				t.Errorf("unknown namespace: %q", f)
			}

			tok := v.token(t, 0, venue.RoleTrader)
			c.send(`40/offers,{"token":"` + tok + `"}`)
			if f := c.next(); !strings.HasPrefix(f, `40/offers,{"sid":"`) {
				t.Fatalf("connect: %q", f)
			}
			if name, args := event(t, c.next(), "/offers"); name != "subscription" ||
				string(args[0]) != `{"message":"Subscription successful to offers"}` {
				t.Errorf("subscription event %s %s", name, args)
			}

			// A change made after the connect arrives as (record, meta).
			market, in := book(t, v.svc)
			_, trader := v.user(t, 0, venue.RoleTrader)
			price, qty := udecimal.MustParse("99.5"), in.MinPiece
			o, err := v.svc.CreateOffer(context.Background(), trader, trading.OfferInput{InstrumentID: in.ID,
				MarketID: market, Direction: venue.Bid, Price: &price, Quantity: &qty})
			if err != nil {
				t.Fatal(err)
			}
			name, args := event(t, c.next(), "/offers")
			var rec struct {
				ID     string `json:"id"`
				Status string `json:"status"`
			}
			var m struct {
				Seq        int64  `json:"seq"`
				Type       string `json:"type"`
				OccurredAt string `json:"occurred_at"`
			}
			if name != "offer.create" || len(args) != 2 || json.Unmarshal(args[0], &rec) != nil || json.Unmarshal(args[1], &m) != nil ||
				rec.ID != o.ID || m.Type != "offer.create" || m.Seq == 0 || m.OccurredAt == "" {
				t.Errorf("offer.create event: %s %s", name, args)
			}

			// A client's DISCONNECT ends the namespace socket only.
			c.send(`41/offers,`)
			c.send(`40/news,{"token":"` + tok + `"}`)
			if f := c.next(); !strings.HasPrefix(f, `40/news,{"sid":"`) {
				t.Fatalf("connect /news after leaving /offers: %q", f)
			}
			c.next() // subscription
			c.ws.Close(websocket.StatusNormalClosure, "")
			waitGoroutines(t, before)
		})
	}
}

// waitGoroutines waits until the goroutines of the server's connections
// ended, and the goroutines started since before with them (a pooled
// database connection may come and go meanwhile).
func waitGoroutines(t *testing.T, before int) {
	t.Helper()
	testenv.Wait(t, "the connections' goroutines ended", func() bool {
		return connGoroutines() == 0 && runtime.NumGoroutine() <= before+2
	})
}

// connGoroutines counts the goroutines running the socketio package's
// code: each belongs to a connection (its handler, writer, heartbeat,
// end or a socket), none to the server itself.
func connGoroutines() int {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	count := 0
	for _, g := range strings.Split(string(buf), "\n\n") {
		if strings.Contains(g, "/internal/socketio.") {
			count++
		}
	}
	return count
}

// TestTransportsAndHeartbeat: the transports' refusals, the polling
// handshake, and the heartbeat. The heartbeat's pong wait is an hour on
// the main server: a client that answers is pinged again and again (the
// server sends the next ping only after the pong), whatever the machine's
// speed. A second server waits 50 ms for a pong: a client that does not
// answer is dropped.
func TestTransportsAndHeartbeat(t *testing.T) {
	v := newVenue(t, store.SQLite, socketio.Config{PingInterval: 50 * time.Millisecond, PingTimeout: time.Hour})
	for query, want := range map[string]string{
		"?EIO=4&transport=flash":           `{"code":0,"message":"Transport unknown"}`,
		"?EIO=3&transport=websocket":       `{"code":5,"message":"Unsupported protocol version"}`,
		"?EIO=4&transport=websocket&sid=x": `{"code":1,"message":"Session ID unknown"}`,
	} {
		r, err := http.Get(v.http + query)
		if err != nil {
			t.Fatal(err)
		}
		var body json.RawMessage
		_ = json.NewDecoder(r.Body).Decode(&body)
		r.Body.Close()
		if r.StatusCode != http.StatusBadRequest || string(body) != want {
			t.Errorf("GET %s = %d %s, want 400 %s", query, r.StatusCode, body, want)
		}
	}
	// A long-polling session: the handshake offers the upgrade.
	r, err := http.Get(v.http + "?EIO=4&transport=polling")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(r.Body)
	r.Body.Close()
	if r.StatusCode != http.StatusOK || !strings.HasPrefix(string(b), "0{") || !strings.Contains(string(b), `"upgrades":["websocket"]`) {
		t.Errorf("polling handshake = %d %s", r.StatusCode, b)
	}
	alive, _ := dial(t, v.url, false)
	alive.waitPings(3)

	strict := httptest.NewServer(socketio.New(v.core.Access, v.core.Live, socketio.Config{Logger: slog.New(slog.DiscardHandler),
		PingInterval: 50 * time.Millisecond, PingTimeout: 50 * time.Millisecond}))
	t.Cleanup(strict.Close)
	silent, _ := dial(t, "ws"+strings.TrimPrefix(strict.URL, "http")+"/socket.io/?EIO=4&transport=websocket", true)
	if f := silent.next(); f != "2" {
		t.Fatalf("first frame after the handshake %q, want a ping", f)
	}
	silent.waitClosed()
}

// TestResumeAndTokenEnd: last_seq replays the log; a token revoked while
// connected disconnects its sockets.
func TestResumeAndTokenEnd(t *testing.T) {
	v := newVenue(t, store.SQLite, socketio.Config{TokenCheck: 50 * time.Millisecond})
	c, _ := dial(t, v.url, false)
	tok := v.token(t, 1, venue.RoleViewer)
	// Every news item the demo published, from the start of the log.
	c.send(`40/news,{"token":"` + tok + `","last_seq":0}`)
	c.next() // connect
	c.next() // subscription
	news, err := v.svc.News(context.Background(), trading.System, venue.Page{})
	if err != nil {
		t.Fatal(err)
	}
	for range news.Items {
		if name, _ := event(t, c.next(), "/news"); name != "news.create" {
			t.Fatalf("replayed %s, want news.create", name)
		}
	}
	c.send(`40/trades,{"token":"` + tok + `","last_seq":999999}`)
	c.next() // connect
	c.next() // subscription
	if name, _ := event(t, c.next(), "/trades"); name != "resync_required" {
		t.Errorf("last_seq past the log: %s, want resync_required", name)
	}
	u, _ := v.user(t, 1, venue.RoleViewer)
	if _, err := v.svc.RevokeCredential(context.Background(), trading.System, u.ClientID); err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for range 2 {
		f := c.next()
		got[f] = true
	}
	if !got["41/news,"] || !got["41/trades,"] {
		t.Errorf("after revocation: %v, want both sockets disconnected", got)
	}
}

// TestBacklogInOrder: a replay of hundreds of events, which the writer
// sends several frames to a system call, arrives whole and in sequence
// order, and a live event after it too, over a WebSocket.
func TestBacklogInOrder(t *testing.T) {
	v := newVenue(t, store.SQLite, socketio.Config{QueueSize: 1024})
	for i := range 300 {
		if _, err := v.svc.CreateNews(context.Background(), trading.System, trading.NewsInput{
			Title: "Notice " + strconv.Itoa(i), Body: "Text.", Source: "bondvenue"}); err != nil {
			t.Fatal(err)
		}
	}
	news, err := v.svc.News(context.Background(), trading.System, venue.Page{Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	c, _ := dial(t, v.url, false)
	c.send(`40/news,{"token":"` + v.token(t, 1, venue.RoleViewer) + `","last_seq":0}`)
	c.next() // connect
	c.next() // subscription
	seqs := func(n int) []int64 {
		t.Helper()
		var out []int64
		for range n {
			name, args := event(t, c.next(), "/news")
			var m struct {
				Seq int64 `json:"seq"`
			}
			if name != "news.create" || len(args) != 2 || json.Unmarshal(args[1], &m) != nil {
				t.Fatalf("replayed %s %s, want news.create with its meta", name, args)
			}
			out = append(out, m.Seq)
		}
		return out
	}
	got := seqs(len(news.Items))
	if len(got) < 300 || !slices.IsSorted(got) {
		t.Fatalf("replayed %d events, want %d in increasing sequence order: %v", len(got), len(news.Items), got)
	}
	if len(slices.Compact(slices.Clone(got))) != len(got) {
		t.Fatalf("a sequence number repeated in the replay: %v", got)
	}
	if _, err := v.svc.CreateNews(context.Background(), trading.System, trading.NewsInput{
		Title: "Live", Body: "Text.", Source: "bondvenue"}); err != nil {
		t.Fatal(err)
	}
	if live := seqs(1); live[0] <= got[len(got)-1] {
		t.Errorf("the live event after the replay: seq %d, after %d", live[0], got[len(got)-1])
	}
}

// TestSlowClientCutOff: a client that stops reading is disconnected once
// its queue is full, and the venue carries on. A polling client that never
// polls is the slowest reader there is.
func TestSlowClientCutOff(t *testing.T) {
	reg := prometheus.NewRegistry()
	v := newVenue(t, store.SQLite, socketio.Config{QueueSize: 8, Registry: reg})
	r, err := http.Get(v.http + "?EIO=4&transport=polling")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(r.Body)
	r.Body.Close()
	var hs struct {
		SID string `json:"sid"`
	}
	if err := json.Unmarshal(b[1:], &hs); err != nil {
		t.Fatalf("handshake %s: %v", b, err)
	}
	session := v.http + "?EIO=4&transport=polling&sid=" + hs.SID
	post := func(body string) int {
		r, err := http.Post(session, "text/plain;charset=UTF-8", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		r.Body.Close()
		return r.StatusCode
	}
	if code := post(`40/news,{"token":"` + v.token(t, 0, venue.RoleViewer) + `","last_seq":0}`); code != http.StatusOK {
		t.Fatalf("connect by POST: %d", code)
	}
	// Nobody polls: the connect answer, the subscription and the demo's
	// news replayed fill the queue of 8.
	for i := range 10 {
		if _, err := v.svc.CreateNews(context.Background(), trading.System, trading.NewsInput{
			Title: "Notice " + strconv.Itoa(i), Body: "Text.", Source: "bondvenue"}); err != nil {
			t.Fatal(err)
		}
	}
	// Polling now would drain the queue: the cut-off is read from the
	// server's counter.
	testenv.Wait(t, "the slow client cut off", func() bool { return disconnects(t, reg, "slow consumer") > 0 })
	r, err = http.Get(session)
	if err != nil {
		t.Fatal(err)
	}
	b, _ = io.ReadAll(r.Body)
	r.Body.Close()
	if r.StatusCode != http.StatusBadRequest || !strings.Contains(string(b), "Session ID unknown") {
		t.Errorf("the slow client's session after the cut-off: %d %s", r.StatusCode, b)
	}
	// The venue goes on serving others.
	c, _ := dial(t, v.url, false)
	c.send(`40/news,{"token":"` + v.token(t, 1, venue.RoleViewer) + `"}`)
	if f := c.next(); !strings.HasPrefix(f, `40/news,{"sid":"`) {
		t.Errorf("another client after the cut-off: %q", f)
	}
}

// disconnects reads bondvenue_socketio_disconnects_total for reason.
func disconnects(t *testing.T, reg *prometheus.Registry, reason string) float64 {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != "bondvenue_socketio_disconnects_total" {
			continue
		}
		for _, m := range mf.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "reason" && l.GetValue() == reason {
					return m.GetCounter().GetValue()
				}
			}
		}
	}
	return 0
}

// TestOHLCStream: /ohlc emits the current bar after every trade, the bar's
// earlier trades (before the subscription) included.
func TestOHLCStream(t *testing.T) {
	v := newVenue(t, store.SQLite, socketio.Config{})
	ctx := context.Background()
	market, in := book(t, v.svc)
	_, buyer := v.user(t, 0, venue.RoleTrader)
	_, seller := v.user(t, 1, venue.RoleTrader)
	trade := func(price string) {
		t.Helper()
		p := udecimal.MustParse(price)
		for _, side := range []struct {
			who venue.Principal
			dir string
		}{{seller, venue.Ask}, {buyer, venue.Bid}} {
			if _, err := v.svc.CreateOffer(ctx, side.who, trading.OfferInput{InstrumentID: in.ID, MarketID: market,
				Direction: side.dir, Price: &p, Quantity: &in.MinPiece}); err != nil {
				t.Fatal(err)
			}
		}
	}
	trade("99")
	c, _ := dial(t, v.url, false)
	c.send(`40/ohlc,{"token":"` + v.token(t, 3, venue.RoleViewer) + `","interval":"1d","instrument_ids":["` + in.ID + `"]}`)
	c.next() // connect
	c.next() // subscription
	trade("100")
	name, args := event(t, c.next(), "/ohlc")
	var bar struct {
		InstrumentID string `json:"instrument_id"`
		MarketID     string `json:"market_id"`
		Interval     string `json:"interval"`
		Open, High   json.Number
		Low, Close   json.Number
		Volume       json.Number
		Trades       int
	}
	d := json.NewDecoder(strings.NewReader(string(args[0])))
	d.UseNumber()
	if name != "ohlc.update" || d.Decode(&bar) != nil {
		t.Fatalf("%s %s", name, args)
	}
	want := udecimal.MustParse("2").Mul(in.MinPiece).String()
	if bar.InstrumentID != in.ID || bar.MarketID != market || bar.Interval != "1d" || bar.Open != "99" || bar.High != "100" ||
		bar.Low != "99" || bar.Close != "100" || bar.Trades != 2 || bar.Volume.String() != want {
		t.Errorf("bar %+v, want the day's two trades (99 then 100, volume %s)", bar, want)
	}
	c.send(`40/ohlc,{"token":"x"}`) // already connected: ignored
	c.send(`41/ohlc,`)
	c.send(`40/ohlc,{"token":"` + v.token(t, 3, venue.RoleViewer) + `","interval":"2m"}`)
	if f := c.next(); !strings.HasPrefix(f, `44/ohlc,{"message":"Invalid interval`) {
		t.Errorf("interval 2m: %q", f)
	}
}

// book returns the demo venue's continuous market with partial fills and
// its first instrument.
func book(t *testing.T, svc *trading.Service) (string, venue.Instrument) {
	t.Helper()
	ctx := context.Background()
	ins, err := svc.Instruments(ctx, trading.System, trading.InstrumentFilter{}, venue.Page{})
	if err != nil || len(ins.Items) == 0 {
		t.Fatalf("Instruments() = %v", err)
	}
	ms, err := svc.Markets(ctx, trading.System, trading.MarketFilter{}, venue.Page{})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range ms.Items {
		if m.FacilityType == venue.FacilityContinuous && m.IsPartialFillAllowed && m.Hours == nil {
			return m.ID, ins.Items[0].Instrument
		}
	}
	t.Fatal("the demo venue has no continuous market with partial fills")
	return "", venue.Instrument{}
}
