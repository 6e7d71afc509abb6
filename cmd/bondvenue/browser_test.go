package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/bondvenue/bondvenue/internal/store"
	"github.com/bondvenue/bondvenue/internal/testenv"
)

// TestBrowser runs the web screen's browser tests (web/e2e/run.ts): the
// binary serves its demo as a user starts it, and Debian's Chromium,
// driven by playwright-core, signs in as each role, sees the stream badge
// leave "live" when the connection stops delivering or drops (and come
// back), trades on the book between two firms, runs the RFQ workflow
// between a requester and two dealers, breaches a risk limit and signs
// out: on SQLite (serve's default engine), and on PostgreSQL too with
// BONDVENUE_LONG_TESTS=1 (TestBrowserLiveDemo's journey runs on
// PostgreSQL).
// Screenshots of each main view go to $BONDVENUE_SCREENSHOTS/<engine>
// (default web/e2e/screenshots/<engine>).
//
// It needs node, web/node_modules (npm ci --prefix web) and Chromium
// ($BONDVENUE_TEST_CHROMIUM, default /usr/bin/chromium); without them it
// is skipped, unless BONDVENUE_TEST_REQUIRE_BROWSER=1.
func TestBrowser(t *testing.T) {
	web, chromium, shots, bin := browserSetup(t)
	forBrowserEngines(t, store.SQLite, func(t *testing.T, e store.Engine) {
		journey{script: "run.js", what: "browser tests"}.run(t, web, chromium, shots, bin, e)
	})
}

// TestBrowserLiveDemo runs the browser journey on the live demo market
// (web/e2e/live.ts): the binary serves its demo with the simulated firms
// acting every 100 ms, and two demo firms' traders, side by side, wait
// (within bounds) for two-way prices, a trade on the tape and the chart,
// and news; firm A fills its ticket from a level of the live book, bids
// below the best, amends and cancels while firm B's depth follows; it asks
// a simulated dealer for a quote and accepts it when it is one; and every
// view is captured, the admin's and the operator's too: on PostgreSQL, and
// on SQLite too with BONDVENUE_LONG_TESTS=1. Nothing in it expects a simulated firm's price: they act at
// random. Screenshots go to $BONDVENUE_SCREENSHOTS/live/<engine> (default
// web/e2e/screenshots/live/<engine>). Its needs, and when it is skipped,
// are TestBrowser's.
func TestBrowserLiveDemo(t *testing.T) {
	web, chromium, shots, bin := browserSetup(t)
	forBrowserEngines(t, store.Postgres, func(t *testing.T, e store.Engine) {
		h := &crashHarness{t: t, bin: bin, dataDir: t.TempDir(), dbURL: testenv.DatabaseURL(t, e), liveTick: 100 * time.Millisecond}
		p := h.spawn(true)
		ready := time.Now()
		ctx := testenv.Context(t) // the journey takes what the machine needs
		cmd := exec.CommandContext(ctx, "node", filepath.Join(web, "e2e", "dist", "live.js"))
		cmd.Env = append(os.Environ(), "BASE_URL="+p.base, "CHROMIUM="+chromium,
			"CREDENTIALS="+filepath.Join(h.dataDir, "demo-credentials.json"),
			"SCREENSHOTS="+filepath.Join(shots, "live", string(e)),
			"VENUE_READY_AT="+strconv.FormatInt(ready.UnixMilli(), 10))
		out, err := cmd.CombinedOutput()
		t.Logf("live demo browser tests on %s (%s):\n%s", e, time.Since(ready).Round(time.Second), out)
		if err != nil {
			t.Fatalf("live demo browser tests failed: %v\nserver log:\n%s", err, p.stderr.String())
		}
	})
}

// forBrowserEngines runs fn as a subtest on engine e, and on every engine
// with BONDVENUE_LONG_TESTS=1: a browser journey takes minutes, the two
// journeys share the engines between them, and the storage tests run
// everything on both.
func forBrowserEngines(t *testing.T, e store.Engine, fn func(t *testing.T, e store.Engine)) {
	if os.Getenv("BONDVENUE_LONG_TESTS") != "" {
		testenv.ForEach(t, fn)
		return
	}
	t.Run(string(e), func(t *testing.T) { fn(t, e) })
}

// browserSetup finds what the browser tests need (skipping the test, or
// failing it under BONDVENUE_TEST_REQUIRE_BROWSER=1, without it), compiles
// web/e2e and builds the binary: the web folder, Chromium, the screenshots'
// folder and the binary.
func browserSetup(t *testing.T) (web, chromium, shots, bin string) {
	t.Helper()
	if testing.Short() {
		t.Skip("drives a real browser")
	}
	web, err := filepath.Abs(filepath.Join("..", "..", "web"))
	if err != nil {
		t.Fatal(err)
	}
	chromium = os.Getenv("BONDVENUE_TEST_CHROMIUM")
	if chromium == "" {
		chromium = "/usr/bin/chromium"
	}
	_, nodeErr := exec.LookPath("node")
	_, modErr := os.Stat(filepath.Join(web, "node_modules", "playwright-core"))
	_, chromeErr := os.Stat(chromium)
	if nodeErr != nil || modErr != nil || chromeErr != nil {
		if os.Getenv("BONDVENUE_TEST_REQUIRE_BROWSER") == "1" {
			t.Fatalf("the browser tests need node (%v), web/node_modules (%v; npm ci --prefix web) and Chromium (%v; apt-get install chromium)",
				nodeErr, modErr, chromeErr)
		}
		t.Skipf("node, web/node_modules or %s missing (npm ci --prefix web; apt-get install chromium)", chromium)
	}
	if out, err := exec.Command(filepath.Join(web, "node_modules", ".bin", "tsc"), "-p", filepath.Join(web, "e2e")).CombinedOutput(); err != nil {
		t.Fatalf("compile web/e2e: %v\n%s", err, out)
	}
	shots = os.Getenv("BONDVENUE_SCREENSHOTS")
	if shots == "" {
		shots = filepath.Join(web, "e2e", "screenshots")
	}
	return web, chromium, shots, buildBinary(t)
}

// journey is a browser journey of web/e2e run against the binary serving
// its quiet demo: the script's compiled name, its screenshots' folder and
// what the venue is started with beyond the demo (env).
type journey struct {
	script, shots, what string
	env                 []string
}

// run starts the venue on engine e and the journey's script in Chromium,
// failing with the script's output and the server's log.
func (j journey) run(t *testing.T, web, chromium, shots, bin string, e store.Engine) {
	t.Helper()
	h := &crashHarness{t: t, bin: bin, dataDir: t.TempDir(), dbURL: testenv.DatabaseURL(t, e), env: j.env}
	p := h.spawn(true)
	ctx := testenv.Context(t) // the journey takes what the machine needs
	cmd := exec.CommandContext(ctx, "node", filepath.Join(web, "e2e", "dist", j.script))
	cmd.Env = append(os.Environ(), "BASE_URL="+p.base, "CHROMIUM="+chromium,
		"CREDENTIALS="+filepath.Join(h.dataDir, "demo-credentials.json"),
		"SCREENSHOTS="+filepath.Join(shots, j.shots, string(e)))
	out, err := cmd.CombinedOutput()
	t.Logf("%s on %s:\n%s", j.what, e, out)
	if err != nil {
		t.Fatalf("%s failed: %v\nserver log:\n%s", j.what, err, p.stderr.String())
	}
}
