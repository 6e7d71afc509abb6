package store_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/bondvenue/bondvenue/internal/bondmath"
	"github.com/bondvenue/bondvenue/internal/store"
	"github.com/bondvenue/bondvenue/internal/testenv"
	"github.com/bondvenue/bondvenue/internal/venue"
)

// TestBatchWrites writes more offers and events in one transaction than
// one multi-row statement takes, twice (the second time through prepared
// statements on SQLite, and as updates of the same offers): every row must
// arrive once, with its values, and the events numbered without gaps.
func TestBatchWrites(t *testing.T) {
	testenv.ForEach(t, func(t *testing.T, e store.Engine) {
		t.Parallel()
		h := openHarness(t, e)
		p := newParticipant(t, at(0))
		a := newAccount(t, p.ID, at(0))
		u := newUser(t, p.ID, venue.RoleTrader, at(0))
		m := newMarket(t, at(0))
		in := newInstrument(t, at(0), m.ID)
		write(t, h.db, func(ctx context.Context, tx *store.Tx) error {
			for _, f := range []func() error{
				func() error { return tx.CreateParticipant(ctx, &p) },
				func() error { return tx.CreateAccount(ctx, &a) },
				func() error { return tx.CreateUser(ctx, &u) },
				func() error { return tx.CreateMarket(ctx, &m) },
				func() error { return tx.CreateInstrument(ctx, &in) },
			} {
				if err := f(); err != nil {
					return err
				}
			}
			return nil
		})

		const n = 101 // 64 + 32 + 4 + 1 rows on SQLite, 64 + 37 on PostgreSQL
		offers := make([]*venue.Offer, n)
		for i := range offers {
			offers[i] = &venue.Offer{ID: newID(t), Type: venue.TypeOffer, Direction: venue.Bid, ParticipantID: p.ID,
				AccountID: a.ID, UserID: u.ID, MarketID: m.ID, InstrumentID: in.ID, Price: dec(fmt.Sprintf("99.%02d", i%100)),
				HasPrice: true, Quantity: dec("100000"), Filled: dec("0"), Status: venue.StatusCreated,
				SettlementDate: bondmath.MustDate(2030, 1, 15), Validity: venue.GTC, AccruedInterest: dec("0"),
				Priority: uint64(i + 1), CreatedAt: at(1), UpdatedAt: at(1), ModifiedAt: at(1)}
		}
		start := lastSeq(t, h.db)
		for round := range 2 {
			events := make([]store.Event, n)
			for i, o := range offers {
				if round == 1 {
					o.Filled, o.Status, o.UpdatedAt = dec("100000"), venue.StatusClosed, at(2)
				}
				events[i] = store.Event{Type: "offer.update", OccurredAt: at(2), ParticipantID: p.ID, Data: []byte(`{"i":` + fmt.Sprint(i) + `}`)}
			}
			write(t, h.db, func(ctx context.Context, tx *store.Tx) error {
				if err := tx.UpsertOffers(ctx, offers); err != nil {
					return err
				}
				_, err := tx.AppendEvents(ctx, events)
				return err
			})

			got := list(t, h.db, func(ctx context.Context, tx *store.Tx) ([]venue.Offer, string, error) {
				return tx.Offers(ctx, store.OfferFilter{Owner: p.ID}, venue.Page{})
			})
			if len(got) != n {
				t.Fatalf("round %d: %d offers stored, want %d", round, len(got), n)
			}
			byID := map[string]venue.Offer{}
			for _, o := range got {
				byID[o.ID] = o
			}
			for _, want := range offers {
				opts := append([]cmp.Option{cmp.Comparer(func(a, b bondmath.Date) bool { return a == b })}, cmpOpts...)
				if d := cmp.Diff(*want, byID[want.ID], opts...); d != "" {
					t.Fatalf("round %d: offer %s (-want +got):\n%s", round, want.ID, d)
				}
			}
			evs := read(t, h.db, func(ctx context.Context, tx *store.Tx) ([]store.Event, error) {
				return tx.Events(ctx, store.EventQuery{After: start + int64(round*n), Participant: p.ID, Limit: 2 * n})
			})
			if len(evs) != n {
				t.Fatalf("round %d: %d events after %d, want %d", round, len(evs), start+int64(round*n), n)
			}
			for i, ev := range evs {
				if want := start + int64(round*n+i+1); ev.Seq != want || string(ev.Data) != `{"i":`+fmt.Sprint(i)+`}` {
					t.Fatalf("round %d: event %d = seq %d %s, want seq %d", round, i, ev.Seq, ev.Data, want)
				}
			}
		}
	})
}
