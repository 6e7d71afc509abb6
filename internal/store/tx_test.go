package store_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/quagmt/udecimal"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/bondvenue/bondvenue/internal/store"
	"github.com/bondvenue/bondvenue/internal/venue"
)

// driverError finds the driver's own error in err's chain and returns its
// code and message.
func driverError(err error) (code, msg string, ok bool) {
	var pg *pgconn.PgError
	if errors.As(err, &pg) {
		return pg.Code, pg.Error(), true
	}
	var sq *sqlite.Error
	if errors.As(err, &sq) {
		return strconv.Itoa(sq.Code()), sq.Error(), true
	}
	return "", "", false
}

// The driver codes of the failures the store normalises.
var (
	uniqueCodes = map[store.Engine][]string{
		store.Postgres: {"23505"},
		store.SQLite:   {strconv.Itoa(sqlite3.SQLITE_CONSTRAINT_UNIQUE), strconv.Itoa(sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY)},
	}
	foreignKeyCodes = map[store.Engine][]string{
		store.Postgres: {"23503"},
		store.SQLite:   {strconv.Itoa(sqlite3.SQLITE_CONSTRAINT_FOREIGNKEY)},
	}
)

func testErrors(t *testing.T, h *harness) {
	p := seedParticipant(t, h.db)
	acc := newAccount(t, p.ID, t0)
	u := newUser(t, p.ID, venue.RoleTrader, t0)
	m := newMarket(t, t0)
	in := newInstrument(t, t0, m.ID)
	cred := venue.Credential{ClientID: "cl_" + randomHex(t), UserID: u.ID, SecretHash: randomHex(t), CreatedAt: t0}
	// Live on whatever day the test runs: CreateToken prunes tokens that
	// expired a day before the database's clock, which is the real one.
	tok := venue.Token{Hash: randomHex(t), ClientID: cred.ClientID, UserID: u.ID, CreatedAt: t0, ExpiresAt: time.Now().Add(time.Hour)}
	limit := venue.RiskLimit{ID: newID(t), ParticipantID: p.ID, Name: venue.LimitMaxOffer, Value: dec("1000000"), CreatedAt: t0, UpdatedAt: t0}
	write(t, h.db, func(ctx context.Context, tx *store.Tx) error {
		return errors.Join(tx.CreateAccount(ctx, &acc), tx.CreateUser(ctx, &u), tx.CreateMarket(ctx, &m),
			tx.CreateInstrument(ctx, &in), tx.CreateCredential(ctx, &cred), tx.CreateToken(ctx, &tok),
			func() error { _, err := tx.UpsertRiskLimit(ctx, &limit); return err }())
	})
	missing := newID(t)

	const (
		noRows     = "no rows"
		unique     = "unique"
		foreignKey = "foreign key"
	)
	tests := []struct {
		name   string
		op     func(ctx context.Context, tx *store.Tx) error
		want   *venue.Error // a sentinel
		driver string
	}{
		// Duplicate keys.
		{"participant id taken", func(ctx context.Context, tx *store.Tx) error {
			dup := newParticipant(t, t0)
			dup.ID = p.ID
			return tx.CreateParticipant(ctx, &dup)
		}, venue.ErrConflict, unique},
		{"participant LEI taken", func(ctx context.Context, tx *store.Tx) error {
			dup := newParticipant(t, t0)
			dup.LEI = p.LEI
			return tx.CreateParticipant(ctx, &dup)
		}, venue.ErrConflict, unique},
		{"account number taken in the firm", func(ctx context.Context, tx *store.Tx) error {
			dup := newAccount(t, p.ID, t0)
			dup.Number = acc.Number
			return tx.CreateAccount(ctx, &dup)
		}, venue.ErrConflict, unique},
		{"user e-mail taken", func(ctx context.Context, tx *store.Tx) error {
			dup := newUser(t, p.ID, venue.RoleViewer, t0)
			dup.Email = u.Email
			return tx.CreateUser(ctx, &dup)
		}, venue.ErrConflict, unique},
		{"client id taken", func(ctx context.Context, tx *store.Tx) error {
			dup := cred
			return tx.CreateCredential(ctx, &dup)
		}, venue.ErrConflict, unique},
		{"token hash taken", func(ctx context.Context, tx *store.Tx) error {
			dup := tok
			return tx.CreateToken(ctx, &dup)
		}, venue.ErrConflict, unique},
		{"market name taken", func(ctx context.Context, tx *store.Tx) error {
			dup := newMarket(t, t0)
			dup.Name = m.Name
			return tx.CreateMarket(ctx, &dup)
		}, venue.ErrConflict, unique},
		{"ISIN taken", func(ctx context.Context, tx *store.Tx) error {
			dup := newInstrument(t, t0)
			dup.Terms.ISIN = in.Terms.ISIN
			return tx.CreateInstrument(ctx, &dup)
		}, venue.ErrConflict, unique},
		{"instrument listed twice on a market", func(ctx context.Context, tx *store.Tx) error {
			dup := newInstrument(t, t0, m.ID, m.ID)
			return tx.CreateInstrument(ctx, &dup)
		}, venue.ErrConflict, unique},
		{"risk limit id taken by another limit", func(ctx context.Context, tx *store.Tx) error {
			dup := limit
			dup.Name = venue.LimitAllOfferSum
			_, err := tx.UpsertRiskLimit(ctx, &dup)
			return err
		}, venue.ErrConflict, unique},

		// Missing rows.
		{"no participant", func(ctx context.Context, tx *store.Tx) error { _, err := tx.Participant(ctx, missing); return err }, venue.ErrNotFound, noRows},
		{"no account", func(ctx context.Context, tx *store.Tx) error { _, err := tx.Account(ctx, missing); return err }, venue.ErrNotFound, noRows},
		{"no user", func(ctx context.Context, tx *store.Tx) error { _, err := tx.User(ctx, missing); return err }, venue.ErrNotFound, noRows},
		{"no credential", func(ctx context.Context, tx *store.Tx) error { _, err := tx.Credential(ctx, missing); return err }, venue.ErrNotFound, noRows},
		{"no token", func(ctx context.Context, tx *store.Tx) error {
			_, _, err := tx.TokenPrincipal(ctx, missing, t0)
			return err
		}, venue.ErrNotFound, noRows},
		{"no market", func(ctx context.Context, tx *store.Tx) error { _, err := tx.Market(ctx, missing); return err }, venue.ErrNotFound, noRows},
		{"no instrument", func(ctx context.Context, tx *store.Tx) error { _, err := tx.Instrument(ctx, missing); return err }, venue.ErrNotFound, noRows},
		{"no bucket", func(ctx context.Context, tx *store.Tx) error { _, err := tx.Bucket(ctx, missing); return err }, venue.ErrNotFound, noRows},
		{"no settlement provider", func(ctx context.Context, tx *store.Tx) error {
			_, err := tx.SettlementProvider(ctx, missing)
			return err
		}, venue.ErrNotFound, noRows},

		// References to missing rows.
		{"account of a missing participant", func(ctx context.Context, tx *store.Tx) error {
			a := newAccount(t, missing, t0)
			return tx.CreateAccount(ctx, &a)
		}, venue.ErrNotFound, foreignKey},
		{"user of a missing participant", func(ctx context.Context, tx *store.Tx) error {
			v := newUser(t, missing, venue.RoleTrader, t0)
			return tx.CreateUser(ctx, &v)
		}, venue.ErrNotFound, foreignKey},
		{"credential of a missing user", func(ctx context.Context, tx *store.Tx) error {
			c := venue.Credential{ClientID: "cl_" + randomHex(t), UserID: missing, SecretHash: "x", CreatedAt: t0}
			return tx.CreateCredential(ctx, &c)
		}, venue.ErrNotFound, foreignKey},
		{"token of a missing credential", func(ctx context.Context, tx *store.Tx) error {
			k := venue.Token{Hash: randomHex(t), ClientID: missing, UserID: u.ID, CreatedAt: t0, ExpiresAt: t0}
			return tx.CreateToken(ctx, &k)
		}, venue.ErrNotFound, foreignKey},
		{"counterparty relation to a missing participant", func(ctx context.Context, tx *store.Tx) error {
			_, err := tx.SetCounterparty(ctx, p.ID, missing, true)
			return err
		}, venue.ErrNotFound, foreignKey},
		{"risk limit of a missing participant", func(ctx context.Context, tx *store.Tx) error {
			l := venue.RiskLimit{ID: newID(t), ParticipantID: missing, Name: venue.LimitMaxOffer, Value: dec("1"), CreatedAt: t0, UpdatedAt: t0}
			_, err := tx.UpsertRiskLimit(ctx, &l)
			return err
		}, venue.ErrNotFound, foreignKey},
		{"instrument on a missing market", func(ctx context.Context, tx *store.Tx) error {
			i := newInstrument(t, t0, missing)
			return tx.CreateInstrument(ctx, &i)
		}, venue.ErrNotFound, foreignKey},
		{"bucket of a missing participant", func(ctx context.Context, tx *store.Tx) error {
			b := venue.Bucket{ID: newID(t), Name: "x", Type: venue.BucketPrivate, ParticipantID: missing, CreatedAt: t0, UpdatedAt: t0}
			return tx.CreateBucket(ctx, &b)
		}, venue.ErrNotFound, foreignKey},
		{"bucket with a missing instrument", func(ctx context.Context, tx *store.Tx) error {
			b := venue.Bucket{ID: newID(t), Name: "x", Type: venue.BucketPublic, InstrumentIDs: []string{in.ID, missing}, CreatedAt: t0, UpdatedAt: t0}
			return tx.CreateBucket(ctx, &b)
		}, venue.ErrNotFound, foreignKey},
		{"settlement provider of a missing participant", func(ctx context.Context, tx *store.Tx) error {
			s := newProvider(t, missing, "", t0)
			return tx.CreateSettlementProvider(ctx, &s)
		}, venue.ErrNotFound, foreignKey},
		{"settlement provider for a missing account", func(ctx context.Context, tx *store.Tx) error {
			s := newProvider(t, p.ID, missing, t0)
			return tx.CreateSettlementProvider(ctx, &s)
		}, venue.ErrNotFound, foreignKey},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := t.Context()
			err := h.db.InTx(ctx, func(tx *store.Tx) error { return tt.op(ctx, tx) })
			if !errors.Is(err, tt.want) {
				t.Fatalf("InTx(%s) = %v, want kind %v", tt.name, err, tt.want.Kind)
			}
			if got := venue.KindOf(err); got != tt.want.Kind {
				t.Errorf("KindOf(%v) = %v, want %v", err, got, tt.want.Kind)
			}
			switch tt.driver {
			case noRows:
				if !errors.Is(err, sql.ErrNoRows) {
					t.Errorf("InTx(%s) = %v, want sql.ErrNoRows in the chain", tt.name, err)
				}
			case unique, foreignKey:
				codes := uniqueCodes[h.engine]
				if tt.driver == foreignKey {
					codes = foreignKeyCodes[h.engine]
				}
				code, msg, ok := driverError(err)
				if !ok {
					t.Fatalf("InTx(%s) = %v (%T), want the %s driver error in the chain", tt.name, err, err, h.engine)
				}
				if !slices.Contains(codes, code) {
					t.Errorf("InTx(%s) driver error %q has code %s, want one of %v", tt.name, msg, code, codes)
				}
				if !strings.Contains(err.Error(), msg) {
					t.Errorf("InTx(%s) = %q, want the driver message %q in it", tt.name, err, msg)
				}
			}
		})
	}
}

// errBoom is a use case's own error.
var errBoom = errors.New("boom")

// runTx runs InTx and recovers a panic it passes on.
func runTx(ctx context.Context, db *store.DB, fn func(*store.Tx) error) (panicked any, err error) {
	defer func() { panicked = recover() }()
	return nil, db.InTx(ctx, fn)
}

func testInTx(t *testing.T, h *harness) {
	tests := []struct {
		name      string
		end       func() error // how fn ends after writing
		wantErr   error
		wantPanic any
		committed bool
	}{
		{"nil commits", func() error { return nil }, nil, nil, true},
		{"error rolls back", func() error { return errBoom }, errBoom, nil, false},
		{"domain error rolls back", func() error { return venue.Conflict("offer already closed") }, venue.ErrConflict, nil, false},
		{"panic rolls back and re-panics", func() error { panic(errBoom) }, nil, errBoom, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := t.Context()
			p := newParticipant(t, t0)
			calls := 0
			panicked, err := runTx(ctx, h.db, func(tx *store.Tx) error {
				calls++
				if err := tx.CreateParticipant(ctx, &p); err != nil {
					return fmt.Errorf("unexpected: %w", err)
				}
				return tt.end()
			})
			if !errors.Is(err, tt.wantErr) || (tt.wantErr == nil && err != nil) {
				t.Errorf("InTx() = %v, want %v", err, tt.wantErr)
			}
			if panicked != tt.wantPanic {
				t.Errorf("InTx() panicked with %v, want %v", panicked, tt.wantPanic)
			}
			if calls != 1 {
				t.Errorf("InTx() called fn %d times, want 1", calls)
			}
			err = readErr(t, h.db, func(ctx context.Context, tx *store.Tx) error {
				_, err := tx.Participant(ctx, p.ID)
				return err
			})
			if tt.committed && err != nil {
				t.Errorf("Participant(%s) after InTx = %v, want committed", p.ID, err)
			}
			if !tt.committed && !errors.Is(err, venue.ErrNotFound) {
				t.Errorf("Participant(%s) after InTx = %v, want not found (rolled back)", p.ID, err)
			}
			// The connection went back to the pool: the next write works
			// (SQLite has a single writer connection).
			q := newParticipant(t, t0)
			write(t, h.db, func(ctx context.Context, tx *store.Tx) error { return tx.CreateParticipant(ctx, &q) })
		})
	}

	t.Run("cancelled context", func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		err := h.db.InTx(ctx, func(tx *store.Tx) error { return nil })
		if !errors.Is(err, context.Canceled) || !errors.Is(err, venue.ErrUnavailable) {
			t.Errorf("InTx(cancelled) = %v, want context.Canceled of kind unavailable", err)
		}
	})
}

func testView(t *testing.T, h *harness) {
	p := seedParticipant(t, h.db)
	got := read(t, h.db, func(ctx context.Context, tx *store.Tx) (venue.Participant, error) { return tx.Participant(ctx, p.ID) })
	if got.ID != p.ID {
		t.Errorf("View read Participant(%s) = %s", p.ID, got.ID)
	}

	// PostgreSQL runs View in a READ ONLY transaction (25006); SQLite reads
	// on connections opened with query_only (SQLITE_READONLY).
	q := newParticipant(t, t0)
	err := readErr(t, h.db, func(ctx context.Context, tx *store.Tx) error { return tx.CreateParticipant(ctx, &q) })
	if err == nil {
		t.Fatalf("CreateParticipant in View = nil, want an error")
	}
	code, _, _ := driverError(err)
	switch h.engine {
	case store.Postgres:
		if code != "25006" {
			t.Errorf("CreateParticipant in View = %v, want read_only_sql_transaction (25006)", err)
		}
	case store.SQLite:
		if c, _ := strconv.Atoi(code); c&0xff != sqlite3.SQLITE_READONLY {
			t.Errorf("CreateParticipant in View = %v, want SQLITE_READONLY", err)
		}
	}
	err = readErr(t, h.db, func(ctx context.Context, tx *store.Tx) error {
		_, err := tx.Participant(ctx, q.ID)
		return err
	})
	if !errors.Is(err, venue.ErrNotFound) {
		t.Errorf("Participant(%s) after a write in View = %v, want not found", q.ID, err)
	}
}

// testRetries runs read-modify-write transactions from many goroutines: on
// PostgreSQL they fail with serialization errors and InTx must retry them
// until each has run once on a consistent snapshot; SQLite serialises them.
func sum(xs []int) (n int) {
	for _, x := range xs {
		n += x
	}
	return n
}

func testRetries(t *testing.T, h *harness) {
	const goroutines, perGoroutine = 16, 20
	const n = goroutines * perGoroutine

	tests := []struct {
		name string
		// setup returns the transaction each goroutine repeats and the
		// check of the final state.
		setup func(t *testing.T) (step func(ctx context.Context, tx *store.Tx) error, check func(t *testing.T))
	}{
		{"risk limit value += 1", func(t *testing.T) (func(context.Context, *store.Tx) error, func(*testing.T)) {
			p := seedParticipant(t, h.db)
			l := venue.RiskLimit{ID: newID(t), ParticipantID: p.ID, Name: venue.LimitAllOfferSum, Value: dec("0.125"), CreatedAt: t0, UpdatedAt: t0}
			write(t, h.db, func(ctx context.Context, tx *store.Tx) error { _, err := tx.UpsertRiskLimit(ctx, &l); return err })
			step := func(ctx context.Context, tx *store.Tx) error {
				ls, err := tx.RiskLimits(ctx, p.ID)
				if err != nil {
					return err
				}
				next := ls[0]
				next.Value, next.UpdatedAt = next.Value.Add(udecimal.One), tx.Now()
				_, err = tx.UpsertRiskLimit(ctx, &next)
				return err
			}
			check := func(t *testing.T) {
				ls := read(t, h.db, func(ctx context.Context, tx *store.Tx) ([]venue.RiskLimit, error) { return tx.RiskLimits(ctx, p.ID) })
				if want := fmt.Sprintf("%d.125", n); len(ls) != 1 || ls[0].Value.String() != want {
					t.Errorf("RiskLimits(%s) = %v, want one limit of value %s", p.ID, ls, want)
				}
			}
			return step, check
		}},
		{"news numbered by count", func(t *testing.T) (func(context.Context, *store.Tx) error, func(*testing.T)) {
			// Each transaction reads the newest item in a window and adds
			// one numbered one higher: a lost update (a phantom the reader
			// missed) shows up as a repeated number.
			from, to := at(-20_000), at(-19_000)
			page := store.Page{From: &from, To: &to}
			step := func(ctx context.Context, tx *store.Tx) error {
				ns, _, err := tx.News(ctx, store.Page{Limit: 1, From: page.From, To: page.To})
				if err != nil {
					return err
				}
				last := 0
				if len(ns) > 0 {
					if last, err = strconv.Atoi(ns[0].Title); err != nil {
						return err
					}
				}
				item := newNews(t, from)
				item.Title = strconv.Itoa(last + 1)
				return tx.CreateNews(ctx, &item)
			}
			check := func(t *testing.T) {
				ns := list(t, h.db, func(ctx context.Context, tx *store.Tx) ([]venue.News, string, error) { return tx.News(ctx, page) })
				seen := map[string]int{}
				for _, item := range ns {
					seen[item.Title]++
				}
				if len(ns) != n {
					t.Errorf("News(window) = %d items, want %d", len(ns), n)
				}
				for i := 1; i <= n; i++ {
					if c := seen[strconv.Itoa(i)]; c != 1 {
						t.Errorf("news item %d written %d times, want once", i, c)
					}
				}
			}
			return step, check
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := t.Context()
			step, check := tt.setup(t)
			errs := make([]error, n)
			attempts := make([]int, n)
			var wg sync.WaitGroup
			for g := range goroutines {
				wg.Go(func() {
					for i := range perGoroutine {
						k := g*perGoroutine + i
						errs[k] = h.db.InTx(ctx, func(tx *store.Tx) error {
							attempts[k]++
							return step(ctx, tx)
						})
					}
				})
			}
			wg.Wait()
			failed := 0
			for _, err := range errs {
				if err != nil {
					if failed == 0 {
						t.Errorf("InTx() = %v, want nil (conflicts retried)", err)
					}
					failed++
				}
			}
			if failed > 0 {
				t.Errorf("%d of %d transactions failed", failed, n)
			}
			check(t)
			t.Logf("%d transactions in %d attempts, at most %d for one", n, sum(attempts), slices.Max(attempts))
		})
	}
}

// TestExclusiveDataDir: a SQLite data directory held by one serve refuses
// a second one with a clear message, and is free again once closed; the
// administration commands (not exclusive) still open it.
func TestExclusiveDataDir(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	first, err := store.Open(ctx, store.Config{DataDir: dir, Exclusive: true})
	if err != nil {
		t.Fatal(err)
	}
	_, err = store.Open(ctx, store.Config{DataDir: dir, Exclusive: true})
	var locked store.ErrDirLocked
	if !errors.As(err, &locked) || !strings.Contains(err.Error(), "in use by another bondvenue serve") {
		t.Fatalf("second exclusive open: %v", err)
	}
	admin, err := store.Open(ctx, store.Config{DataDir: dir})
	if err != nil {
		t.Fatalf("a non-exclusive open beside it: %v", err)
	}
	admin.Close()
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	again, err := store.Open(ctx, store.Config{DataDir: dir, Exclusive: true})
	if err != nil {
		t.Fatalf("after the first closed: %v", err)
	}
	again.Close()
}
