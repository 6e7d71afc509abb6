package trading

import (
	"context"
	"fmt"

	"github.com/bondvenue/bondvenue/internal/store"
	"github.com/bondvenue/bondvenue/internal/venue"
)

// System is the principal of local administration (the admin command and
// demo loading): it acts with the operator's rights and has no token.
var System = venue.Principal{UserID: "system", Role: venue.RoleOperator, Channel: venue.ChannelSystem}

// BootstrapOperator creates the first venue operator user and a credential
// for it, as p (System, or the admin command's principal) in the audit
// trail. It refuses when an operator already exists, so it can only open an
// empty venue.
func (s *Service) BootstrapOperator(ctx context.Context, p venue.Principal, email string) (venue.User, IssuedCredential, error) {
	var n int
	err := s.db.View(ctx, func(tx *store.Tx) error {
		var err error
		n, err = tx.CountOperators(ctx)
		return err
	})
	if err != nil {
		return venue.User{}, IssuedCredential{}, fmt.Errorf("bootstrap: %w", err)
	}
	if n > 0 {
		return venue.User{}, IssuedCredential{}, venue.Conflict("the venue already has an operator; use bondvenue admin credential-issue")
	}
	role := venue.RoleOperator
	v, err := s.createUser(ctx, p, UserInput{Email: &email, Role: &role})
	u := v.User
	if err != nil {
		return u, IssuedCredential{}, fmt.Errorf("bootstrap: %w", err)
	}
	c, err := s.issueCredential(ctx, p, u.ID)
	if err != nil {
		return u, c, fmt.Errorf("bootstrap: %w", err)
	}
	return u, c, nil
}

// Empty reports whether the venue holds no participants and no users, the
// condition for loading demo data.
func (s *Service) Empty(ctx context.Context) (bool, error) {
	var empty bool
	err := s.db.View(ctx, func(tx *store.Tx) error {
		ps, _, err := tx.Participants(ctx, nil, venue.Page{Limit: 1})
		if err != nil {
			return err
		}
		us, _, err := tx.Users(ctx, store.UserFilter{}, venue.Page{Limit: 1})
		empty = len(ps) == 0 && len(us) == 0
		return err
	})
	return empty, err
}
