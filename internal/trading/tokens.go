package trading

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/bondvenue/bondvenue/internal/auth"
	"github.com/bondvenue/bondvenue/internal/store"
	"github.com/bondvenue/bondvenue/internal/venue"
)

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
func (s *Service) AuthenticateClient(ctx context.Context, clientID, secret string) (venue.Principal, error) {
	if clientID == "" || secret == "" || len(clientID) > 200 || len(secret) > 200 || !venue.ValidText(clientID) {
		return venue.Principal{}, errBadCredentials
	}
	var cred venue.Credential
	var user venue.User
	err := s.db.View(ctx, func(tx *store.Tx) error {
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
		_, _ = auth.Verify(s.dummyHash, secret)
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
func (s *Service) IssueToken(ctx context.Context, clientID, secret string) (IssuedToken, error) {
	p, err := s.AuthenticateClient(ctx, clientID, secret)
	if err != nil {
		return IssuedToken{}, err
	}
	token, hash := auth.NewToken()
	now := s.clock()
	err = s.inTx(ctx, &token, func(tx *store.Tx) error {
		if err := tx.CreateToken(ctx, &venue.Token{Hash: hash, ClientID: clientID, UserID: p.UserID,
			CreatedAt: now, ExpiresAt: now.Add(s.tokenTTL)}); err != nil {
			return err
		}
		return tx.TouchUser(ctx, p.UserID)
	})
	if err != nil {
		return IssuedToken{}, fmt.Errorf("issue token: %w", err)
	}
	return IssuedToken{AccessToken: token, ExpiresIn: int(s.tokenTTL.Seconds())}, nil
}

// Authenticate resolves a bearer token to its principal. A resolved token
// is remembered for tokenCacheTTL (never past its expiry); see lookups.
func (s *Service) Authenticate(ctx context.Context, token string) (venue.Principal, error) {
	if token == "" || len(token) > 200 {
		return venue.Principal{}, venue.Unauthenticated("missing or invalid access token")
	}
	hash := auth.TokenHash(token)
	now := s.clock()
	if p, ok := recall(s.lookups, s.lookups.tokens, hash, now); ok {
		return p, nil
	}
	epoch := s.lookups.tokenEpochNow()
	var p venue.Principal
	var expires time.Time
	err := s.db.View(ctx, func(tx *store.Tx) error {
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
	until := now.Add(tokenCacheTTL)
	if expires.Before(until) {
		until = expires
	}
	s.lookups.rememberToken(hash, p, until, epoch)
	return p, nil
}
