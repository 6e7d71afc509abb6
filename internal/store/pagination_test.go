package store_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/bondvenue/bondvenue/internal/store"
	"github.com/bondvenue/bondvenue/internal/testenv"
	"github.com/bondvenue/bondvenue/internal/venue"
)

// lister lists the ids of one page of records.
type lister func(ctx context.Context, tx *store.Tx, p store.Page) (ids []string, next string, err error)

// idsOf adapts a list method's results to a lister's.
func idsOf[T any](items []T, next string, err error, id func(T) string) ([]string, string, error) {
	var ids []string
	for _, it := range items {
		ids = append(ids, id(it))
	}
	return ids, next, err
}

// pagedLists are the paged list methods. seed stores records created at
// the given instants, in order, and returns their ids and a lister that
// sees only them.
var pagedLists = []struct {
	name string
	seed func(t *testing.T, db *store.DB, created []time.Time) ([]string, lister)
}{
	{"participants", func(t *testing.T, db *store.DB, created []time.Time) ([]string, lister) {
		var ids []string
		for _, c := range created {
			p := newParticipant(t, c)
			write(t, db, func(ctx context.Context, tx *store.Tx) error { return tx.CreateParticipant(ctx, &p) })
			ids = append(ids, p.ID)
		}
		return ids, func(ctx context.Context, tx *store.Tx, p store.Page) ([]string, string, error) {
			ps, next, err := tx.Participants(ctx, ids, p)
			return idsOf(ps, next, err, func(p venue.Participant) string { return p.ID })
		}
	}},
	{"accounts", func(t *testing.T, db *store.DB, created []time.Time) ([]string, lister) {
		owner := seedParticipant(t, db)
		var ids []string
		for _, c := range created {
			a := newAccount(t, owner.ID, c)
			write(t, db, func(ctx context.Context, tx *store.Tx) error { return tx.CreateAccount(ctx, &a) })
			ids = append(ids, a.ID)
		}
		return ids, func(ctx context.Context, tx *store.Tx, p store.Page) ([]string, string, error) {
			as, next, err := tx.Accounts(ctx, store.AccountFilter{ParticipantIDs: []string{owner.ID}}, p)
			return idsOf(as, next, err, func(a venue.Account) string { return a.ID })
		}
	}},
	{"users", func(t *testing.T, db *store.DB, created []time.Time) ([]string, lister) {
		owner := seedParticipant(t, db)
		var ids []string
		for _, c := range created {
			u := newUser(t, owner.ID, venue.RoleViewer, c)
			write(t, db, func(ctx context.Context, tx *store.Tx) error { return tx.CreateUser(ctx, &u) })
			ids = append(ids, u.ID)
		}
		return ids, func(ctx context.Context, tx *store.Tx, p store.Page) ([]string, string, error) {
			us, next, err := tx.Users(ctx, store.UserFilter{ParticipantID: owner.ID}, p)
			return idsOf(us, next, err, func(u venue.User) string { return u.ID })
		}
	}},
	{"markets", func(t *testing.T, db *store.DB, created []time.Time) ([]string, lister) {
		var ids []string
		for _, c := range created {
			m := newMarket(t, c)
			write(t, db, func(ctx context.Context, tx *store.Tx) error { return tx.CreateMarket(ctx, &m) })
			ids = append(ids, m.ID)
		}
		in := newInstrument(t, t0, ids...)
		write(t, db, func(ctx context.Context, tx *store.Tx) error { return tx.CreateInstrument(ctx, &in) })
		return ids, func(ctx context.Context, tx *store.Tx, p store.Page) ([]string, string, error) {
			ms, next, err := tx.Markets(ctx, store.MarketFilter{InstrumentID: in.ID}, p)
			return idsOf(ms, next, err, func(m venue.Market) string { return m.ID })
		}
	}},
	{"instruments", func(t *testing.T, db *store.DB, created []time.Time) ([]string, lister) {
		m := newMarket(t, t0)
		write(t, db, func(ctx context.Context, tx *store.Tx) error { return tx.CreateMarket(ctx, &m) })
		var ids []string
		for _, c := range created {
			in := newInstrument(t, c, m.ID)
			write(t, db, func(ctx context.Context, tx *store.Tx) error { return tx.CreateInstrument(ctx, &in) })
			ids = append(ids, in.ID)
		}
		return ids, func(ctx context.Context, tx *store.Tx, p store.Page) ([]string, string, error) {
			ins, next, err := tx.Instruments(ctx, store.InstrumentFilter{MarketID: m.ID}, p)
			return idsOf(ins, next, err, func(in venue.Instrument) string { return in.ID })
		}
	}},
	{"buckets", func(t *testing.T, db *store.DB, created []time.Time) ([]string, lister) {
		owner := seedParticipant(t, db)
		var ids []string
		for _, c := range created {
			b := venue.Bucket{ID: newID(t), Name: "Watchlist", Type: venue.BucketPrivate, ParticipantID: owner.ID, CreatedAt: c, UpdatedAt: c}
			write(t, db, func(ctx context.Context, tx *store.Tx) error { return tx.CreateBucket(ctx, &b) })
			ids = append(ids, b.ID)
		}
		return ids, func(ctx context.Context, tx *store.Tx, p store.Page) ([]string, string, error) {
			bs, next, err := tx.Buckets(ctx, store.BucketFilter{VisibleTo: owner.ID, Type: venue.BucketPrivate}, p)
			return idsOf(bs, next, err, func(b venue.Bucket) string { return b.ID })
		}
	}},
	{"settlement providers", func(t *testing.T, db *store.DB, created []time.Time) ([]string, lister) {
		owner := seedParticipant(t, db)
		var ids []string
		for _, c := range created {
			s := newProvider(t, owner.ID, "", c)
			write(t, db, func(ctx context.Context, tx *store.Tx) error { return tx.CreateSettlementProvider(ctx, &s) })
			ids = append(ids, s.ID)
		}
		return ids, func(ctx context.Context, tx *store.Tx, p store.Page) ([]string, string, error) {
			ss, next, err := tx.SettlementProviders(ctx, store.SettlementProviderFilter{ParticipantID: owner.ID}, p)
			return idsOf(ss, next, err, func(s venue.SettlementProvider) string { return s.ID })
		}
	}},
	{"credentials", func(t *testing.T, db *store.DB, created []time.Time) ([]string, lister) {
		// Client ids are random: the order is by creation, not by id.
		u := seedUser(t, db, "active")
		var ids []string
		for _, c := range created {
			cr := venue.Credential{ClientID: "cl_" + randomHex(t), UserID: u.ID, SecretHash: randomHex(t), CreatedAt: c}
			write(t, db, func(ctx context.Context, tx *store.Tx) error { return tx.CreateCredential(ctx, &cr) })
			ids = append(ids, cr.ClientID)
		}
		return ids, func(ctx context.Context, tx *store.Tx, p store.Page) ([]string, string, error) {
			cs, next, err := tx.Credentials(ctx, u.ID, p)
			return idsOf(cs, next, err, func(c venue.Credential) string { return c.ClientID })
		}
	}},
	{"news", func(t *testing.T, db *store.DB, created []time.Time) ([]string, lister) {
		// The news list has no filter: this relies on the pagination
		// database holding no other news.
		var ids []string
		for _, c := range created {
			n := newNews(t, c)
			write(t, db, func(ctx context.Context, tx *store.Tx) error { return tx.CreateNews(ctx, &n) })
			ids = append(ids, n.ID)
		}
		return ids, func(ctx context.Context, tx *store.Tx, p store.Page) ([]string, string, error) {
			ns, next, err := tx.News(ctx, p)
			return idsOf(ns, next, err, func(n venue.News) string { return n.ID })
		}
	}},
}

// walk follows the cursors from p to the last page.
func walk(t *testing.T, db *store.DB, list lister, p store.Page, maxPages int) (pages [][]string, cursors []string) {
	t.Helper()
	for {
		var ids []string
		var next string
		err := db.View(t.Context(), func(tx *store.Tx) error {
			var err error
			ids, next, err = list(t.Context(), tx, p)
			return err
		})
		if err != nil {
			t.Fatalf("list(%+v) = %v", p, err)
		}
		pages, cursors = append(pages, ids), append(cursors, next)
		if next == "" {
			return pages, cursors
		}
		if len(pages) == maxPages {
			t.Fatalf("list still returns a cursor after %d pages", maxPages)
		}
		p.Cursor = next
	}
}

func testPagination(t *testing.T, h *harness) {
	// A database of its own: the news list cannot be scoped.
	db := testenv.Open(t, h.engine)
	const n = 7
	created := make([]time.Time, n)
	for i := range created {
		created[i] = at(i)
	}
	newest := func(ids []string, idx ...int) []string { // ids at idx, newest first
		var out []string
		for _, i := range slices.Backward(idx) {
			out = append(out, ids[i])
		}
		return out
	}
	all := []int{0, 1, 2, 3, 4, 5, 6}
	between := func(from, to *time.Time) *time.Time { return ptr(from.Add(to.Sub(*from) / 2)) }

	for _, pl := range pagedLists {
		t.Run(pl.name, func(t *testing.T) {
			ids, list := pl.seed(t, db, created)
			tests := []struct {
				name string
				page store.Page
				want []int // indexes into ids, oldest first
			}{
				{"no limit", store.Page{}, all},
				{"limit 1", store.Page{Limit: 1}, all},
				{"limit 2", store.Page{Limit: 2}, all},
				{"limit 3", store.Page{Limit: 3}, all},
				{"limit one short", store.Page{Limit: n - 1}, all},
				{"limit exact", store.Page{Limit: n}, all},
				{"limit above", store.Page{Limit: n + 1}, all},
				{"from inclusive", store.Page{Limit: 2, From: &created[2]}, []int{2, 3, 4, 5, 6}},
				{"to exclusive", store.Page{Limit: 2, To: &created[5]}, []int{0, 1, 2, 3, 4}},
				{"from and to", store.Page{Limit: 2, From: &created[2], To: &created[5]}, []int{2, 3, 4}},
				{"between rows", store.Page{From: between(&created[1], &created[2]), To: between(&created[4], &created[5])}, []int{2, 3, 4}},
				{"empty range", store.Page{Limit: 2, From: &created[3], To: &created[3]}, nil},
				{"before the first", store.Page{To: &created[0]}, nil},
			}
			for _, tt := range tests {
				t.Run(tt.name, func(t *testing.T) {
					pages, cursors := walk(t, db, list, tt.page, n+1)
					var got []string
					for i, page := range pages {
						got = append(got, page...)
						if tt.page.Limit > 0 && len(page) > tt.page.Limit {
							t.Errorf("page %d has %d rows, want at most %d", i, len(page), tt.page.Limit)
						}
						if last := i == len(pages)-1; !last && cursors[i] != page[len(page)-1] {
							t.Errorf("page %d cursor = %q, want its last id %q", i, cursors[i], page[len(page)-1])
						}
					}
					if d := diff(newest(ids, tt.want...), got); d != "" {
						t.Errorf("walk(%+v) (-want +got):\n%s", tt.page, d)
					}
					wantPages := 1
					if tt.page.Limit > 0 && len(tt.want) > 0 {
						wantPages = (len(tt.want) + tt.page.Limit - 1) / tt.page.Limit
					}
					if len(pages) != wantPages {
						t.Errorf("walk(%+v) took %d pages, want %d (no empty last page)", tt.page, len(pages), wantPages)
					}
				})
			}
		})
	}
}
