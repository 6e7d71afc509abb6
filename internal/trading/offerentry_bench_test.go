package trading_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/quagmt/udecimal"

	"github.com/bondvenue/bondvenue/internal/bondmath"
	"github.com/bondvenue/bondvenue/internal/demo"
	"github.com/bondvenue/bondvenue/internal/store"
	"github.com/bondvenue/bondvenue/internal/testenv"
	"github.com/bondvenue/bondvenue/internal/trading"
	"github.com/bondvenue/bondvenue/internal/venue"
	"github.com/bondvenue/bondvenue/internal/wire"
)

// benchSubmitters is how many goroutines enter offers at once, as many as
// bvload's connections: group commit batches what arrives together.
const benchSubmitters = 64

// BenchmarkOfferEntry measures offer entry through the use case — the
// sequencer with group commit — against a baseline measured in the same
// run: the same number of offers from as many goroutines, each written
// with its event in a transaction of its own (one commit per offer, no
// sequencer, one transaction at a time as the event log allows). ns/op is the sequencer's time per offer;
// x-vs-baseline is how many times faster than the baseline it is. Bids
// and asks never cross, so the book grows without trading.
//
//	go test -run '^$' -bench OfferEntry -benchtime 5000x ./internal/trading/
func BenchmarkOfferEntry(b *testing.B) {
	for _, e := range testenv.Engines {
		b.Run(string(e), func(b *testing.B) {
			v := newBenchVenue(b, e)
			n := b.N
			baseline := v.run(b, n, v.commitPerOffer)
			b.ResetTimer()
			start := time.Now()
			v.run(b, n, v.groupCommit)
			elapsed := time.Since(start)
			b.StopTimer()
			b.ReportMetric(baseline.Seconds()/elapsed.Seconds(), "x-vs-baseline")
			b.ReportMetric(float64(n)/elapsed.Seconds(), "offers/s")
			b.ReportMetric(float64(n)/baseline.Seconds(), "baseline-offers/s")
		})
	}
}

// benchVenue is a started demo venue with everything the offers need.
type benchVenue struct {
	db          *store.DB
	writer      sync.Mutex // the baseline's: one transaction at a time
	core        *testenv.Venue
	svc         *trading.Service
	traders     []benchTrader
	instruments []string
	market      string
	priority    atomic.Uint64
}

type benchTrader struct {
	p       venue.Principal
	account string
}

func newBenchVenue(b *testing.B, e store.Engine) *benchVenue {
	b.Helper()
	ctx := context.Background()
	v := &benchVenue{db: testenv.Open(b, e)}
	var creds demo.Credentials
	v.core, creds = testenv.Demo(b, v.db, testenv.Config{Trading: trading.Config{Logger: slog.New(slog.DiscardHandler)}})
	v.svc = v.core.Svc
	// The benchmark's bids and asks sit far apart on purpose (they never
	// cross): the widest price collar lets them rest.
	wide := udecimal.MustParse("100")
	all, err := v.svc.Markets(ctx, trading.System, trading.MarketFilter{}, venue.Page{})
	if err != nil {
		b.Fatalf("Markets() = %v", err)
	}
	for _, m := range all.Items {
		if _, err := v.svc.UpdateMarket(ctx, trading.System, m.ID, trading.MarketInput{PriceCollarPercent: &wide}); err != nil {
			b.Fatalf("UpdateMarket() = %v", err)
		}
	}
	unlimited := udecimal.MustParse("999999999999999999") // the largest amount the venue takes
	for _, p := range creds.Participants {
		for _, name := range trading.RiskLimitNames() {
			if _, err := v.svc.SetRiskLimit(ctx, trading.System, p.ID, trading.RiskLimitInput{Name: name, Value: &unlimited}); err != nil {
				b.Fatalf("SetRiskLimit() = %v", err)
			}
		}
		for _, u := range p.Users {
			if role := venue.Role(u.Role); role == venue.RoleTrader || role == venue.RoleAdmin {
				v.traders = append(v.traders, benchTrader{
					p: venue.Principal{UserID: u.UserID, ParticipantID: p.ID, Role: role}, account: p.AccountIDs[0]})
			}
		}
	}
	ms, err := v.svc.Markets(ctx, trading.System, trading.MarketFilter{}, venue.Page{})
	if err != nil {
		b.Fatalf("Markets() = %v", err)
	}
	for _, m := range ms.Items {
		if m.FacilityType == venue.FacilityContinuous && m.IsPartialFillAllowed && m.Hours == nil {
			v.market = m.ID
		}
	}
	ins, err := v.svc.Instruments(ctx, trading.System, trading.InstrumentFilter{}, venue.Page{})
	if err != nil {
		b.Fatalf("Instruments() = %v", err)
	}
	for _, in := range ins.Items {
		v.instruments = append(v.instruments, in.ID)
	}
	if v.market == "" || len(v.instruments) == 0 || len(v.traders) == 0 {
		b.Fatal("demo venue lacks a continuous market, instruments or traders")
	}
	return v
}

// input is the i-th offer: bids at 80–89.99, asks at 110–119.99.
func (v *benchVenue) input(i int) (benchTrader, trading.OfferInput) {
	t := v.traders[i%len(v.traders)]
	dir, cents := venue.Bid, 8000+i%1000
	if i%2 == 1 {
		dir, cents = venue.Ask, 11000+i%1000
	}
	price := udecimal.MustFromInt64(int64(cents), 2)
	qty := udecimal.MustFromInt64(100000, 0)
	return t, trading.OfferInput{AccountID: t.account, InstrumentID: v.instruments[(i/len(v.traders))%len(v.instruments)],
		MarketID: v.market, Direction: dir, Price: &price, Quantity: &qty}
}

// groupCommit enters offer i through the use case.
func (v *benchVenue) groupCommit(ctx context.Context, i int) error {
	t, in := v.input(i)
	_, err := v.svc.CreateOffer(ctx, t.p, in)
	return err
}

// commitPerOffer writes offer i and its event in a transaction of its own.
func (v *benchVenue) commitPerOffer(ctx context.Context, i int) error {
	t, in := v.input(i)
	now := time.Now().UTC().Truncate(time.Millisecond)
	o := venue.Offer{ID: uuid.Must(uuid.NewV7()).String(), Type: venue.TypeOffer, Direction: in.Direction,
		ParticipantID: t.p.ParticipantID, AccountID: in.AccountID, UserID: t.p.UserID, MarketID: in.MarketID,
		InstrumentID: in.InstrumentID, Price: *in.Price, HasPrice: true, Quantity: *in.Quantity, Status: venue.StatusCreated,
		SettlementDate: bondmath.TARGET2.AddBusinessDays(bondmath.DateOf(now), 2), Validity: venue.GTC,
		Priority: v.priority.Add(1), CreatedAt: now, UpdatedAt: now, ModifiedAt: now}
	data, err := json.Marshal(wire.OfferOf(o, false))
	if err != nil {
		return err
	}
	v.writer.Lock()
	defer v.writer.Unlock()
	return v.db.InTx(ctx, func(tx *store.Tx) error {
		if err := tx.UpsertOffer(ctx, &o); err != nil {
			return err
		}
		_, err := tx.AppendEvents(ctx, []store.Event{{Type: "offer.create", OccurredAt: now, ParticipantID: o.ParticipantID, Data: data}})
		return err
	})
}

// run enters n offers with benchSubmitters goroutines and returns the
// elapsed time.
func (v *benchVenue) run(b *testing.B, n int, enter func(context.Context, int) error) time.Duration {
	b.Helper()
	ctx := context.Background()
	var next atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, benchSubmitters)
	start := time.Now()
	for range benchSubmitters {
		wg.Go(func() {
			for i := int(next.Add(1)) - 1; i < n; i = int(next.Add(1)) - 1 {
				if err := enter(ctx, i); err != nil {
					errs <- fmt.Errorf("offer %d: %w", i, err)
					return
				}
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	close(errs)
	for err := range errs {
		b.Fatal(err)
	}
	return elapsed
}
