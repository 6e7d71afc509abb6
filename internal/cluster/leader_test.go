package cluster_test

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/quagmt/udecimal"

	"github.com/bondvenue/bondvenue/internal/bondmath"
	"github.com/bondvenue/bondvenue/internal/cluster"
	"github.com/bondvenue/bondvenue/internal/feed"
	"github.com/bondvenue/bondvenue/internal/sequencer"
	"github.com/bondvenue/bondvenue/internal/store"
	"github.com/bondvenue/bondvenue/internal/testenv"
	"github.com/bondvenue/bondvenue/internal/venue"
)

// instance is one venue instance as cmd/bondvenue wires it, reduced to
// what the leadership touches: its own database handle, its sequencer and
// its part in the cluster.
type instance struct {
	db  *store.DB
	seq *sequencer.Sequencer
	cl  *cluster.Cluster
}

// startInstance starts an instance on the PostgreSQL database at url.
func startInstance(t *testing.T, url string) *instance {
	t.Helper()
	log := slog.New(slog.DiscardHandler)
	in := &instance{db: testenv.OpenConfig(t, store.Config{URL: url})}
	in.seq = sequencer.New(in.db, log, time.Now, 0)
	in.cl = cluster.New(in.db, in.seq, cluster.Config{CampaignInterval: 100 * time.Millisecond, Logger: log})
	if err := in.cl.Start(context.Background()); err != nil {
		t.Fatalf("cluster Start() = %v", err)
	}
	t.Cleanup(in.stop)
	return in
}

// stop ends the instance: its part in the cluster, then its sequencer.
func (in *instance) stop() {
	in.cl.Stop()
	if in.seq.Running() {
		in.seq.Stop()
	}
}

// market is two mutual counterparties and a continuous market with a bond
// on it, written to db.
type market struct {
	market, instrument string
	firms              [2]struct{ id, account, user string }
}

func newID() string { return uuid.Must(uuid.NewV7()).String() }

func seedMarket(t *testing.T, db *store.DB) market {
	t.Helper()
	ctx := context.Background()
	at := time.Now().UTC().Truncate(time.Millisecond)
	var m market
	mk := venue.Market{ID: newID(), Name: "Continuous", Type: "secondary", FacilityType: venue.FacilityContinuous, Timezone: "UTC",
		IsEnabled: true, IsPartialFillAllowed: true, SettlementLag: 2, Calendar: "TARGET2", CreatedAt: at, UpdatedAt: at}
	thousand := udecimal.MustFromInt64(1000, 0)
	bond := venue.Instrument{ID: newID(), Enabled: true, MinPiece: thousand, MinIncrement: thousand, ParAmount: thousand, Precision: 4,
		Terms:     venue.InstrumentTerms{Name: "DBR 2.30 15/02/2033", ISIN: "DE000BU2Z007", Currency: "EUR"},
		MarketIDs: []string{mk.ID}, CreatedAt: at, UpdatedAt: at}
	m.market, m.instrument = mk.ID, bond.ID
	err := db.InTx(ctx, func(tx *store.Tx) error {
		if err := tx.CreateMarket(ctx, &mk); err != nil {
			return err
		}
		if err := tx.CreateInstrument(ctx, &bond); err != nil {
			return err
		}
		for i := range m.firms {
			f := &m.firms[i]
			f.id, f.account, f.user = newID(), newID(), newID()
			if err := tx.CreateParticipant(ctx, &venue.Participant{ID: f.id, LEI: fmt.Sprintf("5299000000000000%02d", i), Type: "participant",
				Name: fmt.Sprintf("Firm %d", i), Status: "active", CreatedAt: at, UpdatedAt: at}); err != nil {
				return err
			}
			if err := tx.CreateAccount(ctx, &venue.Account{ID: f.account, ParticipantID: f.id, Number: fmt.Sprintf("F%d", i),
				Status: "active", Type: "principal", CreatedAt: at, UpdatedAt: at}); err != nil {
				return err
			}
			if err := tx.CreateUser(ctx, &venue.User{ID: f.user, ParticipantID: f.id, Email: fmt.Sprintf("trader@firm%d.example", i),
				Role: venue.RoleTrader, Status: "active", CreatedAt: at, UpdatedAt: at}); err != nil {
				return err
			}
		}
		_, err := tx.SetCounterparty(ctx, m.firms[0].id, m.firms[1].id, true)
		return err
	})
	if err != nil {
		t.Fatalf("seed the market: %v", err)
	}
	return m
}

// offer submits a limit offer of firm i to in's sequencer.
func (m market) offer(in *instance, i int, dir, price string) (sequencer.OfferResult, error) {
	f := m.firms[i]
	o := venue.Offer{ID: newID(), Type: venue.TypeOffer, Direction: dir, ParticipantID: f.id, AccountID: f.account, UserID: f.user,
		MarketID: m.market, InstrumentID: m.instrument, Price: udecimal.MustParse(price), HasPrice: true,
		Quantity: udecimal.MustFromInt64(100_000, 0), Validity: venue.GTC,
		SettlementDate: bondmath.TARGET2.AddBusinessDays(bondmath.DateOf(time.Now()), 5)}
	res, err := in.seq.Do(context.Background(), nil, func(st *sequencer.State, b *sequencer.Batch) (any, error) {
		return st.CreateOffer(b, &o)
	})
	if err != nil {
		return sequencer.OfferResult{}, err
	}
	return res.(sequencer.OfferResult), nil
}

// TestLeaderElection: instances on one PostgreSQL database. The first
// leads; the second stands by — its sequencer refusing commands with a 503
// naming the standby, its feed carrying the committed events the leader
// writes — and takes over when the leader goes, with the leader's books.
// A leader cut off from the database (its lock's connection terminated)
// stops its sequencer and stays a standby while another leads.
func TestLeaderElection(t *testing.T) {
	url := testenv.DatabaseURL(t, store.Postgres)
	admin := testenv.OpenConfig(t, store.Config{URL: url})
	m := seedMarket(t, admin)
	a, b := startInstance(t, url), startInstance(t, url)
	if a.cl.Role() != cluster.RoleLeader || b.cl.Role() != cluster.RoleStandby {
		t.Fatalf("roles %s, %s; want leader, standby", a.cl.Role(), b.cl.Role())
	}
	if !b.cl.Campaigning() {
		t.Error("the standby is not campaigning")
	}
	if _, err := m.offer(b, 0, venue.Ask, "101"); venue.KindOf(err) != venue.KindNotReady || !strings.Contains(err.Error(), "standby") {
		t.Errorf("a command on the standby: %v, want a 503 naming the standby", err)
	}

	// The standby's feed carries the leader's events (through the log:
	// they were committed by another instance).
	events := feed.New(b.db, slog.New(slog.DiscardHandler))
	b.db.SetCommitHook(events.Committed)
	if err := events.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(events.Stop)
	_, changed, _ := events.Since(0)
	ask, err := m.offer(a, 0, venue.Ask, "101")
	if err != nil {
		t.Fatal(err)
	}
	seen := func() bool {
		evs, _, _ := events.Since(0)
		for _, e := range evs {
			if e.Offer != nil && e.Offer.ID == ask.Offer.ID {
				return true
			}
		}
		return false
	}
	for !seen() {
		select {
		case <-changed:
			_, changed, _ = events.Since(0)
		case <-testenv.Expired(t):
			t.Fatal("the leader's offer did not reach the standby's feed")
		}
	}

	// The leader goes: the standby takes over with the leader's books.
	a.stop()
	waitRole(t, b, cluster.RoleLeader)
	if b.cl.Takeovers() != 1 {
		t.Errorf("Takeovers() = %d, want 1", b.cl.Takeovers())
	}
	bid, err := m.offer(b, 1, venue.Bid, "101")
	if err != nil || len(bid.Trades) != 1 {
		t.Fatalf("the new leader trades against the old leader's offer: %d trades, %v", len(bid.Trades), err)
	}

	// A third instance stands by; the leader is cut off from the
	// database: it stops, the standby leads, and the cut-off one stays a
	// standby (it acknowledges nothing more).
	c := startInstance(t, url)
	if c.cl.Role() != cluster.RoleStandby {
		t.Fatalf("third instance: %s", c.cl.Role())
	}
	if err := admin.InTx(context.Background(), func(tx *store.Tx) error { return tx.TerminateLeader(context.Background()) }); err != nil {
		t.Fatal(err)
	}
	waitRole(t, b, cluster.RoleStandby)
	waitRole(t, c, cluster.RoleLeader)
	if _, err := m.offer(b, 0, venue.Ask, "102"); venue.KindOf(err) != venue.KindNotReady {
		t.Errorf("the cut-off leader still acknowledges: %v", err)
	}
	if _, err := m.offer(c, 0, venue.Ask, "102"); err != nil {
		t.Errorf("the new leader: %v", err)
	}
}

// waitRole waits for in to take role. The campaign runs on a real ticker
// and the database decides; only the test's time running out ends a test
// that failed.
func waitRole(t *testing.T, in *instance, role string) {
	t.Helper()
	testenv.Wait(t, "the instance's role "+role, func() bool { return in.cl.Role() == role })
}
