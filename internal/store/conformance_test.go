package store_test

// The storage conformance suite: every test here runs on embedded SQLite and
// on PostgreSQL through testenv, so the one SQL layer behaves the same on
// both engines.

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/uuid"
	"github.com/quagmt/udecimal"

	"github.com/bondvenue/bondvenue/internal/store"
	"github.com/bondvenue/bondvenue/internal/testenv"
	"github.com/bondvenue/bondvenue/internal/venue"
)

// conformance lists the suite. Every case gets the same migrated database
// of its engine (creating a PostgreSQL database per case would dominate the
// run time), so a case must not depend on another case's rows: it scopes its
// reads to the records it created.
var conformance = []struct {
	name string
	fn   func(t *testing.T, h *harness)
}{
	{"Migrate", testMigrate},
	{"Participants", testParticipants},
	{"Accounts", testAccounts},
	{"Users", testUsers},
	{"Credentials", testCredentials},
	{"TokenPrincipal", testTokenPrincipal},
	{"Counterparties", testCounterparties},
	{"RiskLimits", testRiskLimits},
	{"Markets", testMarkets},
	{"Instruments", testInstruments},
	{"Buckets", testBuckets},
	{"SettlementProviders", testSettlementProviders},
	{"News", testNews},
	{"Times", testTimes},
	{"Errors", testErrors},
	{"InTx", testInTx},
	{"View", testView},
	{"Retries", testRetries},
	{"EventSequence", testEventSequence},
	{"EventVisibility", testEventVisibility},
	{"Pagination", testPagination},
	{"ByID", testByID},
}

func TestConformance(t *testing.T) {
	testenv.ForEach(t, func(t *testing.T, e store.Engine) {
		t.Parallel()
		h := openHarness(t, e)
		for _, c := range conformance {
			t.Run(c.name, func(t *testing.T) { c.fn(t, h) })
		}
	})
}

// harness is one migrated database of one engine, with a raw connection to
// the same database for the few checks the store's API cannot express.
type harness struct {
	engine store.Engine
	db     *store.DB
	raw    *sql.DB
}

// openHarness opens a fresh, migrated database as testenv.Open does, keeping
// the address so the test can look at the rows directly.
func openHarness(t *testing.T, e store.Engine) *harness {
	t.Helper()
	url, dir := testenv.DatabaseURL(t, e), t.TempDir()
	db, err := store.Open(t.Context(), store.Config{URL: url, DataDir: dir})
	if err != nil {
		t.Fatalf("store.Open(%s) = %v", e, err)
	}
	t.Cleanup(func() { db.Close() })
	if _, err := db.Migrate(t.Context()); err != nil {
		t.Fatalf("Migrate(%s) = %v", e, err)
	}
	var raw *sql.DB
	if e == store.Postgres {
		raw, err = sql.Open("pgx", url)
	} else {
		raw, err = sql.Open("sqlite", "file:"+filepath.Join(dir, "bondvenue.db")+"?_pragma=query_only(1)&_pragma=busy_timeout(10000)")
	}
	if err != nil {
		t.Fatalf("open raw %s connection: %v", e, err)
	}
	t.Cleanup(func() { raw.Close() })
	return &harness{engine: e, db: db, raw: raw}
}

// count runs a COUNT query on the raw connection. query must not take
// arguments from outside the test.
func (h *harness) count(t *testing.T, query string) int {
	t.Helper()
	var n int
	if err := h.raw.QueryRowContext(t.Context(), query).Scan(&n); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return n
}

// write runs fn in a transaction that must commit.
func write(t testing.TB, db *store.DB, fn func(ctx context.Context, tx *store.Tx) error) {
	t.Helper()
	ctx := t.Context()
	if err := db.InTx(ctx, func(tx *store.Tx) error { return fn(ctx, tx) }); err != nil {
		t.Fatalf("InTx = %v, want nil", err)
	}
}

// read returns what fn reads in a View that must succeed.
func read[T any](t *testing.T, db *store.DB, fn func(ctx context.Context, tx *store.Tx) (T, error)) T {
	t.Helper()
	ctx := t.Context()
	var v T
	err := db.View(ctx, func(tx *store.Tx) error {
		var err error
		v, err = fn(ctx, tx)
		return err
	})
	if err != nil {
		t.Fatalf("View = %v, want nil", err)
	}
	return v
}

// readErr returns the error of a read that must fail.
func readErr(t *testing.T, db *store.DB, fn func(ctx context.Context, tx *store.Tx) error) error {
	t.Helper()
	ctx := t.Context()
	return db.View(ctx, func(tx *store.Tx) error { return fn(ctx, tx) })
}

// list is the shape of every paged list method.
func list[T any](t *testing.T, db *store.DB, fn func(ctx context.Context, tx *store.Tx) ([]T, string, error)) []T {
	t.Helper()
	ctx := t.Context()
	var v []T
	err := db.View(ctx, func(tx *store.Tx) error {
		var err error
		v, _, err = fn(ctx, tx)
		return err
	})
	if err != nil {
		t.Fatalf("View = %v, want nil", err)
	}
	return v
}

// cmpOpts compare decimals by their exact text, not by udecimal's notion
// of equality.
var cmpOpts = []cmp.Option{
	cmp.Comparer(func(a, b udecimal.Decimal) bool { return a.String() == b.String() }),
}

func diff(want, got any) string { return cmp.Diff(want, got, cmpOpts...) }

// t0 is the suite's reference instant, with milliseconds.
var t0 = time.Date(2026, 11, 20, 14, 48, 0, 123_000_000, time.UTC)

// at returns t0 plus i minutes.
func at(i int) time.Time { return t0.Add(time.Duration(i) * time.Minute) }

func ptr[T any](v T) *T { return &v }

var serial atomic.Int64

// next returns a number unique in the test binary, for unique keys.
func next() int64 { return serial.Add(1) }

// newID returns a UUIDv7: ids made one after another sort in creation
// order.
func newID(t testing.TB) string {
	t.Helper()
	id, err := uuid.NewV7()
	if err != nil {
		t.Fatalf("uuid.NewV7() = %v", err)
	}
	return id.String()
}

func randomHex(t testing.TB) string {
	t.Helper()
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(b)
}

func dec(s string) udecimal.Decimal { return udecimal.MustParse(s) }

func newParticipant(t testing.TB, created time.Time) venue.Participant {
	n := next()
	return venue.Participant{
		ID:                            newID(t),
		LEI:                           fmt.Sprintf("529900%012dQ7", n),
		Type:                          "bank",
		CategoryName:                  "Credit institution",
		Name:                          fmt.Sprintf("Nordbank %d AG", n),
		Address:                       "Neue Mainzer Straße 52",
		PostalCode:                    "60311",
		City:                          "Frankfurt am Main",
		State:                         "Hessen",
		Country:                       "DE",
		LegalForm:                     "AG",
		RegistrationNumber:            fmt.Sprintf("HRB %d", 10000+n),
		TaxNumber:                     "DE129273380",
		Status:                        "active",
		KYCStatus:                     "approved",
		CSD:                           "Clearstream Banking Frankfurt",
		CSDBIC11:                      "DAKVDEFFXXX",
		CustodyAccountNumber:          fmt.Sprintf("7%06d", n),
		CustodyAccountBeneficiaryBIC8: "NOLADE2H",
		CreatedAt:                     created,
		UpdatedAt:                     created.Add(time.Second),
	}
}

func newAccount(t testing.TB, participantID string, created time.Time) venue.Account {
	return venue.Account{
		ID:            newID(t),
		ParticipantID: participantID,
		Number:        fmt.Sprintf("ACC-%06d", next()),
		Status:        "active",
		Type:          "trading",
		CreatedAt:     created,
		UpdatedAt:     created,
	}
}

func newUser(t testing.TB, participantID string, role venue.Role, created time.Time) venue.User {
	return venue.User{
		ID:                   newID(t),
		ParticipantID:        participantID,
		Email:                fmt.Sprintf("trader%d@nordbank.example", next()),
		Role:                 role,
		IsEmailVerified:      true,
		IdentificationStatus: "verified",
		IsLoginTwoFAEnabled:  true,
		Status:               "active",
		Locale:               "de-DE",
		CreatedAt:            created,
		UpdatedAt:            created,
	}
}

func newMarket(t testing.TB, created time.Time) venue.Market {
	return venue.Market{
		ID:                   newID(t),
		Name:                 fmt.Sprintf("Continuous %d", next()),
		Type:                 "secondary",
		FacilityType:         venue.FacilityContinuous,
		Timezone:             "Europe/Berlin",
		IsEnabled:            true,
		IsPartialFillAllowed: true,
		SettlementLag:        2,
		Calendar:             "TARGET2",
		PriceCollarPercent:   udecimal.MustParse("7.5"),
		MaxPricePercent:      udecimal.MustParse("150"),
		CreatedAt:            created,
		UpdatedAt:            created,
	}
}

func newInstrument(t testing.TB, created time.Time, marketIDs ...string) venue.Instrument {
	n := next()
	return venue.Instrument{
		ID:      newID(t),
		Enabled: true,
		Terms: venue.InstrumentTerms{
			Name:                fmt.Sprintf("KfW 2.75%% 2033/%d", n),
			Type:                "Bond",
			State:               "active",
			Industry:            "Agency",
			ISIN:                fmt.Sprintf("DE000%07d", n),
			CountryRegion:       "DE",
			Rank:                "Senior Unsecured",
			Secured:             "Undisclosed",
			Coupon:              "2.75",
			CouponFrequency:     "Annual",
			DayCount:            "ACT/ACT ICMA",
			Maturity:            "2033-02-15",
			Currency:            "EUR",
			CouponType:          "Fixed",
			IssuePrice:          "99.687",
			AmtIssue:            "5000000000",
			Issuer:              "KfW",
			InterestAccrualDate: "2023-02-15",
			FirstCouponDate:     "2024-02-15",
			LEI:                 ptr("549300GDPG70E3MBBU98"),
		},
		Static: venue.StaticData{
			Ticker:             "KFW",
			FIGI:               "BBG01F5Q9JX3",
			SettlementDays:     "2",
			SettlementCalendar: "TARGET2",
			UnitTraded:         true,
			BVALEnabled:        true,
		},
		MinPiece:     dec("1000"),
		MinIncrement: dec("1000"),
		ParAmount:    dec("1000.00"),
		Precision:    3,
		MarketIDs:    marketIDs,
		CreatedAt:    created,
		UpdatedAt:    created,
	}
}

func newProvider(t testing.TB, participantID, accountID string, created time.Time) venue.SettlementProvider {
	return venue.SettlementProvider{
		ID:                   newID(t),
		ParticipantID:        participantID,
		AccountID:            accountID,
		Provider:             "Clearstream",
		Type:                 "ICSD",
		Enabled:              true,
		SwiatID:              "CEDELULLXXX",
		D7ID:                 "D7-42",
		PSET:                 "CEDELULL",
		AgentName:            "Clearstream Banking S.A.",
		AgentBIC:             "CEDELULLXXX",
		AgentNumber:          fmt.Sprintf("%05d", next()),
		LocalCode:            "LU",
		CSDBIC11:             "CEDELULLXXX",
		CustodyAccountNumber: "12345",
		BeneficiaryBIC8:      "NOLADE2H",
		BuyrSellName:         "Nordbank AG",
		BuyrSellBIC:          "NOLADE2HXXX",
		Safe:                 "CEDELULL",
		CreatedAt:            created,
		UpdatedAt:            created,
	}
}

func newNews(t testing.TB, created time.Time) venue.News {
	return venue.News{
		ID:          newID(t),
		Title:       fmt.Sprintf("ECB holds rates (%d)", next()),
		Body:        "The Governing Council kept the deposit facility rate at 2.00 %.",
		Source:      "ECB",
		URL:         "https://www.ecb.europa.eu/press/",
		PublishedAt: created.Add(-time.Hour),
		CreatedAt:   created,
		UpdatedAt:   created,
	}
}

// seedParticipant stores a new participant.
func seedParticipant(t *testing.T, db *store.DB) venue.Participant {
	t.Helper()
	p := newParticipant(t, t0)
	write(t, db, func(ctx context.Context, tx *store.Tx) error { return tx.CreateParticipant(ctx, &p) })
	return p
}

// seedUser stores a new participant with one user.
func seedUser(t *testing.T, db *store.DB, status string) venue.User {
	t.Helper()
	p := seedParticipant(t, db)
	u := newUser(t, p.ID, venue.RoleTrader, t0)
	u.Status = status
	write(t, db, func(ctx context.Context, tx *store.Tx) error { return tx.CreateUser(ctx, &u) })
	return u
}
