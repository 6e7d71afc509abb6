package sequencer_test

import (
	"context"
	"testing"

	"github.com/bondvenue/bondvenue/internal/sequencer"
	"github.com/bondvenue/bondvenue/internal/store"
	"github.com/bondvenue/bondvenue/internal/testenv"
	"github.com/bondvenue/bondvenue/internal/venue"
)

// TestPartiesKept: an order's parties stay what its client gave through
// the open store (a resting continuous offer kept cold between batches,
// an OTC offer kept as a pointer), an amendment, and a restart that
// rebuilds the open records from the database.
func TestPartiesKept(t *testing.T) {
	testenv.ForEach(t, func(t *testing.T, e store.Engine) {
		v := newTestVenue(t, e, nil, 0)
		ctx := context.Background()
		want := venue.Parties{ClientID: "5493001KJTIIGC8Y1R12", InvestmentDecision: "pm.1", ExecutionDecision: "algo-7", Capacity: "AOTC"}
		var ids []string
		for _, market := range []string{v.partial, v.otc} {
			o := v.offer(0, market, venue.Ask, "101", "5000")
			o.Parties = want
			res, err := v.create(ctx, o)
			if err != nil {
				t.Fatalf("create on %s: %v", market, err)
			}
			ids = append(ids, res.Offer.ID)
		}
		notes := "amended"
		res, err := do(ctx, v.seq, func(st *sequencer.State, b *sequencer.Batch) (sequencer.OfferResult, error) {
			return st.AmendOffer(b, v.principal(0, 1), ids[0], sequencer.OfferChange{Notes: &notes})
		})
		if err != nil || res.Offer.Parties != want {
			t.Fatalf("amended cold offer: parties %+v, %v; want %+v", res.Offer.Parties, err, want)
		}
		v.restart(t)
		for _, id := range ids {
			res, err := v.cancel(ctx, v.principal(0, 1), id)
			if err != nil || res.Offer.Parties != want {
				t.Errorf("offer %s after a restart: parties %+v, %v; want %+v", id, res.Offer.Parties, err, want)
			}
		}
		for _, o := range v.offers(t) {
			if o.Parties != want {
				t.Errorf("stored offer %s: parties %+v, want %+v", o.ID, o.Parties, want)
			}
		}
	})
}
