package store_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/bondvenue/bondvenue/internal/audit"
	"github.com/bondvenue/bondvenue/internal/store"
	"github.com/bondvenue/bondvenue/internal/testenv"
)

func auditEntry(id string, at time.Time) audit.Entry {
	return audit.Entry{At: at, UserID: "u-1", Role: "VENUE_OPERATOR", Channel: "rest", Action: "market.update",
		EntityType: "market", EntityID: id, Before: json.RawMessage(`{"name":"before é"}`),
		After: json.RawMessage(`{"name":"after"}`), Reason: "because"}
}

// trail reads the whole trail in order.
func trail(t *testing.T, db *store.DB) []audit.Entry {
	t.Helper()
	var out []audit.Entry
	err := db.View(t.Context(), func(tx *store.Tx) error {
		out = nil
		return tx.EachAudit(t.Context(), func(e audit.Entry) error {
			out = append(out, e)
			return nil
		})
	})
	if err != nil {
		t.Fatalf("EachAudit = %v", err)
	}
	return out
}

// TestAuditAppend: entries appended by concurrent transactions (each after
// an event, as the use cases write them) and by sequencer batches are
// numbered 1..n without a gap and form one chain whose hashes — computed in
// the database on PostgreSQL — are the canonical form's; an entry of a
// transaction that rolls back is not written; an entry reads back as it was
// given, its time to the microsecond.
func TestAuditAppend(t *testing.T) {
	testenv.ForEach(t, func(t *testing.T, e store.Engine) {
		t.Parallel()
		db := testenv.Open(t, e)
		v := newBatchVenue(t, db)
		epoch := v.acquire(t)
		ctx := t.Context()
		at := time.Date(2026, 11, 20, 14, 48, 0, 123_456_789, time.UTC)
		const writers, appends, batches = 4, 5, 5
		var wg sync.WaitGroup
		for g := range writers {
			wg.Go(func() {
				for i := range appends {
					err := db.InTx(ctx, func(tx *store.Tx) error {
						if _, err := tx.AppendEvents(ctx, []store.Event{{Type: "news.create", Data: []byte(`{}`)}}); err != nil {
							return err
						}
						return tx.AppendAudit(ctx, auditEntry(fmt.Sprintf("tx-%d-%d", g, i), at))
					})
					if err != nil {
						t.Errorf("InTx(AppendAudit) = %v", err)
						return
					}
				}
			})
		}
		for i := range batches {
			w := store.BatchWrite{Events: []store.Event{{Type: "participant.kill_switch", Data: []byte(`{}`)}},
				Audit: []audit.Entry{auditEntry(fmt.Sprintf("batch-%d-a", i), at), auditEntry(fmt.Sprintf("batch-%d-b", i), time.Time{})}}
			if _, err := db.SequencerBatch(ctx, epoch, w); err != nil {
				t.Fatalf("SequencerBatch(audit) = %v", err)
			}
		}
		wg.Wait()
		lost := errors.New("rolled back")
		if err := db.InTx(ctx, func(tx *store.Tx) error {
			if err := tx.AppendAudit(ctx, auditEntry("rolled-back", at)); err != nil {
				return err
			}
			return lost
		}); !errors.Is(err, lost) {
			t.Fatalf("InTx(rolled back) = %v, want %v", err, lost)
		}

		entries := trail(t, db)
		var c audit.Chain
		var ids []string
		for _, en := range entries {
			if err := c.Add(en); err != nil {
				t.Fatalf("the trail breaks: %v", err)
			}
			ids = append(ids, en.EntityID)
		}
		if want := writers*appends + 2*batches; c.Len() != int64(want) {
			t.Errorf("trail of %d entries, want %d", c.Len(), want)
		}
		sort.Strings(ids)
		for i := 1; i < len(ids); i++ {
			if ids[i] == ids[i-1] || ids[i] == "rolled-back" {
				t.Errorf("entity %s written twice, or after its rollback", ids[i])
			}
		}
		got := entries[0]
		want := auditEntry(got.EntityID, at.Truncate(time.Microsecond))
		want.Seq, want.PrevHash, want.Hash = 1, "", got.Hash
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("entry 1 (-want +got):\n%s", d)
		}
	})
}

// TestAuditEntries: the trail's list filters by time (from inclusive, to
// exclusive), by entity type and id, and pages by sequence number.
func TestAuditEntries(t *testing.T) {
	testenv.ForEach(t, func(t *testing.T, e store.Engine) {
		t.Parallel()
		db := testenv.Open(t, e)
		base := time.Date(2026, 11, 20, 14, 0, 0, 0, time.UTC)
		write(t, db, func(ctx context.Context, tx *store.Tx) error {
			for i := range 6 {
				en := auditEntry(fmt.Sprintf("m-%d", i%2), base.Add(time.Duration(i)*time.Minute))
				if i >= 4 {
					en.EntityType, en.EntityID, en.Before = "participant", "p-1", nil
				}
				if err := tx.AppendAudit(ctx, en); err != nil {
					return err
				}
			}
			return nil
		})
		tm := func(i int) *time.Time { t := base.Add(time.Duration(i) * time.Minute); return &t }
		for _, tc := range []struct {
			name string
			f    store.AuditFilter
			want []int64
		}{
			{"all", store.AuditFilter{}, []int64{1, 2, 3, 4, 5, 6}},
			{"from", store.AuditFilter{From: tm(2)}, []int64{3, 4, 5, 6}},
			{"to", store.AuditFilter{To: tm(2)}, []int64{1, 2}},
			{"from to", store.AuditFilter{From: tm(1), To: tm(4)}, []int64{2, 3, 4}},
			{"type", store.AuditFilter{EntityType: "participant"}, []int64{5, 6}},
			{"type and id", store.AuditFilter{EntityType: "market", EntityID: "m-1"}, []int64{2, 4}},
			{"page", store.AuditFilter{After: 2, Limit: 3}, []int64{3, 4, 5}},
			{"type from page", store.AuditFilter{EntityType: "market", From: tm(1), After: 2, Limit: 1}, []int64{3}},
		} {
			got := read(t, db, func(ctx context.Context, tx *store.Tx) ([]int64, error) {
				es, err := tx.AuditEntries(ctx, tc.f)
				var seqs []int64
				for _, en := range es {
					seqs = append(seqs, en.Seq)
				}
				return seqs, err
			})
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("%s: AuditEntries(%+v) (-want +got):\n%s", tc.name, tc.f, d)
			}
		}
	})
}
