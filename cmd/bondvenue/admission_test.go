package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/bondvenue/bondvenue/internal/demo"
	"github.com/bondvenue/bondvenue/internal/store"
	"github.com/bondvenue/bondvenue/internal/testenv"
)

// TestServeQueueBudget: with a queue budget no command can meet
// (--queue-budget 1ns), serve refuses new offers at once with 503 and a
// Retry-After, applies nothing, keeps no idempotent answer (the retry runs
// again), still serves the sequencer's reads, and counts the refusals on
// /metrics.
func TestServeQueueBudget(t *testing.T) {
	testenv.ForEach(t, func(t *testing.T, e store.Engine) {
		dir := t.TempDir()
		vars := map[string]string{"BONDVENUE_DATA_DIR": dir, "BONDVENUE_LOG_LEVEL": "error"}
		if e == store.Postgres {
			vars["BONDVENUE_DATABASE_URL"] = testenv.DatabaseURL(t, e)
		}
		base, _ := startServe(t, []string{"--demo", "--demo-market=false", "--addr", "127.0.0.1:0", "--queue-budget", "1ns"}, env(vars))
		creds, err := demo.ReadCredentials(filepath.Join(dir, demo.CredentialsFile))
		if err != nil {
			t.Fatal(err)
		}
		trader := creds.Participants[0].Users[1]
		c := login(t, base, trader.ClientID, trader.ClientSecret)
		var markets []struct {
			ID                   string `json:"id"`
			FacilityType         string `json:"facility_type"`
			IsPartialFillAllowed bool   `json:"is_partial_fill_allowed"`
			TradingHours         any    `json:"trading_hours"`
		}
		c.getJSON("/api/v1/markets", &markets)
		var instruments []struct {
			ID string `json:"id"`
		}
		c.getJSON("/api/v1/instruments", &instruments)
		market := ""
		for _, m := range markets {
			// The round-the-clock book every demo bond is listed on, not the day session.
			if m.FacilityType == "continues-matching" && m.IsPartialFillAllowed && m.TradingHours == nil {
				market = m.ID
			}
		}
		body, _ := json.Marshal(map[string]any{"instrument_id": instruments[0].ID, "market_id": market,
			"account_id": creds.Participants[0].AccountIDs[0], "direction": "bid", "price_per_unit": "99",
			"quantity": "100000", "validity": "gtc"})
		post := func() *http.Response {
			req, _ := http.NewRequest("POST", base+"/api/v1/participant/offers", bytes.NewReader(body))
			req.Header.Set("Authorization", "Bearer "+c.token)
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Idempotency-Key", "busy-1")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			return resp
		}
		for attempt := range 2 {
			resp := post()
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusServiceUnavailable {
				t.Fatalf("attempt %d: POST offer = %d %s, want 503", attempt, resp.StatusCode, b)
			}
			if ra, err := strconv.Atoi(resp.Header.Get("Retry-After")); err != nil || ra < 1 {
				t.Errorf("attempt %d: Retry-After = %q, want whole seconds ≥ 1", attempt, resp.Header.Get("Retry-After"))
			}
			if resp.Header.Get("Idempotent-Replayed") != "" {
				t.Errorf("attempt %d: a refusal was replayed; it must not be kept", attempt)
			}
			var eb struct {
				StatusCode int    `json:"statusCode"`
				Error      string `json:"error"`
			}
			if err := json.Unmarshal(b, &eb); err != nil || eb.StatusCode != 503 || !strings.Contains(eb.Error, "the venue is busy") {
				t.Errorf("attempt %d: body = %s, want the error body saying the venue is busy", attempt, b)
			}
		}
		var offers []map[string]any
		c.getJSON("/api/v1/participant/offers", &offers)
		if len(offers) != 0 {
			t.Errorf("offers after refusals = %d, want none applied", len(offers))
		}
		var limits []map[string]any
		c.getJSON("/api/v1/participant/risk-limits", &limits) // the sequencer's read: priority lane
		if len(limits) != 4 {
			t.Errorf("risk limits = %d, want 4", len(limits))
		}
		resp, err := http.Get(base + "/metrics")
		if err != nil {
			t.Fatal(err)
		}
		m, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		refused := 0.0
		for _, line := range regexp.MustCompile(`(?m)^bondvenue_engine_refused_total\{reason="\w+"\} (\S+)$`).FindAllSubmatch(m, -1) {
			v, _ := strconv.ParseFloat(string(line[1]), 64)
			refused += v
		}
		if refused != 2 {
			t.Errorf("bondvenue_engine_refused_total over reasons = %v, want 2", refused)
		}
		if !regexp.MustCompile(`(?m)^bondvenue_engine_queue_budget_seconds 1e-09$`).Match(m) {
			t.Errorf("/metrics lacks bondvenue_engine_queue_budget_seconds 1e-09")
		}
		// The cost model measured the batches that ran: a time per command
		// and a commit's fixed part, each a number of seconds.
		for _, name := range []string{"bondvenue_engine_command_cost_seconds", "bondvenue_engine_commit_cost_seconds"} {
			line := regexp.MustCompile(`(?m)^` + name + ` (\S+)$`).FindSubmatch(m)
			if line == nil {
				t.Errorf("/metrics lacks %s", name)
				continue
			}
			if v, err := strconv.ParseFloat(string(line[1]), 64); err != nil || v < 0 || v > 10 ||
				(name == "bondvenue_engine_command_cost_seconds" && v == 0) {
				t.Errorf("%s = %s, want a measured time", name, line[1])
			}
		}
	})
}
