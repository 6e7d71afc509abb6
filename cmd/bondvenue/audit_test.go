package main

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bondvenue/bondvenue/internal/audit"
	"github.com/bondvenue/bondvenue/internal/envflag"
	"github.com/bondvenue/bondvenue/internal/store"
	"github.com/bondvenue/bondvenue/internal/testenv"
)

// TestAdminAuditVerify: the admin command's changes are in the audit trail
// (channel cli, with the --reason given) and `admin audit verify` passes
// them; after an entry's state is changed in the database it names that
// entry's content, and after an entry is deleted it names the next entry's
// link; either way it exits with status 1.
func TestAdminAuditVerify(t *testing.T) {
	testenv.ForEach(t, func(t *testing.T, e store.Engine) {
		for _, tc := range []struct {
			name, tamper, want string
		}{
			{"update", `UPDATE audit_log SET after_state = '{"name":"forged"}' WHERE seq = 3`,
				"audit trail broken at entry 3: its content does not match its hash"},
			{"delete", `DELETE FROM audit_log WHERE seq = 2`,
				"audit trail broken at entry 3: its link to the previous entry breaks: entry 2 is missing"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				dir := t.TempDir()
				vars := map[string]string{"BONDVENUE_DATA_DIR": dir}
				if e == store.Postgres {
					vars["BONDVENUE_DATABASE_URL"] = testenv.DatabaseURL(t, e)
				}
				getenv := env(vars)
				cli := func(args ...string) (string, error) {
					var out, errb bytes.Buffer
					err := run(context.Background(), append([]string{"admin"}, args...), getenv, &out, &errb)
					return out.String(), err
				}
				mustCLI := func(args ...string) map[string]any {
					out, err := cli(args...)
					if err != nil {
						t.Fatalf("admin %v: %v", args, err)
					}
					var m map[string]any
					if err := json.Unmarshal([]byte(out), &m); err != nil {
						t.Fatalf("admin %v printed %q", args, out)
					}
					return m
				}
				mustCLI("bootstrap", "--email", "ops@venue.example") // entries 1 and 2: the user, its credential
				p := mustCLI("participant", "--name", "Baltic Fixed Income AS", "--lei", "529900BALT1C0F1XED42", "--country", "EE",
					"--reason", "membership approved")
				mustCLI("account", "--participant-id", p["id"].(string), "--number", "BFI-0001")

				out, err := cli("audit", "verify")
				if err != nil || !strings.HasPrefix(out, "audit trail verified: 4 entries\n") {
					t.Fatalf("audit verify = %q, %v; want 4 entries verified", out, err)
				}
				entries := readTrail(t, vars)
				if got := entries[2]; got.Action != "participant.create" || got.Channel != "cli" || got.Reason != "membership approved" ||
					got.EntityID != p["id"] || got.UserID != "system" || got.Role != "VENUE_OPERATOR" {
					t.Errorf("entry 3 = %+v, want the participant's creation over the cli with its reason", got)
				}

				tamper(t, e, vars, tc.tamper)
				out, err = cli("audit", "verify")
				var brk *audit.Break
				if err == nil || !errors.As(err, &brk) || !strings.HasPrefix(err.Error(), tc.want) || envflag.ExitCode(err) != 1 {
					t.Errorf("audit verify after %s = %q, %v (exit %d); want %q", tc.name, out, err, envflag.ExitCode(err), tc.want)
				}
			})
		}
	})
}

// readTrail reads the trail of the database vars name.
func readTrail(t *testing.T, vars map[string]string) []audit.Entry {
	t.Helper()
	db, err := store.Open(t.Context(), store.Config{URL: vars["BONDVENUE_DATABASE_URL"], DataDir: vars["BONDVENUE_DATA_DIR"]})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var out []audit.Entry
	err = db.View(t.Context(), func(tx *store.Tx) error {
		var err error
		out, err = tx.AuditEntries(t.Context(), store.AuditFilter{})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// tamper runs a statement on the database directly, as someone with access
// to it and not through the venue would.
func tamper(t *testing.T, e store.Engine, vars map[string]string, statement string) {
	t.Helper()
	driver, source := "sqlite", "file:"+filepath.Join(vars["BONDVENUE_DATA_DIR"], "bondvenue.db")
	if e == store.Postgres {
		driver, source = "pgx", vars["BONDVENUE_DATABASE_URL"]
	}
	raw, err := sql.Open(driver, source)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	res, err := raw.ExecContext(t.Context(), statement)
	if err != nil {
		t.Fatalf("%s: %v", statement, err)
	}
	if n, _ := res.RowsAffected(); n != 1 {
		t.Fatalf("%s changed %d rows, want 1", statement, n)
	}
}
