package trading_test

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"sync"
	"testing"

	"github.com/quagmt/udecimal"

	"github.com/bondvenue/bondvenue/internal/store"
	"github.com/bondvenue/bondvenue/internal/testenv"
	"github.com/bondvenue/bondvenue/internal/trading"
	"github.com/bondvenue/bondvenue/internal/venue"
)

// poison is the offer note that makes the database refuse the commit of
// the batch that writes it (a trigger installed by openFailingDB).
const poison = "fail-this-commit"

// openFailingDB returns a fresh, migrated database of engine e whose
// offers table refuses any row noted poison, as a disk or constraint
// failure would refuse a commit.
func openFailingDB(t *testing.T, e store.Engine) *store.DB {
	t.Helper()
	ctx := context.Background()
	cfg := store.Config{URL: testenv.DatabaseURL(t, e), DataDir: t.TempDir()}
	db := testenv.OpenConfig(t, cfg)
	var raw *sql.DB
	var err error
	var stmts []string
	if e == store.SQLite {
		raw, err = sql.Open("sqlite", "file:"+filepath.Join(cfg.DataDir, "bondvenue.db")+"?_pragma=busy_timeout(10000)")
		stmts = []string{`CREATE TRIGGER refuse_poison BEFORE INSERT ON offers WHEN NEW.notes = '` + poison + `'
			BEGIN SELECT RAISE(ABORT, 'refused by the test'); END`}
	} else {
		raw, err = sql.Open("pgx", cfg.URL)
		stmts = []string{`CREATE FUNCTION refuse_poison() RETURNS trigger AS $$
			BEGIN IF NEW.notes = '` + poison + `' THEN RAISE EXCEPTION 'refused by the test'; END IF; RETURN NEW; END
			$$ LANGUAGE plpgsql`,
			`CREATE TRIGGER refuse_poison BEFORE INSERT ON offers FOR EACH ROW EXECUTE FUNCTION refuse_poison()`}
	}
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	for _, q := range stmts {
		if _, err := raw.ExecContext(ctx, q); err != nil {
			t.Fatalf("install the failing trigger: %v", err)
		}
	}
	return db
}

// TestCommitFailure: a batch whose commit fails must fail every caller in
// it, leave nothing of them in the database and rebuild the state from it.
// Concurrent offers, a few of which poison their batch's commit: every
// offer answered as created is in the database, every refused one is not,
// and the rebuilt state (risk use, the book) agrees with the database and
// with a fresh restart.
func TestCommitFailure(t *testing.T) {
	testenv.ForEach(t, func(t *testing.T, e store.Engine) {
		ctx := context.Background()
		v := testenv.NewDemoVenueOn(t, openFailingDB(t, e))
		trader := v.Principal(t, 0, venue.RoleTrader)
		const workers, perWorker = 16, 12
		var mu sync.Mutex
		created := map[string]udecimal.Decimal{}
		failed := 0
		var wg sync.WaitGroup
		for w := range workers {
			wg.Go(func() {
				for i := range perWorker {
					notes := ""
					if (w*perWorker+i)%37 == 5 {
						notes = poison
					}
					qty := dec(fmt.Sprintf("%d000", 1+i))
					r, err := v.Svc.CreateOffer(ctx, trader, trading.OfferInput{InstrumentID: v.Instrument, MarketID: v.Partial,
						Direction: "bid", Price: ptrTo(dec(fmt.Sprintf("9%d.5", w%10))), Quantity: &qty, Notes: notes})
					mu.Lock()
					switch {
					case err == nil && notes == poison:
						t.Errorf("an offer the database refuses was answered as created: %s", r.Offer.ID)
					case err == nil:
						created[r.Offer.ID] = qty
					default:
						failed++
					}
					mu.Unlock()
				}
			})
		}
		wg.Wait()
		if failed == 0 {
			t.Fatal("no offer failed: the poisoned commits did not happen")
		}
		if len(created) == 0 {
			t.Fatal("no offer was created")
		}

		// answered holds every offer answered as created; created, those
		// of them still open.
		answered := map[string]bool{}
		for id := range created {
			answered[id] = true
		}
		check := func(when string) {
			t.Helper()
			open := map[string]bool{}
			for _, o := range offersOf(t, v) {
				if !answered[o.ID] {
					t.Errorf("%s: offer %s is in the database but its caller was told it failed", when, o.ID)
				}
				if o.Status == venue.StatusCreated {
					open[o.ID] = true
				}
			}
			want := udecimal.Zero
			for id, q := range created {
				want = want.Add(q)
				if !open[id] {
					t.Errorf("%s: offer %s was answered as created but is not open in the database", when, id)
				}
			}
			if len(open) != len(created) {
				t.Errorf("%s: %d open offers in the database, want %d", when, len(open), len(created))
			}
			limits, err := v.Svc.RiskLimits(ctx, trader)
			if err != nil {
				t.Fatal(err)
			}
			found := false
			for _, l := range limits {
				if l.Name == venue.LimitAllOfferSum {
					found = true
					if !l.Used.Equal(want) {
						t.Errorf("%s: %s in use = %s, want %s, the open offers' total", when, l.Name, l.Used, want)
					}
				}
			}
			if !found {
				t.Fatalf("%s: the trader's firm has no %s limit to read the use from", when, venue.LimitAllOfferSum)
			}
		}
		check("after the failures")

		// The in-memory book holds exactly the created bids: a
		// counterparty's ask for their total at the lowest price sweeps
		// them all.
		total := udecimal.Zero
		for _, q := range created {
			total = total.Add(q)
		}
		seller := v.Principal(t, 1, venue.RoleTrader)
		sweep, err := v.Svc.CreateOffer(ctx, seller, trading.OfferInput{InstrumentID: v.Instrument, MarketID: v.Partial,
			Direction: "ask", Price: ptrTo(dec("1")), Quantity: &total})
		if err != nil {
			t.Fatalf("sweeping ask: %v", err)
		}
		if !sweep.Offer.Filled.Equal(total) || len(sweep.Trades) != len(created) {
			t.Errorf("sweeping ask filled %s in %d trades, want %s in %d: the book and the database disagree",
				sweep.Offer.Filled, len(sweep.Trades), total, len(created))
		}
		answered[sweep.Offer.ID] = true
		clear(created)
		check("after the sweep")

		// The engine trades on after the rebuild.
		r, err := v.Svc.CreateOffer(ctx, trader, trading.OfferInput{InstrumentID: v.Instrument, MarketID: v.Partial,
			Direction: "bid", Price: ptrTo(dec("90")), Quantity: ptrTo(dec("1000"))})
		if err != nil {
			t.Fatalf("CreateOffer() after the failures = %v", err)
		}
		created[r.Offer.ID], answered[r.Offer.ID] = dec("1000"), true
		check("after one more offer")
		v.Restart(t)
		check("after a restart")
	})
}
