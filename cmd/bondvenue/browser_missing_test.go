package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/bondvenue/bondvenue/internal/store"
	"github.com/bondvenue/bondvenue/internal/testenv"
)

// missingDeferrals is the deferral table of TestBrowserMissing: a trade of
// 10 m or more is on the tape at once with its size held back until the
// end of the day, so the journey sees a deferred size without waiting for
// a price's deferral.
const missingDeferrals = `{
  "name": "browser test: sizes of 10 m and more deferred",
  "classes": [{"class": "all", "about": "every bond"}],
  "bands": [
    {"id": "A0", "class": "all", "from": "0", "price": "now", "volume": "now"},
    {"id": "A1", "class": "all", "from": "10000000", "price": "now", "volume": "eod"}
  ]
}`

// TestBrowserMissing runs web/e2e/missing.ts: what a trader expected of the
// screen and first found missing. On the quiet demo, traders of three
// firms in three time zones date, filter, export and cancel all in the
// blotter; send a good-till-date order and a market order whose rest is
// cancelled; ask for quotes with a settlement date and a limit, a dealer
// quoting for a set time, and read the request's execution record; send an
// executable request that trades the first good quote; read the public
// tape (a size held back reads "deferred") on its own page; and are told
// of news while elsewhere. Its needs, and when it is skipped, are
// TestBrowser's; screenshots go to $BONDVENUE_SCREENSHOTS/missing/<engine>.
func TestBrowserMissing(t *testing.T) {
	web, chromium, shots, bin := browserSetup(t)
	forBrowserEngines(t, store.SQLite, func(t *testing.T, e store.Engine) {
		table := filepath.Join(t.TempDir(), "deferrals.json")
		if err := os.WriteFile(table, []byte(missingDeferrals), 0o600); err != nil {
			t.Fatal(err)
		}
		h := &crashHarness{t: t, bin: bin, dataDir: t.TempDir(), dbURL: testenv.DatabaseURL(t, e), env: []string{"BONDVENUE_DEFERRAL_TABLE=" + table}}
		p := h.spawn(true)
		ctx := testenv.Context(t) // the journey takes what the machine needs
		cmd := exec.CommandContext(ctx, "node", filepath.Join(web, "e2e", "dist", "missing.js"))
		cmd.Env = append(os.Environ(), "BASE_URL="+p.base, "CHROMIUM="+chromium,
			"CREDENTIALS="+filepath.Join(h.dataDir, "demo-credentials.json"),
			"SCREENSHOTS="+filepath.Join(shots, "missing", string(e)))
		out, err := cmd.CombinedOutput()
		t.Logf("browser tests of what was missing on %s:\n%s", e, out)
		if err != nil {
			t.Fatalf("browser tests failed: %v\nserver log:\n%s", err, p.stderr.String())
		}
	})
}
