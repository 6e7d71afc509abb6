package main

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/bondvenue/bondvenue/internal/demo"
	"github.com/bondvenue/bondvenue/internal/store"
	"github.com/bondvenue/bondvenue/internal/testenv"
)

// TestServeDemoMarket starts `serve --demo` with the live demo market on a
// short tick and waits for a trade on the tape and the simulated firms'
// indicative prices; with --demo-market=false the venue stays quiet.
func TestServeDemoMarket(t *testing.T) {
	testenv.ForEach(t, func(t *testing.T, e store.Engine) {
		for _, live := range []bool{true, false} {
			dir := t.TempDir()
			vars := map[string]string{"BONDVENUE_DATA_DIR": dir, "BONDVENUE_LOG_LEVEL": "warn", "BONDVENUE_DEMO_MARKET_TICK": "50ms"}
			if e == store.Postgres {
				vars["BONDVENUE_DATABASE_URL"] = testenv.DatabaseURL(t, e)
			}
			args := []string{"--demo", "--addr", "127.0.0.1:0"}
			if !live {
				args = append(args, "--demo-market=false")
			}
			base, stop := startServe(t, args, env(vars))
			creds, err := demo.ReadCredentials(filepath.Join(dir, demo.CredentialsFile))
			if err != nil {
				t.Fatal(err)
			}
			op := login(t, base, creds.Operator.ClientID, creds.Operator.ClientSecret)
			trader := creds.Participants[0].Users[1]
			c := login(t, base, trader.ClientID, trader.ClientSecret)
			var trades, ips, parts, offers []map[string]any
			if live {
				for len(trades) == 0 || len(ips) == 0 {
					if !stillTime(t) {
						t.Fatalf("when the test's time ran out: %d trades on the tape, %d indicative prices, want both", len(trades), len(ips))
					}
					time.Sleep(100 * time.Millisecond)
					op.getJSON("/api/v1/trades", &trades)
					c.getJSON("/api/v1/participant/indicative-price", &ips)
				}
				// The trader sees the trade on the instrument's chart.
				id, _ := trades[0]["instrument_id"].(string)
				var bars []map[string]any
				c.getJSON("/api/v1/instruments/"+id+"/ohlc", &bars)
				if len(bars) == 0 {
					t.Errorf("GET /instruments/%s/ohlc as a demo trader: no bar, want the simulated trade's", id)
				}
			} else {
				time.Sleep(500 * time.Millisecond) // ten ticks, were the market on
				op.getJSON("/api/v1/trades", &trades)
				op.getJSON("/api/v1/participants", &parts)
				op.getJSON("/api/v1/participant/offers", &offers)
				c.getJSON("/api/v1/participant/indicative-price", &ips)
				if len(trades)+len(ips)+len(offers) > 0 || len(parts) != 4 {
					t.Errorf("with --demo-market=false: %d trades, %d indicative prices, %d offers, %d participants; want none and the demo's four",
						len(trades), len(ips), len(offers), len(parts))
				}
			}
			if err := stop(); err != nil {
				t.Fatalf("graceful stop: %v", err)
			}
		}
	})
}
