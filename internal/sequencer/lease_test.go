package sequencer_test

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"testing"

	"github.com/bondvenue/bondvenue/internal/sequencer"
	"github.com/bondvenue/bondvenue/internal/store"
	"github.com/bondvenue/bondvenue/internal/venue"
)

// TestSequencerLease: a second sequencer on the same database that takes
// the sequencer lease (Start) fences the first: every batch of the first
// then fails to commit with the lease-lost error, LeaseLost says so, and
// none of its writes reach the database, while the second trades on. The
// first's books may be stale: it may refuse a cancel of the second's offer
// as not open, which is why a use case asks the lease before it answers
// "not found" (trading's fenced). On SQLite, where one process runs, a second
// sequencer in it simply takes over; on PostgreSQL the leadership decides
// who starts one (internal/cluster).
func TestSequencerLease(t *testing.T) {
	ctx := context.Background()
	v := newTestVenue(t, store.SQLite, nil, 0)
	first := v.seq
	trader := v.principal(0, 1)
	ask := func(seq *sequencer.Sequencer, price string) (sequencer.OfferResult, error) {
		o := v.offer(0, v.partial, venue.Ask, price, "1000")
		return do(ctx, seq, func(st *sequencer.State, b *sequencer.Batch) (sequencer.OfferResult, error) {
			return st.CreateOffer(b, &o)
		})
	}
	if _, err := ask(first, "101"); err != nil {
		t.Fatalf("first sequencer, before the takeover: %v", err)
	}
	if first.LeaseLost() {
		t.Fatal("LeaseLost() = true before the takeover")
	}

	second := sequencer.New(v.db, slog.New(slog.DiscardHandler), v.now, 0)
	if err := second.Start(ctx); err != nil {
		t.Fatalf("second Start() = %v", err)
	}
	t.Cleanup(second.Stop)
	if second.Epoch() <= first.Epoch() {
		t.Errorf("second sequencer's epoch %d, want above the first's %d", second.Epoch(), first.Epoch())
	}

	_, err := ask(first, "102")
	if !errors.Is(err, store.ErrLeaseLost) || venue.KindOf(err) != venue.KindNotReady {
		t.Errorf("first sequencer after the takeover: CreateOffer = %v, want the lease-lost error", err)
	}
	if !first.LeaseLost() {
		t.Error("first sequencer: LeaseLost() = false after a commit was fenced")
	}
	made, err := ask(second, "103")
	if err != nil {
		t.Fatalf("second sequencer: CreateOffer = %v", err)
	}
	// The fenced sequencer rebuilds its state from the database after the
	// failed commit, once it has answered it: before the second's offer
	// existed, and it refuses the cancel as not open from its stale books;
	// or after, and the cancel's commit is fenced. Either way the cancel
	// fails and the offer stays open (below).
	if _, err := do(sequencer.WithPriority(ctx), first, func(st *sequencer.State, b *sequencer.Batch) (sequencer.OfferResult, error) {
		return st.CancelOffer(b, trader, made.Offer.ID, "")
	}); !errors.Is(err, sequencer.ErrNotOpen) && !errors.Is(err, store.ErrLeaseLost) {
		t.Errorf("first sequencer cancelling the second's offer = %v, want ErrNotOpen from its stale books or the lease-lost error", err)
	}
	var got []string
	for _, o := range v.offers(t) {
		got = append(got, o.Price.String()+" "+o.Status)
	}
	slices.Sort(got)
	want := []string{"101 " + venue.StatusCreated, "103 " + venue.StatusCreated}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("offers in the database = %v, want %v: nothing of the fenced-off sequencer", got, want)
	}
}
