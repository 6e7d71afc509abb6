package trading

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/quagmt/udecimal"

	"github.com/bondvenue/bondvenue/internal/auth"
	"github.com/bondvenue/bondvenue/internal/store"
	"github.com/bondvenue/bondvenue/internal/venue"
)

// This file holds participants (firms) and what belongs to them: accounts,
// users, API credentials and counterparty relations, as the venue operator
// onboards them and as each caller may read them.

// set copies *src into *dst when src is not nil.
func set[T any](dst *T, src *T) {
	if src != nil {
		*dst = *src
	}
}

// ParticipantInput creates or changes a participant. Nil fields keep their
// value (or take the default on create).
type ParticipantInput struct {
	LEI, Type, CategoryName, Name, Address, PostalCode, City, State, Country *string
	LegalForm, RegistrationNumber, TaxNumber, Status, KYCStatus              *string
	CSD, CSDBIC11, CustodyAccountNumber, CustodyAccountBeneficiaryBIC8       *string
}

func (in ParticipantInput) apply(p *venue.Participant) {
	set(&p.LEI, in.LEI)
	set(&p.Type, in.Type)
	set(&p.CategoryName, in.CategoryName)
	set(&p.Name, in.Name)
	set(&p.Address, in.Address)
	set(&p.PostalCode, in.PostalCode)
	set(&p.City, in.City)
	set(&p.State, in.State)
	set(&p.Country, in.Country)
	set(&p.LegalForm, in.LegalForm)
	set(&p.RegistrationNumber, in.RegistrationNumber)
	set(&p.TaxNumber, in.TaxNumber)
	set(&p.Status, in.Status)
	set(&p.KYCStatus, in.KYCStatus)
	set(&p.CSD, in.CSD)
	set(&p.CSDBIC11, in.CSDBIC11)
	set(&p.CustodyAccountNumber, in.CustodyAccountNumber)
	set(&p.CustodyAccountBeneficiaryBIC8, in.CustodyAccountBeneficiaryBIC8)
}

// CreateParticipant onboards a firm with the three risk limits (at zero:
// nothing may be offered until the operator sets them).
func (s *Service) CreateParticipant(ctx context.Context, p venue.Principal, in ParticipantInput) (venue.Participant, error) {
	if err := require(p, venue.RoleOperator); err != nil {
		return venue.Participant{}, err
	}
	now := s.clock()
	part := venue.Participant{ID: newID(), Type: "legal_entity", CategoryName: "professional", Status: "active",
		KYCStatus: "successful", CreatedAt: now, UpdatedAt: now}
	in.apply(&part)
	if err := venue.ValidateParticipant(&part); err != nil {
		return part, err
	}
	err := s.inTx(ctx, &part, func(tx *store.Tx) error {
		if err := tx.CreateParticipant(ctx, &part); err != nil {
			return err
		}
		for _, name := range RiskLimitNames() {
			if _, err := tx.UpsertRiskLimit(ctx, &venue.RiskLimit{ID: newID(), ParticipantID: part.ID, Name: name,
				Value: udecimal.Zero, CreatedAt: now, UpdatedAt: now}); err != nil {
				return err
			}
		}
		return nil
	})
	if errors.Is(err, venue.ErrConflict) {
		return part, venue.Conflict("a participant with LEI %s exists", part.LEI)
	}
	if err != nil {
		return part, fmt.Errorf("create participant: %w", err)
	}
	return part, nil
}

// UpdateParticipant changes a participant's fields.
func (s *Service) UpdateParticipant(ctx context.Context, p venue.Principal, id string, in ParticipantInput) (venue.Participant, error) {
	if err := require(p, venue.RoleOperator); err != nil {
		return venue.Participant{}, err
	}
	if !validID(id) {
		return venue.Participant{}, venue.NotFound("participant")
	}
	var part venue.Participant
	err := s.inTx(ctx, &part, func(tx *store.Tx) error {
		var err error
		if part, err = tx.Participant(ctx, id); err != nil {
			return err
		}
		in.apply(&part)
		if err := venue.ValidateParticipant(&part); err != nil {
			return err
		}
		part.UpdatedAt = tx.Now()
		return tx.UpdateParticipant(ctx, &part)
	})
	if errors.Is(err, venue.ErrConflict) {
		return part, venue.Conflict("a participant with LEI %s exists", part.LEI)
	}
	if err != nil {
		return part, fmt.Errorf("update participant: %w", err)
	}
	return part, nil
}

// AccountInput creates an account.
type AccountInput struct {
	ParticipantID, Number, Type string
}

// CreateAccount opens an account for a participant and returns it with
// the participant.
func (s *Service) CreateAccount(ctx context.Context, p venue.Principal, in AccountInput) (AccountView, error) {
	if err := require(p, venue.RoleOperator); err != nil {
		return AccountView{}, err
	}
	var v venue.Validator
	v.Check(validID(in.ParticipantID), "participant_id", "must be a participant id")
	v.Check(strings.TrimSpace(in.Number) != "" && utf8.RuneCountInString(in.Number) <= 64, "number", "is required (at most 64 characters)")
	if in.Type == "" {
		in.Type = "agent"
	}
	v.Check(contains(venue.AccountTypes, in.Type), "type", "must be agent, principal or omnibus")
	if err := v.Err(); err != nil {
		return AccountView{}, err
	}
	now := s.clock()
	out := AccountView{Account: venue.Account{ID: newID(), ParticipantID: in.ParticipantID, Number: strings.TrimSpace(in.Number),
		Status: "active", Type: in.Type, CreatedAt: now, UpdatedAt: now}}
	err := s.inTx(ctx, &out, func(tx *store.Tx) error {
		var err error
		if out.Participant, err = tx.Participant(ctx, in.ParticipantID); err != nil {
			return err
		}
		return tx.CreateAccount(ctx, &out.Account)
	})
	if errors.Is(err, venue.ErrConflict) {
		return out, venue.Conflict("the participant already has account number %s", out.Number)
	}
	if err != nil {
		return out, fmt.Errorf("create account: %w", err)
	}
	return out, nil
}

// UserInput creates or changes a user. Nil fields keep their value.
type UserInput struct {
	ParticipantID *string
	Email         *string
	Role          *venue.Role
	Status        *string
	Locale        *string
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
	return s.createUser(ctx, in)
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

func (s *Service) createUser(ctx context.Context, in UserInput) (UserView, error) {
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
	err := s.inTx(ctx, &out, func(tx *store.Tx) error {
		if u.ParticipantID != "" {
			if _, err := tx.Participant(ctx, u.ParticipantID); err != nil {
				return err
			}
		}
		if err := tx.CreateUser(ctx, &u); err != nil {
			return err
		}
		views, err := userViews(ctx, tx, []venue.User{u})
		if err == nil {
			out = views[0]
		}
		return err
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
	err := s.inTx(ctx, &out, func(tx *store.Tx) error {
		u, err := manageableUser(ctx, tx, p, id)
		if err != nil {
			return err
		}
		wasActive := u.Status == "active"
		set(&u.Email, in.Email)
		set(&u.Role, in.Role)
		set(&u.Status, in.Status)
		set(&u.Locale, in.Locale)
		u.Email = strings.ToLower(strings.TrimSpace(u.Email))
		email = u.Email
		if err := venue.ValidateUser(&u); err != nil {
			return err
		}
		u.UpdatedAt = tx.Now()
		if err := tx.UpdateUser(ctx, &u); err != nil {
			return err
		}
		if wasActive && u.Status != "active" {
			// Disabling revokes: enabling the user again later does not
			// bring its old tokens back.
			if err := tx.RevokeUserTokens(ctx, u.ID); err != nil {
				return err
			}
		}
		views, err := userViews(ctx, tx, []venue.User{u})
		if err == nil {
			out = views[0]
		}
		return err
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

// IssuedCredential is a new credential with its secret, shown only once.
type IssuedCredential struct {
	venue.Credential
	Secret string
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
	return s.issueCredential(ctx, userID)
}

func (s *Service) issueCredential(ctx context.Context, userID string) (IssuedCredential, error) {
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
	err = s.inTx(ctx, &c, func(tx *store.Tx) error {
		if _, err := tx.User(ctx, userID); err != nil {
			return err
		}
		return tx.CreateCredential(ctx, &c.Credential)
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
	err := s.inTx(ctx, &c, func(tx *store.Tx) error {
		cur, err := tx.Credential(ctx, clientID)
		if err != nil {
			return err
		}
		if _, err := manageableUser(ctx, tx, p, cur.UserID); err != nil {
			return venue.NotFound("credential")
		}
		if err := tx.RevokeCredential(ctx, clientID); err != nil {
			return err
		}
		c, err = tx.Credential(ctx, clientID)
		return err
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

// SetCounterparty enables or disables trading between two participants
// (symmetric). enabled is required.
func (s *Service) SetCounterparty(ctx context.Context, p venue.Principal, a, b string, enabled *bool) (venue.CounterpartyRelation, error) {
	if err := require(p, venue.RoleOperator); err != nil {
		return venue.CounterpartyRelation{}, err
	}
	var v venue.Validator
	v.Check(validID(a), "participant_id", "must be a participant id")
	v.Check(validID(b), "counterparty_id", "must be a participant id")
	v.Check(a != b, "counterparty_id", "must differ from participant_id")
	v.Check(enabled != nil, "enabled", "is required (true or false)")
	if err := v.Err(); err != nil {
		return venue.CounterpartyRelation{}, err
	}
	var rel venue.CounterpartyRelation
	err := s.inTx(ctx, &rel, func(tx *store.Tx) error {
		for _, id := range []string{a, b} {
			if _, err := tx.Participant(ctx, id); err != nil {
				return err
			}
		}
		var err error
		rel, err = tx.SetCounterparty(ctx, a, b, *enabled)
		return err
	})
	if err != nil {
		return rel, fmt.Errorf("set counterparty: %w", err)
	}
	if err := s.refreshEngine(ctx); err != nil {
		return rel, err
	}
	return rel, nil
}

// ParticipantView is a participant as one caller may see it.
type ParticipantView struct {
	venue.Participant
	// PublicOnly is set when the caller sees another firm's record: only
	// id, lei, name, type, category_name, country and status.
	PublicOnly bool
	// Nested is set in the participants index.
	Nested *ParticipantNested
}

// ParticipantNested holds the collections nested in the participants index.
type ParticipantNested struct {
	Accounts       []venue.Account
	Users          []venue.User
	Buckets        []BucketView
	RiskLimits     []venue.RiskLimit
	Markets        []venue.Market
	Counterparties []venue.Participant
}

// Participants lists what the caller may see: its own participant with
// every nested collection, or every participant for the operator.
func (s *Service) Participants(ctx context.Context, p venue.Principal, page venue.Page) (List[ParticipantView], error) {
	var out List[ParticipantView]
	err := s.db.View(ctx, func(tx *store.Tx) error {
		var ids []string
		if !p.IsOperator() {
			ids = []string{p.ParticipantID}
		}
		ps, next, err := tx.Participants(ctx, ids, page)
		if err != nil {
			return err
		}
		enabled := true // the index nests the enabled markets
		markets, _, err := tx.Markets(ctx, store.MarketFilter{IsEnabled: &enabled}, venue.Page{})
		if err != nil {
			return err
		}
		out.Next = next
		for _, part := range ps {
			n, err := s.nested(ctx, tx, part.ID, markets)
			if err != nil {
				return err
			}
			out.Items = append(out.Items, ParticipantView{Participant: part, Nested: n})
		}
		return nil
	})
	if err != nil {
		return out, fmt.Errorf("list participants: %w", err)
	}
	return out, nil
}

func (s *Service) nested(ctx context.Context, tx *store.Tx, id string, markets []venue.Market) (*ParticipantNested, error) {
	n := &ParticipantNested{Markets: markets}
	var err error
	if n.Accounts, _, err = tx.Accounts(ctx, store.AccountFilter{ParticipantIDs: []string{id}}, venue.Page{}); err != nil {
		return nil, err
	}
	if n.Users, _, err = tx.Users(ctx, store.UserFilter{ParticipantID: id}, venue.Page{}); err != nil {
		return nil, err
	}
	if n.RiskLimits, err = tx.RiskLimits(ctx, id); err != nil {
		return nil, err
	}
	buckets, _, err := tx.Buckets(ctx, store.BucketFilter{VisibleTo: id}, venue.Page{})
	if err != nil {
		return nil, err
	}
	if n.Buckets, err = s.bucketViews(ctx, tx, buckets); err != nil {
		return nil, err
	}
	cps, err := tx.Counterparties(ctx, id)
	if err != nil {
		return nil, err
	}
	n.Counterparties = []venue.Participant{}
	if len(cps) > 0 { // a nil id list would mean every participant
		if n.Counterparties, _, err = tx.Participants(ctx, cps, venue.Page{}); err != nil {
			return nil, err
		}
	}
	return n, nil
}

// Participant returns one participant: in full for its own users and the
// operator, public fields for an enabled counterparty, else not found.
func (s *Service) Participant(ctx context.Context, p venue.Principal, id string) (ParticipantView, error) {
	if !validID(id) {
		return ParticipantView{}, venue.NotFound("participant")
	}
	var v ParticipantView
	err := s.db.View(ctx, func(tx *store.Tx) error {
		if !owned(p, id) {
			cps, err := tx.Counterparties(ctx, p.ParticipantID)
			if err != nil {
				return err
			}
			if !contains(cps, id) {
				return venue.NotFound("participant")
			}
			v.PublicOnly = true
		}
		var err error
		v.Participant, err = tx.Participant(ctx, id)
		return err
	})
	if err != nil {
		return v, fmt.Errorf("get participant: %w", err)
	}
	return v, nil
}

// AccountView is an account with its participant in full, as a retrieve or
// list answers it. An account nested in another record (a participant, a
// user, an offer) is a bare venue.Account: its participant is known there.
type AccountView struct {
	venue.Account
	Participant venue.Participant
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

// AccountFilter selects accounts in the index. Zero fields do not filter.
type AccountFilter struct {
	// ParticipantID names a firm: any for the operator, only its own for a
	// participant (another firm's is not found).
	ParticipantID string
	Status, Type  string
}

// UserFilter selects users in the index. Zero fields do not filter.
type UserFilter struct {
	// ParticipantID names a firm, as in AccountFilter.
	ParticipantID string
	Role          venue.Role
	Status        string
}

// firmScope returns the firm a list of participant-owned records is
// restricted to: the caller's own for a participant, the named one or every
// firm ("") for the operator. A firm the caller may not see, or that does
// not exist, is not found.
func firmScope(ctx context.Context, tx *store.Tx, p venue.Principal, named string) (string, error) {
	if !p.IsOperator() {
		if named != "" && named != p.ParticipantID {
			return "", venue.NotFound("participant")
		}
		return p.ParticipantID, nil
	}
	if named != "" {
		if !validID(named) {
			return "", venue.NotFound("participant")
		}
		if _, err := tx.Participant(ctx, named); err != nil {
			return "", err
		}
	}
	return named, nil
}

// Accounts lists the caller's firm's accounts (every account for the
// operator), each with its participant.
func (s *Service) Accounts(ctx context.Context, p venue.Principal, f AccountFilter, page venue.Page) (List[AccountView], error) {
	var out List[AccountView]
	err := s.db.View(ctx, func(tx *store.Tx) error {
		firm, err := firmScope(ctx, tx, p, f.ParticipantID)
		if err != nil {
			return err
		}
		sf := store.AccountFilter{Status: f.Status, Type: f.Type}
		if firm != "" {
			sf.ParticipantIDs = []string{firm}
		}
		as, next, err := tx.Accounts(ctx, sf, page)
		if err != nil {
			return err
		}
		out.Next = next
		out.Items, err = accountViews(ctx, tx, as)
		return err
	})
	if err != nil {
		return out, fmt.Errorf("list accounts: %w", err)
	}
	return out, nil
}

// visibleAccount loads an account of the caller's firm (any account for
// the operator), else not found.
func visibleAccount(ctx context.Context, tx *store.Tx, p venue.Principal, id string) (venue.Account, error) {
	if !validID(id) {
		return venue.Account{}, venue.NotFound("account")
	}
	a, err := tx.Account(ctx, id)
	if err != nil {
		return a, err
	}
	if !owned(p, a.ParticipantID) {
		return venue.Account{}, venue.NotFound("account")
	}
	return a, nil
}

// Account returns one of the caller's firm's accounts with its participant.
func (s *Service) Account(ctx context.Context, p venue.Principal, id string) (AccountView, error) {
	var out AccountView
	err := s.db.View(ctx, func(tx *store.Tx) error {
		a, err := visibleAccount(ctx, tx, p, id)
		if err != nil {
			return err
		}
		views, err := accountViews(ctx, tx, []venue.Account{a})
		if err == nil {
			out = views[0]
		}
		return err
	})
	if err != nil {
		return out, fmt.Errorf("get account: %w", err)
	}
	return out, nil
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

// participantsByID loads the distinct participants of ids ("" skipped) in
// one query.
func participantsByID(ctx context.Context, tx *store.Tx, ids []string) (map[string]venue.Participant, error) {
	seen := map[string]bool{}
	distinct := []string{}
	for _, id := range ids {
		if id != "" && !seen[id] {
			seen[id] = true
			distinct = append(distinct, id)
		}
	}
	ps, _, err := tx.Participants(ctx, distinct, venue.Page{})
	if err != nil {
		return nil, err
	}
	out := make(map[string]venue.Participant, len(ps))
	for _, p := range ps {
		out[p.ID] = p
	}
	return out, nil
}

// accountViews adds each account's participant.
func accountViews(ctx context.Context, tx *store.Tx, as []venue.Account) ([]AccountView, error) {
	ids := make([]string, 0, len(as))
	for _, a := range as {
		ids = append(ids, a.ParticipantID)
	}
	ps, err := participantsByID(ctx, tx, ids)
	if err != nil {
		return nil, err
	}
	out := make([]AccountView, 0, len(as))
	for _, a := range as {
		out = append(out, AccountView{Account: a, Participant: ps[a.ParticipantID]})
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

// ParticipantIDByLEI names a firm by its LEI (FIX names RFQ counterparties
// so); any authenticated caller may ask, as the LEI is public.
func (s *Service) ParticipantIDByLEI(ctx context.Context, lei string) (string, error) {
	var id string
	err := s.db.View(ctx, func(tx *store.Tx) error {
		var err error
		id, err = tx.ParticipantIDByLEI(ctx, lei)
		return err
	})
	return id, err
}
