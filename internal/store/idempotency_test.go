package store_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/bondvenue/bondvenue/internal/store"
	"github.com/bondvenue/bondvenue/internal/testenv"
	"github.com/bondvenue/bondvenue/internal/venue"
)

// TestIdempotencyClaims: a request's write transaction marks its
// Idempotency-Key claim applied in the same commit (InTx, and the
// sequencer's batch for its commands); a write whose claim a retry took
// over is refused and leaves nothing; an applied claim is never released;
// reads mark nothing.
func TestIdempotencyClaims(t *testing.T) {
	testenv.ForEach(t, func(t *testing.T, e store.Engine) {
		t.Parallel()
		db := testenv.Open(t, e)
		v := newBatchVenue(t, db)
		epoch := v.acquire(t)
		ctx := t.Context()
		user := v.user.ID
		claim := func(t *testing.T, key, id string) store.IdempotencyClaim {
			t.Helper()
			write(t, db, func(ctx context.Context, tx *store.Tx) error {
				_, claimed, err := tx.ClaimIdempotencyKey(ctx, store.IdempotencyRecord{UserID: user, Key: key, RequestHash: "h",
					CreatedAt: at(2), Claim: id, Epoch: epoch}, time.Time{})
				if err == nil && !claimed {
					err = errors.New("not claimed")
				}
				return err
			})
			return store.IdempotencyClaim{UserID: user, Key: key, Claim: id}
		}
		record := func(t *testing.T, key string) store.IdempotencyRecord {
			t.Helper()
			var cur store.IdempotencyRecord
			errProbe := errors.New("no record")
			err := db.InTx(ctx, func(tx *store.Tx) error {
				var claimed bool
				var err error
				cur, claimed, err = tx.ClaimIdempotencyKey(ctx, store.IdempotencyRecord{UserID: user, Key: key, RequestHash: "probe",
					CreatedAt: at(2), Claim: "probe"}, time.Time{})
				if err == nil && claimed {
					return errProbe
				}
				return err
			})
			if err != nil {
				t.Fatalf("record %s: %v", key, err)
			}
			return cur
		}
		release := func(t *testing.T, c store.IdempotencyClaim) bool {
			t.Helper()
			var released bool
			write(t, db, func(ctx context.Context, tx *store.Tx) error {
				var err error
				released, err = tx.ReleaseIdempotencyKey(ctx, c)
				return err
			})
			return released
		}
		newFirm := func(t *testing.T, c store.IdempotencyClaim) (venue.Participant, error) {
			p := newParticipant(t, at(2))
			return p, db.InTxClaimed(ctx, &c, func(tx *store.Tx) error { return tx.CreateParticipant(ctx, &p) })
		}
		exists := func(t *testing.T, id string) bool {
			t.Helper()
			err := readErr(t, db, func(ctx context.Context, tx *store.Tx) error { _, err := tx.Participant(ctx, id); return err })
			return err == nil
		}

		t.Run("a write marks its claim, which then stays", func(t *testing.T) {
			c := claim(t, "k1", "a")
			if got := record(t, "k1"); !got.CommittedAt.IsZero() || got.Claim != "a" || got.Epoch != epoch || got.Result != nil {
				t.Fatalf("fresh claim: %+v", got)
			}
			c.Result = []byte(`{"firm":1}`)
			p, err := newFirm(t, c)
			if err != nil || !exists(t, p.ID) {
				t.Fatalf("InTx with a claim = %v (written %v)", err, exists(t, p.ID))
			}
			if got := record(t, "k1"); got.CommittedAt.IsZero() || string(got.Result) != `{"firm":1}` {
				t.Errorf("the write did not mark its claim with its result: %+v", got)
			}
			// A later write of the request that keeps no result leaves it.
			c.Result = nil
			if _, err := newFirm(t, c); err != nil {
				t.Fatal(err)
			}
			if got := record(t, "k1"); string(got.Result) != `{"firm":1}` {
				t.Errorf("a write without a result changed the kept one: %q", got.Result)
			}
			if release(t, c) {
				t.Errorf("an applied claim was released")
			}
			if got := record(t, "k1"); got.Claim != "a" || got.CommittedAt.IsZero() {
				t.Errorf("after release: %+v", got)
			}
		})

		t.Run("a taken-over claim refuses the write", func(t *testing.T) {
			old := claim(t, "k2", "a")
			if !release(t, old) {
				t.Fatal("an unapplied claim was not released")
			}
			claim(t, "k2", "b")
			p, err := newFirm(t, old)
			if !errors.Is(err, store.ErrClaimLost) {
				t.Errorf("write under a taken-over claim = %v, want ErrClaimLost", err)
			}
			if exists(t, p.ID) {
				t.Errorf("the refused write was committed")
			}
			if got := record(t, "k2"); got.Claim != "b" || !got.CommittedAt.IsZero() {
				t.Errorf("the new claim: %+v", got)
			}
		})

		t.Run("reads and failed writes mark nothing", func(t *testing.T) {
			c := claim(t, "k3", "a")
			if err := db.View(ctx, func(tx *store.Tx) error { _, err := tx.Participant(ctx, v.owner.ID); return err }); err != nil {
				t.Fatal(err)
			}
			refused := errors.New("refused")
			if err := db.InTxClaimed(ctx, &c, func(tx *store.Tx) error { return refused }); !errors.Is(err, refused) {
				t.Fatalf("InTx = %v", err)
			}
			if got := record(t, "k3"); !got.CommittedAt.IsZero() {
				t.Errorf("claim marked by a read or a failed write: %+v", got)
			}
		})

		t.Run("the sequencer's batch marks its commands' claims", func(t *testing.T) {
			c := claim(t, "k4", "a")
			w := v.batch(t, "claims", 1000)
			c.Result = []byte(`{"offer":"o"}`)
			w.Claims = []store.IdempotencyClaim{c}
			if _, err := db.SequencerBatch(ctx, epoch, w); err != nil {
				t.Fatalf("SequencerBatch = %v", err)
			}
			if got := record(t, "k4"); got.CommittedAt.IsZero() || string(got.Result) != `{"offer":"o"}` {
				t.Errorf("the batch did not mark its claim with its result: %+v", got)
			}
			// A failed batch marks nothing.
			c = claim(t, "k5", "a")
			w = v.batch(t, "claims-lost", 1010)
			w.Claims = []store.IdempotencyClaim{c}
			if _, err := db.SequencerBatch(ctx, epoch-1, w); !errors.Is(err, store.ErrLeaseLost) {
				t.Fatalf("SequencerBatch(stale epoch) = %v, want ErrLeaseLost", err)
			}
			if got := record(t, "k5"); !got.CommittedAt.IsZero() {
				t.Errorf("a failed batch marked its claim: %+v", got)
			}
		})
	})
}
