// Command bvforward measures what passing trading commands from a standby
// to the leader costs: two instances on one PostgreSQL database (a fresh
// database it creates on the server of --database-url and drops after),
// each with its HTTP API on loopback, and the same stream of resting
// offers entered over N keep-alive connections, once straight to the
// leader and once through the standby, alternately. It reports orders/s
// and round-trip p50/p99 of each and the standby's throughput as a ratio
// of the leader's.
//
//	go run ./cmd/bvforward --database-url postgres://postgres@127.0.0.1:5432/postgres --connections 8
package main

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib"
	"github.com/quagmt/udecimal"

	"github.com/bondvenue/bondvenue/internal/auth"
	"github.com/bondvenue/bondvenue/internal/cluster"
	"github.com/bondvenue/bondvenue/internal/demo"
	"github.com/bondvenue/bondvenue/internal/httpapi"
	"github.com/bondvenue/bondvenue/internal/store"
	"github.com/bondvenue/bondvenue/internal/testenv"
	"github.com/bondvenue/bondvenue/internal/trading"
	"github.com/bondvenue/bondvenue/internal/venue"
)

func main() {
	if err := run(context.Background(), os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "bvforward:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, out io.Writer) error {
	fs := flag.NewFlagSet("bvforward", flag.ContinueOnError)
	server := fs.String("database-url", "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable",
		"a PostgreSQL server where bvforward may CREATE and DROP a database")
	conns := fs.Int("connections", 8, "keep-alive connections")
	duration := fs.Duration("duration", 5*time.Second, "measured time per run")
	rounds := fs.Int("rounds", 2, "alternations of the two runs")
	if err := fs.Parse(args); err != nil {
		return err
	}
	dbURL, drop, err := freshDatabase(ctx, *server)
	if err != nil {
		return err
	}
	defer drop()
	quiet := slog.New(slog.DiscardHandler)
	h := auth.FastHasher
	cfg := trading.Config{Logger: quiet, RateLimit: 1e9, Hasher: &h}
	var bases []string
	var svcs []*testenv.Venue
	var creds demo.Credentials
	for i := range 2 {
		db, err := store.Open(ctx, store.Config{URL: dbURL})
		if err != nil {
			return err
		}
		defer db.Close()
		if _, err := db.Migrate(ctx); err != nil {
			return err
		}
		v := testenv.Wire(db, testenv.Config{Trading: cfg, TokenTTL: time.Hour})
		svc := v.Svc
		if i == 0 {
			if creds, _, err = demo.Load(ctx, svc, os.TempDir(), ""); err != nil {
				return err
			}
			// The load's bids and asks sit far apart on purpose (they never cross):
			// the widest price collar lets them rest.
			wide := udecimal.MustParse("100")
			ms, err := svc.Markets(ctx, trading.System, trading.MarketFilter{}, venue.Page{})
			if err != nil {
				return err
			}
			for _, m := range ms.Items {
				if _, err := svc.UpdateMarket(ctx, trading.System, m.ID, trading.MarketInput{PriceCollarPercent: &wide}); err != nil {
					return err
				}
			}
			limit := udecimal.MustParse("999999999999999999")
			for _, p := range creds.Participants {
				for _, name := range trading.RiskLimitNames() {
					if _, err := svc.SetRiskLimit(ctx, trading.System, p.ID, trading.RiskLimitInput{Name: name, Value: &limit}); err != nil {
						return err
					}
				}
			}
		}
		if err := v.Start(ctx); err != nil {
			return err
		}
		defer v.Close()
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return err
		}
		base := "http://" + ln.Addr().String()
		srv := &http.Server{Handler: httpapi.New(httpapi.Deps{Trading: svc, Live: v.Live, Cluster: v.Cluster, Engine: v.Sequencer, Keys: v.Keys, Access: v.Access, Records: v.Records, Positions: v.Positions}, httpapi.Config{Logger: quiet}).Handler(), ReadHeaderTimeout: 10 * time.Second}
		go func() { _ = srv.Serve(ln) }()
		defer srv.Close()
		if err := v.Cluster.Announce(ctx, base); err != nil {
			return err
		}
		bases, svcs = append(bases, base), append(svcs, v)
	}
	if svcs[0].Cluster.Role() != cluster.RoleLeader || svcs[1].Cluster.Role() != cluster.RoleStandby {
		return fmt.Errorf("roles %s, %s", svcs[0].Cluster.Role(), svcs[1].Cluster.Role())
	}
	ms, err := svcs[0].Svc.Markets(ctx, trading.System, trading.MarketFilter{FacilityType: venue.FacilityContinuous}, venue.Page{Limit: 10})
	if err != nil || len(ms.Items) == 0 {
		return fmt.Errorf("a continuous market: %v", err)
	}
	market := ms.Items[0].ID
	for _, m := range slices.Backward(ms.Items) {
		if m.Hours == nil { // a book open around the clock
			market = m.ID
		}
	}
	ins, err := svcs[0].Svc.Instruments(ctx, trading.System, trading.InstrumentFilter{MarketID: market}, venue.Page{Limit: 1})
	if err != nil || len(ins.Items) == 0 {
		return fmt.Errorf("an instrument: %v", err)
	}
	var traders []trader
	for _, p := range creds.Participants {
		for _, u := range p.Users {
			if u.Role == string(venue.RoleTrader) {
				tok, err := svcs[0].Access.IssueToken(ctx, u.ClientID, u.ClientSecret)
				if err != nil {
					return err
				}
				traders = append(traders, trader{token: tok.AccessToken, account: p.AccountIDs[0]})
			}
		}
	}
	w := &workload{market: market, instrument: ins.Items[0].ID, traders: traders}
	fmt.Fprintf(out, "bvforward: PostgreSQL, %d connections, %s per run, %d rounds\n\n", *conns, *duration, *rounds)
	fmt.Fprintf(out, "%-20s %10s %9s %9s\n", "run", "orders/s", "p50 ms", "p99 ms")
	var direct, passed []float64
	for range *rounds {
		for i, name := range []string{"leader (direct)", "standby (passed on)"} {
			r, err := w.measure(ctx, bases[i], *conns, *duration)
			if err != nil {
				return err
			}
			fmt.Fprintf(out, "%-20s %10.0f %9.2f %9.2f\n", name, r.rate, millis(r.p50), millis(r.p99))
			if i == 0 {
				direct = append(direct, r.rate)
			} else {
				passed = append(passed, r.rate)
			}
		}
	}
	fmt.Fprintf(out, "\nstandby / leader throughput: %.2f\n", sum(passed)/sum(direct))
	return nil
}

func sum(xs []float64) float64 {
	var s float64
	for _, x := range xs {
		s += x
	}
	return s
}

func millis(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

type trader struct{ token, account string }

type workload struct {
	market, instrument string
	traders            []trader
	mu                 sync.Mutex
	n                  int
}

type result struct {
	rate     float64
	p50, p99 time.Duration
}

// measure posts resting offers (bids 80–89.99, asks 110–119.99) to base
// over conns connections for d.
func (w *workload) measure(ctx context.Context, base string, conns int, d time.Duration) (result, error) {
	until := time.Now().Add(d)
	var mu sync.Mutex
	var rtts []time.Duration
	errs := make([]error, conns)
	var wg sync.WaitGroup
	for c := range conns {
		wg.Go(func() {
			tr := w.traders[c%len(w.traders)]
			client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 1}}
			defer client.CloseIdleConnections()
			for time.Now().Before(until) {
				w.mu.Lock()
				w.n++
				n := w.n
				w.mu.Unlock()
				dir, cents := "bid", 8000+n%1000
				if n%2 == 1 {
					dir, cents = "ask", 11000+n%1000
				}
				body := fmt.Sprintf(`{"account_id":%q,"instrument_id":%q,"market_id":%q,"direction":%q,"price_per_unit":"%d.%02d","quantity":"100000"}`,
					tr.account, w.instrument, w.market, dir, cents/100, cents%100)
				req, _ := http.NewRequestWithContext(ctx, http.MethodPost, base+"/api/v1/participant/offers", strings.NewReader(body))
				req.Header.Set("Authorization", "Bearer "+tr.token)
				req.Header.Set("Content-Type", "application/json")
				t0 := time.Now()
				resp, err := client.Do(req)
				if err != nil {
					errs[c] = err
					return
				}
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if resp.StatusCode != http.StatusOK {
					errs[c] = fmt.Errorf("POST offers: %d %s", resp.StatusCode, b)
					return
				}
				mu.Lock()
				rtts = append(rtts, time.Since(t0))
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return result{}, err
	}
	slices.Sort(rtts)
	if len(rtts) == 0 {
		return result{}, errors.New("no answer")
	}
	return result{rate: float64(len(rtts)) / d.Seconds(), p50: rtts[len(rtts)/2], p99: rtts[len(rtts)*99/100]}, nil
}

// freshDatabase creates a database on the server of base and returns its
// URL and a function that drops it.
func freshDatabase(ctx context.Context, base string) (string, func(), error) {
	admin, err := sql.Open("pgx", base)
	if err != nil {
		return "", nil, err
	}
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	name := "bvforward_" + hex.EncodeToString(b)
	if _, err := admin.ExecContext(ctx, "CREATE DATABASE "+name); err != nil {
		admin.Close()
		return "", nil, fmt.Errorf("create database: %w", err)
	}
	u, err := url.Parse(base)
	if err != nil {
		admin.Close()
		return "", nil, err
	}
	u.Path = "/" + name
	return u.String(), func() {
		_, _ = admin.ExecContext(context.Background(), "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)")
		admin.Close()
	}, nil
}
