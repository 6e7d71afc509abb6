package main

import (
	"testing"

	"github.com/bondvenue/bondvenue/internal/store"
)

// TestBrowserConsoles runs the consoles' browser journey
// (web/e2e/consoles.ts) against the binary serving its quiet demo: the
// operator halts a bond with a reason (a trader's ticket shows it, the
// halt history and the audit trail record it), changes a market's collar
// (a wrong value shown next to its field), onboards a firm whose first
// trader signs in with the credential shown once and trades; a firm admin
// disables a user (its next request is refused) and turns the kill
// switch on (its orders leave the other firm's depth) and off; every
// console view is captured at 1440×900 and 1280×720. On SQLite, and on
// PostgreSQL too with BONDVENUE_LONG_TESTS=1. Screenshots go to
// $BONDVENUE_SCREENSHOTS/consoles/<engine> (default
// web/e2e/screenshots/consoles/<engine>). Its needs, and when it is
// skipped, are TestBrowser's.
func TestBrowserConsoles(t *testing.T) {
	web, chromium, shots, bin := browserSetup(t)
	forBrowserEngines(t, store.SQLite, func(t *testing.T, e store.Engine) {
		journey{script: "consoles.js", shots: "consoles", what: "console browser tests"}.run(t, web, chromium, shots, bin, e)
	})
}
