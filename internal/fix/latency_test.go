package fix_test

import (
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/bondvenue/bondvenue/internal/fix"
	"github.com/bondvenue/bondvenue/internal/fix/fixraw"
	"github.com/bondvenue/bondvenue/internal/fix/fixstore"
	"github.com/bondvenue/bondvenue/internal/store"
	"github.com/bondvenue/bondvenue/internal/testenv"
	"github.com/bondvenue/bondvenue/internal/trading"
)

// countedLatency counts the latency samples the gateway records.
type countedLatency struct {
	mu sync.Mutex
	n  int
}

func (c *countedLatency) Observe(time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.n++
}

func (c *countedLatency) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n
}

// TestOrderEntryLatency: a NewOrderSingle (pipelined) and its
// OrderCancelRequest each record one gateway-to-gateway latency sample; an
// OrderStatusRequest, a read, records none. The session's messages are
// handled in the order sent and a cancel waits for the orders in flight,
// so once the answers to two status requests sent after them are back,
// every sample due has been recorded.
func TestOrderEntryLatency(t *testing.T) {
	db := testenv.Open(t, store.SQLite)
	core, creds := testenv.Demo(t, db, testenv.Config{Trading: trading.Config{Logger: slog.New(slog.DiscardHandler)}})
	lat := &countedLatency{}
	gw, err := fix.New(fix.Deps{Trading: core.Svc, Live: core.Live, Cluster: core.Cluster, Keys: core.Keys, Access: core.Access, Latency: lat},
		fixstore.New(db), fix.Config{Addr: "127.0.0.1:0", Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	if err := gw.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(gw.Stop)
	v := &venueEnv{core: core, svc: core.Svc, creds: creds, gw: gw}
	market, in := v.book(t)
	u, _ := v.trader(t, 0)
	c, err := fixraw.Dial(gw.Addr().String(), "LATENCY", "BONDVENUE")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if err := c.Logon(u.ClientID, u.ClientSecret); err != nil {
		t.Fatal(err)
	}
	now := func() string { return time.Now().UTC().Format("20060102-15:04:05.000") }
	send := func(typ string, fields ...string) {
		t.Helper()
		if err := c.Send(typ, fields...); err != nil {
			t.Fatal(err)
		}
	}
	// await reads until an execution report of ExecType execType for clOrdID.
	await := func(execType, clOrdID string) {
		t.Helper()
		for {
			m, err := c.Next(timeLeft(t))
			if err != nil {
				t.Fatalf("waiting for 150=%s of %s: %v", execType, clOrdID, err)
			}
			if fixraw.Field(m, 35) == "9" {
				t.Fatalf("cancel refused: %s", fixraw.Text(m))
			}
			if fixraw.Field(m, 35) == "8" && fixraw.Field(m, 150) == execType && fixraw.Field(m, 11) == clOrdID {
				return
			}
		}
	}
	send("D", "11", "L1", "1", creds.Participants[0].AccountIDs[0], "48", in.Terms.ISIN, "22", "4", "1301", market, "54", "1",
		"60", now(), "38", in.MinPiece.String(), "40", "2", "44", "80.01", "59", "1")
	await("0", "L1")
	send("F", "11", "X-L1", "41", "L1", "54", "1", "60", now())
	await("4", "X-L1")
	for _, id := range []string{"S1", "S2"} {
		send("H", "11", "X-L1", "54", "1", "790", id)
		await("I", "X-L1")
	}
	if got := lat.count(); got != 2 {
		t.Errorf("latency samples = %d, want 2 (the order and its cancel)", got)
	}
}
