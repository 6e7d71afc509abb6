package store_test

import (
	"context"
	"testing"

	"github.com/bondvenue/bondvenue/internal/store"
	"github.com/bondvenue/bondvenue/internal/venue"
)

// testByID: the lookups by id answer every stored record named, once per
// id, across more ids than one statement takes, and leave out ids without
// a record.
func testByID(t *testing.T, h *harness) {
	p := seedParticipant(t, h.db)
	const n = 700 // more than one chunk on either engine
	accounts := make([]venue.Account, n)
	for i := range accounts {
		accounts[i] = newAccount(t, p.ID, at(i))
	}
	write(t, h.db, func(ctx context.Context, tx *store.Tx) error {
		for i := range accounts {
			if err := tx.CreateAccount(ctx, &accounts[i]); err != nil {
				return err
			}
		}
		return nil
	})
	want := map[string]venue.Account{}
	var ids []string
	for _, a := range accounts {
		want[a.ID] = a
		ids = append(ids, a.ID)
	}
	ids = append(ids, accounts[3].ID, accounts[n-1].ID, unknownID) // repeated and unknown ids
	got := read(t, h.db, func(ctx context.Context, tx *store.Tx) (map[string]venue.Account, error) {
		return tx.AccountsByID(ctx, ids)
	})
	if d := diff(want, got); d != "" {
		t.Errorf("AccountsByID(%d ids) (-want +got):\n%s", len(ids), d)
	}

	m := newMarket(t, at(1))
	in := newInstrument(t, at(2))
	write(t, h.db, func(ctx context.Context, tx *store.Tx) error {
		if err := tx.CreateMarket(ctx, &m); err != nil {
			return err
		}
		return tx.CreateInstrument(ctx, &in)
	})
	in.MarketIDs = nil // lookups by id, like lists, leave them out
	tests := []struct {
		name string
		got  func(ctx context.Context, tx *store.Tx) (any, error)
		want any
	}{
		{"ParticipantsByID", func(ctx context.Context, tx *store.Tx) (any, error) {
			return tx.ParticipantsByID(ctx, []string{p.ID, unknownID, p.ID})
		}, map[string]venue.Participant{p.ID: p}},
		{"MarketsByID", func(ctx context.Context, tx *store.Tx) (any, error) {
			return tx.MarketsByID(ctx, []string{unknownID, m.ID})
		}, map[string]venue.Market{m.ID: m}},
		{"InstrumentsByID", func(ctx context.Context, tx *store.Tx) (any, error) {
			return tx.InstrumentsByID(ctx, []string{in.ID})
		}, map[string]venue.Instrument{in.ID: in}},
		{"OffersByID of no ids", func(ctx context.Context, tx *store.Tx) (any, error) {
			return tx.OffersByID(ctx, nil)
		}, map[string]venue.Offer{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := read(t, h.db, tt.got)
			if d := diff(tt.want, got); d != "" {
				t.Errorf("%s (-want +got):\n%s", tt.name, d)
			}
		})
	}
}

// unknownID is a well-formed id no record has.
const unknownID = "00000000-0000-7000-8000-000000000000"
