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
	"testing/fstest"
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
	if last := ms[len(ms)-1].Version; v != last {
		t.Errorf("SchemaVersion() = %d, want the last migration's %d", v, last)
	}
}

// TestMigrationFiles checks the files on disk: the migrations are written
// once in migrations/common and per dialect only where the SQL differs;
// each version of each engine resolves to exactly one file (its dialect's
// or common's, never both), numbered 1..n without gaps; both engines have
// the same versions under the same names; a dialect's file is one that
// differs from the other dialect's (else it belongs in common); and
// Migrations embeds exactly those files.
func TestMigrationFiles(t *testing.T) {
	sqlFiles := func(dir string) map[string]string {
		entries, err := os.ReadDir(dir)
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		out := map[string]string{}
		for _, ent := range entries {
			if strings.HasSuffix(ent.Name(), ".sql") {
				b, err := os.ReadFile(dir + "/" + ent.Name())
				if err != nil {
					t.Fatal(err)
				}
				out[ent.Name()] = string(b)
			}
		}
		return out
	}
	common := sqlFiles("migrations/common")
	if len(common) == 0 {
		t.Fatal("no migrations in migrations/common")
	}
	dialect := map[store.Engine]map[string]string{}
	for _, e := range testenv.Engines {
		dialect[e] = sqlFiles("migrations/" + string(e))
	}
	names := map[store.Engine][]string{}
	for _, e := range testenv.Engines {
		t.Run(string(e), func(t *testing.T) {
			byVersion := map[int][]string{}
			var files []string
			for dir, set := range map[string]map[string]string{"common": common, string(e): dialect[e]} {
				for name := range set {
					num, _, ok := strings.Cut(name, "_")
					v, err := strconv.Atoi(num)
					if !ok || err != nil || len(num) != 4 {
						t.Errorf("migration %s/%s: name is not NNNN_name.sql", dir, name)
						continue
					}
					byVersion[v] = append(byVersion[v], dir+"/"+name)
					files = append(files, name)
				}
			}
			for v := 1; v <= len(byVersion); v++ {
				if got := byVersion[v]; len(got) != 1 {
					t.Errorf("version %d resolves to %v, want exactly one file", v, got)
				}
			}
			if _, extra := byVersion[len(byVersion)+1]; extra || len(byVersion) != len(files) {
				t.Errorf("versions %v are not 1..n, one file each", byVersion)
			}
			slices.Sort(files)
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
	for name, sql := range dialect[store.SQLite] {
		if other, ok := dialect[store.Postgres][name]; ok && other == sql {
			t.Errorf("migration %s is the same in both dialects: it belongs in migrations/common", name)
		}
	}
}

// TestMigrationsResolve checks the resolver on trees of the embedded
// layout: a version in common and in a dialect's folder, or a gap, is
// refused; a dialect's own file wins only where common has none.
func TestMigrationsResolve(t *testing.T) {
	file := func(s string) *fstest.MapFile { return &fstest.MapFile{Data: []byte(s)} }
	good := fstest.MapFS{
		"migrations/common/0001_init.sql":    file("CREATE TABLE a (x INT);"),
		"migrations/sqlite/0002_index.sql":   file("-- sqlite"),
		"migrations/postgres/0002_index.sql": file("-- postgres"),
		"migrations/common/0003_more.sql":    file("ALTER TABLE a ADD COLUMN y INT;"),
		"migrations/common/README":           file("not a migration"),
	}
	for _, e := range testenv.Engines {
		ms, err := store.MigrationsOf(good, e)
		if err != nil {
			t.Fatalf("MigrationsOf(good, %s) = %v", e, err)
		}
		got := []string{}
		for _, m := range ms {
			got = append(got, fmt.Sprintf("%d %s %s", m.Version, m.Name, m.SQL))
		}
		want := []string{"1 0001_init.sql CREATE TABLE a (x INT);", "2 0002_index.sql -- " + string(e),
			"3 0003_more.sql ALTER TABLE a ADD COLUMN y INT;"}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("MigrationsOf(good, %s) (-want +got):\n%s", e, d)
		}
	}
	for name, fsys := range map[string]fstest.MapFS{
		"in both": {
			"migrations/common/0001_init.sql": file("x"),
			"migrations/sqlite/0001_init.sql": file("y"),
		},
		"gap": {
			"migrations/common/0001_init.sql": file("x"),
			"migrations/sqlite/0003_more.sql": file("y"),
		},
		"missing for the engine": {
			"migrations/common/0001_init.sql":   file("x"),
			"migrations/postgres/0002_more.sql": file("y"),
			"migrations/common/0003_last.sql":   file("z"),
		},
	} {
		if _, err := store.MigrationsOf(fsys, store.SQLite); err == nil {
			t.Errorf("MigrationsOf(%s, sqlite) = nil error, want a refusal", name)
		}
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
