package store_test

import (
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

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
