package store_test

import (
	"context"
	"testing"

	"github.com/bondvenue/bondvenue/internal/store"
	"github.com/bondvenue/bondvenue/internal/testenv"
	"github.com/bondvenue/bondvenue/internal/venue"
)

// TestListFilters checks that every filter field of the reference-data
// lists selects exactly the matching rows, alone and combined, on both
// engines. Each case scopes its list to records it created, so the cases
// share one database.
func TestListFilters(t *testing.T) {
	testenv.ForEach(t, func(t *testing.T, e store.Engine) {
		t.Parallel()
		h := openHarness(t, e)
		t.Run("accounts", func(t *testing.T) { testAccountFilter(t, h) })
		t.Run("users", func(t *testing.T) { testUserFilter(t, h) })
		t.Run("markets", func(t *testing.T) { testMarketFilter(t, h) })
		t.Run("buckets", func(t *testing.T) { testBucketFilter(t, h) })
		t.Run("instruments", func(t *testing.T) { testInstrumentBucketFilter(t, h) })
		t.Run("settlement providers", func(t *testing.T) { testProviderFilter(t, h) })
	})
}

// filterCase is one filter and the records (by name) it must select, newest
// first.
type filterCase[F any] struct {
	name string
	f    F
	want []string
}

// checkFilter lists with each case's filter and compares the ids with the
// named records'.
func checkFilter[F, T any](t *testing.T, db *store.DB, byName map[string]string, tests []filterCase[F],
	listFn func(ctx context.Context, tx *store.Tx, f F) ([]T, string, error), id func(T) string) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			items := list(t, db, func(ctx context.Context, tx *store.Tx) ([]T, string, error) { return listFn(ctx, tx, tt.f) })
			var got []string
			for _, it := range items {
				got = append(got, id(it))
			}
			var want []string
			for _, n := range tt.want {
				want = append(want, byName[n])
			}
			if d := diff(want, got); d != "" {
				t.Errorf("list(%+v) (-want +got):\n%s", tt.f, d)
			}
		})
	}
}

func testAccountFilter(t *testing.T, h *harness) {
	a, b := seedParticipant(t, h.db), seedParticipant(t, h.db)
	byName := map[string]string{}
	for i, acc := range []struct {
		name, owner, status, typ string
	}{
		{"a-agent", a.ID, "active", "agent"},
		{"a-principal-closed", a.ID, "closed", "principal"},
		{"b-agent", b.ID, "active", "agent"},
		{"b-omnibus", b.ID, "active", "omnibus"},
	} {
		r := newAccount(t, acc.owner, at(i))
		r.Status, r.Type = acc.status, acc.typ
		write(t, h.db, func(ctx context.Context, tx *store.Tx) error { return tx.CreateAccount(ctx, &r) })
		byName[acc.name] = r.ID
	}
	both := []string{a.ID, b.ID}
	checkFilter(t, h.db, byName, []filterCase[store.AccountFilter]{
		{"both participants", store.AccountFilter{ParticipantIDs: both}, []string{"b-omnibus", "b-agent", "a-principal-closed", "a-agent"}},
		{"one participant", store.AccountFilter{ParticipantIDs: []string{a.ID}}, []string{"a-principal-closed", "a-agent"}},
		{"no participant", store.AccountFilter{ParticipantIDs: []string{}}, nil},
		{"status", store.AccountFilter{ParticipantIDs: both, Status: "closed"}, []string{"a-principal-closed"}},
		{"type", store.AccountFilter{ParticipantIDs: both, Type: "agent"}, []string{"b-agent", "a-agent"}},
		{"participant, status and type", store.AccountFilter{ParticipantIDs: []string{b.ID}, Status: "active", Type: "omnibus"}, []string{"b-omnibus"}},
		{"nothing matches", store.AccountFilter{ParticipantIDs: both, Status: "closed", Type: "agent"}, nil},
	}, func(ctx context.Context, tx *store.Tx, f store.AccountFilter) ([]venue.Account, string, error) {
		return tx.Accounts(ctx, f, store.Page{})
	}, func(a venue.Account) string { return a.ID })
}

func testUserFilter(t *testing.T, h *harness) {
	p := seedParticipant(t, h.db)
	byName := map[string]string{}
	for i, u := range []struct {
		name   string
		role   venue.Role
		status string
	}{
		{"admin", venue.RoleAdmin, "active"},
		{"trader", venue.RoleTrader, "active"},
		{"trader-disabled", venue.RoleTrader, "disabled"},
		{"viewer", venue.RoleViewer, "active"},
	} {
		r := newUser(t, p.ID, u.role, at(i))
		r.Status = u.status
		write(t, h.db, func(ctx context.Context, tx *store.Tx) error { return tx.CreateUser(ctx, &r) })
		byName[u.name] = r.ID
	}
	checkFilter(t, h.db, byName, []filterCase[store.UserFilter]{
		{"participant", store.UserFilter{ParticipantID: p.ID}, []string{"viewer", "trader-disabled", "trader", "admin"}},
		{"role", store.UserFilter{ParticipantID: p.ID, Role: venue.RoleTrader}, []string{"trader-disabled", "trader"}},
		{"status", store.UserFilter{ParticipantID: p.ID, Status: "disabled"}, []string{"trader-disabled"}},
		{"role and status", store.UserFilter{ParticipantID: p.ID, Role: venue.RoleTrader, Status: "active"}, []string{"trader"}},
		{"nothing matches", store.UserFilter{ParticipantID: p.ID, Role: venue.RoleOperator}, nil},
	}, func(ctx context.Context, tx *store.Tx, f store.UserFilter) ([]venue.User, string, error) {
		return tx.Users(ctx, f, store.Page{})
	}, func(u venue.User) string { return u.ID })
}

func testMarketFilter(t *testing.T, h *harness) {
	byName := map[string]string{}
	var ids []string
	for i, m := range []struct {
		name, facility string
		enabled        bool
	}{
		{"otc", venue.FacilityOTC, true},
		{"continuous", venue.FacilityContinuous, true},
		{"continuous-disabled", venue.FacilityContinuous, false},
	} {
		r := newMarket(t, at(i))
		r.FacilityType, r.IsEnabled = m.facility, m.enabled
		write(t, h.db, func(ctx context.Context, tx *store.Tx) error { return tx.CreateMarket(ctx, &r) })
		byName[m.name] = r.ID
		ids = append(ids, r.ID)
	}
	// Markets are venue-wide: an instrument listed on these three scopes
	// the list to them.
	in := newInstrument(t, t0, ids...)
	write(t, h.db, func(ctx context.Context, tx *store.Tx) error { return tx.CreateInstrument(ctx, &in) })
	checkFilter(t, h.db, byName, []filterCase[store.MarketFilter]{
		{"instrument", store.MarketFilter{InstrumentID: in.ID}, []string{"continuous-disabled", "continuous", "otc"}},
		{"facility type", store.MarketFilter{InstrumentID: in.ID, FacilityType: venue.FacilityContinuous}, []string{"continuous-disabled", "continuous"}},
		{"enabled", store.MarketFilter{InstrumentID: in.ID, IsEnabled: ptr(true)}, []string{"continuous", "otc"}},
		{"disabled", store.MarketFilter{InstrumentID: in.ID, IsEnabled: ptr(false)}, []string{"continuous-disabled"}},
		{"facility type and enabled", store.MarketFilter{InstrumentID: in.ID, FacilityType: venue.FacilityOTC, IsEnabled: ptr(false)}, nil},
	}, func(ctx context.Context, tx *store.Tx, f store.MarketFilter) ([]venue.Market, string, error) {
		return tx.Markets(ctx, f, store.Page{})
	}, func(m venue.Market) string { return m.ID })
}

func testBucketFilter(t *testing.T, h *harness) {
	owner := seedParticipant(t, h.db)
	byName := map[string]string{}
	for i, b := range []struct {
		name    string
		enabled bool
	}{
		{"enabled", true},
		{"disabled", false},
	} {
		r := venue.Bucket{ID: newID(t), Name: b.name, Type: venue.BucketPrivate, ParticipantID: owner.ID,
			IsEnabled: b.enabled, CreatedAt: at(i), UpdatedAt: at(i)}
		write(t, h.db, func(ctx context.Context, tx *store.Tx) error { return tx.CreateBucket(ctx, &r) })
		byName[b.name] = r.ID
	}
	mine := store.BucketFilter{VisibleTo: owner.ID, Type: venue.BucketPrivate}
	enabled, disabled := mine, mine
	enabled.IsEnabled, disabled.IsEnabled = ptr(true), ptr(false)
	checkFilter(t, h.db, byName, []filterCase[store.BucketFilter]{
		{"any", mine, []string{"disabled", "enabled"}},
		{"enabled", enabled, []string{"enabled"}},
		{"disabled", disabled, []string{"disabled"}},
	}, func(ctx context.Context, tx *store.Tx, f store.BucketFilter) ([]venue.Bucket, string, error) {
		return tx.Buckets(ctx, f, store.Page{})
	}, func(b venue.Bucket) string { return b.ID })
}

func testInstrumentBucketFilter(t *testing.T, h *harness) {
	owner := seedParticipant(t, h.db)
	byName := map[string]string{}
	var all []string
	for i, name := range []string{"first", "second", "third"} {
		in := newInstrument(t, at(i))
		write(t, h.db, func(ctx context.Context, tx *store.Tx) error { return tx.CreateInstrument(ctx, &in) })
		byName[name] = in.ID
		all = append(all, in.ID)
	}
	b := venue.Bucket{ID: newID(t), Name: "Two of three", Type: venue.BucketPrivate, ParticipantID: owner.ID,
		IsEnabled: true, InstrumentIDs: []string{byName["third"], byName["first"]}, CreatedAt: t0, UpdatedAt: t0}
	empty := venue.Bucket{ID: newID(t), Name: "Empty", Type: venue.BucketPrivate, ParticipantID: owner.ID,
		IsEnabled: true, InstrumentIDs: []string{}, CreatedAt: t0, UpdatedAt: t0}
	write(t, h.db, func(ctx context.Context, tx *store.Tx) error {
		if err := tx.CreateBucket(ctx, &b); err != nil {
			return err
		}
		return tx.CreateBucket(ctx, &empty)
	})
	checkFilter(t, h.db, byName, []filterCase[store.InstrumentFilter]{
		{"ids only", store.InstrumentFilter{IDs: all}, []string{"third", "second", "first"}},
		{"bucket", store.InstrumentFilter{IDs: all, BucketID: b.ID}, []string{"third", "first"}},
		{"empty bucket", store.InstrumentFilter{IDs: all, BucketID: empty.ID}, nil},
		{"bucket and isin", store.InstrumentFilter{BucketID: b.ID, ISIN: "XS0000000000"}, nil},
	}, func(ctx context.Context, tx *store.Tx, f store.InstrumentFilter) ([]venue.Instrument, string, error) {
		return tx.Instruments(ctx, f, store.Page{})
	}, func(in venue.Instrument) string { return in.ID })
}

func testProviderFilter(t *testing.T, h *harness) {
	a, b := seedParticipant(t, h.db), seedParticipant(t, h.db)
	accA, accA2 := newAccount(t, a.ID, t0), newAccount(t, a.ID, t0)
	write(t, h.db, func(ctx context.Context, tx *store.Tx) error {
		if err := tx.CreateAccount(ctx, &accA); err != nil {
			return err
		}
		return tx.CreateAccount(ctx, &accA2)
	})
	byName := map[string]string{}
	for i, sp := range []struct {
		name, owner, account string
		enabled              bool
	}{
		{"a-firm", a.ID, "", true},
		{"a-account", a.ID, accA.ID, true},
		{"a-account-disabled", a.ID, accA.ID, false},
		{"a-other-account", a.ID, accA2.ID, true},
		{"b-firm", b.ID, "", true},
	} {
		r := newProvider(t, sp.owner, sp.account, at(i))
		r.Enabled = sp.enabled
		write(t, h.db, func(ctx context.Context, tx *store.Tx) error { return tx.CreateSettlementProvider(ctx, &r) })
		byName[sp.name] = r.ID
	}
	checkFilter(t, h.db, byName, []filterCase[store.SettlementProviderFilter]{
		{"participant", store.SettlementProviderFilter{ParticipantID: a.ID}, []string{"a-other-account", "a-account-disabled", "a-account", "a-firm"}},
		{"account", store.SettlementProviderFilter{AccountID: accA.ID}, []string{"a-account-disabled", "a-account"}},
		{"enabled", store.SettlementProviderFilter{ParticipantID: a.ID, Enabled: ptr(true)}, []string{"a-other-account", "a-account", "a-firm"}},
		{"disabled", store.SettlementProviderFilter{ParticipantID: a.ID, Enabled: ptr(false)}, []string{"a-account-disabled"}},
		{"account and enabled", store.SettlementProviderFilter{ParticipantID: a.ID, AccountID: accA.ID, Enabled: ptr(true)}, []string{"a-account"}},
		{"another firm's account", store.SettlementProviderFilter{ParticipantID: b.ID, AccountID: accA.ID}, nil},
	}, func(ctx context.Context, tx *store.Tx, f store.SettlementProviderFilter) ([]venue.SettlementProvider, string, error) {
		return tx.SettlementProviders(ctx, f, store.Page{})
	}, func(s venue.SettlementProvider) string { return s.ID })
}
