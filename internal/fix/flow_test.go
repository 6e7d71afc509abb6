package fix_test

import (
	"context"
	"io"
	"log/slog"
	"net"
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
			svc, creds := testenv.Demo(t, db, trading.Config{Logger: slog.New(slog.DiscardHandler)})
			reg := prometheus.NewRegistry()
			gw, err := fix.New(svc, fixstore.New(db), fix.Config{Addr: "127.0.0.1:0", Logger: slog.New(slog.DiscardHandler), Registry: reg,
				ConflateAt: 8, ResumeAt: 2, DropAt: tc.dropAt, SendBuffer: 4096})
			if err != nil {
				t.Fatal(err)
			}
			if err := gw.Start(); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(gw.Stop)
			v := &venueEnv{svc: svc, creds: creds, gw: gw}
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
				m, err := c.Next(20 * time.Second)
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
				_ = conn.SetReadDeadline(time.Now().Add(20 * time.Second))
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
