package trading

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/bondvenue/bondvenue/internal/auth"
	"github.com/bondvenue/bondvenue/internal/store"
	"github.com/bondvenue/bondvenue/internal/venue"
	"github.com/quagmt/udecimal"
)

// This file holds the venue operator's onboarding use cases.

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

func validateParticipant(p *venue.Participant) error {
	var v venue.Validator
	v.Check(strings.TrimSpace(p.Name) != "", "name", "is required")
	v.Check(venue.ValidLEI(p.LEI), "lei", "must be a 20-character ISO 17442 LEI with valid check digits")
	v.Check(venue.ValidCountry(p.Country), "country", "must be an ISO 3166 two-letter code")
	v.Check(p.Status == "active" || p.Status == "suspended", "status", "must be active or suspended")
	v.Check(p.Type == "legal_entity", "type", "must be legal_entity")
	v.Check(p.CategoryName == "professional" || p.CategoryName == "wholesale", "category_name", "must be professional or wholesale")
	v.Check(p.KYCStatus == "pending" || p.KYCStatus == "successful" || p.KYCStatus == "failed", "kyc_status",
		"must be pending, successful or failed")
	for _, f := range []struct{ name, value string }{{"name", p.Name}, {"address", p.Address}, {"postal_code", p.PostalCode},
		{"city", p.City}, {"state", p.State}, {"legal_form", p.LegalForm}, {"registration_number", p.RegistrationNumber},
		{"tax_number", p.TaxNumber}, {"csd", p.CSD}, {"csd_bic_11", p.CSDBIC11}, {"custody_account_number", p.CustodyAccountNumber},
		{"custody_account_beneficiary_bic_8", p.CustodyAccountBeneficiaryBIC8}} {
		v.CheckLength(f.name, f.value, venue.MaxName)
	}
	return v.Err()
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
	if err := validateParticipant(&part); err != nil {
		return part, err
	}
	err := s.db.InTx(ctx, func(tx *store.Tx) error {
		if err := tx.CreateParticipant(ctx, &part); err != nil {
			return err
		}
		for _, name := range venue.RiskLimitNames {
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
	err := s.db.InTx(ctx, func(tx *store.Tx) error {
		var err error
		if part, err = tx.Participant(ctx, id); err != nil {
			return err
		}
		in.apply(&part)
		if err := validateParticipant(&part); err != nil {
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
	err := s.db.InTx(ctx, func(tx *store.Tx) error {
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

func validateUser(u *venue.User) error {
	var v venue.Validator
	v.Check(venue.ValidEmail(u.Email), "email", "must be an e-mail address")
	v.Check(u.Role.Valid(), "role", "must be VENUE_OPERATOR, PARTICIPANT_ADMIN, PARTICIPANT_TRADER or PARTICIPANT_VIEWER")
	if u.Role == venue.RoleOperator {
		v.Check(u.ParticipantID == "", "participant_id", "must be empty for a VENUE_OPERATOR")
	} else if u.Role.Valid() {
		v.Check(validID(u.ParticipantID), "participant_id", "is required for a participant role")
	}
	v.Check(u.Status == "active" || u.Status == "disabled", "status", "must be active or disabled")
	v.Check(len(u.Locale) >= 2 && len(u.Locale) <= 10, "locale", "must be a language tag such as en")
	return v.Err()
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
	if err := validateUser(&u); err != nil {
		return UserView{}, err
	}
	var out UserView
	err := s.db.InTx(ctx, func(tx *store.Tx) error {
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
	err := s.db.InTx(ctx, func(tx *store.Tx) error {
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
		if err := validateUser(&u); err != nil {
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
	s.lookups.forgetTokens()
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
	err = s.db.InTx(ctx, func(tx *store.Tx) error {
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
	err := s.db.InTx(ctx, func(tx *store.Tx) error {
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
	// once here (another process's within tokenCacheTTL). Also after a
	// failure: a commit whose answer was lost may have happened.
	s.lookups.forgetTokens()
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
	err := s.db.InTx(ctx, func(tx *store.Tx) error {
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

// RiskLimitInput sets one risk limit.
type RiskLimitInput struct {
	Name string
	// Value is the limit in nominal (≥ 0); nil when the request has none.
	Value *udecimal.Decimal
	// Issues are problems the adapter found decoding the request (a value
	// that is not a decimal): the use case reports them with its own and
	// changes nothing.
	Issues []venue.FieldIssue
}

// SetRiskLimit sets one of a participant's limits.
func (s *Service) SetRiskLimit(ctx context.Context, p venue.Principal, participantID string, in RiskLimitInput) (venue.RiskLimit, error) {
	if err := require(p, venue.RoleOperator); err != nil {
		return venue.RiskLimit{}, err
	}
	if !validID(participantID) {
		return venue.RiskLimit{}, venue.NotFound("participant")
	}
	var v venue.Validator
	for _, is := range in.Issues {
		v.Addf(is.Field, "%s", is.Issue)
	}
	v.Check(contains(venue.RiskLimitNames, in.Name), "name", "must be MAX_OFFER, ALL_OFFER_SUM or ALL_OFFER_USER_SUM")
	if len(in.Issues) == 0 {
		v.Check(in.Value != nil, "value", "is required")
		v.Check(in.Value == nil || !in.Value.IsNeg(), "value", "must not be negative")
		if in.Value != nil && venue.AmountIssue(*in.Value) != "" {
			v.Addf("value", "%s", venue.AmountIssue(*in.Value))
		}
	}
	if err := v.Err(); err != nil {
		return venue.RiskLimit{}, err
	}
	var out venue.RiskLimit
	err := s.db.InTx(ctx, func(tx *store.Tx) error {
		if _, err := tx.Participant(ctx, participantID); err != nil {
			return err
		}
		var err error
		out, err = tx.UpsertRiskLimit(ctx, &venue.RiskLimit{ID: newID(), ParticipantID: participantID, Name: in.Name,
			Value: *in.Value, CreatedAt: tx.Now(), UpdatedAt: tx.Now()})
		return err
	})
	if err != nil {
		return out, fmt.Errorf("set risk limit: %w", err)
	}
	if err := s.refreshEngine(ctx); err != nil {
		return out, err
	}
	return out, nil
}

// CreateSettlementProvider registers a settlement provider for a
// participant (and optionally one of its accounts). A PARTICIPANT_ADMIN
// registers providers for its own firm.
func (s *Service) CreateSettlementProvider(ctx context.Context, p venue.Principal, sp venue.SettlementProvider) (ProviderView, error) {
	if err := require(p, venue.RoleOperator, venue.RoleAdmin); err != nil {
		return ProviderView{}, err
	}
	if !p.IsOperator() {
		if sp.ParticipantID == "" {
			sp.ParticipantID = p.ParticipantID
		}
		if sp.ParticipantID != p.ParticipantID {
			return ProviderView{}, venue.NotFound("participant")
		}
	}
	var v venue.Validator
	v.Check(validID(sp.ParticipantID), "participant_id", "must be a participant id")
	v.Check(strings.TrimSpace(sp.Provider) != "", "provider", "is required")
	v.Check(sp.AccountID == "" || validID(sp.AccountID), "account_id", "must be an account id")
	for _, f := range []struct{ name, value string }{{"provider", sp.Provider}, {"type", sp.Type}, {"swiat_id", sp.SwiatID},
		{"d7_id", sp.D7ID}, {"pset", sp.PSET}, {"agent_name", sp.AgentName}, {"agent_bic", sp.AgentBIC},
		{"agent_number", sp.AgentNumber}, {"localcode", sp.LocalCode}, {"csd_bic11", sp.CSDBIC11},
		{"custody_account_number", sp.CustodyAccountNumber}, {"beneficiary_bic8", sp.BeneficiaryBIC8},
		{"buyr_sell_name", sp.BuyrSellName}, {"buyr_sell_bic", sp.BuyrSellBIC}, {"safe", sp.Safe}} {
		v.CheckLength(f.name, f.value, venue.MaxName)
	}
	if err := v.Err(); err != nil {
		return ProviderView{}, err
	}
	now := s.clock()
	sp.ID, sp.CreatedAt, sp.UpdatedAt = newID(), now, now
	if sp.Type == "" {
		sp.Type = "custodian"
	}
	var out ProviderView
	err := s.db.InTx(ctx, func(tx *store.Tx) error {
		part, err := tx.Participant(ctx, sp.ParticipantID)
		if err != nil {
			return err
		}
		if sp.AccountID != "" {
			acc, err := tx.Account(ctx, sp.AccountID)
			if err != nil {
				return err
			}
			if acc.ParticipantID != sp.ParticipantID {
				return venue.NotFound("account")
			}
		}
		if err := tx.CreateSettlementProvider(ctx, &sp); err != nil {
			return err
		}
		out = providerView(sp, part.DefaultSettlementProviderID)
		return nil
	})
	if err != nil {
		return out, fmt.Errorf("create settlement provider: %w", err)
	}
	return out, nil
}

// maxURL bounds a news item's link: longer ones are not URLs browsers or
// servers agree to handle.
const maxURL = 2048

// NewsInput creates a news item.
type NewsInput struct {
	Title, Body, Source, URL string
}

// CreateNews publishes a news item and records a news.create event.
func (s *Service) CreateNews(ctx context.Context, p venue.Principal, in NewsInput) (venue.News, error) {
	if err := require(p, venue.RoleOperator); err != nil {
		return venue.News{}, err
	}
	var v venue.Validator
	v.Check(strings.TrimSpace(in.Title) != "" && utf8.RuneCountInString(in.Title) <= 300, "title", "is required (at most 300 characters)")
	v.Check(strings.TrimSpace(in.Body) != "" && utf8.RuneCountInString(in.Body) <= 20000, "body", "is required (at most 20000 characters)")
	v.Check(in.URL == "" || strings.HasPrefix(in.URL, "https://") || strings.HasPrefix(in.URL, "http://"), "url", "must be an http(s) URL")
	v.CheckLength("url", in.URL, maxURL)
	v.CheckLength("source", in.Source, venue.MaxName)
	if err := v.Err(); err != nil {
		return venue.News{}, err
	}
	now := s.clock()
	n := venue.News{ID: newID(), Title: strings.TrimSpace(in.Title), Body: in.Body, Source: in.Source, URL: in.URL,
		PublishedAt: now, CreatedAt: now, UpdatedAt: now}
	err := s.db.InTx(ctx, func(tx *store.Tx) error {
		if err := tx.CreateNews(ctx, &n); err != nil {
			return err
		}
		return appendEvent(ctx, tx, Event{Type: EventNewsCreate, News: &n})
	})
	if err != nil {
		return n, fmt.Errorf("create news: %w", err)
	}
	return n, nil
}
