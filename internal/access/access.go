// Package access turns what a client presents into the principal its
// requests act as: a client id and secret (the token grant, and the FIX
// logon), or a bearer token. A resolved token is remembered for a moment,
// so a request does not cost a read of the database to authenticate; a
// change that ends tokens (a revoked credential, a disabled user) calls
// Forget.
package access

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/bondvenue/bondvenue/internal/auth"
	"github.com/bondvenue/bondvenue/internal/store"
	"github.com/bondvenue/bondvenue/internal/venue"
)

// CacheTTL bounds how long Authenticate trusts a resolved token, and never
// beyond the token's own expiry. A revocation or a user change made
// through this process's use cases forgets every token at once (Forget);
// one made by another process (the admin command, another instance) binds
// within CacheTTL.
const CacheTTL = time.Second

// maxTokens bounds the remembered tokens; a full table is emptied.
const maxTokens = 10000

// Config tunes Tokens.
type Config struct {
	// TTL is the lifetime of an access token (default 15 minutes).
	TTL time.Duration
	// Hasher hashes client secrets (default auth.DefaultHasher): the
	// unknown client id's check costs what a real one does.
	Hasher *auth.Hasher
	// Now is the clock (default time.Now).
	Now func() time.Time
}

// Tokens is the venue's access tokens on one database.
type Tokens struct {
	db  *store.DB
	ttl time.Duration
	now func() time.Time
	// dummyHash is verified against when a client id is unknown, so a
	// failed grant costs the same either way.
	dummyHash string

	mu sync.RWMutex
	// resolved maps auth.TokenHash of a token to its principal, until a
	// time. Tokens are remembered by their hash, never the token itself,
	// and only when they resolved: an unknown, expired or revoked token is
	// looked up every time.
	resolved map[string]resolution
	// epoch counts Forget calls: a resolution read before one may be
	// stale and is not remembered after it.
	epoch uint64
}

type resolution struct {
	p     venue.Principal
	until time.Time
}

// New returns the access tokens of db.
func New(db *store.DB, cfg Config) *Tokens {
	t := &Tokens{db: db, ttl: cfg.TTL, now: cfg.Now, resolved: map[string]resolution{}}
	if t.ttl <= 0 {
		t.ttl = 15 * time.Minute
	}
	if t.now == nil {
		t.now = time.Now
	}
	h := auth.DefaultHasher
	if cfg.Hasher != nil {
		h = *cfg.Hasher
	}
	t.dummyHash, _ = h.Hash(auth.NewSecret())
	return t
}

// IssuedToken is the answer to a client-credentials grant.
type IssuedToken struct {
	AccessToken string
	ExpiresIn   int // seconds
}

var errBadCredentials = venue.Unauthenticated("invalid client credentials")

// AuthenticateClient checks a client id and secret (an API credential)
// and returns the principal it acts as: the token grant, and the logon of
// channels that sign in with the credential itself (FIX). Every failure
// answers the same error so callers cannot probe client ids.
func (t *Tokens) AuthenticateClient(ctx context.Context, clientID, secret string) (venue.Principal, error) {
	if clientID == "" || secret == "" || len(clientID) > 200 || len(secret) > 200 || !venue.ValidText(clientID) {
		return venue.Principal{}, errBadCredentials
	}
	var cred venue.Credential
	var user venue.User
	err := t.db.View(ctx, func(tx *store.Tx) error {
		var err error
		if cred, err = tx.Credential(ctx, clientID); err != nil {
			return err
		}
		user, err = tx.User(ctx, cred.UserID)
		return err
	})
	if errors.Is(err, venue.ErrNotFound) {
		// Spend the same effort as a real check so timing does not reveal
		// whether the client id exists.
		_, _ = auth.Verify(t.dummyHash, secret)
		return venue.Principal{}, errBadCredentials
	}
	if err != nil {
		return venue.Principal{}, fmt.Errorf("authenticate client: %w", err)
	}
	ok, err := auth.Verify(cred.SecretHash, secret)
	if err != nil {
		return venue.Principal{}, fmt.Errorf("authenticate client: %w", err)
	}
	if !ok || cred.RevokedAt != nil || user.Status != "active" {
		return venue.Principal{}, errBadCredentials
	}
	return venue.Principal{UserID: user.ID, ParticipantID: user.ParticipantID, Role: user.Role, ClientID: clientID}, nil
}

// IssueToken exchanges a client id and secret for a new access token.
func (t *Tokens) IssueToken(ctx context.Context, clientID, secret string) (IssuedToken, error) {
	p, err := t.AuthenticateClient(ctx, clientID, secret)
	if err != nil {
		return IssuedToken{}, err
	}
	token, hash := auth.NewToken()
	now := t.clock()
	err = t.db.InTx(ctx, func(tx *store.Tx) error {
		if err := tx.CreateToken(ctx, &venue.Token{Hash: hash, ClientID: clientID, UserID: p.UserID,
			CreatedAt: now, ExpiresAt: now.Add(t.ttl)}); err != nil {
			return err
		}
		return tx.TouchUser(ctx, p.UserID)
	})
	if err != nil {
		return IssuedToken{}, fmt.Errorf("issue token: %w", err)
	}
	return IssuedToken{AccessToken: token, ExpiresIn: int(t.ttl.Seconds())}, nil
}

// RenewToken issues a new access token to the client p's token was issued
// to, while that token is good: a screen signed in renews its token
// before it expires instead of asking its user for the secret again. The
// credential and the user are read again, so a revoked credential or a
// disabled user renews nothing. The old token stays good until its own
// expiry (requests on their way with it still pass).
func (t *Tokens) RenewToken(ctx context.Context, p venue.Principal) (IssuedToken, error) {
	if p.ClientID == "" {
		return IssuedToken{}, venue.Unauthenticated("missing or invalid access token")
	}
	token, hash := auth.NewToken()
	now := t.clock()
	err := t.db.InTx(ctx, func(tx *store.Tx) error {
		cred, err := tx.Credential(ctx, p.ClientID)
		if err != nil {
			return err
		}
		user, err := tx.User(ctx, cred.UserID)
		if err != nil {
			return err
		}
		if cred.RevokedAt != nil || user.Status != "active" || user.ID != p.UserID {
			return venue.Unauthenticated("missing, invalid, expired or revoked access token")
		}
		if err := tx.CreateToken(ctx, &venue.Token{Hash: hash, ClientID: p.ClientID, UserID: p.UserID,
			CreatedAt: now, ExpiresAt: now.Add(t.ttl)}); err != nil {
			return err
		}
		return tx.TouchUser(ctx, p.UserID)
	})
	if errors.Is(err, venue.ErrNotFound) {
		return IssuedToken{}, venue.Unauthenticated("missing, invalid, expired or revoked access token")
	}
	if err != nil {
		return IssuedToken{}, fmt.Errorf("renew token: %w", err)
	}
	return IssuedToken{AccessToken: token, ExpiresIn: int(t.ttl.Seconds())}, nil
}

// Authenticate resolves a bearer token to its principal. A resolved token
// is remembered for CacheTTL (never past its expiry).
func (t *Tokens) Authenticate(ctx context.Context, token string) (venue.Principal, error) {
	if token == "" || len(token) > 200 {
		return venue.Principal{}, venue.Unauthenticated("missing or invalid access token")
	}
	hash := auth.TokenHash(token)
	now := t.clock()
	p, ok, epoch := t.recall(hash, now)
	if ok {
		return p, nil
	}
	var expires time.Time
	err := t.db.View(ctx, func(tx *store.Tx) error {
		var err error
		p, expires, err = tx.TokenPrincipal(ctx, hash, now)
		return err
	})
	if errors.Is(err, venue.ErrNotFound) {
		return p, venue.Unauthenticated("missing, invalid, expired or revoked access token")
	}
	if err != nil {
		return p, fmt.Errorf("authenticate: %w", err)
	}
	until := now.Add(CacheTTL)
	if expires.Before(until) {
		until = expires
	}
	t.remember(hash, resolution{p: p, until: until}, epoch)
	return p, nil
}

// recall returns the principal token hash resolved to, if remembered and
// good at now, and the count of Forget calls so far (to pass to remember
// with what is read after it).
func (t *Tokens) recall(hash string, now time.Time) (venue.Principal, bool, uint64) {
	t.mu.RLock()
	defer t.mu.RUnlock()
	r, ok := t.resolved[hash]
	// An entry good for longer than CacheTTL from now was remembered in
	// the future: the clock was set back. It must not outlive its bound.
	if !ok || !now.Before(r.until) || r.until.Sub(now) > CacheTTL {
		return venue.Principal{}, false, t.epoch
	}
	return r.p, true, t.epoch
}

// remember keeps what token hash resolved to, unless Forget ran since
// epoch: then what was read may predate a revocation.
func (t *Tokens) remember(hash string, r resolution, epoch uint64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.epoch != epoch {
		return
	}
	if len(t.resolved) >= maxTokens {
		clear(t.resolved)
	}
	t.resolved[hash] = r
}

// Forget drops every remembered token: a credential was revoked, or a
// user's status, role or participant changed (also after a failed commit,
// whose change may have happened).
func (t *Tokens) Forget() {
	t.mu.Lock()
	clear(t.resolved)
	t.epoch++
	t.mu.Unlock()
}

// clock returns the time truncated to the millisecond precision the store
// keeps.
func (t *Tokens) clock() time.Time { return t.now().UTC().Truncate(time.Millisecond) }
