package httpapi_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/quagmt/udecimal"

	"github.com/bondvenue/bondvenue/internal/demo"
	"github.com/bondvenue/bondvenue/internal/httpapi"
	"github.com/bondvenue/bondvenue/internal/store"
	"github.com/bondvenue/bondvenue/internal/testenv"
	"github.com/bondvenue/bondvenue/internal/trading"
	"github.com/bondvenue/bondvenue/internal/venue"
)

// BenchmarkExecutionExport exports a day of RFQs (10 000 by default,
// BONDVENUE_BENCH_RFQS to change) as CSV and as JSON over HTTP, each beside
// its baseline of the same run: reading the same records from the store
// with no record built (store-read). Each RFQ asks three dealers; two
// quote, one in three declines, every other one trades and the others are
// cancelled.
//
//	go test -run x -bench ExecutionExport -benchtime 3x ./internal/httpapi/
func BenchmarkExecutionExport(b *testing.B) {
	n := 10_000
	if s := os.Getenv("BONDVENUE_BENCH_RFQS"); s != "" {
		n, _ = strconv.Atoi(s)
	}
	for _, e := range []store.Engine{store.SQLite, store.Postgres} {
		b.Run(string(e), func(b *testing.B) {
			if e == store.Postgres && os.Getenv("BONDVENUE_TEST_POSTGRES_URL") == "" {
				b.Skip("BONDVENUE_TEST_POSTGRES_URL is not set")
			}
			clk := testenv.NewClock(pinned)
			db := testenv.Open(b, e)
			core, creds := testenv.Demo(b, db, testenv.Config{Trading: trading.Config{Now: clk.Now, Logger: slog.New(slog.DiscardHandler),
				RateLimit: 1e9, RateBurst: 1e9}})
			svc := core.Svc
			seedRFQs(b, svc, creds.Participants, n)
			srv := httptest.NewServer(httpapi.New(httpapi.Deps{Trading: svc, Live: core.Live, Cluster: core.Cluster, Engine: core.Sequencer, Keys: core.Keys, Access: core.Access, Records: core.Records}, httpapi.Config{Logger: slog.New(slog.DiscardHandler), Now: clk.Now,
				TokenRateLimit: 1e9, TokenRateBurst: 1e9}).Handler())
			b.Cleanup(srv.Close)
			token := tokenOf(b, srv, creds.Participants[0].Users[0])
			export := srv.URL + "/api/v1/participant/rfq/execution-records?from=" + pinned.Format("2006-01-02")
			get := func(b *testing.B, accept string) int64 {
				req, _ := http.NewRequest("GET", export, nil)
				req.Header.Set("Authorization", "Bearer "+token)
				req.Header.Set("Accept", accept)
				res, err := srv.Client().Do(req)
				if err != nil {
					b.Fatal(err)
				}
				defer res.Body.Close()
				size, err := io.Copy(io.Discard, res.Body)
				if err != nil || res.StatusCode != http.StatusOK {
					b.Fatalf("export: status %d, %v", res.StatusCode, err)
				}
				return size
			}
			for _, c := range []struct{ name, accept string }{{"csv", "text/csv"}, {"json", "application/json"}} {
				b.Run(c.name, func(b *testing.B) {
					var size int64
					for b.Loop() {
						size = get(b, c.accept)
					}
					b.ReportMetric(float64(size), "bytes")
					b.ReportMetric(float64(n), "rfqs")
				})
			}
			b.Run("store-read", func(b *testing.B) {
				ctx := context.Background()
				for b.Loop() {
					err := db.View(ctx, func(tx *store.Tx) error {
						ids, err := tx.RFQsSent(ctx, pinned.Add(-time.Hour), pinned.Add(24*time.Hour), nil)
						if err != nil {
							return err
						}
						if _, err := tx.OffersByIDs(ctx, ids); err != nil {
							return err
						}
						_, err = tx.QuotesOf(ctx, ids)
						return err
					})
					if err != nil {
						b.Fatal(err)
					}
				}
			})
		})
	}
}

// seedRFQs sends n RFQs from the first demo firm to the next three and
// answers them, several at a time.
func seedRFQs(b *testing.B, svc *trading.Service, parts []demo.Participant, n int) {
	b.Helper()
	ctx := context.Background()
	principal := func(i int) venue.Principal {
		for _, u := range parts[i].Users {
			if u.Role == string(venue.RoleTrader) {
				return venue.Principal{UserID: u.UserID, ParticipantID: parts[i].ID, Role: venue.RoleTrader, ClientID: u.ClientID}
			}
		}
		b.Fatalf("no trader in participant %d", i)
		return venue.Principal{}
	}
	enabled := true
	if _, err := svc.SetCounterparty(ctx, trading.System, parts[0].ID, parts[3].ID, &enabled); err != nil {
		b.Fatal(err)
	}
	ms, err := svc.Markets(ctx, trading.System, trading.MarketFilter{FacilityType: venue.FacilityOTC}, venue.Page{Limit: 10})
	if err != nil || len(ms.Items) == 0 {
		b.Fatalf("OTC market: %v", err)
	}
	market := ms.Items[0].ID
	list, err := svc.Instruments(ctx, trading.System, trading.InstrumentFilter{MarketID: market}, venue.Page{Limit: 10})
	if err != nil || len(list.Items) == 0 {
		b.Fatalf("instruments: %v", err)
	}
	p0, dealers := principal(0), []venue.Principal{principal(1), principal(2), principal(3)}
	work := make(chan int)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var failed error
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				if err := oneRFQ(ctx, svc, p0, dealers, parts, market, list.Items[i%len(list.Items)].Instrument, i); err != nil {
					mu.Lock()
					failed = err
					mu.Unlock()
				}
			}
		}()
	}
	for i := range n {
		work <- i
	}
	close(work)
	wg.Wait()
	if failed != nil {
		b.Fatal(failed)
	}
}

func oneRFQ(ctx context.Context, svc *trading.Service, p0 venue.Principal, dealers []venue.Principal, parts []demo.Participant,
	market string, in venue.Instrument, i int) error {
	qty := in.MinPiece.Mul(udecimal.MustFromInt64(int64(1+i%5), 0))
	r, err := svc.CreateRFQ(ctx, p0, trading.OfferInput{InstrumentID: in.ID, MarketID: market, AccountID: parts[0].AccountIDs[0],
		Direction: venue.Bid, Quantity: &qty, Counterparties: []string{dealers[0].ParticipantID, dealers[1].ParticipantID,
			dealers[2].ParticipantID}})
	if err != nil {
		return err
	}
	var quotes []string
	for d := range 2 {
		px := udecimal.MustFromInt64(int64(9_950+i%40+d*7), 2)
		q, err := svc.CreateOffer(ctx, dealers[d], trading.OfferInput{MatchedOfferID: r.ID, InstrumentID: in.ID, MarketID: market,
			AccountID: parts[d+1].AccountIDs[0], Direction: venue.Ask, Price: &px, Quantity: &qty})
		if err != nil {
			return err
		}
		quotes = append(quotes, q.ID)
	}
	if i%3 == 0 {
		if _, err := svc.DeclineRFQ(ctx, dealers[2], r.ID); err != nil {
			return err
		}
	}
	if i%2 == 0 {
		_, err = svc.AcceptQuote(ctx, p0, quotes[i%4/2], venue.Parties{})
	} else { // the rest end too: live quotes would hold the dealers' risk limits
		_, err = svc.CancelRFQ(ctx, p0, r.ID)
	}
	return err
}

// tokenOf signs u in over srv and answers its bearer token.
func tokenOf(b *testing.B, srv *httptest.Server, u demo.UserCred) string {
	b.Helper()
	form := url.Values{"grant_type": {"client_credentials"}, "client_id": {u.ClientID}, "client_secret": {u.ClientSecret}}
	res, err := srv.Client().PostForm(srv.URL+"/api/v1/auth/token", form)
	if err != nil {
		b.Fatal(err)
	}
	defer res.Body.Close()
	var body struct {
		AccessToken string `json:"access_token"`
	}
	if err := json.NewDecoder(res.Body).Decode(&body); err != nil || body.AccessToken == "" {
		b.Fatalf("token: status %d, %v", res.StatusCode, err)
	}
	return body.AccessToken
}
