package store_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/bondvenue/bondvenue/internal/store"
	"github.com/bondvenue/bondvenue/internal/testenv"
)

// testMigrate migrates a database of its own: the shared one is already
// migrated.
func testMigrate(t *testing.T, h *harness) {
	ctx := t.Context()
	db, err := store.Open(ctx, store.Config{URL: testenv.DatabaseURL(t, h.engine), DataDir: t.TempDir()})
	if err != nil {
		t.Fatalf("store.Open = %v", err)
	}
	t.Cleanup(func() { db.Close() })
	ms, err := store.Migrations(h.engine)
	if err != nil {
		t.Fatalf("Migrations(%s) = %v", h.engine, err)
	}
	if len(ms) == 0 {
		t.Fatalf("Migrations(%s) is empty", h.engine)
	}

	if v, err := db.SchemaVersion(ctx); err != nil || v != 0 {
		t.Errorf("SchemaVersion() before Migrate = %d, %v, want 0, nil", v, err)
	}

	var all []int
	for _, m := range ms {
		all = append(all, m.Version)
	}
	applied, err := db.Migrate(ctx)
	if err != nil {
		t.Fatalf("first Migrate() = %v", err)
	}
	if d := cmp.Diff(all, applied); d != "" {
		t.Errorf("first Migrate() applied (-want +got):\n%s", d)
	}

	applied, err = db.Migrate(ctx)
	if err != nil {
		t.Fatalf("second Migrate() = %v", err)
	}
	if len(applied) != 0 {
		t.Errorf("second Migrate() applied %v, want none", applied)
	}

	v, err := db.SchemaVersion(ctx)
	if err != nil {
		t.Fatalf("SchemaVersion() = %v", err)
	}
	if v != len(ms) {
		t.Errorf("SchemaVersion() = %d, want %d", v, len(ms))
	}
}

// TestMigrationFiles checks the files on disk: each dialect numbers its
// migrations 1..n without gaps, both dialects have the same migrations, and
// Migrations embeds exactly those files.
func TestMigrationFiles(t *testing.T) {
	names := map[store.Engine][]string{}
	for _, e := range testenv.Engines {
		t.Run(string(e), func(t *testing.T) {
			entries, err := os.ReadDir("migrations/" + string(e))
			if err != nil {
				t.Fatal(err)
			}
			var files []string
			for _, ent := range entries {
				if strings.HasSuffix(ent.Name(), ".sql") {
					files = append(files, ent.Name())
				}
			}
			slices.Sort(files)
			if len(files) == 0 {
				t.Fatalf("no migrations in migrations/%s", e)
			}
			for i, name := range files {
				num, _, ok := strings.Cut(name, "_")
				v, err := strconv.Atoi(num)
				if !ok || err != nil || len(num) != 4 {
					t.Errorf("migration %s: name is not NNNN_name.sql", name)
					continue
				}
				if v != i+1 {
					t.Errorf("migration %s has version %d, want %d (no gaps, no duplicates)", name, v, i+1)
				}
			}
			ms, err := store.Migrations(e)
			if err != nil {
				t.Fatalf("Migrations(%s) = %v", e, err)
			}
			var embedded []string
			for i, m := range ms {
				embedded = append(embedded, m.Name)
				if m.Version != i+1 {
					t.Errorf("Migrations(%s)[%d].Version = %d, want %d", e, i, m.Version, i+1)
				}
				if strings.TrimSpace(m.SQL) == "" {
					t.Errorf("Migrations(%s)[%d] (%s) has no SQL", e, i, m.Name)
				}
			}
			if d := cmp.Diff(files, embedded); d != "" {
				t.Errorf("Migrations(%s) names (-files +embedded):\n%s", e, d)
			}
			names[e] = files
		})
	}
	if d := cmp.Diff(names[store.SQLite], names[store.Postgres]); d != "" {
		t.Errorf("migrations differ between dialects (-sqlite +postgres):\n%s", d)
	}
}

// TestMigrationEventsRowid: the events written before migration 0011
// (which rebuilds SQLite's event log around seq as its rowid, and its
// audience around it) read back the same after it, to the same readers;
// numbering goes on after the last of them; and the audience's foreign key
// still holds.
func TestMigrationEventsRowid(t *testing.T) {
	const version = 11
	testenv.ForEach(t, func(t *testing.T, e store.Engine) {
		t.Parallel()
		ctx := t.Context()
		db, err := store.Open(ctx, store.Config{URL: testenv.DatabaseURL(t, e), DataDir: t.TempDir()})
		if err != nil {
			t.Fatalf("store.Open = %v", err)
		}
		t.Cleanup(func() { db.Close() })
		if _, err := db.MigrateTo(ctx, version-1); err != nil {
			t.Fatalf("MigrateTo(%d) = %v", version-1, err)
		}
		owner, dealer, other := newParticipant(t, at(0)), newParticipant(t, at(0)), newParticipant(t, at(0))
		before := []store.Event{
			{Type: "news.create", OccurredAt: at(1), Data: []byte(`{"n":1}`)},
			{Type: "offer.create", OccurredAt: at(2), ParticipantID: owner.ID, Data: []byte(`{"n":2}`)},
			{Type: "request_for_quote.create", OccurredAt: at(3), ParticipantID: owner.ID, Audience: []string{dealer.ID},
				Data: []byte(`{"n":3}`)},
			{Type: "offer.create", OccurredAt: at(4), ParticipantID: dealer.ID, Data: []byte(`{"n":4}`)},
		}
		write(t, db, func(ctx context.Context, tx *store.Tx) error {
			err := errors.Join(tx.CreateParticipant(ctx, &owner), tx.CreateParticipant(ctx, &dealer), tx.CreateParticipant(ctx, &other))
			if err != nil {
				return err
			}
			before, err = tx.AppendEvents(ctx, before)
			return err
		})
		visible := func(p string) []string {
			evs := read(t, db, func(ctx context.Context, tx *store.Tx) ([]store.Event, error) {
				return tx.Events(ctx, store.EventQuery{Participant: p, Limit: 100})
			})
			var out []string
			for _, ev := range evs {
				out = append(out, fmt.Sprintf("%d %s %s %s %s", ev.Seq, ev.Type, ev.OccurredAt.UTC().Format(time.RFC3339),
					ev.ParticipantID, ev.Data))
			}
			return out
		}
		readers := []string{"", owner.ID, dealer.ID, other.ID}
		want := map[string][]string{}
		for _, p := range readers {
			want[p] = visible(p)
		}
		if len(want[""]) != len(before) || len(want[dealer.ID]) != 3 || len(want[other.ID]) != 1 {
			t.Fatalf("before the migration: %d events in all, %d for the dealer, %d for another firm; want %d, 3, 1",
				len(want[""]), len(want[dealer.ID]), len(want[other.ID]), len(before))
		}

		if applied, err := db.Migrate(ctx); err != nil || !slices.Contains(applied, version) {
			t.Fatalf("Migrate() = %v, %v, want %d applied", applied, err, version)
		}
		for _, p := range readers {
			if d := cmp.Diff(want[p], visible(p)); d != "" {
				t.Errorf("events visible to %q after the migration (-before +after):\n%s", p, d)
			}
		}
		var after []store.Event
		write(t, db, func(ctx context.Context, tx *store.Tx) error {
			var err error
			after, err = tx.AppendEvents(ctx, []store.Event{{Type: "news.create", Data: []byte(`{"n":5}`)}})
			return err
		})
		if last := before[len(before)-1].Seq; after[0].Seq != last+1 {
			t.Errorf("first event after the migration numbered %d, want %d", after[0].Seq, last+1)
		}
		err = db.InTx(ctx, func(tx *store.Tx) error {
			_, err := tx.AppendEvents(ctx, []store.Event{{Type: "offer.create", ParticipantID: owner.ID,
				Audience: []string{dealer.ID}, Data: []byte(`{"n":6}`)}})
			if err != nil {
				return err
			}
			return store.ExecForTest(ctx, tx, "INSERT INTO event_audience (seq, participant_id) VALUES (?, ?)", after[0].Seq+1000, other.ID)
		})
		if err == nil {
			t.Errorf("an audience row for an event that does not exist was accepted after the migration")
		}
	})
}
