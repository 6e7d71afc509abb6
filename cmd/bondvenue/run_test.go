package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bondvenue/bondvenue/internal/demo"
	"github.com/bondvenue/bondvenue/internal/envflag"
	"github.com/bondvenue/bondvenue/internal/store"
	"github.com/bondvenue/bondvenue/internal/testenv"
)

// syncBuffer is an io.Writer the test can read while run writes to it.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func env(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

var listening = regexp.MustCompile(`listening on (http://[0-9.:]+)`)

// startServe runs `serve` in the background and waits until /readyz
// answers 200. It returns the base URL and a stop function that cancels
// the context and returns run's error.
func startServe(t *testing.T, args []string, getenv func(string) string) (string, func() error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	stdout, stderr := &syncBuffer{}, &syncBuffer{}
	done := make(chan error, 1)
	if !slices.Contains(args, "--fix-addr") { // tests run side by side: no fixed port
		args = append(args, "--fix-addr", "127.0.0.1:0")
	}
	// No admission bound unless the test sets one: a machine busy with
	// other tests would have serve refuse writes as if it were overloaded
	// (the crash harness sets BONDVENUE_QUEUE_BUDGET=0 likewise).
	if !slices.Contains(args, "--queue-budget") {
		args = append(args, "--queue-budget", "0")
	}
	go func() { done <- run(ctx, append([]string{"serve"}, args...), getenv, stdout, stderr) }()
	var base string
	for base == "" {
		if m := listening.FindStringSubmatch(stdout.String()); m != nil {
			base = m[1]
			break
		}
		select {
		case err := <-done:
			cancel()
			t.Fatalf("serve exited early: %v\nstderr:\n%s", err, stderr.String())
		case <-time.After(20 * time.Millisecond):
		}
		if !stillTime(t) {
			cancel()
			t.Fatalf("serve did not report its address; stderr:\n%s", stderr.String())
		}
	}
	for {
		resp, err := http.Get(base + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				break
			}
		}
		if !stillTime(t) {
			cancel()
			t.Fatalf("/readyz never answered 200; stderr:\n%s", stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	stopped := false
	stop := func() error {
		if stopped {
			return nil
		}
		stopped = true
		cancel()
		select {
		case err := <-done:
			return err
		case <-testenv.Expired(t):
			return errors.New("serve did not stop after the cancellation when the test's time ran out")
		}
	}
	t.Cleanup(func() { _ = stop() })
	return base, stop
}

type client struct {
	t     *testing.T
	base  string
	token string
}

func (c *client) do(method, path string, body any) (int, []byte) {
	c.t.Helper()
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, c.base+path, rd)
	if err != nil {
		c.t.Fatal(err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

func (c *client) getJSON(path string, v any) {
	c.t.Helper()
	status, b := c.do("GET", path, nil)
	if status != http.StatusOK {
		c.t.Fatalf("GET %s = %d %s, want 200", path, status, b)
	}
	if err := json.Unmarshal(b, v); err != nil {
		c.t.Fatalf("GET %s: %v in %s", path, err, b)
	}
}

func login(t *testing.T, base, id, secret string) *client {
	t.Helper()
	form := url.Values{"grant_type": {"client_credentials"}, "client_id": {id}, "client_secret": {secret}}
	resp, err := http.PostForm(base+"/api/v1/auth/token", form)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var tok struct {
		AccessToken string `json:"access_token"`
		TokenType   string `json:"token_type"`
		ExpiresIn   int    `json:"expires_in"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&tok); err != nil || resp.StatusCode != 200 {
		t.Fatalf("token: status %d, %v", resp.StatusCode, err)
	}
	if tok.TokenType != "Bearer" || tok.ExpiresIn != 900 || tok.AccessToken == "" {
		t.Fatalf("token answer = %+v, want a Bearer token for 900 s", tok)
	}
	return &client{t: t, base: base, token: tok.AccessToken}
}

// TestServeDemo is the end-to-end test: run() on port 0 with --demo, the
// credentials file, a token, and a walk over the reference endpoints; then
// a restart on the same data changes nothing.
func TestServeDemo(t *testing.T) {
	testenv.ForEach(t, func(t *testing.T, e store.Engine) {
		dir := t.TempDir()
		vars := map[string]string{"BONDVENUE_DATA_DIR": dir, "BONDVENUE_LOG_LEVEL": "warn"}
		if e == store.Postgres {
			vars["BONDVENUE_DATABASE_URL"] = testenv.DatabaseURL(t, e)
		}
		base, stop := startServe(t, []string{"--demo", "--demo-market=false", "--addr", "127.0.0.1:0"}, env(vars))
		creds, err := demo.ReadCredentials(filepath.Join(dir, demo.CredentialsFile))
		if err != nil {
			t.Fatal(err)
		}
		if creds.BaseURL != base {
			t.Errorf("credentials base_url = %q, want %q", creds.BaseURL, base)
		}
		trader := creds.Participants[0].Users[1]
		c := login(t, base, trader.ClientID, trader.ClientSecret)

		var parts []map[string]any
		c.getJSON("/api/v1/participants", &parts)
		if len(parts) != 1 || parts[0]["id"] != creds.Participants[0].ID {
			t.Fatalf("participants = %d records, want the caller's own", len(parts))
		}
		for _, k := range []string{"accounts", "users", "buckets", "risk_limits", "markets", "counterparties", "serviceaccounts"} {
			if _, ok := parts[0][k].([]any); !ok {
				t.Errorf("participants[0].%s missing or not an array", k)
			}
		}
		var one map[string]any
		c.getJSON("/api/v1/participants/"+creds.Participants[1].ID, &one)
		if _, private := one["tax_number"]; private || one["lei"] != creds.Participants[1].LEI {
			t.Errorf("counterparty record = %v, want public fields only", one)
		}
		if status, _ := c.do("GET", "/api/v1/participants/"+creds.Participants[3].ID, nil); status != 404 {
			t.Errorf("GET a non-counterparty participant = %d, want 404", status)
		}
		var list []map[string]any
		for _, path := range []string{"/api/v1/accounts", "/api/v1/users", "/api/v1/markets", "/api/v1/instruments",
			"/api/v1/participant/buckets", "/api/v1/settlement-providers", "/api/v1/news", "/api/v1/participant/risk-limits"} {
			c.getJSON(path, &list)
			if len(list) == 0 {
				t.Errorf("GET %s returned an empty list", path)
			}
		}
		c.getJSON("/api/v1/instruments", &list)
		id := list[0]["id"].(string)
		c.getJSON("/api/v1/instruments/"+id+"?market_depth=5", &one)
		for _, k := range []string{"static_data", "markets", "buckets", "instrument_limits"} {
			if one[k] == nil {
				t.Errorf("instrument detail has no %s", k)
			}
		}
		c.getJSON("/api/v1/openapi.json", &one)
		if one["openapi"] == nil {
			t.Error("openapi.json has no openapi version")
		}
		for _, path := range []string{"/docs", "/healthz", "/metrics", "/api/v1/fix/dictionary"} {
			if status, _ := c.do("GET", path, nil); status != 200 {
				t.Errorf("GET %s = %d, want 200", path, status)
			}
		}
		if _, body := c.do("GET", "/metrics", nil); !strings.Contains(string(body), "bondvenue_fix_sessions") {
			t.Error("/metrics has no FIX gateway figures (is the acceptor running?)")
		}
		// The clock's monitor runs: whatever this machine's clock says, the
		// health answer and /metrics carry its check.
		var health struct {
			Status string `json:"status"`
			Clock  struct {
				Status      string `json:"status"`
				ToleranceUS int64  `json:"tolerance_us"`
			} `json:"clock"`
		}
		c.getJSON("/healthz", &health)
		if (health.Status != "ok" && health.Status != "degraded") || health.Clock.Status == "" || health.Clock.ToleranceUS != 1000 {
			t.Errorf("GET /healthz = %+v, want the clock's check at the 1 ms tolerance of no latency samples", health)
		}
		if _, body := c.do("GET", "/metrics", nil); !strings.Contains(string(body), "\nbondvenue_clock_degraded ") {
			t.Error("/metrics has no clock figures (is the monitor running?)")
		}
		if err := stop(); err != nil {
			t.Fatalf("graceful stop: %v", err)
		}

		// Restart on the same data with --demo: nothing changes.
		base2, stop2 := startServe(t, []string{"--demo", "--demo-market=false", "--addr", "127.0.0.1:0"}, env(vars))
		again, err := demo.ReadCredentials(filepath.Join(dir, demo.CredentialsFile))
		if err != nil || again.BaseURL != base {
			t.Errorf("restart rewrote the credentials file (base_url %q, want %q; %v)", again.BaseURL, base, err)
		}
		op := login(t, base2, creds.Operator.ClientID, creds.Operator.ClientSecret)
		op.getJSON("/api/v1/participants", &list)
		if len(list) != 4 {
			t.Errorf("after restart the operator sees %d participants, want 4", len(list))
		}
		if err := stop2(); err != nil {
			t.Fatalf("graceful stop: %v", err)
		}
	})
}

// TestAdminOnboarding onboards a participant end to end with the admin
// command and then logs in with the issued credential.
func TestAdminOnboarding(t *testing.T) {
	testenv.ForEach(t, func(t *testing.T, e store.Engine) {
		dir := t.TempDir()
		vars := map[string]string{"BONDVENUE_DATA_DIR": dir}
		if e == store.Postgres {
			vars["BONDVENUE_DATABASE_URL"] = testenv.DatabaseURL(t, e)
		}
		getenv := env(vars)
		admin := func(args ...string) map[string]any {
			t.Helper()
			var out, errb bytes.Buffer
			if err := run(context.Background(), append([]string{"admin"}, args...), getenv, &out, &errb); err != nil {
				t.Fatalf("admin %v: %v\n%s", args, err, errb.String())
			}
			var m map[string]any
			if err := json.Unmarshal(out.Bytes(), &m); err != nil {
				t.Fatalf("admin %v printed %q: %v", args, out.String(), err)
			}
			return m
		}
		var out bytes.Buffer
		if err := run(context.Background(), []string{"migrate"}, getenv, &out, io.Discard); err != nil {
			t.Fatal(err)
		}
		ms, _ := store.Migrations(e)
		if want := fmt.Sprintf("schema version %d", ms[len(ms)-1].Version); !strings.Contains(out.String(), want) {
			t.Errorf("migrate printed %q", out.String())
		}
		op := admin("bootstrap", "--email", "ops@venue.example")
		if op["client_secret"] == "" {
			t.Fatalf("bootstrap = %v", op)
		}
		err := run(context.Background(), []string{"admin", "bootstrap", "--email", "second@venue.example"}, getenv, io.Discard, io.Discard)
		if err == nil {
			t.Error("a second bootstrap succeeded, want a refusal")
		}
		p := admin("participant", "--name", "Baltic Fixed Income AS", "--lei", "529900BALT1C0F1XED42", "--country", "EE")
		pid := p["id"].(string)
		a := admin("account", "--participant-id", pid, "--number", "BFI-0001")
		u := admin("user", "--participant-id", pid, "--email", "desk@baltic-fi.example", "--role", "PARTICIPANT_TRADER")
		cred := admin("credential-issue", "--user-id", u["id"].(string))
		admin("risk-limit", "--participant-id", pid, "--name", "MAX_OFFER", "--value", "5000000")

		base, stop := startServe(t, []string{"--addr", "127.0.0.1:0"}, getenv)
		c := login(t, base, cred["client_id"].(string), cred["client_secret"].(string))
		var accounts []map[string]any
		c.getJSON("/api/v1/accounts", &accounts)
		if len(accounts) != 1 || accounts[0]["id"] != a["id"] {
			t.Errorf("accounts = %v, want the one created", accounts)
		}
		var limits []map[string]any
		c.getJSON("/api/v1/participant/risk-limits", &limits)
		found := false
		for _, l := range limits {
			if l["name"] == "MAX_OFFER" {
				found = fmt.Sprint(l["value"]) == "5e+06"
			}
		}
		if !found {
			t.Errorf("risk limits = %v, want MAX_OFFER 5000000", limits)
		}
		admin("credential-revoke", "--client-id", cred["client_id"].(string))
		// The admin command is another process: the server remembers the
		// token it resolved a moment ago, so the revocation binds within the
		// token cache's second, not at once. Poll for it.
		revoked := false
		for ; stillTime(t); time.Sleep(50 * time.Millisecond) {
			status, _ := c.do("GET", "/api/v1/accounts", nil)
			if status == http.StatusUnauthorized {
				revoked = true
				break
			}
			if status != http.StatusOK {
				t.Fatalf("after revocation GET /accounts = %d, want 200 (remembered) or 401", status)
			}
		}
		if !revoked {
			t.Errorf("after the revocation GET /accounts does not answer 401")
		}
		if err := stop(); err != nil {
			t.Fatal(err)
		}
	})
}

func TestUsage(t *testing.T) {
	tests := []struct {
		args []string
		code int
	}{
		{nil, 2},
		{[]string{"frobnicate"}, 2},
		{[]string{"serve", "--no-such-flag"}, 2},
		{[]string{"admin"}, 2},
		{[]string{"admin", "nope"}, 2},
		{[]string{"serve", "--log-level", "loud"}, 2},
		{[]string{"serve", "--mic", "bad"}, 2},
		{[]string{"serve", "--deferral-table", "no-such-table.json"}, 2},
		{[]string{"serve", "--deferral-table", "run_test.go"}, 2}, // not a deferral table
		{[]string{"serve", "--clock-check-interval", "0s"}, 2},    // not a positive duration
		{[]string{"serve", "-h"}, 0},                              // the usage was asked for
	}
	for _, tt := range tests {
		err := run(context.Background(), tt.args, env(nil), io.Discard, io.Discard)
		if err == nil || envflag.ExitCode(err) != tt.code {
			t.Errorf("run(%q) = %v (exit %d), want exit %d", tt.args, err, envflag.ExitCode(err), tt.code)
		}
	}
	var out bytes.Buffer
	if err := run(context.Background(), []string{"help"}, env(nil), &out, io.Discard); err != nil || !strings.Contains(out.String(), "serve") {
		t.Errorf("help = %v, %q", err, out.String())
	}
}

// TestServeSQLiteOnce: a second serve on a SQLite data directory another
// serve holds refuses to start, saying why; once the first stops, it can.
func TestServeSQLiteOnce(t *testing.T) {
	dir := t.TempDir()
	vars := map[string]string{"BONDVENUE_DATA_DIR": dir, "BONDVENUE_LOG_LEVEL": "warn"}
	_, stop := startServe(t, []string{"--addr", "127.0.0.1:0"}, env(vars))
	var stderr syncBuffer
	err := run(context.Background(), []string{"serve", "--addr", "127.0.0.1:0", "--fix-addr", "off"}, env(vars), io.Discard, &stderr)
	if err == nil || !strings.Contains(err.Error(), "in use by another bondvenue serve") {
		t.Fatalf("second serve on %s: %v", dir, err)
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	_, stop = startServe(t, []string{"--addr", "127.0.0.1:0"}, env(vars))
	if err := stop(); err != nil {
		t.Fatal(err)
	}
}
