package main

import (
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"testing"
	"time"

	"github.com/bondvenue/bondvenue/internal/store"
	"github.com/bondvenue/bondvenue/internal/testenv"
)

// TestPortfolioCrash: a 100-line two-sided portfolio RFQ is accepted and
// the venue killed with SIGKILL at a random moment around the accept,
// round after round on the same database. After each restart the list has
// traded all 100 lines or none: 0 or 100 trades carry its id, and its
// status says the same (closed with every line's trade, or still open); an
// open one is accepted again and trades all 100.
func TestPortfolioCrash(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and kills it repeatedly")
	}
	rounds := 4
	if os.Getenv("BONDVENUE_LONG_TESTS") != "" {
		rounds = 20
	}
	bin := buildBinary(t)
	testenv.ForEach(t, func(t *testing.T, e store.Engine) {
		seed := uint64(time.Now().UnixNano())
		t.Logf("seed %d", seed)
		rng := rand.New(rand.NewPCG(seed, 11))
		h := &crashHarness{t: t, bin: bin, dataDir: t.TempDir(), dbURL: testenv.DatabaseURL(t, e)}
		h.start(true)
		h.setup()
		var instruments []struct {
			ID       string `json:"id"`
			MinPiece string `json:"min_piece"`
		}
		h.mustCall(h.traders[0].token, "GET", "/api/v1/instruments?limit=1000", nil, &instruments)
		requester, dealer := h.traders[0], h.traders[0]
		for _, tr := range h.traders {
			if tr.firm == 1 {
				dealer = tr
			}
		}
		const n = 100
		lines := make([]map[string]any, n)
		prices := make([]map[string]any, n)
		for i := range n {
			in := instruments[i%len(instruments)]
			dir := "bid"
			if i%2 == 1 {
				dir = "ask"
			}
			lines[i] = map[string]any{"instrument_id": in.ID, "direction": dir, "quantity": in.MinPiece}
			prices[i] = map[string]any{"line_id": fmt.Sprint(i + 1), "price_per_unit": fmt.Sprintf("100.%02d", i%50)}
		}
		db := h.rawDB(t)
		defer db.Close()
		traded := func(id string) (trades int, status string) {
			t.Helper()
			q := "SELECT COUNT(*) FROM trades WHERE portfolio_rfq_id = ?"
			s := "SELECT status FROM portfolio_rfqs WHERE id = ?"
			if h.dbURL != "" {
				q, s = "SELECT COUNT(*) FROM trades WHERE portfolio_rfq_id = $1", "SELECT status FROM portfolio_rfqs WHERE id = $1"
			}
			if err := db.QueryRow(q, id).Scan(&trades); err != nil {
				t.Fatal(err)
			}
			if err := db.QueryRow(s, id).Scan(&status); err != nil {
				t.Fatal(err)
			}
			return trades, status
		}
		var all, none int
		for round := range rounds {
			var list struct {
				ID string `json:"id"`
			}
			h.mustCall(requester.token, "POST", "/api/v1/participant/portfolio-rfq", map[string]any{"market_id": h.otc,
				"counterparties": []string{dealer.participant}, "lines": lines}, &list)
			var quoted struct {
				Quotes []struct {
					ID string `json:"id"`
				} `json:"quotes"`
			}
			h.mustCall(dealer.token, "POST", "/api/v1/participant/portfolio-rfq/"+list.ID+"/quotes", map[string]any{"lines": prices}, &quoted)
			accept := "/api/v1/participant/portfolio-rfq/" + list.ID + "/quotes/" + quoted.Quotes[0].ID + "/accept"
			answered := make(chan int, 1)
			go func() {
				status, _ := h.call(requester.token, "PUT", accept, nil, nil)
				answered <- status
			}()
			time.Sleep(time.Duration(rng.IntN(80)) * time.Millisecond)
			h.kill()
			status := <-answered
			h.start(false)
			trades, st := traded(list.ID)
			switch {
			case trades == n && st == "closed":
				all++
			case trades == 0 && st == "created":
				none++
				// Still open after the restart: the accept goes through whole.
				if got, _ := h.call(requester.token, "PUT", accept, nil, nil); got != http.StatusOK {
					t.Fatalf("round %d: accept after the restart answered %d", round, got)
				}
				if trades, st = traded(list.ID); trades != n || st != "closed" {
					t.Fatalf("round %d: after the second accept %d trades, status %s; want %d, closed", round, trades, st, n)
				}
			default:
				t.Fatalf("round %d: the list has %d of %d trades, status %s: an accept must trade all lines or none", round, trades, n, st)
			}
			if status == http.StatusOK && trades == 0 {
				t.Fatalf("round %d: the accept answered 200 but nothing traded", round)
			}
		}
		t.Logf("%d rounds: %d lists traded whole before the kill, %d not traded (then accepted whole)", rounds, all, none)
		h.terminate()
	})
}
