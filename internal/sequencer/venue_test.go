package sequencer_test

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/quagmt/udecimal"

	"github.com/bondvenue/bondvenue/internal/bondmath"
	"github.com/bondvenue/bondvenue/internal/sequencer"
	"github.com/bondvenue/bondvenue/internal/store"
	"github.com/bondvenue/bondvenue/internal/testenv"
	"github.com/bondvenue/bondvenue/internal/venue"
)

// This file is the venue the sequencer's tests run on: reference data
// written straight to a fresh database (three markets, one bond, four
// firms of which the first three are mutual counterparties), and a
// sequencer started on it, restarted at will.

// firm is a participant of the test venue with its account and its two
// traders (an admin and a trader, as the roles that may trade).
type firm struct {
	id, account string
	users       [2]string // admin, trader
}

// testVenue is a sequencer on a database holding the test venue.
type testVenue struct {
	db     *store.DB
	seq    *sequencer.Sequencer
	now    func() time.Time
	budget time.Duration
	firms  []firm
	// partial and allOrNone are the continuous markets, otc the OTC one.
	partial, allOrNone, otc string
	// instrument is a bond listed on all three.
	instrument string
}

// newTestVenue writes the test venue to a fresh database of engine e and
// starts a sequencer on it reading now, with the queue budget given.
func newTestVenue(t *testing.T, e store.Engine, now func() time.Time, budget time.Duration) *testVenue {
	t.Helper()
	return newTestVenueOn(t, testenv.Open(t, e), now, budget)
}

// newTestVenueOn is newTestVenue on a fresh, migrated database of the
// caller's.
func newTestVenueOn(t *testing.T, db *store.DB, now func() time.Time, budget time.Duration) *testVenue {
	t.Helper()
	if now == nil {
		now = time.Now
	}
	db.SetClock(now)
	v := &testVenue{db: db, now: now, budget: budget}
	v.seed(t)
	v.start(t)
	return v
}

func newID() string { return uuid.Must(uuid.NewV7()).String() }

// seed writes the reference data.
func (v *testVenue) seed(t *testing.T) {
	t.Helper()
	ctx := context.Background()
	at := v.now().UTC().Truncate(time.Millisecond)
	lags := []venue.LagChange{{From: bondmath.MustDate(2027, 10, 11), Lag: 1}}
	market := func(name, facility string, partial bool) venue.Market {
		return venue.Market{ID: newID(), Name: name, Type: "secondary", FacilityType: facility, Timezone: "UTC", IsEnabled: true,
			IsPartialFillAllowed: partial, SettlementLag: 2, SettlementLags: lags, Calendar: "TARGET2",
			PriceCollarPercent: venue.DefaultPriceCollarPercent, MaxPricePercent: venue.DefaultMaxPricePercent, CreatedAt: at, UpdatedAt: at}
	}
	markets := []venue.Market{market("RFQ", venue.FacilityOTC, true), market("Continuous", venue.FacilityContinuous, true),
		market("Continuous All-or-None", venue.FacilityContinuous, false)}
	v.otc, v.partial, v.allOrNone = markets[0].ID, markets[1].ID, markets[2].ID
	thousand := udecimal.MustFromInt64(1000, 0)
	bond := venue.Instrument{ID: newID(), Enabled: true, MinPiece: thousand, MinIncrement: thousand, ParAmount: thousand, Precision: 4,
		Terms: venue.InstrumentTerms{Name: "DBR 2.30 15/02/2033", Type: "Bond", ISIN: "DE000BU2Z007", Currency: "EUR", Coupon: "2.3",
			CouponFrequency: "Annual", DayCount: "ACT/ACT ICMA", Maturity: "2033-02-15", InterestAccrualDate: "2023-01-13",
			FirstCouponDate: "2024-02-15"},
		MarketIDs: []string{v.otc, v.partial, v.allOrNone}, CreatedAt: at, UpdatedAt: at}
	v.instrument = bond.ID
	err := v.db.InTx(ctx, func(tx *store.Tx) error {
		for i := range markets {
			if err := tx.CreateMarket(ctx, &markets[i]); err != nil {
				return err
			}
		}
		if err := tx.CreateInstrument(ctx, &bond); err != nil {
			return err
		}
		for i := range 4 {
			f := firm{id: newID(), account: newID(), users: [2]string{newID(), newID()}}
			p := venue.Participant{ID: f.id, LEI: fmt.Sprintf("5299000000000000%02d", i), Type: "participant", CategoryName: "professional",
				Name: fmt.Sprintf("Firm %d", i), Country: "DE", Status: "active", KYCStatus: "approved", CreatedAt: at, UpdatedAt: at}
			if err := tx.CreateParticipant(ctx, &p); err != nil {
				return err
			}
			acc := venue.Account{ID: f.account, ParticipantID: f.id, Number: fmt.Sprintf("F%d-0001", i), Status: "active", Type: "principal",
				CreatedAt: at, UpdatedAt: at}
			if err := tx.CreateAccount(ctx, &acc); err != nil {
				return err
			}
			for k, role := range traderRoles {
				u := venue.User{ID: f.users[k], ParticipantID: f.id, Email: fmt.Sprintf("%s@firm%d.example", role, i), Role: role,
					Status: "active", Locale: "en", CreatedAt: at, UpdatedAt: at}
				if err := tx.CreateUser(ctx, &u); err != nil {
					return err
				}
			}
			// The use is what the tests read; the limits only make
			// the check run, never refuse.
			for _, k := range sequencer.LimitKinds {
				l := venue.RiskLimit{ID: newID(), ParticipantID: f.id, Name: k.Name, Value: udecimal.MustFromInt64(1_000_000_000_000, 0),
					CreatedAt: at, UpdatedAt: at}
				if _, err := tx.UpsertRiskLimit(ctx, &l); err != nil {
					return err
				}
			}
			v.firms = append(v.firms, f)
		}
		for i := range 3 {
			for j := i + 1; j < 3; j++ {
				if _, err := tx.SetCounterparty(ctx, v.firms[i].id, v.firms[j].id, true); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatalf("seed the test venue: %v", err)
	}
}

// traderRoles are the roles of a firm's two users, by index.
var traderRoles = [2]venue.Role{venue.RoleAdmin, venue.RoleTrader}

// start starts a new sequencer on v's database; the previous one, if any,
// must be stopped.
func (v *testVenue) start(t *testing.T) {
	t.Helper()
	seq := sequencer.New(v.db, slog.New(slog.DiscardHandler), v.now, v.budget)
	if err := seq.Start(context.Background()); err != nil {
		t.Fatalf("Start() = %v", err)
	}
	t.Cleanup(seq.Stop)
	v.seq = seq
}

// restart stops the sequencer and starts a new one on the same database,
// which rebuilds the books and the risk state from it.
func (v *testVenue) restart(t *testing.T) {
	t.Helper()
	v.seq.Stop()
	v.start(t)
}

// principal is firm i's user k (0 admin, 1 trader).
func (v *testVenue) principal(i, k int) venue.Principal {
	return venue.Principal{UserID: v.firms[i].users[k], ParticipantID: v.firms[i].id, Role: traderRoles[k]}
}

// offer is a gtc limit offer of firm i's trader on market, as a use case
// hands it to the sequencer.
func (v *testVenue) offer(i int, market, dir, price, qty string) venue.Offer {
	o := venue.Offer{ID: newID(), Type: venue.TypeOffer, Direction: dir, ParticipantID: v.firms[i].id, AccountID: v.firms[i].account,
		UserID: v.firms[i].users[1], MarketID: market, InstrumentID: v.instrument, Quantity: dec(qty), Validity: venue.GTC,
		SettlementDate: v.settlement()}
	if price != "" {
		o.Price, o.HasPrice = dec(price), true
	} else {
		o.MarketOrder = true
	}
	return o
}

// settlement is a settlement date a few business days ahead.
func (v *testVenue) settlement() bondmath.Date {
	return bondmath.TARGET2.AddBusinessDays(bondmath.DateOf(v.now()), 5)
}

// create submits o as a new offer in ctx's lane.
func (v *testVenue) create(ctx context.Context, o venue.Offer) (sequencer.OfferResult, error) {
	return do(ctx, v.seq, func(st *sequencer.State, b *sequencer.Batch) (sequencer.OfferResult, error) {
		return st.CreateOffer(b, &o)
	})
}

// cancel submits the cancel of offer id by p, in the priority lane as a
// cancel goes.
func (v *testVenue) cancel(ctx context.Context, p venue.Principal, id string) (sequencer.OfferResult, error) {
	return do(sequencer.WithPriority(ctx), v.seq, func(st *sequencer.State, b *sequencer.Batch) (sequencer.OfferResult, error) {
		return st.CancelOffer(b, p, id, "")
	})
}

// do runs an offer command on seq and types its answer.
func do(ctx context.Context, seq *sequencer.Sequencer, fn func(*sequencer.State, *sequencer.Batch) (sequencer.OfferResult, error)) (sequencer.OfferResult, error) {
	res, err := seq.Do(ctx, nil, func(st *sequencer.State, b *sequencer.Batch) (any, error) { return fn(st, b) })
	if err != nil {
		return sequencer.OfferResult{}, err
	}
	return res.(sequencer.OfferResult), nil
}

// offers reads every firm offer on v's instrument from the database.
func (v *testVenue) offers(t *testing.T) []venue.Offer {
	t.Helper()
	var out []venue.Offer
	err := v.db.View(context.Background(), func(tx *store.Tx) error {
		var err error
		out, _, err = tx.Offers(context.Background(), store.OfferFilter{Types: []string{venue.TypeOffer}, InstrumentID: v.instrument}, venue.Page{})
		return err
	})
	if err != nil {
		t.Fatalf("read offers: %v", err)
	}
	return out
}

func dec(s string) udecimal.Decimal { return udecimal.MustParse(s) }

func ptrTo[T any](v T) *T { return &v }

// longTests reports whether BONDVENUE_LONG_TESTS asks for the long
// versions of the randomised tests.
func longTests() bool { return os.Getenv("BONDVENUE_LONG_TESTS") != "" }
