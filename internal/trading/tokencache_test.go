package trading_test

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/bondvenue/bondvenue/internal/access"
	"github.com/bondvenue/bondvenue/internal/auth"
	"github.com/bondvenue/bondvenue/internal/sequencer"
	"github.com/bondvenue/bondvenue/internal/store"
	"github.com/bondvenue/bondvenue/internal/testenv"
	"github.com/bondvenue/bondvenue/internal/trading"
	"github.com/bondvenue/bondvenue/internal/venue"
)

// authVenue is a service on a fresh database of one engine with one
// participant, on a clock the test advances.
type authVenue struct {
	db          *store.DB
	cfg         trading.Config
	ttl         time.Duration
	clock       *testenv.Clock
	svc         *trading.Service
	access      *access.Tokens
	participant string
	users       int
}

func newAuthVenue(t *testing.T, e store.Engine, tokenTTL time.Duration) *authVenue {
	t.Helper()
	h := auth.FastHasher
	c := testenv.NewClock(time.Date(2026, 11, 20, 14, 48, 0, 0, time.UTC))
	v := &authVenue{db: testenv.Open(t, e), clock: c, ttl: tokenTTL,
		cfg: trading.Config{Hasher: &h, Now: c.Now, Logger: slog.New(slog.DiscardHandler)}}
	v.db.SetClock(c.Now) // as the core's wiring does: tokens expire on the test's clock
	v.svc, v.access = v.instance()
	p, err := v.svc.CreateParticipant(context.Background(), trading.System, trading.ParticipantInput{
		Name: ptrTo("Baltic Fixed Income AS"), LEI: ptrTo("529900BALT1C0F1XED42"), Country: ptrTo("EE")})
	if err != nil {
		t.Fatalf("CreateParticipant() = %v", err)
	}
	v.participant = p.ID
	return v
}

// instance is the use cases and the access tokens of one process on v's
// database, its sequencer never started: what an admin command or
// another instance writes through.
func (v *authVenue) instance() (*trading.Service, *access.Tokens) {
	tokens := access.New(v.db, access.Config{TTL: v.ttl, Hasher: v.cfg.Hasher, Now: v.cfg.Now})
	return trading.New(trading.Deps{Store: v.db, Sequencer: sequencer.New(v.db, v.cfg.Logger, v.cfg.Now, 0), Tokens: tokens}, v.cfg), tokens
}

// user creates a user of role with a credential and a token, and returns
// the principal the token must resolve to.
func (v *authVenue) user(t *testing.T, role venue.Role) (venue.Principal, string) {
	t.Helper()
	ctx := context.Background()
	v.users++
	u, err := v.svc.CreateUser(ctx, trading.System, trading.UserInput{ParticipantID: &v.participant,
		Email: ptrTo(fmt.Sprintf("user%d@baltic-fi.example", v.users)), Role: &role})
	if err != nil {
		t.Fatalf("CreateUser() = %v", err)
	}
	c, err := v.svc.IssueCredential(ctx, trading.System, u.ID)
	if err != nil {
		t.Fatalf("IssueCredential() = %v", err)
	}
	tok, err := v.access.IssueToken(ctx, c.ClientID, c.Secret)
	if err != nil {
		t.Fatalf("IssueToken() = %v", err)
	}
	return venue.Principal{UserID: u.ID, ParticipantID: v.participant, Role: role, ClientID: c.ClientID}, tok.AccessToken
}

// accepts fails the test unless svc resolves token to want.
func accepts(t *testing.T, svc *access.Tokens, token string, want venue.Principal, when string) {
	t.Helper()
	got, err := svc.Authenticate(context.Background(), token)
	if err != nil || got != want {
		t.Fatalf("%s: Authenticate() = %+v, %v, want %+v", when, got, err, want)
	}
}

// refuses fails the test unless svc answers token with a 401.
func refuses(t *testing.T, svc *access.Tokens, token string, when string) {
	t.Helper()
	got, err := svc.Authenticate(context.Background(), token)
	if venue.KindOf(err) != venue.KindUnauthenticated {
		t.Fatalf("%s: Authenticate() = %+v, %v, want unauthenticated", when, got, err)
	}
}

// TestTokenCacheRevocationThroughService: a credential revoked through the
// service ends its token at once, although the token was resolved (and
// remembered) a moment before; other credentials' tokens stay remembered.
func TestTokenCacheRevocationThroughService(t *testing.T) {
	testenv.ForEach(t, func(t *testing.T, e store.Engine) {
		v := newAuthVenue(t, e, 0)
		p, token := v.user(t, venue.RoleTrader)
		other, otherToken := v.user(t, venue.RoleViewer)
		accepts(t, v.access, token, p, "before the revocation")
		accepts(t, v.access, otherToken, other, "before the revocation")

		if _, err := v.svc.RevokeCredential(context.Background(), trading.System, p.ClientID); err != nil {
			t.Fatalf("RevokeCredential() = %v", err)
		}
		refuses(t, v.access, token, "right after the revocation, same instant")
		accepts(t, v.access, otherToken, other, "another credential after the revocation")
	})
}

// TestTokenCacheRevocationElsewhere: a revocation written behind the
// service's back (the admin command, another instance) binds once the
// remembered resolution expires — and not before: that is the bound the
// cache buys its speed with.
func TestTokenCacheRevocationElsewhere(t *testing.T) {
	testenv.ForEach(t, func(t *testing.T, e store.Engine) {
		v := newAuthVenue(t, e, 0)
		p, token := v.user(t, venue.RoleTrader)
		accepts(t, v.access, token, p, "before the revocation")

		elsewhere, elsewhereAccess := v.instance()
		if _, err := elsewhere.RevokeCredential(context.Background(), trading.System, p.ClientID); err != nil {
			t.Fatalf("RevokeCredential() elsewhere = %v", err)
		}
		refuses(t, elsewhereAccess, token, "the revoking service")

		accepts(t, v.access, token, p, "remembered, right after the revocation elsewhere")
		v.clock.Advance(time.Second - time.Millisecond)
		accepts(t, v.access, token, p, "remembered, 999 ms after it was resolved")
		v.clock.Advance(time.Millisecond)
		refuses(t, v.access, token, "1 s after it was resolved")
		refuses(t, v.access, token, "again") // a refusal is not remembered as an acceptance
	})
}

// TestTokenCacheUserChange: disabling a user (which revokes its tokens)
// or changing its role through the service binds at once.
func TestTokenCacheUserChange(t *testing.T) {
	testenv.ForEach(t, func(t *testing.T, e store.Engine) {
		ctx := context.Background()
		v := newAuthVenue(t, e, 0)
		update := func(svc *trading.Service, p venue.Principal, in trading.UserInput) {
			t.Helper()
			if _, err := svc.UpdateUser(ctx, trading.System, p.UserID, in); err != nil {
				t.Fatalf("UpdateUser(%+v) = %v", in, err)
			}
		}

		p, token := v.user(t, venue.RoleTrader)
		accepts(t, v.access, token, p, "active trader")
		update(v.svc, p, trading.UserInput{Status: ptrTo("disabled")})
		refuses(t, v.access, token, "right after disabling the user")
		// Disabling revoked the token: enabling the user again does not
		// bring it back (a new grant gives a new one).
		update(v.svc, p, trading.UserInput{Status: ptrTo("active")})
		refuses(t, v.access, token, "after the user was enabled again")

		p, token = v.user(t, venue.RoleTrader)
		accepts(t, v.access, token, p, "before the role change")
		update(v.svc, p, trading.UserInput{Role: ptrTo(venue.RoleViewer)})
		p.Role = venue.RoleViewer
		accepts(t, v.access, token, p, "right after the role change")
	})
}

// TestTokenCacheRefusalNotRemembered: only resolved tokens are
// remembered; a token unknown a moment ago is accepted as soon as it is
// stored (here behind the service's back, as another instance would).
func TestTokenCacheRefusalNotRemembered(t *testing.T) {
	testenv.ForEach(t, func(t *testing.T, e store.Engine) {
		ctx := context.Background()
		v := newAuthVenue(t, e, 0)
		p, _ := v.user(t, venue.RoleTrader)
		token := "a-token-no-grant-has-issued-yet-0123456789"
		refuses(t, v.access, token, "unknown token")
		now := v.clock.Now()
		err := v.db.InTx(ctx, func(tx *store.Tx) error {
			return tx.CreateToken(ctx, &venue.Token{Hash: auth.TokenHash(token), ClientID: p.ClientID, UserID: p.UserID,
				CreatedAt: now, ExpiresAt: now.Add(time.Minute)})
		})
		if err != nil {
			t.Fatalf("CreateToken() = %v", err)
		}
		accepts(t, v.access, token, p, "right after the token was stored")
	})
}

// TestTokenCacheExpiry: a remembered token is refused when it expires,
// even within access.CacheTTL of its resolution.
func TestTokenCacheExpiry(t *testing.T) {
	testenv.ForEach(t, func(t *testing.T, e store.Engine) {
		v := newAuthVenue(t, e, 10*time.Second)
		p, token := v.user(t, venue.RoleTrader)
		v.clock.Advance(9500 * time.Millisecond)
		accepts(t, v.access, token, p, "500 ms before expiry")
		v.clock.Advance(499 * time.Millisecond)
		accepts(t, v.access, token, p, "1 ms before expiry")
		v.clock.Advance(time.Millisecond)
		refuses(t, v.access, token, "at expiry, 500 ms after the token was resolved")
	})
}

// TestTokenCacheConcurrent: authentications race with the changes that
// forget the cache (run with -race). Nothing revoked may be accepted after
// its revocation returned.
func TestTokenCacheConcurrent(t *testing.T) {
	testenv.ForEach(t, func(t *testing.T, e store.Engine) {
		ctx := context.Background()
		v := newAuthVenue(t, e, 0)
		p, token := v.user(t, venue.RoleTrader)
		doomed, doomedToken := v.user(t, venue.RoleTrader)

		var wg sync.WaitGroup
		stop := make(chan struct{})
		errs := make(chan error, 4)
		for range 4 {
			wg.Go(func() {
				for {
					select {
					case <-stop:
						return
					default:
					}
					if got, err := v.access.Authenticate(ctx, token); err != nil || got != p {
						errs <- fmt.Errorf("Authenticate() = %+v, %v, want %+v", got, err, p)
						return
					}
					_, _ = v.access.Authenticate(ctx, doomedToken)
				}
			})
		}
		for i := range 5 {
			if _, err := v.svc.UpdateUser(ctx, trading.System, p.UserID,
				trading.UserInput{Locale: ptrTo([]string{"en", "de"}[i%2])}); err != nil {
				t.Errorf("UpdateUser() = %v", err)
			}
		}
		if _, err := v.svc.RevokeCredential(ctx, trading.System, doomed.ClientID); err != nil {
			t.Errorf("RevokeCredential() = %v", err)
		}
		for range 20 {
			refuses(t, v.access, doomedToken, "after the revocation returned, with concurrent authentications")
		}
		close(stop)
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Error(err)
		}
	})
}
