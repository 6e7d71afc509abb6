package store_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/bondvenue/bondvenue/internal/store"
	"github.com/bondvenue/bondvenue/internal/venue"
)

// Round trips: every record type comes back from get and list exactly as
// it was written.

func testParticipants(t *testing.T, h *harness) {
	withDefault := newParticipant(t, at(1))
	withDefault.DefaultSettlementProviderID = newID(t)
	withoutDefault := newParticipant(t, at(2))

	tests := []struct {
		name string
		p    venue.Participant
	}{
		{"with default settlement provider", withDefault},
		{"without default settlement provider", withoutDefault},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			write(t, h.db, func(ctx context.Context, tx *store.Tx) error { return tx.CreateParticipant(ctx, &tt.p) })
			got := read(t, h.db, func(ctx context.Context, tx *store.Tx) (venue.Participant, error) {
				return tx.Participant(ctx, tt.p.ID)
			})
			if d := diff(tt.p, got); d != "" {
				t.Errorf("Participant(%s) (-want +got):\n%s", tt.p.ID, d)
			}
		})
	}

	t.Run("list", func(t *testing.T) {
		ids := []string{withDefault.ID, withoutDefault.ID}
		got := list(t, h.db, func(ctx context.Context, tx *store.Tx) ([]venue.Participant, string, error) {
			return tx.Participants(ctx, ids, store.Page{})
		})
		if d := diff([]venue.Participant{withoutDefault, withDefault}, got); d != "" {
			t.Errorf("Participants(%v) (-want +got):\n%s", ids, d)
		}
		got = list(t, h.db, func(ctx context.Context, tx *store.Tx) ([]venue.Participant, string, error) {
			return tx.Participants(ctx, []string{}, store.Page{})
		})
		if len(got) != 0 {
			t.Errorf("Participants(empty id set) = %d participants, want none", len(got))
		}
	})

	t.Run("update", func(t *testing.T) {
		upd := withDefault
		upd.Name, upd.Status, upd.City = "Nordbank Zentrale AG", "suspended", "Hamburg"
		upd.DefaultSettlementProviderID = "" // cleared back to NULL
		upd.CreatedAt = at(50)               // ignored: created_at never changes
		upd.UpdatedAt = at(51)
		write(t, h.db, func(ctx context.Context, tx *store.Tx) error { return tx.UpdateParticipant(ctx, &upd) })
		got := read(t, h.db, func(ctx context.Context, tx *store.Tx) (venue.Participant, error) {
			return tx.Participant(ctx, upd.ID)
		})
		want := upd
		want.CreatedAt = withDefault.CreatedAt
		if d := diff(want, got); d != "" {
			t.Errorf("Participant(%s) after update (-want +got):\n%s", upd.ID, d)
		}
	})
}

func testAccounts(t *testing.T, h *harness) {
	p := seedParticipant(t, h.db)
	plain := newAccount(t, p.ID, at(1))
	withDefault := newAccount(t, p.ID, at(2))
	withDefault.DefaultSettlementProviderID = newID(t)

	tests := []struct {
		name string
		a    venue.Account
	}{
		{"without default settlement provider", plain},
		{"with default settlement provider", withDefault},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			write(t, h.db, func(ctx context.Context, tx *store.Tx) error { return tx.CreateAccount(ctx, &tt.a) })
			got := read(t, h.db, func(ctx context.Context, tx *store.Tx) (venue.Account, error) {
				return tx.Account(ctx, tt.a.ID)
			})
			if d := diff(tt.a, got); d != "" {
				t.Errorf("Account(%s) (-want +got):\n%s", tt.a.ID, d)
			}
		})
	}

	got := list(t, h.db, func(ctx context.Context, tx *store.Tx) ([]venue.Account, string, error) {
		return tx.Accounts(ctx, store.AccountFilter{ParticipantIDs: []string{p.ID}}, store.Page{})
	})
	if d := diff([]venue.Account{withDefault, plain}, got); d != "" {
		t.Errorf("Accounts(%s) (-want +got):\n%s", p.ID, d)
	}
}

func testUsers(t *testing.T, h *harness) {
	p := seedParticipant(t, h.db)
	operator := newUser(t, "", venue.RoleOperator, at(1))
	operator.IsLoginTwoFAEnabled, operator.IsEmailVerified = false, false
	trader := newUser(t, p.ID, venue.RoleTrader, at(2))
	trader.TermsConditionsSigned = true
	trader.TermsConditionsSignedAt = ptr(at(3))
	trader.LastActive = ptr(at(4))

	operatorsBefore := read(t, h.db, func(ctx context.Context, tx *store.Tx) (int, error) { return tx.CountOperators(ctx) })

	tests := []struct {
		name string
		u    venue.User
	}{
		{"operator without participant and timestamps", operator},
		{"participant user with timestamps", trader},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			write(t, h.db, func(ctx context.Context, tx *store.Tx) error { return tx.CreateUser(ctx, &tt.u) })
			got := read(t, h.db, func(ctx context.Context, tx *store.Tx) (venue.User, error) { return tx.User(ctx, tt.u.ID) })
			if d := diff(tt.u, got); d != "" {
				t.Errorf("User(%s) (-want +got):\n%s", tt.u.ID, d)
			}
		})
	}

	t.Run("list", func(t *testing.T) {
		got := list(t, h.db, func(ctx context.Context, tx *store.Tx) ([]venue.User, string, error) {
			return tx.Users(ctx, store.UserFilter{ParticipantID: p.ID}, store.Page{})
		})
		if d := diff([]venue.User{trader}, got); d != "" {
			t.Errorf("Users(%s) (-want +got):\n%s", p.ID, d)
		}
		n := read(t, h.db, func(ctx context.Context, tx *store.Tx) (int, error) { return tx.CountOperators(ctx) })
		if n != operatorsBefore+1 {
			t.Errorf("CountOperators() = %d, want %d", n, operatorsBefore+1)
		}
	})

	t.Run("update and touch", func(t *testing.T) {
		upd := trader
		upd.Email, upd.Role, upd.Status, upd.Locale = "desk@nordbank.example", venue.RoleViewer, "disabled", "en-GB"
		upd.UpdatedAt = at(9)
		var now time.Time
		write(t, h.db, func(ctx context.Context, tx *store.Tx) error {
			now = tx.Now()
			if err := tx.UpdateUser(ctx, &upd); err != nil {
				return err
			}
			return tx.TouchUser(ctx, upd.ID)
		})
		got := read(t, h.db, func(ctx context.Context, tx *store.Tx) (venue.User, error) { return tx.User(ctx, upd.ID) })
		want := upd
		want.LastActive = &now
		if d := diff(want, got); d != "" {
			t.Errorf("User(%s) after update (-want +got):\n%s", upd.ID, d)
		}
	})
}

func testCredentials(t *testing.T, h *harness) {
	u := seedUser(t, h.db, "active")
	active := venue.Credential{ClientID: "cl_" + randomHex(t), UserID: u.ID, SecretHash: "$argon2id$" + randomHex(t), CreatedAt: at(1)}
	revoked := venue.Credential{ClientID: "cl_" + randomHex(t), UserID: u.ID, SecretHash: "$argon2id$" + randomHex(t),
		CreatedAt: at(2), RevokedAt: ptr(at(3))}

	for _, c := range []venue.Credential{active, revoked} {
		write(t, h.db, func(ctx context.Context, tx *store.Tx) error { return tx.CreateCredential(ctx, &c) })
		got := read(t, h.db, func(ctx context.Context, tx *store.Tx) (venue.Credential, error) {
			return tx.Credential(ctx, c.ClientID)
		})
		if d := diff(c, got); d != "" {
			t.Errorf("Credential(%s) (-want +got):\n%s", c.ClientID, d)
		}
	}

	got := list(t, h.db, func(ctx context.Context, tx *store.Tx) ([]venue.Credential, string, error) {
		return tx.Credentials(ctx, u.ID, store.Page{})
	})
	if d := diff([]venue.Credential{revoked, active}, got); d != "" {
		t.Errorf("Credentials(%s) (-want +got):\n%s", u.ID, d)
	}

	var now time.Time
	write(t, h.db, func(ctx context.Context, tx *store.Tx) error {
		now = tx.Now()
		if err := tx.RevokeCredential(ctx, active.ClientID); err != nil {
			return err
		}
		return tx.RevokeCredential(ctx, revoked.ClientID) // already revoked: keeps its time
	})
	for _, want := range []venue.Credential{
		{ClientID: active.ClientID, UserID: u.ID, SecretHash: active.SecretHash, CreatedAt: active.CreatedAt, RevokedAt: &now},
		revoked,
	} {
		got := read(t, h.db, func(ctx context.Context, tx *store.Tx) (venue.Credential, error) {
			return tx.Credential(ctx, want.ClientID)
		})
		if d := diff(want, got); d != "" {
			t.Errorf("Credential(%s) after RevokeCredential (-want +got):\n%s", want.ClientID, d)
		}
	}
}

// issue stores a new credential of u and a token of it expiring at expires.
func issue(t *testing.T, db *store.DB, u venue.User, expires time.Time) (clientID, hash string) {
	t.Helper()
	c := venue.Credential{ClientID: "cl_" + randomHex(t), UserID: u.ID, SecretHash: randomHex(t), CreatedAt: t0}
	tok := venue.Token{Hash: randomHex(t), ClientID: c.ClientID, UserID: u.ID, CreatedAt: expires.Add(-15 * time.Minute), ExpiresAt: expires}
	write(t, db, func(ctx context.Context, tx *store.Tx) error {
		if err := tx.CreateCredential(ctx, &c); err != nil {
			return err
		}
		return tx.CreateToken(ctx, &tok)
	})
	return c.ClientID, tok.Hash
}

func testTokenPrincipal(t *testing.T, h *harness) {
	now := time.Now().UTC().Truncate(time.Millisecond)
	later := now.Add(15 * time.Minute)
	revoke := func(t *testing.T, clientID string) {
		write(t, h.db, func(ctx context.Context, tx *store.Tx) error { return tx.RevokeCredential(ctx, clientID) })
	}

	tests := []struct {
		name    string
		arrange func(t *testing.T) (hash string, want venue.Principal)
		found   bool
	}{
		{"valid token", func(t *testing.T) (string, venue.Principal) {
			u := seedUser(t, h.db, "active")
			clientID, hash := issue(t, h.db, u, later)
			return hash, venue.Principal{UserID: u.ID, ParticipantID: u.ParticipantID, Role: u.Role, ClientID: clientID}
		}, true},
		{"operator token", func(t *testing.T) (string, venue.Principal) {
			u := newUser(t, "", venue.RoleOperator, t0)
			write(t, h.db, func(ctx context.Context, tx *store.Tx) error { return tx.CreateUser(ctx, &u) })
			clientID, hash := issue(t, h.db, u, later)
			return hash, venue.Principal{UserID: u.ID, Role: venue.RoleOperator, ClientID: clientID}
		}, true},
		{"another credential of the user revoked", func(t *testing.T) (string, venue.Principal) {
			u := seedUser(t, h.db, "active")
			other, _ := issue(t, h.db, u, later)
			clientID, hash := issue(t, h.db, u, later)
			revoke(t, other)
			return hash, venue.Principal{UserID: u.ID, ParticipantID: u.ParticipantID, Role: u.Role, ClientID: clientID}
		}, true},
		{"expired token", func(t *testing.T) (string, venue.Principal) {
			_, hash := issue(t, h.db, seedUser(t, h.db, "active"), now)
			return hash, venue.Principal{}
		}, false},
		{"revoked credential and its tokens", func(t *testing.T) (string, venue.Principal) {
			u := seedUser(t, h.db, "active")
			clientID, hash := issue(t, h.db, u, later)
			second := venue.Token{Hash: randomHex(t), ClientID: clientID, UserID: u.ID, CreatedAt: now, ExpiresAt: later}
			write(t, h.db, func(ctx context.Context, tx *store.Tx) error { return tx.CreateToken(ctx, &second) })
			revoke(t, clientID)
			// The tokens themselves are revoked, not only hidden by the join.
			if n := h.count(t, "SELECT COUNT(*) FROM tokens WHERE client_id = '"+clientID+"' AND revoked_at IS NULL"); n != 0 {
				t.Errorf("after RevokeCredential(%s): %d unrevoked tokens, want 0", clientID, n)
			}
			return hash, venue.Principal{}
		}, false},
		{"inactive user", func(t *testing.T) (string, venue.Principal) {
			_, hash := issue(t, h.db, seedUser(t, h.db, "disabled"), later)
			return hash, venue.Principal{}
		}, false},
		{"unknown token", func(t *testing.T) (string, venue.Principal) {
			return randomHex(t), venue.Principal{}
		}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hash, want := tt.arrange(t)
			var got venue.Principal
			var expires time.Time
			err := h.db.View(t.Context(), func(tx *store.Tx) error {
				var err error
				got, expires, err = tx.TokenPrincipal(t.Context(), hash, now)
				return err
			})
			if !tt.found {
				if !errors.Is(err, venue.ErrNotFound) {
					t.Errorf("TokenPrincipal() = %+v, %v, want not found", got, err)
				}
				return
			}
			if err != nil {
				t.Fatalf("TokenPrincipal() = %v, want %+v", err, want)
			}
			if d := diff(want, got); d != "" {
				t.Errorf("TokenPrincipal() (-want +got):\n%s", d)
			}
			if !expires.Equal(later) {
				t.Errorf("TokenPrincipal() expires %v, want the token's expires_at %v", expires, later)
			}
		})
	}

	t.Run("CreateToken prunes long-expired tokens", func(t *testing.T) {
		u := seedUser(t, h.db, "active")
		old, _ := issue(t, h.db, u, now.Add(-25*time.Hour))
		recent, _ := issue(t, h.db, u, now.Add(-time.Hour))
		issue(t, h.db, u, later)
		if n := h.count(t, "SELECT COUNT(*) FROM tokens WHERE client_id = '"+old+"'"); n != 0 {
			t.Errorf("token expired 25 h ago: %d rows, want pruned", n)
		}
		if n := h.count(t, "SELECT COUNT(*) FROM tokens WHERE client_id = '"+recent+"'"); n != 1 {
			t.Errorf("token expired 1 h ago: %d rows, want kept", n)
		}
	})
}

func testCounterparties(t *testing.T, h *harness) {
	a, b, c := seedParticipant(t, h.db), seedParticipant(t, h.db), seedParticipant(t, h.db)
	ours := func(rels []venue.CounterpartyRelation) []venue.CounterpartyRelation {
		var out []venue.CounterpartyRelation
		for _, r := range rels {
			if r.ParticipantID == a.ID || r.ParticipantID == b.ID || r.ParticipantID == c.ID {
				out = append(out, r)
			}
		}
		slices.SortFunc(out, func(x, y venue.CounterpartyRelation) int {
			if x.ParticipantID < y.ParticipantID {
				return -1
			}
			if x.ParticipantID > y.ParticipantID {
				return 1
			}
			return 0
		})
		return out
	}

	var created time.Time
	var rel venue.CounterpartyRelation
	write(t, h.db, func(ctx context.Context, tx *store.Tx) error {
		created = tx.Now()
		var err error
		rel, err = tx.SetCounterparty(ctx, a.ID, b.ID, true)
		return err
	})
	if d := diff(venue.CounterpartyRelation{ParticipantID: a.ID, CounterpartyID: b.ID, Enabled: true, CreatedAt: created, UpdatedAt: created}, rel); d != "" {
		t.Errorf("SetCounterparty(a, b, true) (-want +got):\n%s", d)
	}

	steps := []struct {
		name   string
		enable bool
		from   string // SetCounterparty is called from this side
		to     string
		want   map[string][]string // Counterparties(id)
	}{
		{"enabled a–b is symmetric", true, a.ID, b.ID, map[string][]string{a.ID: {b.ID}, b.ID: {a.ID}, c.ID: nil}},
		{"disable from the other side", false, b.ID, a.ID, map[string][]string{a.ID: nil, b.ID: nil, c.ID: nil}},
		{"enable again", true, b.ID, a.ID, map[string][]string{a.ID: {b.ID}, b.ID: {a.ID}, c.ID: nil}},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			var now time.Time
			write(t, h.db, func(ctx context.Context, tx *store.Tx) error {
				now = tx.Now()
				_, err := tx.SetCounterparty(ctx, st.from, st.to, st.enable)
				return err
			})
			for id, want := range st.want {
				got := read(t, h.db, func(ctx context.Context, tx *store.Tx) ([]string, error) { return tx.Counterparties(ctx, id) })
				if d := diff(want, got); d != "" {
					t.Errorf("Counterparties(%s) (-want +got):\n%s", id, d)
				}
			}
			var wantRels []venue.CounterpartyRelation
			if st.enable {
				wantRels = ours([]venue.CounterpartyRelation{
					{ParticipantID: a.ID, CounterpartyID: b.ID, Enabled: true, CreatedAt: created, UpdatedAt: now},
					{ParticipantID: b.ID, CounterpartyID: a.ID, Enabled: true, CreatedAt: created, UpdatedAt: now},
				})
			}
			got := read(t, h.db, func(ctx context.Context, tx *store.Tx) ([]venue.CounterpartyRelation, error) {
				return tx.CounterpartyRelations(ctx)
			})
			if d := diff(wantRels, ours(got)); d != "" {
				t.Errorf("CounterpartyRelations() (-want +got):\n%s", d)
			}
		})
	}
}

func testRiskLimits(t *testing.T, h *harness) {
	p := seedParticipant(t, h.db)
	first := venue.RiskLimit{ID: newID(t), ParticipantID: p.ID, Name: venue.LimitMaxOffer, Value: dec("250000000.125"),
		CreatedAt: at(1), UpdatedAt: at(1)}
	upsert := func(t *testing.T, l venue.RiskLimit) venue.RiskLimit {
		t.Helper()
		var got venue.RiskLimit
		write(t, h.db, func(ctx context.Context, tx *store.Tx) error {
			var err error
			got, err = tx.UpsertRiskLimit(ctx, &l)
			return err
		})
		return got
	}
	if got := upsert(t, first); diff(first, got) != "" {
		t.Errorf("UpsertRiskLimit(new) (-want +got):\n%s", diff(first, got))
	}

	tests := []struct {
		name  string
		value string
	}{
		{"fraction", "250000000.125"},
		{"many decimals", "0.000000000001"},
		{"large", "123456789012345678.5"},
		{"one decimal", "1000000.5"},
		{"zero", "0"},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// A new id and creation time: the upsert must ignore both.
			in := venue.RiskLimit{ID: newID(t), ParticipantID: p.ID, Name: venue.LimitMaxOffer, Value: dec(tt.value),
				CreatedAt: at(10 + i), UpdatedAt: at(10 + i)}
			want := first
			want.Value, want.UpdatedAt = dec(tt.value), in.UpdatedAt
			if got := upsert(t, in); diff(want, got) != "" {
				t.Errorf("UpsertRiskLimit(%s) (-want +got):\n%s", tt.value, diff(want, got))
			}
			got := read(t, h.db, func(ctx context.Context, tx *store.Tx) ([]venue.RiskLimit, error) {
				return tx.RiskLimits(ctx, p.ID)
			})
			if len(got) != 1 || got[0].Value.String() != tt.value {
				t.Errorf("RiskLimits(%s) = %v, want one limit of value %s", p.ID, got, tt.value)
			}
		})
	}

	t.Run("list by name", func(t *testing.T) {
		var want []venue.RiskLimit
		for _, name := range []string{venue.LimitAllOfferUserSum, venue.LimitAllOfferSum} {
			l := venue.RiskLimit{ID: newID(t), ParticipantID: p.ID, Name: name, Value: dec("5000000"), CreatedAt: at(30), UpdatedAt: at(30)}
			want = append(want, upsert(t, l))
		}
		cur := read(t, h.db, func(ctx context.Context, tx *store.Tx) ([]venue.RiskLimit, error) { return tx.RiskLimits(ctx, p.ID) })
		want = append(want, cur[len(cur)-1]) // MAX_OFFER sorts last
		slices.SortFunc(want, func(x, y venue.RiskLimit) int {
			if x.Name < y.Name {
				return -1
			}
			return 1
		})
		if d := diff(want, cur); d != "" {
			t.Errorf("RiskLimits(%s) (-want +got):\n%s", p.ID, d)
		}
		if cur[len(cur)-1].Name != venue.LimitMaxOffer || cur[len(cur)-1].ID != first.ID {
			t.Errorf("RiskLimits(%s) last = %+v, want %s with id %s", p.ID, cur[len(cur)-1], venue.LimitMaxOffer, first.ID)
		}
	})
}

func testMarkets(t *testing.T, h *harness) {
	otc := newMarket(t, at(1))
	otc.FacilityType, otc.Type, otc.IsPartialFillAllowed, otc.SettlementLag = venue.FacilityOTC, "OTC", false, 1
	book := newMarket(t, at(2))
	hours := newMarket(t, at(3))
	hours.Hours = &venue.TradingHours{Open: "08:00", Close: "17:30", PreOpenMinutes: 15}
	for _, m := range []venue.Market{otc, book, hours} {
		write(t, h.db, func(ctx context.Context, tx *store.Tx) error { return tx.CreateMarket(ctx, &m) })
		got := read(t, h.db, func(ctx context.Context, tx *store.Tx) (venue.Market, error) { return tx.Market(ctx, m.ID) })
		if d := diff(m, got); d != "" {
			t.Errorf("Market(%s) (-want +got):\n%s", m.ID, d)
		}
	}

	in := newInstrument(t, at(3), otc.ID, book.ID)
	write(t, h.db, func(ctx context.Context, tx *store.Tx) error { return tx.CreateInstrument(ctx, &in) })
	got := list(t, h.db, func(ctx context.Context, tx *store.Tx) ([]venue.Market, string, error) {
		return tx.Markets(ctx, store.MarketFilter{InstrumentID: in.ID}, store.Page{})
	})
	if d := diff([]venue.Market{book, otc}, got); d != "" {
		t.Errorf("Markets(%s) (-want +got):\n%s", in.ID, d)
	}

	upd := book
	upd.Name, upd.IsEnabled, upd.IsPartialFillAllowed, upd.SettlementLag = book.Name+" (halted)", false, false, 3
	upd.PriceCollarPercent, upd.MaxPricePercent = dec("5"), dec("120.5")
	upd.Hours = &venue.TradingHours{Open: "09:00", Close: "16:00"}
	upd.CreatedAt, upd.UpdatedAt = at(40), at(41)
	write(t, h.db, func(ctx context.Context, tx *store.Tx) error { return tx.UpdateMarket(ctx, &upd) })
	want := upd
	want.CreatedAt = book.CreatedAt
	gotM := read(t, h.db, func(ctx context.Context, tx *store.Tx) (venue.Market, error) { return tx.Market(ctx, upd.ID) })
	if d := diff(want, gotM); d != "" {
		t.Errorf("Market(%s) after update (-want +got):\n%s", upd.ID, d)
	}

	// Back to around the clock.
	upd.Hours = nil
	write(t, h.db, func(ctx context.Context, tx *store.Tx) error { return tx.UpdateMarket(ctx, &upd) })
	want.Hours = nil
	gotM = read(t, h.db, func(ctx context.Context, tx *store.Tx) (venue.Market, error) { return tx.Market(ctx, upd.ID) })
	if d := diff(want, gotM); d != "" {
		t.Errorf("Market(%s) without hours (-want +got):\n%s", upd.ID, d)
	}
}

func testInstruments(t *testing.T, h *harness) {
	var ms []venue.Market
	for i := range 3 {
		m := newMarket(t, at(i))
		write(t, h.db, func(ctx context.Context, tx *store.Tx) error { return tx.CreateMarket(ctx, &m) })
		ms = append(ms, m)
	}
	full := newInstrument(t, at(5), ms[1].ID, ms[0].ID) // stored listing comes back sorted
	bare := newInstrument(t, at(6), ms[0].ID)
	bare.Terms.LEI, bare.Static = nil, venue.StaticData{}
	bare.MinPiece, bare.MinIncrement, bare.ParAmount = dec("0.01"), dec("0.001"), dec("100")

	tests := []struct {
		name string
		in   venue.Instrument
	}{
		{"terms with LEI and static data", full},
		{"no LEI, empty static data", bare},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			write(t, h.db, func(ctx context.Context, tx *store.Tx) error { return tx.CreateInstrument(ctx, &tt.in) })
			got := read(t, h.db, func(ctx context.Context, tx *store.Tx) (venue.Instrument, error) {
				return tx.Instrument(ctx, tt.in.ID)
			})
			want := tt.in
			want.MarketIDs = slices.Sorted(slices.Values(tt.in.MarketIDs))
			if d := diff(want, got); d != "" {
				t.Errorf("Instrument(%s) (-want +got):\n%s", tt.in.ID, d)
			}
		})
	}

	unlisted := func(in venue.Instrument) venue.Instrument { in.MarketIDs = nil; return in }
	instruments := func(t *testing.T, f store.InstrumentFilter) []venue.Instrument {
		t.Helper()
		return list(t, h.db, func(ctx context.Context, tx *store.Tx) ([]venue.Instrument, string, error) {
			return tx.Instruments(ctx, f, store.Page{})
		})
	}
	markets := func(t *testing.T, instrumentID string) []string {
		t.Helper()
		var ids []string
		for _, m := range list(t, h.db, func(ctx context.Context, tx *store.Tx) ([]venue.Market, string, error) {
			return tx.Markets(ctx, store.MarketFilter{InstrumentID: instrumentID}, store.Page{})
		}) {
			ids = append(ids, m.ID)
		}
		return ids
	}

	filters := []struct {
		name string
		f    store.InstrumentFilter
		want []venue.Instrument
	}{
		{"by market", store.InstrumentFilter{MarketID: ms[0].ID}, []venue.Instrument{unlisted(bare), unlisted(full)}},
		{"by other market", store.InstrumentFilter{MarketID: ms[1].ID}, []venue.Instrument{unlisted(full)}},
		{"by unused market", store.InstrumentFilter{MarketID: ms[2].ID}, nil},
		{"by ISIN", store.InstrumentFilter{ISIN: full.Terms.ISIN}, []venue.Instrument{unlisted(full)}},
		{"by ids and currency", store.InstrumentFilter{IDs: []string{full.ID, bare.ID}, Currency: "EUR"}, []venue.Instrument{unlisted(bare), unlisted(full)}},
		{"by other currency", store.InstrumentFilter{IDs: []string{full.ID, bare.ID}, Currency: "USD"}, nil},
		{"empty id set", store.InstrumentFilter{IDs: []string{}}, nil},
	}
	for _, tt := range filters {
		t.Run(tt.name, func(t *testing.T) {
			if d := diff(tt.want, instruments(t, tt.f)); d != "" {
				t.Errorf("Instruments(%+v) (-want +got):\n%s", tt.f, d)
			}
		})
	}
	if d := diff([]string{ms[1].ID, ms[0].ID}, markets(t, full.ID)); d != "" {
		t.Errorf("Markets(%s) (-want +got):\n%s", full.ID, d)
	}

	t.Run("update replaces listing", func(t *testing.T) {
		upd := full
		upd.MarketIDs = []string{ms[2].ID}
		upd.Enabled = false
		upd.Terms.Coupon, upd.Terms.State, upd.Terms.LEI = "3.125", "matured", ptr("5299000J2N45DDNE4Y28")
		upd.Static.FlatTraded = true
		upd.MinPiece, upd.Precision = dec("100000"), 4
		upd.CreatedAt, upd.UpdatedAt = at(60), at(61)
		write(t, h.db, func(ctx context.Context, tx *store.Tx) error { return tx.UpdateInstrument(ctx, &upd) })
		want := upd
		want.CreatedAt = full.CreatedAt
		got := read(t, h.db, func(ctx context.Context, tx *store.Tx) (venue.Instrument, error) { return tx.Instrument(ctx, upd.ID) })
		if d := diff(want, got); d != "" {
			t.Errorf("Instrument(%s) after update (-want +got):\n%s", upd.ID, d)
		}
		if d := diff([]venue.Instrument{unlisted(bare)}, instruments(t, store.InstrumentFilter{MarketID: ms[0].ID})); d != "" {
			t.Errorf("Instruments(market 0) after update (-want +got):\n%s", d)
		}
		if d := diff([]venue.Instrument{unlisted(want)}, instruments(t, store.InstrumentFilter{MarketID: ms[2].ID})); d != "" {
			t.Errorf("Instruments(market 2) after update (-want +got):\n%s", d)
		}
		if d := diff([]string{ms[2].ID}, markets(t, full.ID)); d != "" {
			t.Errorf("Markets(%s) after update (-want +got):\n%s", full.ID, d)
		}
	})
}

func testBuckets(t *testing.T, h *harness) {
	p1, p2 := seedParticipant(t, h.db), seedParticipant(t, h.db)
	var ins []string
	for i := range 3 {
		in := newInstrument(t, at(i))
		write(t, h.db, func(ctx context.Context, tx *store.Tx) error { return tx.CreateInstrument(ctx, &in) })
		ins = append(ins, in.ID)
	}
	public := venue.Bucket{ID: newID(t), Name: "Euro Govies", Type: venue.BucketPublic, IsEnabled: true,
		InstrumentIDs: []string{ins[2], ins[0], ins[1]}, CreatedAt: at(1), UpdatedAt: at(1)}
	mine := venue.Bucket{ID: newID(t), Name: "Watchlist", Type: venue.BucketPrivate, ParticipantID: p1.ID, IsEnabled: true,
		InstrumentIDs: []string{ins[1], ins[0]}, CreatedAt: at(2), UpdatedAt: at(2)}
	theirs := venue.Bucket{ID: newID(t), Name: "Watchlist", Type: venue.BucketPrivate, ParticipantID: p2.ID, IsEnabled: false,
		InstrumentIDs: []string{ins[0]}, CreatedAt: at(3), UpdatedAt: at(3)}

	for _, b := range []venue.Bucket{public, mine, theirs} {
		write(t, h.db, func(ctx context.Context, tx *store.Tx) error { return tx.CreateBucket(ctx, &b) })
		got := read(t, h.db, func(ctx context.Context, tx *store.Tx) (venue.Bucket, error) { return tx.Bucket(ctx, b.ID) })
		if d := diff(b, got); d != "" {
			t.Errorf("Bucket(%s) (-want +got):\n%s", b.ID, d)
		}
	}

	buckets := func(t *testing.T, f store.BucketFilter) []venue.Bucket {
		t.Helper()
		return list(t, h.db, func(ctx context.Context, tx *store.Tx) ([]venue.Bucket, string, error) {
			return tx.Buckets(ctx, f, store.Page{})
		})
	}
	// Every filter names one of this test's instruments, so buckets of
	// other tests stay out.
	tests := []struct {
		name string
		f    store.BucketFilter
		want []venue.Bucket
	}{
		{"visible to p1: public and own", store.BucketFilter{VisibleTo: p1.ID, InstrumentID: ins[0]}, []venue.Bucket{mine, public}},
		{"visible to p2: public and own", store.BucketFilter{VisibleTo: p2.ID, InstrumentID: ins[0]}, []venue.Bucket{theirs, public}},
		{"operator sees all", store.BucketFilter{InstrumentID: ins[0]}, []venue.Bucket{theirs, mine, public}},
		{"by instrument", store.BucketFilter{InstrumentID: ins[2]}, []venue.Bucket{public}},
		{"private only", store.BucketFilter{VisibleTo: p1.ID, InstrumentID: ins[0], Type: venue.BucketPrivate}, []venue.Bucket{mine}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if d := diff(tt.want, buckets(t, tt.f)); d != "" {
				t.Errorf("Buckets(%+v) (-want +got):\n%s", tt.f, d)
			}
		})
	}

	t.Run("update keeps new order", func(t *testing.T) {
		upd := mine
		upd.Name, upd.IsEnabled, upd.UpdatedAt = "Short end", false, at(9)
		upd.InstrumentIDs = []string{ins[2], ins[1], ins[0]}
		write(t, h.db, func(ctx context.Context, tx *store.Tx) error { return tx.UpdateBucket(ctx, &upd) })
		got := read(t, h.db, func(ctx context.Context, tx *store.Tx) (venue.Bucket, error) { return tx.Bucket(ctx, upd.ID) })
		if d := diff(upd, got); d != "" {
			t.Errorf("Bucket(%s) after update (-want +got):\n%s", upd.ID, d)
		}
	})

	t.Run("delete", func(t *testing.T) {
		write(t, h.db, func(ctx context.Context, tx *store.Tx) error { return tx.DeleteBucket(ctx, mine.ID) })
		err := readErr(t, h.db, func(ctx context.Context, tx *store.Tx) error {
			_, err := tx.Bucket(ctx, mine.ID)
			return err
		})
		if !errors.Is(err, venue.ErrNotFound) {
			t.Errorf("Bucket(%s) after delete = %v, want not found", mine.ID, err)
		}
		f := store.BucketFilter{VisibleTo: p1.ID, InstrumentID: ins[0]}
		if d := diff([]venue.Bucket{public}, buckets(t, f)); d != "" {
			t.Errorf("Buckets(%+v) after delete (-want +got):\n%s", f, d)
		}
	})
}

func testSettlementProviders(t *testing.T, h *harness) {
	p := seedParticipant(t, h.db)
	acc := newAccount(t, p.ID, t0)
	write(t, h.db, func(ctx context.Context, tx *store.Tx) error { return tx.CreateAccount(ctx, &acc) })
	withAccount := newProvider(t, p.ID, acc.ID, at(1))
	firmWide := newProvider(t, p.ID, "", at(2))
	firmWide.Enabled = false

	tests := []struct {
		name string
		s    venue.SettlementProvider
	}{
		{"for an account", withAccount},
		{"firm-wide, disabled", firmWide},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			write(t, h.db, func(ctx context.Context, tx *store.Tx) error { return tx.CreateSettlementProvider(ctx, &tt.s) })
			got := read(t, h.db, func(ctx context.Context, tx *store.Tx) (venue.SettlementProvider, error) {
				return tx.SettlementProvider(ctx, tt.s.ID)
			})
			if d := diff(tt.s, got); d != "" {
				t.Errorf("SettlementProvider(%s) (-want +got):\n%s", tt.s.ID, d)
			}
		})
	}

	got := list(t, h.db, func(ctx context.Context, tx *store.Tx) ([]venue.SettlementProvider, string, error) {
		return tx.SettlementProviders(ctx, store.SettlementProviderFilter{ParticipantID: p.ID}, store.Page{})
	})
	if d := diff([]venue.SettlementProvider{firmWide, withAccount}, got); d != "" {
		t.Errorf("SettlementProviders(%s) (-want +got):\n%s", p.ID, d)
	}

	t.Run("toggle and defaults", func(t *testing.T) {
		var now time.Time
		write(t, h.db, func(ctx context.Context, tx *store.Tx) error {
			now = tx.Now()
			if err := tx.SetSettlementProviderEnabled(ctx, firmWide.ID, true); err != nil {
				return err
			}
			if err := tx.SetParticipantDefaultProvider(ctx, p.ID, firmWide.ID); err != nil {
				return err
			}
			return tx.SetAccountDefaultProvider(ctx, acc.ID, withAccount.ID)
		})
		wantS := firmWide
		wantS.Enabled, wantS.UpdatedAt = true, now
		gotS := read(t, h.db, func(ctx context.Context, tx *store.Tx) (venue.SettlementProvider, error) {
			return tx.SettlementProvider(ctx, firmWide.ID)
		})
		if d := diff(wantS, gotS); d != "" {
			t.Errorf("SettlementProvider(%s) after enabling (-want +got):\n%s", firmWide.ID, d)
		}
		wantP := p
		wantP.DefaultSettlementProviderID, wantP.UpdatedAt = firmWide.ID, now
		gotP := read(t, h.db, func(ctx context.Context, tx *store.Tx) (venue.Participant, error) { return tx.Participant(ctx, p.ID) })
		if d := diff(wantP, gotP); d != "" {
			t.Errorf("Participant(%s) after SetParticipantDefaultProvider (-want +got):\n%s", p.ID, d)
		}
		wantA := acc
		wantA.DefaultSettlementProviderID, wantA.UpdatedAt = withAccount.ID, now
		gotA := read(t, h.db, func(ctx context.Context, tx *store.Tx) (venue.Account, error) { return tx.Account(ctx, acc.ID) })
		if d := diff(wantA, gotA); d != "" {
			t.Errorf("Account(%s) after SetAccountDefaultProvider (-want +got):\n%s", acc.ID, d)
		}
	})
}

func testNews(t *testing.T, h *harness) {
	// News has no owner to filter by: this test keeps its items in a time
	// window of its own.
	from, to := at(-10_000), at(-9_000)
	older, newer := newNews(t, from.Add(time.Minute)), newNews(t, from.Add(2*time.Minute))
	newer.Body = "Multi-line\nbody with “quotes” and ünïcödé"
	for _, n := range []venue.News{older, newer} {
		write(t, h.db, func(ctx context.Context, tx *store.Tx) error { return tx.CreateNews(ctx, &n) })
	}
	got := list(t, h.db, func(ctx context.Context, tx *store.Tx) ([]venue.News, string, error) {
		return tx.News(ctx, store.Page{From: &from, To: &to})
	})
	if d := diff([]venue.News{newer, older}, got); d != "" {
		t.Errorf("News(%v..%v) (-want +got):\n%s", from, to, d)
	}
}

// testTimes checks that instants keep their milliseconds and come back in
// UTC whatever zone they were written in.
func testTimes(t *testing.T, h *harness) {
	cest := time.FixedZone("CEST", 2*60*60)
	tests := []struct {
		name string
		in   time.Time
		want time.Time
	}{
		{"UTC with milliseconds", t0, t0},
		{"other zone", time.Date(2026, 3, 29, 3, 30, 0, 456_000_000, cest), time.Date(2026, 3, 29, 1, 30, 0, 456_000_000, time.UTC)},
		{"sub-millisecond part dropped", time.Date(2026, 1, 2, 3, 4, 5, 789_654_321, time.UTC), time.Date(2026, 1, 2, 3, 4, 5, 789_000_000, time.UTC)},
		{"last millisecond of a day", time.Date(1999, 12, 31, 23, 59, 59, 999_000_000, time.UTC), time.Date(1999, 12, 31, 23, 59, 59, 999_000_000, time.UTC)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := seedParticipant(t, h.db)
			u := newUser(t, p.ID, venue.RoleAdmin, tt.in)
			u.UpdatedAt, u.TermsConditionsSignedAt, u.LastActive = tt.in, &tt.in, &tt.in
			write(t, h.db, func(ctx context.Context, tx *store.Tx) error { return tx.CreateUser(ctx, &u) })
			got := read(t, h.db, func(ctx context.Context, tx *store.Tx) (venue.User, error) { return tx.User(ctx, u.ID) })
			for field, v := range map[string]time.Time{
				"CreatedAt": got.CreatedAt, "UpdatedAt": got.UpdatedAt,
				"TermsConditionsSignedAt": *got.TermsConditionsSignedAt, "LastActive": *got.LastActive,
			} {
				if !v.Equal(tt.want) || v.Location() != time.UTC {
					t.Errorf("User(%s).%s = %s, want %s", u.ID, field, v.Format(time.RFC3339Nano+" MST"), tt.want.Format(time.RFC3339Nano+" MST"))
				}
			}
		})
	}

	t.Run("Tx.Now", func(t *testing.T) {
		write(t, h.db, func(ctx context.Context, tx *store.Tx) error {
			now := tx.Now()
			if now.Location() != time.UTC || !now.Equal(now.Truncate(time.Millisecond)) || now.IsZero() {
				t.Errorf("Tx.Now() = %s, want a UTC instant in whole milliseconds", now.Format(time.RFC3339Nano+" MST"))
			}
			return nil
		})
	})
}
