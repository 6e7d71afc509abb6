package store_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/bondvenue/bondvenue/internal/store"
)

// lastSeq returns the sequence number of the newest event.
func lastSeq(t *testing.T, db *store.DB) int64 {
	t.Helper()
	var last int64
	for {
		evs := read(t, db, func(ctx context.Context, tx *store.Tx) ([]store.Event, error) {
			return tx.Events(ctx, store.EventQuery{After: last, Limit: 1000})
		})
		if len(evs) == 0 {
			return last
		}
		last = evs[len(evs)-1].Seq
	}
}

// testEventSequence appends batches from many goroutines at once: the log
// must hold every committed event exactly once, numbered without gaps, each
// batch contiguous.
func testEventSequence(t *testing.T, h *harness) {
	const goroutines, perGoroutine, batch = 16, 10, 3
	const n = goroutines * perGoroutine * batch
	ctx := t.Context()
	start := lastSeq(t, h.db)

	committed := make([][]store.Event, goroutines*perGoroutine)
	errs := make([]error, goroutines*perGoroutine)
	attempts := make([]int, goroutines*perGoroutine)
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Go(func() {
			for i := range perGoroutine {
				var out []store.Event
				err := h.db.InTx(ctx, func(tx *store.Tx) error {
					attempts[g*perGoroutine+i]++
					evs := make([]store.Event, batch)
					for j := range evs {
						evs[j] = store.Event{Type: "offer.create", Data: fmt.Appendf(nil, `{"g":%d,"i":%d,"j":%d}`, g, i, j)}
					}
					var err error
					out, err = tx.AppendEvents(ctx, evs)
					return err
				})
				committed[g*perGoroutine+i], errs[g*perGoroutine+i] = out, err
			}
		})
	}
	wg.Wait()
	t.Logf("%d appends in %d attempts, at most %d for one", len(attempts), sum(attempts), slices.Max(attempts))
	for _, err := range errs {
		if err != nil {
			t.Fatalf("InTx(AppendEvents) = %v, want nil", err)
		}
	}

	// What AppendEvents returned in the committed attempts.
	bySeq := map[int64]store.Event{}
	for _, evs := range committed {
		for j, e := range evs {
			if _, dup := bySeq[e.Seq]; dup {
				t.Errorf("seq %d returned to two appends", e.Seq)
			}
			bySeq[e.Seq] = e
			if j > 0 && e.Seq != evs[j-1].Seq+1 {
				t.Errorf("batch numbered %d after %d, want contiguous", e.Seq, evs[j-1].Seq)
			}
		}
	}

	// What the log holds.
	got := read(t, h.db, func(ctx context.Context, tx *store.Tx) ([]store.Event, error) {
		return tx.Events(ctx, store.EventQuery{After: start, Limit: n + 10})
	})
	if len(got) != n {
		t.Fatalf("Events(after %d) = %d events, want %d", start, len(got), n)
	}
	for k, e := range got {
		if want := start + int64(k) + 1; e.Seq != want {
			t.Fatalf("Events(after %d)[%d].Seq = %d, want %d (gap-free)", start, k, e.Seq, want)
		}
		if d := diff(bySeq[e.Seq], e); d != "" {
			t.Errorf("event %d differs from what AppendEvents returned (-want +got):\n%s", e.Seq, d)
		}
	}
}

func testEventVisibility(t *testing.T, h *harness) {
	a, b := newID(t), newID(t)
	batch := []store.Event{
		{Type: "news.create", Data: []byte(`{"id":"n1"}`)},
		{Type: "offer.create", ParticipantID: a, OccurredAt: at(1), Data: []byte(`{"id":"o1"}`)},
		{Type: "offer.create", ParticipantID: b, OccurredAt: at(2), Data: []byte(`{"id":"o2"}`)},
		{Type: "trade.create", ParticipantID: a, Data: []byte(`{"id":"t1","price":"99.875"}`)},
		{Type: "news.create", Data: []byte(`{"id":"n2"}`)},
	}
	start := lastSeq(t, h.db)
	var appended []store.Event
	write(t, h.db, func(ctx context.Context, tx *store.Tx) error {
		in := append([]store.Event(nil), batch...)
		var err error
		appended, err = tx.AppendEvents(ctx, in)
		// An event without a time takes the transaction's.
		for i := range batch {
			if batch[i].OccurredAt.IsZero() {
				batch[i].OccurredAt = tx.Now()
			}
			batch[i].Seq = start + int64(i) + 1
		}
		return err
	})
	if d := diff(batch, appended); d != "" {
		t.Errorf("AppendEvents() (-want +got):\n%s", d)
	}

	tests := []struct {
		name        string
		after       int64 // relative to start
		participant string
		limit       int
		want        []int // indexes into batch
	}{
		{"every event", 0, "", 10, []int{0, 1, 2, 3, 4}},
		{"a sees own and unscoped", 0, a, 10, []int{0, 1, 3, 4}},
		{"b sees own and unscoped", 0, b, 10, []int{0, 2, 4}},
		{"a stranger sees unscoped only", 0, newID(t), 10, []int{0, 4}},
		{"after a sequence number", 2, a, 10, []int{3, 4}},
		{"limit", 0, a, 2, []int{0, 1}},
		{"after the last", 5, "", 10, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var want []store.Event
			for _, i := range tt.want {
				want = append(want, batch[i])
			}
			got := read(t, h.db, func(ctx context.Context, tx *store.Tx) ([]store.Event, error) {
				return tx.Events(ctx, store.EventQuery{After: start + tt.after, Participant: tt.participant, Limit: tt.limit})
			})
			if d := diff(want, got); d != "" {
				t.Errorf("Events(%d, %q, %d) (-want +got):\n%s", start+tt.after, tt.participant, tt.limit, d)
			}
		})
	}
}
