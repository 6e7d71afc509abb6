package trading

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/bondvenue/bondvenue/internal/store"
	"github.com/bondvenue/bondvenue/internal/venue"
)

// This file holds a firm's accounts.

// AccountInput creates an account.
type AccountInput struct {
	ParticipantID, Number, Type string
}

// AccountView is an account with its participant in full, as a retrieve or
// list answers it. An account nested in another record (a participant, a
// user, an offer) is a bare venue.Account: its participant is known there.
type AccountView struct {
	venue.Account
	Participant venue.Participant
}

// AccountFilter selects accounts in the index. Zero fields do not filter.
type AccountFilter struct {
	// ParticipantID names a firm: any for the operator, only its own for a
	// participant (another firm's is not found).
	ParticipantID string
	Status, Type  string
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
	err := s.adminTx(ctx, p, &out, func(tx *store.Tx) (change, error) {
		var err error
		if out.Participant, err = tx.Participant(ctx, in.ParticipantID); err != nil {
			return change{}, err
		}
		err = tx.CreateAccount(ctx, &out.Account)
		return change{action: "account.create", entityType: "account", entityID: out.ID, after: out.Account}, err
	})
	if errors.Is(err, venue.ErrConflict) {
		return out, venue.Conflict("the participant already has account number %s", out.Number)
	}
	if err != nil {
		return out, fmt.Errorf("create account: %w", err)
	}
	return out, nil
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
