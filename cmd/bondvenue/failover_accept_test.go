package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bondvenue/bondvenue/internal/store"
	"github.com/bondvenue/bondvenue/internal/testenv"
	"github.com/bondvenue/bondvenue/internal/venue"
)

// TestFailoverAcceptAnswer runs three real serve processes on one
// PostgreSQL database and, round after round, sends a burst of quote
// accepts with Idempotency-Keys to all of them while the leader is killed
// with SIGKILL: at once, or a few milliseconds into the burst, so that the
// kill falls before, inside and after the accepts' commits, and between a
// commit and the answer being kept. Every accept is then retried with its
// key through every live instance: each retry gets a 200 with the trade
// as it was committed — the same answer whichever instance, the same as
// the first answer when there was one, the only trade of its quote —
// never a 409 saying the request was applied but its answer lost.
func TestFailoverAcceptAnswer(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and kills it repeatedly")
	}
	rounds, burst := 4, 8
	if os.Getenv("BONDVENUE_LONG_TESTS") != "" {
		rounds, burst = 24, 16
	}
	bin := buildBinary(t)
	h := &crashHarness{t: t, bin: bin, dataDir: t.TempDir(), dbURL: testenv.DatabaseURL(t, store.Postgres),
		offers: map[string]*ackedOffer{}, trades: map[string]ackedTrade{}, last: map[string]venue.Offer{},
		appliedKeys: map[string]bool{}, cluster: 3}
	h.procs = append(h.procs, h.spawn(true))
	h.proc = h.procs[0]
	h.setup()
	for range h.cluster - 1 {
		h.procs = append(h.procs, h.spawn(false))
	}
	var buyer, dealer *crashTrader
	for _, tr := range h.traders {
		switch {
		case buyer == nil && tr.firm == 0:
			buyer = tr
		case dealer == nil && tr.firm == 1:
			dealer = tr
		}
	}
	// The kill lands this long into the burst; the accepts are spread over
	// about as long, so each round the kill meets them at other points.
	delays := []time.Duration{0, time.Millisecond, 3 * time.Millisecond, 6 * time.Millisecond, 10 * time.Millisecond,
		15 * time.Millisecond, 25 * time.Millisecond, 40 * time.Millisecond}
	var unansweredFirst, retries int
	for round := range rounds {
		bases := h.bases()
		quotes := make([]string, burst)
		for i := range quotes {
			quotes[i] = h.quoteFor(buyer, dealer, bases[i%len(bases)])
		}
		type first struct {
			status int
			body   []byte
			err    error
		}
		firsts := make([]first, burst)
		key := func(i int) string { return fmt.Sprintf("failover-accept-%d-%d", round, i) }
		path := func(i int) string { return "/api/v1/participant/offers/" + quotes[i] + "/accept" }
		killAfter := delays[round%len(delays)]
		step := killAfter / time.Duration(burst/2)
		var wg sync.WaitGroup
		for i := range burst {
			wg.Go(func() {
				time.Sleep(time.Duration(i) * step)
				f := &firsts[i]
				f.status, f.body, f.err = h.send(bases[i%len(bases)], buyer.token, "PUT", path(i), key(i))
			})
		}
		time.Sleep(killAfter)
		h.killLeader()
		wg.Wait()

		for i := range burst {
			f := firsts[i]
			if f.err != nil || f.status == http.StatusServiceUnavailable {
				unansweredFirst++
			} else if f.status != http.StatusOK {
				t.Errorf("round %d: accept %d answered %d: %s", round, i, f.status, f.body)
			}
			var answer []byte
			for _, base := range h.bases() {
				retries++
				status, body := h.retry(base, buyer.token, "PUT", path(i), key(i))
				if status != http.StatusOK {
					t.Errorf("round %d: retry of accept %d (kill %v into the burst) through %s answered %d: %s",
						round, i, killAfter, base, status, body)
					continue
				}
				if answer == nil {
					answer = body
				} else if !bytes.Equal(body, answer) {
					t.Errorf("round %d: retries of accept %d answered differently:\n%s\n%s", round, i, answer, body)
				}
				if f.err == nil && f.status == http.StatusOK && !bytes.Equal(body, f.body) {
					t.Errorf("round %d: retry of accept %d answered otherwise than the first request:\nfirst %s\nretry %s",
						round, i, f.body, body)
				}
			}
			if answer != nil {
				h.checkCommittedTrade(round, buyer, quotes[i], answer)
			}
		}
	}
	t.Logf("%d rounds of %d accepts: %d first requests unanswered or 503; %d retries",
		rounds, burst, unansweredFirst, retries)
}

// bases are the live instances' addresses.
func (h *crashHarness) bases() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := make([]string, 0, len(h.procs))
	for _, p := range h.procs {
		out = append(out, p.base)
	}
	return out
}

// send sends one request to the instance at base with an Idempotency-Key
// and returns its answer; err is set only when no answer came back.
func (h *crashHarness) send(base, token, method, path, key string) (int, []byte, error) {
	req, err := http.NewRequest(method, base+path, nil)
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Authorization", "Bearer "+token)
	if key != "" {
		req.Header.Set("Idempotency-Key", key)
	}
	resp, err := h.http.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, b, err
}

// retry sends a request again through base until it is answered other
// than "no leader yet" (503, no answer) or "the first is still in flight"
// (409 in flight, the one 409 a retry may meet), as a client does.
func (h *crashHarness) retry(base, token, method, path, key string) (int, []byte) {
	for {
		status, body, err := h.send(base, token, method, path, key)
		waiting := err != nil || status == http.StatusServiceUnavailable ||
			(status == http.StatusConflict && strings.Contains(string(body), "in flight"))
		if !waiting || !stillTime(h.t) {
			if err != nil {
				return 0, []byte(err.Error())
			}
			return status, body
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// quoteFor has buyer ask dealer for a quote through the instance at base
// and returns the quote's id.
func (h *crashHarness) quoteFor(buyer, dealer *crashTrader, base string) string {
	t := h.t
	t.Helper()
	post := func(tr *crashTrader, path string, body map[string]any) string {
		t.Helper()
		b, err := json.Marshal(body)
		if err != nil {
			t.Fatal(err)
		}
		for ; ; time.Sleep(20 * time.Millisecond) {
			req, err := http.NewRequest("POST", base+path, bytes.NewReader(b))
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Authorization", "Bearer "+tr.token)
			req.Header.Set("Content-Type", "application/json")
			resp, err := h.http.Do(req)
			if err == nil {
				var out struct {
					ID string `json:"id"`
				}
				rb, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if resp.StatusCode == http.StatusOK && json.Unmarshal(rb, &out) == nil && out.ID != "" {
					return out.ID
				}
				if resp.StatusCode != http.StatusServiceUnavailable {
					t.Fatalf("POST %s through %s = %d: %s", path, base, resp.StatusCode, rb)
				}
			}
			if !stillTime(t) {
				t.Fatalf("POST %s through %s: no leader answered: %v", path, base, err)
			}
		}
	}
	rfq := post(buyer, "/api/v1/participant/rfq", map[string]any{"instrument_id": h.instrument, "market_id": h.otc,
		"direction": venue.Bid, "quantity": "1000000", "counterparties": []string{dealer.participant}})
	return post(dealer, "/api/v1/participant/offers", map[string]any{"instrument_id": h.instrument, "market_id": h.otc,
		"direction": venue.Ask, "price_per_unit": "100", "quantity": "1000000", "matched_offer_id": rfq})
}

// checkCommittedTrade: answer, an accept's, is the trade of quote as the
// venue keeps it, and the quote has no other.
func (h *crashHarness) checkCommittedTrade(round int, buyer *crashTrader, quote string, answer []byte) {
	t := h.t
	t.Helper()
	var got tradeAnswer
	if err := json.Unmarshal(answer, &got); err != nil {
		t.Errorf("round %d: accept answer %s: %v", round, answer, err)
		return
	}
	var trades []tradeAnswer
	for _, base := range h.bases() {
		status, body := h.retry(base, buyer.token, "GET", "/api/v1/trades?offer_id="+quote, "")
		if status != http.StatusOK || json.Unmarshal(body, &trades) != nil {
			t.Errorf("round %d: trades of quote %s through %s = %d: %s", round, quote, base, status, body)
			return
		}
		if !slices.Equal(trades, []tradeAnswer{got}) {
			t.Errorf("round %d: trades of quote %s through %s = %+v; want the accept's answer %+v, once", round, quote, base, trades, got)
		}
	}
}
