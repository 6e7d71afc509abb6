package main

import (
	"testing"

	"github.com/bondvenue/bondvenue/internal/store"
)

// TestBrowserScreens runs the browser checks of the trading screens
// (web/e2e/screens.ts) on the quiet demo: each screen's layout measured
// at 1024×768, 1280×720 and 1440×900 (nothing overflows its card, nothing
// overlaps, the blotter's Allocate in the window), the market grid's best
// bid and ask from two markets, a halt shown live in the ticket, the depth
// and the grid, a tape whose trades are deferred and the chart's choice
// of market, a dealer confirming a quote far from the market, a list
// pasted from a spreadsheet with its dealers' answers and the Lists tab's
// count, and a kill switch told to the trader: on SQLite, and on every
// engine with BONDVENUE_LONG_TESTS=1. Screenshots go to
// $BONDVENUE_SCREENSHOTS/screens/<engine> (default
// web/e2e/screenshots/screens/<engine>). Its needs, and when it is
// skipped, are TestBrowser's.
func TestBrowserScreens(t *testing.T) {
	web, chromium, shots, bin := browserSetup(t)
	forBrowserEngines(t, store.SQLite, func(t *testing.T, e store.Engine) {
		journey{script: "screens.js", shots: "screens", what: "browser checks of the screens"}.run(t, web, chromium, shots, bin, e)
	})
}
