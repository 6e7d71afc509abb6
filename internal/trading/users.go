package trading

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/bondvenue/bondvenue/internal/auth"
	"github.com/bondvenue/bondvenue/internal/store"
	"github.com/bondvenue/bondvenue/internal/venue"
)

// This file holds a firm's users and their API credentials.

// UserInput creates or changes a user. Nil fields keep their value.
type UserInput struct {
	ParticipantID *string
	Email         *string
	Role          *venue.Role
	Status        *string
	Locale        *string
}

// IssuedCredential is a new credential with its secret, shown only once.
type IssuedCredential struct {
	venue.Credential
	Secret string
}

// UserView is a user with its participant in full and that participant's
// accounts, as a retrieve or list answers it. An operator user has no
// participant (nil) and no accounts. A user nested in another record is a
// bare venue.User.
type UserView struct {
	venue.User
	Participant *venue.Participant
	Accounts    []venue.Account
}

// UserFilter selects users in the index. Zero fields do not filter.
type UserFilter struct {
	// ParticipantID names a firm, as in AccountFilter.
	ParticipantID string
	Role          venue.Role
	Status        string
}

// CreateUser adds a user to a participant (or a venue operator) and
// returns it with its participant and accounts. A PARTICIPANT_ADMIN adds
// users to its own firm only, never operators.
func (s *Service) CreateUser(ctx context.Context, p venue.Principal, in UserInput) (UserView, error) {
	if err := require(p, venue.RoleOperator, venue.RoleAdmin); err != nil {
		return UserView{}, err
	}
	if !p.IsOperator() {
		if in.ParticipantID == nil || *in.ParticipantID == "" {
			in.ParticipantID = &p.ParticipantID
		}
		if *in.ParticipantID != p.ParticipantID {
			return UserView{}, venue.NotFound("participant")
		}
		if in.Role != nil && *in.Role == venue.RoleOperator {
			return UserView{}, venue.Forbidden("only the venue operator creates operator users")
		}
	}
	return s.createUser(ctx, p, in)
}

// manageableUser loads a user the caller may administer: any for the
// operator, its own firm's for a PARTICIPANT_ADMIN.
func manageableUser(ctx context.Context, tx *store.Tx, p venue.Principal, id string) (venue.User, error) {
	if !validID(id) {
		return venue.User{}, venue.NotFound("user")
	}
	u, err := tx.User(ctx, id)
	if err != nil {
		return u, err
	}
	if !owned(p, u.ParticipantID) {
		return venue.User{}, venue.NotFound("user")
	}
	return u, nil
}

func (s *Service) createUser(ctx context.Context, p venue.Principal, in UserInput) (UserView, error) {
	now := s.clock()
	u := venue.User{ID: newID(), IsEmailVerified: true, IdentificationStatus: "successful", Status: "active",
		Locale: "en", TermsConditionsSigned: true, TermsConditionsSignedAt: &now, CreatedAt: now, UpdatedAt: now}
	set(&u.ParticipantID, in.ParticipantID)
	set(&u.Email, in.Email)
	set(&u.Role, in.Role)
	set(&u.Status, in.Status)
	set(&u.Locale, in.Locale)
	u.Email = strings.ToLower(strings.TrimSpace(u.Email))
	if err := venue.ValidateUser(&u); err != nil {
		return UserView{}, err
	}
	var out UserView
	err := s.adminTx(ctx, p, &out, func(tx *store.Tx) (change, error) {
		if u.ParticipantID != "" {
			if _, err := tx.Participant(ctx, u.ParticipantID); err != nil {
				return change{}, err
			}
		}
		if err := tx.CreateUser(ctx, &u); err != nil {
			return change{}, err
		}
		views, err := userViews(ctx, tx, []venue.User{u})
		if err == nil {
			out = views[0]
		}
		return change{action: "user.create", entityType: "user", entityID: u.ID, after: u}, err
	})
	if errors.Is(err, venue.ErrConflict) {
		return out, venue.Conflict("a user with e-mail %s exists", u.Email)
	}
	if err != nil {
		return out, fmt.Errorf("create user: %w", err)
	}
	return out, nil
}

// UpdateUser changes a user's e-mail, role, status or locale and returns it
// with its participant and accounts. The user's participant does not change.
func (s *Service) UpdateUser(ctx context.Context, p venue.Principal, id string, in UserInput) (UserView, error) {
	if err := require(p, venue.RoleOperator, venue.RoleAdmin); err != nil {
		return UserView{}, err
	}
	if !p.IsOperator() && in.Role != nil && *in.Role == venue.RoleOperator {
		return UserView{}, venue.Forbidden("only the venue operator grants the operator role")
	}
	var out UserView
	var email string
	err := s.adminTx(ctx, p, &out, func(tx *store.Tx) (change, error) {
		u, err := manageableUser(ctx, tx, p, id)
		if err != nil {
			return change{}, err
		}
		c := change{action: "user.update", entityType: "user", entityID: u.ID, before: u}
		wasActive := u.Status == "active"
		set(&u.Email, in.Email)
		set(&u.Role, in.Role)
		set(&u.Status, in.Status)
		set(&u.Locale, in.Locale)
		u.Email = strings.ToLower(strings.TrimSpace(u.Email))
		email = u.Email
		if err := venue.ValidateUser(&u); err != nil {
			return c, err
		}
		u.UpdatedAt = tx.Now()
		if err := tx.UpdateUser(ctx, &u); err != nil {
			return c, err
		}
		c.after = u
		if wasActive && u.Status != "active" {
			// Disabling revokes: enabling the user again later does not
			// bring its old tokens back.
			if err := tx.RevokeUserTokens(ctx, u.ID); err != nil {
				return c, err
			}
		}
		views, err := userViews(ctx, tx, []venue.User{u})
		if err == nil {
			out = views[0]
		}
		return c, err
	})
	// The user's tokens resolve to its new role, or no longer at all. Also
	// after a failure: a commit whose answer was lost may have happened.
	s.tokens.Forget()
	if errors.Is(err, venue.ErrConflict) {
		return out, venue.Conflict("a user with e-mail %s exists", email)
	}
	if err != nil {
		return out, fmt.Errorf("update user: %w", err)
	}
	return out, nil
}

// IssueCredential creates a client id and secret for a user (a
// PARTICIPANT_ADMIN: for its own firm's users).
func (s *Service) IssueCredential(ctx context.Context, p venue.Principal, userID string) (IssuedCredential, error) {
	if err := require(p, venue.RoleOperator, venue.RoleAdmin); err != nil {
		return IssuedCredential{}, err
	}
	err := s.db.View(ctx, func(tx *store.Tx) error {
		_, err := manageableUser(ctx, tx, p, userID)
		return err
	})
	if err != nil {
		return IssuedCredential{}, fmt.Errorf("issue credential: %w", err)
	}
	return s.issueCredential(ctx, p, userID)
}

func (s *Service) issueCredential(ctx context.Context, p venue.Principal, userID string) (IssuedCredential, error) {
	if !validID(userID) {
		return IssuedCredential{}, venue.NotFound("user")
	}
	secret := auth.NewSecret()
	hash, err := s.hasher.Hash(secret)
	if err != nil {
		return IssuedCredential{}, fmt.Errorf("issue credential: %w", err)
	}
	c := IssuedCredential{Credential: venue.Credential{ClientID: auth.NewClientID(), UserID: userID,
		SecretHash: hash, CreatedAt: s.clock()}, Secret: secret}
	err = s.adminTx(ctx, p, &c, func(tx *store.Tx) (change, error) {
		if _, err := tx.User(ctx, userID); err != nil {
			return change{}, err
		}
		err := tx.CreateCredential(ctx, &c.Credential)
		return change{action: "credential.issue", entityType: "credential", entityID: c.ClientID, after: credentialOf(c.Credential)}, err
	})
	if err != nil {
		return c, fmt.Errorf("issue credential: %w", err)
	}
	return c, nil
}

// Credentials lists a user's credentials (without secrets), newest first.
func (s *Service) Credentials(ctx context.Context, p venue.Principal, userID string, page venue.Page) (List[venue.Credential], error) {
	var out List[venue.Credential]
	if err := require(p, venue.RoleOperator, venue.RoleAdmin); err != nil {
		return out, err
	}
	err := s.db.View(ctx, func(tx *store.Tx) error {
		if _, err := manageableUser(ctx, tx, p, userID); err != nil {
			return err
		}
		var err error
		out.Items, out.Next, err = tx.Credentials(ctx, userID, page)
		return err
	})
	if err != nil {
		return out, fmt.Errorf("list credentials: %w", err)
	}
	return out, nil
}

// RevokeCredential revokes a credential and every token issued with it.
func (s *Service) RevokeCredential(ctx context.Context, p venue.Principal, clientID string) (venue.Credential, error) {
	if err := require(p, venue.RoleOperator, venue.RoleAdmin); err != nil {
		return venue.Credential{}, err
	}
	if !venue.ValidText(clientID) {
		return venue.Credential{}, venue.NotFound("credential")
	}
	var c venue.Credential
	err := s.adminTx(ctx, p, &c, func(tx *store.Tx) (change, error) {
		cur, err := tx.Credential(ctx, clientID)
		if err != nil {
			return change{}, err
		}
		if _, err := manageableUser(ctx, tx, p, cur.UserID); err != nil {
			return change{}, venue.NotFound("credential")
		}
		if err := tx.RevokeCredential(ctx, clientID); err != nil {
			return change{}, err
		}
		c, err = tx.Credential(ctx, clientID)
		return change{action: "credential.revoke", entityType: "credential", entityID: clientID, before: credentialOf(cur),
			after: credentialOf(c)}, err
	})
	// Its tokens must not be honoured from memory: the revocation binds at
	// once here (another process's within access.CacheTTL). Also after a
	// failure: a commit whose answer was lost may have happened.
	s.tokens.Forget()
	if err != nil {
		return c, fmt.Errorf("revoke credential: %w", err)
	}
	return c, nil
}

// Users lists the caller's firm's users (every user for the operator), each
// with its participant and the participant's accounts.
func (s *Service) Users(ctx context.Context, p venue.Principal, f UserFilter, page venue.Page) (List[UserView], error) {
	var out List[UserView]
	err := s.db.View(ctx, func(tx *store.Tx) error {
		firm, err := firmScope(ctx, tx, p, f.ParticipantID)
		if err != nil {
			return err
		}
		us, next, err := tx.Users(ctx, store.UserFilter{ParticipantID: firm, Role: f.Role, Status: f.Status}, page)
		if err != nil {
			return err
		}
		out.Next = next
		out.Items, err = userViews(ctx, tx, us)
		return err
	})
	if err != nil {
		return out, fmt.Errorf("list users: %w", err)
	}
	return out, nil
}

// User returns one user of the caller's firm with its participant and the
// participant's accounts.
func (s *Service) User(ctx context.Context, p venue.Principal, id string) (UserView, error) {
	if !validID(id) {
		return UserView{}, venue.NotFound("user")
	}
	var out UserView
	err := s.db.View(ctx, func(tx *store.Tx) error {
		u, err := tx.User(ctx, id)
		if err != nil {
			return err
		}
		if !owned(p, u.ParticipantID) {
			return venue.NotFound("user")
		}
		views, err := userViews(ctx, tx, []venue.User{u})
		if err == nil {
			out = views[0]
		}
		return err
	})
	if err != nil {
		return out, fmt.Errorf("get user: %w", err)
	}
	return out, nil
}

// userViews adds each user's participant and the participant's accounts,
// loading both in one query each.
func userViews(ctx context.Context, tx *store.Tx, us []venue.User) ([]UserView, error) {
	ids := make([]string, 0, len(us))
	for _, u := range us {
		ids = append(ids, u.ParticipantID)
	}
	ps, err := participantsByID(ctx, tx, ids)
	if err != nil {
		return nil, err
	}
	firms := make([]string, 0, len(ps))
	for id := range ps {
		firms = append(firms, id)
	}
	accs, _, err := tx.Accounts(ctx, store.AccountFilter{ParticipantIDs: firms}, venue.Page{})
	if err != nil {
		return nil, err
	}
	byFirm := map[string][]venue.Account{}
	for _, a := range accs {
		byFirm[a.ParticipantID] = append(byFirm[a.ParticipantID], a)
	}
	out := make([]UserView, 0, len(us))
	for _, u := range us {
		v := UserView{User: u, Accounts: []venue.Account{}}
		if part, ok := ps[u.ParticipantID]; ok {
			v.Participant = &part
			v.Accounts = append(v.Accounts, byFirm[u.ParticipantID]...)
		}
		out = append(out, v)
	}
	return out, nil
}
