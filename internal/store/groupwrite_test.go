package store_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/bondvenue/bondvenue/internal/store"
	"github.com/bondvenue/bondvenue/internal/testenv"
	"github.com/bondvenue/bondvenue/internal/venue"
)

// TestGroupWriter: writes sent together each return once committed; one
// that fails its group fails alone, and the others of the group commit;
// a closed writer refuses writes.
func TestGroupWriter(t *testing.T) {
	testenv.ForEach(t, func(t *testing.T, e store.Engine) {
		t.Parallel()
		h := openHarness(t, e)
		ctx := t.Context()
		bad := errors.New("bad write")
		const n = 64
		errs := make([]error, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() {
				errs[i] = h.db.InTxGrouped(ctx, func(tx *store.Tx) error {
					if i == n/2 {
						return bad
					}
					return tx.SaveFIXSession(ctx, store.FIXSession{ID: fmt.Sprintf("s%d", i), NextSender: i + 1, NextTarget: 1,
						CreatedAt: time.UnixMilli(0)})
				})
			})
		}
		wg.Wait()
		for i, err := range errs {
			want := error(nil)
			if i == n/2 {
				want = bad
			}
			if !errors.Is(err, want) && err != want {
				t.Errorf("write %d = %v, want %v", i, err, want)
			}
			st, ok := read(t, h.db, func(ctx context.Context, tx *store.Tx) (store.FIXSession, error) {
				st, ok, err := tx.FIXSession(ctx, fmt.Sprintf("s%d", i))
				if !ok && err == nil && i != n/2 {
					err = fmt.Errorf("session s%d not written", i)
				}
				return st, err
			}), i != n/2
			if ok && st.NextSender != i+1 {
				t.Errorf("session s%d: next sender %d, want %d", i, st.NextSender, i+1)
			}
		}

		w := store.NewGroupWriter(h.db)
		if err := w.InTx(ctx, func(*store.Tx) error { return nil }); err != nil {
			t.Errorf("InTx = %v, want nil", err)
		}
		w.Close()
		if err := w.InTx(ctx, func(*store.Tx) error { return nil }); !errors.Is(err, venue.ErrUnavailable) {
			t.Errorf("InTx after Close = %v, want %v", err, venue.ErrUnavailable)
		}
		never := store.NewGroupWriter(h.db)
		never.Close()
		if err := never.InTx(ctx, func(*store.Tx) error { return nil }); !errors.Is(err, venue.ErrUnavailable) {
			t.Errorf("InTx on a writer closed unused = %v, want %v", err, venue.ErrUnavailable)
		}
	})
}
