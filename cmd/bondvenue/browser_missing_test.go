package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/bondvenue/bondvenue/internal/store"
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
		j := journey{script: "missing.js", shots: "missing", what: "browser tests of what was missing", env: []string{"BONDVENUE_DEFERRAL_TABLE=" + table}}
		j.run(t, web, chromium, shots, bin, e)
	})
}
