package subscribe_test

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/quagmt/udecimal"

	"github.com/bondvenue/bondvenue/internal/auth"
	"github.com/bondvenue/bondvenue/internal/demo"
	"github.com/bondvenue/bondvenue/internal/store"
	"github.com/bondvenue/bondvenue/internal/testenv"
	"github.com/bondvenue/bondvenue/internal/trading"
	"github.com/bondvenue/bondvenue/internal/venue"
)

// demoVenue is a started service on a fresh database of one engine with
// the demo data loaded, plus the ids the subscription tests need.
type demoVenue struct {
	db    *store.DB
	core  *testenv.Venue
	svc   *trading.Service
	cfg   testenv.Config
	creds demo.Credentials
	// partial and allOrNone are the two continues-matching markets.
	partial, allOrNone string
	// instrument is a demo bond with min_piece and min_increment 1000.
	instrument string
}

// newDemoVenue loads the demo venue into a fresh database of engine e and
// starts its engine.
func newDemoVenue(t *testing.T, e store.Engine) *demoVenue {
	t.Helper()
	return newDemoVenueOn(t, testenv.Open(t, e))
}

// newDemoVenueOn is newDemoVenue on a fresh, migrated database of the
// caller's.
func newDemoVenueOn(t *testing.T, db *store.DB) *demoVenue {
	t.Helper()
	return newDemoVenueClocked(t, db, nil)
}

// newDemoVenueClocked is newDemoVenueOn with the service reading now
// (nil: the real clock), also after a restart.
func newDemoVenueClocked(t *testing.T, db *store.DB, now func() time.Time) *demoVenue {
	t.Helper()
	h := auth.FastHasher
	return newDemoVenueWith(t, db, testenv.Config{Trading: trading.Config{Hasher: &h, Now: now}})
}

// newDemoVenueWith is newDemoVenueOn with the service's configuration
// (logs discarded).
func newDemoVenueWith(t *testing.T, db *store.DB, cfg testenv.Config) *demoVenue {
	t.Helper()
	ctx := context.Background()
	cfg.Trading.Logger = slog.New(slog.DiscardHandler)
	v := &demoVenue{db: db, cfg: cfg}
	v.core, v.creds = testenv.Demo(t, db, cfg)
	v.svc = v.core.Svc
	ms, err := v.svc.Markets(ctx, trading.System, trading.MarketFilter{}, venue.Page{})
	if err != nil {
		t.Fatalf("Markets() = %v", err)
	}
	for _, m := range ms.Items {
		if m.FacilityType != venue.FacilityContinuous {
			continue
		}
		if m.IsPartialFillAllowed {
			v.partial = m.ID
		} else {
			v.allOrNone = m.ID
		}
	}
	ins, err := v.svc.Instruments(ctx, trading.System, trading.InstrumentFilter{}, venue.Page{})
	if err != nil {
		t.Fatalf("Instruments() = %v", err)
	}
	thousand := udecimal.MustParse("1000")
	for _, in := range ins.Items {
		if in.MinPiece.Equal(thousand) && in.MinIncrement.Equal(thousand) {
			v.instrument = in.ID
		}
	}
	if v.partial == "" || v.allOrNone == "" || v.instrument == "" {
		t.Fatalf("demo venue lacks a continuous market pair or a 1000-piece bond: %+v", v)
	}
	return v
}

// start starts a new service (and its sequencer) on v's database; the
// previous one, if any, must be closed.
func (v *demoVenue) start(t *testing.T) {
	t.Helper()
	v.core = testenv.Started(t, v.db, v.cfg)
	v.svc = v.core.Svc
}

// restart stops the sequencer and starts a new service on the same
// database, which rebuilds the books and the risk state from it.
func (v *demoVenue) restart(t *testing.T) {
	t.Helper()
	v.core.Close()
	v.start(t)
}

// principal is demo participant i's user of that role (admin or trader).
func (v *demoVenue) principal(t *testing.T, i int, role venue.Role) venue.Principal {
	t.Helper()
	p := v.creds.Participants[i]
	for _, u := range p.Users {
		if u.Role == string(role) {
			return venue.Principal{UserID: u.UserID, ParticipantID: p.ID, Role: role}
		}
	}
	t.Fatalf("demo participant %d has no %s", i, role)
	return venue.Principal{}
}

// otc returns the demo venue's OTC market.
func (v *demoVenue) otc(t *testing.T) string {
	t.Helper()
	ms, err := v.svc.Markets(context.Background(), trading.System, trading.MarketFilter{}, venue.Page{})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range ms.Items {
		if m.FacilityType == venue.FacilityOTC {
			return m.ID
		}
	}
	t.Fatal("the demo venue has no OTC market")
	return ""
}

func dec(s string) udecimal.Decimal { return udecimal.MustParse(s) }

func ptrTo[T any](v T) *T { return &v }
