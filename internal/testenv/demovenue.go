package testenv

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/quagmt/udecimal"

	"github.com/bondvenue/bondvenue/internal/auth"
	"github.com/bondvenue/bondvenue/internal/demo"
	"github.com/bondvenue/bondvenue/internal/feed"
	"github.com/bondvenue/bondvenue/internal/store"
	"github.com/bondvenue/bondvenue/internal/trading"
	"github.com/bondvenue/bondvenue/internal/venue"
)

// DemoVenue is a started venue on a fresh database of one engine with the
// demo data loaded, plus the ids the use-case and subscription tests
// need.
type DemoVenue struct {
	DB    *store.DB
	Core  *Venue
	Svc   *trading.Service
	Cfg   Config
	Creds demo.Credentials
	// Partial and AllOrNone are the two continues-matching markets.
	Partial, AllOrNone string
	// Instrument is a demo bond with min_piece and min_increment 1000.
	Instrument string
}

// NewDemoVenue loads the demo venue into a fresh database of engine e and
// starts it.
func NewDemoVenue(t *testing.T, e store.Engine) *DemoVenue {
	t.Helper()
	return NewDemoVenueOn(t, Open(t, e))
}

// NewDemoVenueOn is NewDemoVenue on a fresh, migrated database of the
// caller's.
func NewDemoVenueOn(t *testing.T, db *store.DB) *DemoVenue {
	t.Helper()
	return NewDemoVenueClocked(t, db, nil)
}

// NewDemoVenueClocked is NewDemoVenueOn with the venue reading now (nil:
// the real clock), also after a restart.
func NewDemoVenueClocked(t *testing.T, db *store.DB, now func() time.Time) *DemoVenue {
	t.Helper()
	h := auth.FastHasher
	return NewDemoVenueWith(t, db, Config{Trading: trading.Config{Hasher: &h, Now: now}})
}

// NewDemoVenueWith is NewDemoVenueOn with the venue's configuration (logs
// discarded).
func NewDemoVenueWith(t *testing.T, db *store.DB, cfg Config) *DemoVenue {
	t.Helper()
	ctx := context.Background()
	cfg.Trading.Logger = slog.New(slog.DiscardHandler)
	v := &DemoVenue{DB: db, Cfg: cfg}
	v.Core, v.Creds = Demo(t, db, cfg)
	v.Svc = v.Core.Svc
	ms, err := v.Svc.Markets(ctx, trading.System, trading.MarketFilter{}, venue.Page{})
	if err != nil {
		t.Fatalf("Markets() = %v", err)
	}
	for _, m := range ms.Items {
		if m.FacilityType != venue.FacilityContinuous || m.Hours != nil { // the books that trade around the clock
			continue
		}
		if m.IsPartialFillAllowed {
			v.Partial = m.ID
		} else {
			v.AllOrNone = m.ID
		}
	}
	ins, err := v.Svc.Instruments(ctx, trading.System, trading.InstrumentFilter{}, venue.Page{})
	if err != nil {
		t.Fatalf("Instruments() = %v", err)
	}
	thousand := udecimal.MustParse("1000")
	for _, in := range ins.Items {
		if in.MinPiece.Equal(thousand) && in.MinIncrement.Equal(thousand) {
			v.Instrument = in.ID
		}
	}
	if v.Partial == "" || v.AllOrNone == "" || v.Instrument == "" {
		t.Fatalf("demo venue lacks a continuous market pair or a 1000-piece bond: %+v", v)
	}
	return v
}

// Start starts a new venue on v's database; the previous one, if any,
// must be closed.
func (v *DemoVenue) Start(t *testing.T) {
	t.Helper()
	v.Core = Started(t, v.DB, v.Cfg)
	v.Svc = v.Core.Svc
}

// Restart stops the venue and starts a new one on the same database,
// which rebuilds the books and the risk state from it.
func (v *DemoVenue) Restart(t *testing.T) {
	t.Helper()
	v.Core.Close()
	v.Start(t)
}

// Principal is demo participant i's user of that role (admin or trader).
func (v *DemoVenue) Principal(t *testing.T, i int, role venue.Role) venue.Principal {
	t.Helper()
	p := v.Creds.Participants[i]
	for _, u := range p.Users {
		if u.Role == string(role) {
			return venue.Principal{UserID: u.UserID, ParticipantID: p.ID, Role: role}
		}
	}
	t.Fatalf("demo participant %d has no %s", i, role)
	return venue.Principal{}
}

// OTC returns the demo venue's OTC market.
func (v *DemoVenue) OTC(t *testing.T) string {
	t.Helper()
	ms, err := v.Svc.Markets(context.Background(), trading.System, trading.MarketFilter{}, venue.Page{})
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

// RestEvents is every event after seq that p reads through GET /events.
func (v *DemoVenue) RestEvents(t *testing.T, p venue.Principal, after int64) []feed.Event {
	t.Helper()
	var out []feed.Event
	for {
		page, err := v.Core.Live.Events(context.Background(), p, after, 1000)
		if err != nil {
			t.Fatalf("Events(%d) = %v", after, err)
		}
		if len(page) == 0 {
			return out
		}
		out = append(out, page...)
		after = page[len(page)-1].Seq
	}
}
