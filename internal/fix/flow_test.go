package fix_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/quagmt/udecimal"

	"github.com/bondvenue/bondvenue/internal/fix"
	"github.com/bondvenue/bondvenue/internal/fix/fixraw"
	"github.com/bondvenue/bondvenue/internal/fix/fixstore"
	"github.com/bondvenue/bondvenue/internal/store"
	"github.com/bondvenue/bondvenue/internal/testenv"
	"github.com/bondvenue/bondvenue/internal/trading"
	"github.com/bondvenue/bondvenue/internal/venue"
)

// TestSlowClient: a client that stops reading has its market data
// conflated (incrementals skipped, a snapshot once it reads again) and is
// disconnected when too much waits for it; the venue never holds more.
func TestSlowClient(t *testing.T) {
	for _, tc := range []struct {
		name           string
		dropAt, expect int64
	}{{"conflated", 1_000_000, 0}, {"dropped", 40, 1}} {
		t.Run(tc.name, func(t *testing.T) {
			db := testenv.Open(t, store.SQLite)
			core, creds := testenv.Demo(t, db, testenv.Config{Trading: trading.Config{Logger: slog.New(slog.DiscardHandler)}})
			svc := core.Svc
			reg := prometheus.NewRegistry()
			gw, err := fix.New(fix.Deps{Trading: svc, Live: core.Live, Cluster: core.Cluster, Keys: core.Keys, Access: core.Access}, fixstore.New(db), fix.Config{Addr: "127.0.0.1:0", Logger: slog.New(slog.DiscardHandler), Registry: reg,
				ConflateAt: 8, ResumeAt: 2, DropAt: tc.dropAt, SendBuffer: 4096})
			if err != nil {
				t.Fatal(err)
			}
			if err := gw.Start(); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(gw.Stop)
			v := &venueEnv{core: core, svc: svc, creds: creds, gw: gw}
			market, in := v.book(t)
			u, p0 := v.trader(t, 0)
			_, p1 := v.trader(t, 1)
			// Conflation: another firm's orders move the book (market
			// data only). Drop: the client's own firm's orders, whose
			// execution reports are never skipped.
			trader, acc := p1, creds.Participants[1].AccountIDs[0]
			if tc.expect > 0 {
				trader, acc = p0, creds.Participants[0].AccountIDs[0]
			}
			c, err := fixraw.Dial(gw.Addr().String(), "SLOW-"+tc.name, "BONDVENUE")
			if err != nil {
				t.Fatal(err)
			}
			conn := c.Net()
			_ = conn.(*net.TCPConn).SetReadBuffer(4096) // the kernel holds little for it
			t.Cleanup(func() { conn.Close() })
			if err := c.Logon(u.ClientID, u.ClientSecret); err != nil {
				t.Fatal(err)
			}
			next := func() string {
				t.Helper()
				m, err := c.Next(timeLeft(t))
				if err != nil {
					t.Fatalf("read: %v", err)
				}
				return fixraw.Text(m)
			}
			send := func(typ string, fields ...string) {
				t.Helper()
				if err := c.Send(typ, fields...); err != nil {
					t.Fatal(err)
				}
			}
			send("V", "262", "MD", "263", "1", "264", "1", "267", "1", "269", "0", "146", "1", "55", "[N/A]", "48", in.Terms.ISIN, "22", "4")
			// Its snapshot (after the news of the logon), then nothing more
			// is read until the end.
			for {
				m := next()
				if strings.Contains(m, "|35=W|") {
					break
				}
				if !strings.Contains(m, "|35=B|") {
					t.Fatalf("before the snapshot: %s", m)
				}
			}
			// The client reads nothing from here: book changes pile up.
			ctx := context.Background()
			counter := func(name string) float64 { return metric(t, reg, name) }
			for i := 0; (tc.expect == 0 && counter("bondvenue_fix_md_conflated_total") < 20) || (tc.expect > 0 && counter("bondvenue_fix_sessions_dropped_total") == 0); i++ {
				if i > 4000 {
					t.Fatalf("4000 book changes, conflated %v, dropped %v", counter("bondvenue_fix_md_conflated_total"),
						counter("bondvenue_fix_sessions_dropped_total"))
				}
				price := udecimal.MustParse("80").Add(udecimal.MustParse("0.001").Mul(udecimal.MustFromInt64(int64(i%500), 0)))
				o, err := svc.CreateOffer(ctx, trader, trading.OfferInput{InstrumentID: in.ID, MarketID: market, AccountID: acc,
					Direction: venue.Bid, Price: &price, Quantity: &in.MinPiece})
				if err != nil {
					t.Fatal(err)
				}
				if _, err := svc.DeleteOffer(ctx, trader, o.ID); err != nil {
					t.Fatal(err)
				}
			}
			if tc.expect > 0 {
				// Dropped: what the kernel held arrives, then the end.
				deadline, _ := testenv.Deadline(t) // zero: none
				_ = conn.SetReadDeadline(deadline)
				if _, err := io.Copy(io.Discard, conn); err != nil {
					t.Fatalf("the dropped session's connection: %v", err)
				}
				return
			}
			// Conflated: once it reads again, a snapshot replaces what it
			// missed.
			for {
				m := next()
				if strings.Contains(m, "|35=W|") && strings.Contains(m, "|262=MD|") {
					break
				}
			}
		})
	}
}

// metric reads a counter or gauge without labels.
func metric(t *testing.T, reg *prometheus.Registry, name string) float64 {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() == name {
			var sum float64
			for _, m := range mf.GetMetric() {
				sum += m.GetCounter().GetValue() + m.GetGauge().GetValue()
			}
			return sum
		}
	}
	return 0
}

// TestPipelinedOrders: a session that sends its orders without waiting
// for the answers has them applied in the order sent (their commits
// overlap); a ClOrdID repeated at once is applied once; a cancel sent
// right after the order it names finds it (a message other than a new
// order waits for the orders in flight); once they are applied, the
// stored next incoming number has caught up.
func TestPipelinedOrders(t *testing.T) {
	for _, e := range testenv.Engines {
		t.Run(string(e), func(t *testing.T) {
			v := newVenue(t, e)
			ctx := context.Background()
			market, in := v.book(t)
			u, p0 := v.trader(t, 0)
			account := v.creds.Participants[0].AccountIDs[0]
			start, err := v.core.Live.LastEventSeq(ctx)
			if err != nil {
				t.Fatal(err)
			}
			c, err := fixraw.Dial(v.gw.Addr().String(), "PIPE-"+string(e), "BONDVENUE")
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { c.Close() })
			if err := c.Logon(u.ClientID, u.ClientSecret); err != nil {
				t.Fatal(err)
			}
			const n = 40
			var sent []string
			for i := range n {
				cl := fmt.Sprintf("P%02d", i)
				sends := 1
				if i == 5 {
					sends = 2 // the same ClOrdID again, at once
				}
				for range sends {
					if err := c.Send("D", "11", cl, "1", account, "48", in.Terms.ISIN, "22", "4", "1301", market, "54", "1",
						"60", time.Now().UTC().Format("20060102-15:04:05.000"), "38", in.MinPiece.String(), "40", "2",
						"44", fmt.Sprintf("80.%02d", i), "59", "1"); err != nil {
						t.Fatal(err)
					}
				}
				sent = append(sent, cl)
			}
			last := sent[n-1]
			if err := c.Send("F", "11", "X-"+last, "41", last, "54", "1", "60", time.Now().UTC().Format("20060102-15:04:05.000")); err != nil {
				t.Fatal(err)
			}
			accepted, refused, cancelled := map[string]int{}, map[string]int{}, false
			for len(accepted) < n || refused["P05"] == 0 || !cancelled {
				m, err := c.Next(timeLeft(t))
				if err != nil {
					t.Fatalf("read: %v (accepted %d, refused %v, cancelled %v)", err, len(accepted), refused, cancelled)
				}
				switch fixraw.Field(m, 35) {
				case "9":
					t.Fatalf("cancel refused: %s", fixraw.Text(m))
				case "8":
					switch fixraw.Field(m, 150) {
					case "0":
						accepted[fixraw.Field(m, 11)]++
					case "8":
						refused[fixraw.Field(m, 11)]++
					case "4":
						if fixraw.Field(m, 11) != "X-"+last || fixraw.Field(m, 41) != last {
							t.Errorf("cancelled: %s", fixraw.Text(m))
						}
						cancelled = true
					}
				}
			}
			for _, cl := range sent {
				if accepted[cl] != 1 {
					t.Errorf("ClOrdID %s accepted %d times, want once", cl, accepted[cl])
				}
			}
			if len(refused) != 1 || refused["P05"] != 1 {
				t.Errorf("refused %v, want the repeated P05 once", refused)
			}
			evs, err := v.core.Live.Events(ctx, p0, start, 1000)
			if err != nil {
				t.Fatal(err)
			}
			var created []string
			for _, ev := range evs {
				if ev.Type == "offer.create" && ev.Offer != nil {
					created = append(created, ev.Offer.ClientOrderID)
				}
			}
			if !slices.Equal(created, sent) {
				t.Errorf("orders created in the order %v, want the order sent %v", created, sent)
			}
			// Three more orders, the last message the session gets: once
			// nothing is in flight, the stored next incoming number catches
			// up (the Logon, 44 orders and the cancel).
			for i := range 3 {
				cl := fmt.Sprintf("Q%02d", i)
				if err := c.Send("D", "11", cl, "1", account, "48", in.Terms.ISIN, "22", "4", "1301", market, "54", "1",
					"60", time.Now().UTC().Format("20060102-15:04:05.000"), "38", in.MinPiece.String(), "40", "2",
					"44", "79.5", "59", "1"); err != nil {
					t.Fatal(err)
				}
			}
			for more := 0; more < 3; {
				m, err := c.Next(timeLeft(t))
				if err != nil {
					t.Fatalf("read: %v", err)
				}
				if fixraw.Field(m, 35) == "8" && fixraw.Field(m, 150) == "0" && strings.HasPrefix(fixraw.Field(m, 11), "Q") {
					more++
				}
			}
			const want = 1 + n + 1 + 1 + 3 + 1
			sessions := fixstore.New(v.db)
			testenv.Wait(t, fmt.Sprintf("stored next incoming number %d", want), func() bool {
				st, ok, err := sessions.PeekSession(ctx, "FIXT.1.1:BONDVENUE->PIPE-"+string(e))
				if err != nil || !ok {
					t.Fatalf("PeekSession: %v, %v", ok, err)
				}
				return st.NextTarget == want
			})
		})
	}
}

// TestPipelinedCancelOnDisconnect: with cancel on disconnect on, a
// session that sends a burst of orders and drops its connection at once
// leaves none of them resting: the orders still in flight land before the
// cancel.
func TestPipelinedCancelOnDisconnect(t *testing.T) {
	v := newVenue(t, store.SQLite)
	ctx := context.Background()
	market, in := v.book(t)
	u, p0 := v.trader(t, 0)
	account := v.creds.Participants[0].AccountIDs[0]
	if err := v.svc.SetFIXCancelOnDisconnect(ctx, trading.System, u.ClientID, true); err != nil {
		t.Fatal(err)
	}
	c, err := fixraw.Dial(v.gw.Addr().String(), "PIPE-COD", "BONDVENUE")
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Logon(u.ClientID, u.ClientSecret); err != nil {
		t.Fatal(err)
	}
	const n = 30
	for i := range n {
		if err := c.Send("D", "11", fmt.Sprintf("B%02d", i), "1", account, "48", in.Terms.ISIN, "22", "4", "1301", market, "54", "1",
			"60", time.Now().UTC().Format("20060102-15:04:05.000"), "38", in.MinPiece.String(), "40", "2",
			"44", fmt.Sprintf("81.%02d", i), "59", "1"); err != nil {
			t.Fatal(err)
		}
	}
	c.Close()
	resting := func() (open, all int) {
		t.Helper()
		for i := range n {
			o, err := v.svc.OfferByClientOrderID(ctx, p0, fmt.Sprintf("B%02d", i))
			if err != nil {
				continue // never read: the connection dropped first
			}
			all++
			if o.Status != venue.StatusCancelled {
				open++
			}
		}
		return open, all
	}
	var all int
	testenv.Wait(t, "the orders cancelled after the drop", func() bool {
		var open int
		open, all = resting()
		return all > 0 && open == 0
	})
	time.Sleep(300 * time.Millisecond) // nothing lands after the cancel
	if open, all2 := resting(); open != 0 || all2 != all {
		t.Fatalf("%d of %d orders resting after cancel on disconnect", open, all2)
	}
	t.Logf("%d of %d orders entered, all cancelled", all, n)
}

// timeLeft is how long a read may wait for the venue's next message: until
// the test's time runs out (testenv.Deadline), not a budget of its own.
func timeLeft(t *testing.T) time.Duration {
	if d, ok := testenv.Deadline(t); ok {
		return time.Until(d)
	}
	return 24 * time.Hour
}
