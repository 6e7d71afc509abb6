package trading

import (
	"context"
	"fmt"
	"strings"

	"github.com/bondvenue/bondvenue/internal/store"
	"github.com/bondvenue/bondvenue/internal/venue"
)

// This file holds settlement providers: created by the operator, switched
// and made default by their firm.

// ProviderView is a settlement provider with its derived status: "default"
// when it is its participant's default, else "active" or "disabled".
type ProviderView struct {
	venue.SettlementProvider
	Status string
}

func providerView(sp venue.SettlementProvider, participantDefault string) ProviderView {
	v := ProviderView{SettlementProvider: sp, Status: "active"}
	switch {
	case sp.ID == participantDefault:
		v.Status = "default"
	case !sp.Enabled:
		v.Status = "disabled"
	}
	return v
}

// ProviderFilter selects settlement providers in the index. Zero fields do
// not filter.
type ProviderFilter struct {
	// ParticipantID names a firm: any for the operator, only its own for a
	// participant (another firm's is not found).
	ParticipantID string
	// AccountID names an account the caller can see (else not found): only
	// the providers registered for it.
	AccountID string
	Enabled   *bool
}

// SettlementProviders lists the caller's firm's providers (all for the
// operator).
func (s *Service) SettlementProviders(ctx context.Context, p venue.Principal, f ProviderFilter, page venue.Page) (List[ProviderView], error) {
	var out List[ProviderView]
	err := s.db.View(ctx, func(tx *store.Tx) error {
		firm, err := firmScope(ctx, tx, p, f.ParticipantID)
		if err != nil {
			return err
		}
		if f.AccountID != "" {
			if _, err := visibleAccount(ctx, tx, p, f.AccountID); err != nil {
				return err
			}
		}
		sps, next, err := tx.SettlementProviders(ctx, store.SettlementProviderFilter{ParticipantID: firm,
			AccountID: f.AccountID, Enabled: f.Enabled}, page)
		if err != nil {
			return err
		}
		out.Next = next
		defaults := map[string]string{}
		for _, sp := range sps {
			def, ok := defaults[sp.ParticipantID]
			if !ok {
				part, err := tx.Participant(ctx, sp.ParticipantID)
				if err != nil {
					return err
				}
				def = part.DefaultSettlementProviderID
				defaults[sp.ParticipantID] = def
			}
			out.Items = append(out.Items, providerView(sp, def))
		}
		return nil
	})
	if err != nil {
		return out, fmt.Errorf("list settlement providers: %w", err)
	}
	return out, nil
}

// ToggleSettlementProvider flips a provider's enabled flag. The default
// provider of the participant or of one of its accounts cannot be disabled.
func (s *Service) ToggleSettlementProvider(ctx context.Context, p venue.Principal, id string) (ProviderView, error) {
	var out ProviderView
	err := s.providerTx(ctx, p, id, func(tx *store.Tx, sp *venue.SettlementProvider, part *venue.Participant) (change, error) {
		if sp.Enabled && part.DefaultSettlementProviderID == sp.ID {
			return change{}, venue.Conflict("settlement provider %s is the participant's default; choose another default first", sp.ID)
		}
		if sp.Enabled {
			accs, _, err := tx.Accounts(ctx, store.AccountFilter{ParticipantIDs: []string{sp.ParticipantID}}, venue.Page{})
			if err != nil {
				return change{}, err
			}
			for _, a := range accs {
				if a.DefaultSettlementProviderID == sp.ID {
					return change{}, venue.Conflict("settlement provider %s is the default of account %s; choose another default first", sp.ID, a.Number)
				}
			}
		}
		c := change{action: "settlement_provider.toggle", entityType: "settlement_provider", entityID: sp.ID, before: *sp}
		if err := tx.SetSettlementProviderEnabled(ctx, sp.ID, !sp.Enabled); err != nil {
			return c, err
		}
		after, err := tx.SettlementProvider(ctx, sp.ID)
		c.after = after
		return c, err
	}, &out)
	return out, err
}

// SetAccountDefaultProvider makes a provider the default of one of the
// firm's accounts.
func (s *Service) SetAccountDefaultProvider(ctx context.Context, p venue.Principal, id, accountID string) (ProviderView, error) {
	var out ProviderView
	err := s.providerTx(ctx, p, id, func(tx *store.Tx, sp *venue.SettlementProvider, part *venue.Participant) (change, error) {
		if !validID(accountID) {
			return change{}, venue.NotFound("account")
		}
		acc, err := tx.Account(ctx, accountID)
		if err != nil {
			return change{}, err
		}
		if acc.ParticipantID != sp.ParticipantID {
			return change{}, venue.NotFound("account")
		}
		if !sp.Enabled {
			return change{}, venue.Conflict("settlement provider %s is disabled", sp.ID)
		}
		c := change{action: "account.default_provider", entityType: "account", entityID: accountID, before: acc}
		if err := tx.SetAccountDefaultProvider(ctx, accountID, sp.ID); err != nil {
			return c, err
		}
		c.after, err = tx.Account(ctx, accountID)
		return c, err
	}, &out)
	return out, err
}

// SetParticipantDefaultProvider makes a provider its firm's default.
func (s *Service) SetParticipantDefaultProvider(ctx context.Context, p venue.Principal, id, participantID string) (ProviderView, error) {
	var out ProviderView
	err := s.providerTx(ctx, p, id, func(tx *store.Tx, sp *venue.SettlementProvider, part *venue.Participant) (change, error) {
		if participantID != sp.ParticipantID {
			return change{}, venue.NotFound("participant")
		}
		if !sp.Enabled {
			return change{}, venue.Conflict("settlement provider %s is disabled", sp.ID)
		}
		c := change{action: "participant.default_provider", entityType: "participant", entityID: participantID, before: *part}
		if err := tx.SetParticipantDefaultProvider(ctx, participantID, sp.ID); err != nil {
			return c, err
		}
		after, err := tx.Participant(ctx, participantID)
		*part, c.after = after, after
		return c, err
	}, &out)
	return out, err
}

// providerTx runs a provider change for a PARTICIPANT_ADMIN of the
// provider's firm (or the operator), with its audit entry, and returns the
// provider's new state.
func (s *Service) providerTx(ctx context.Context, p venue.Principal, id string,
	fn func(*store.Tx, *venue.SettlementProvider, *venue.Participant) (change, error), out *ProviderView) error {
	if err := require(p, venue.RoleAdmin, venue.RoleOperator); err != nil {
		return err
	}
	if !validID(id) {
		return venue.NotFound("settlement provider")
	}
	err := s.adminTx(ctx, p, out, func(tx *store.Tx) (change, error) {
		sp, err := tx.SettlementProvider(ctx, id)
		if err != nil {
			return change{}, err
		}
		if !owned(p, sp.ParticipantID) {
			return change{}, venue.NotFound("settlement provider")
		}
		part, err := tx.Participant(ctx, sp.ParticipantID)
		if err != nil {
			return change{}, err
		}
		c, err := fn(tx, &sp, &part)
		if err != nil {
			return c, err
		}
		sp, err = tx.SettlementProvider(ctx, id)
		if err != nil {
			return c, err
		}
		*out = providerView(sp, part.DefaultSettlementProviderID)
		return c, nil
	})
	if err != nil {
		return fmt.Errorf("settlement provider %s: %w", id, err)
	}
	s.lookups.forgetParties() // a provider's state or a default changed
	return nil
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
	err := s.adminTx(ctx, p, &out, func(tx *store.Tx) (change, error) {
		part, err := tx.Participant(ctx, sp.ParticipantID)
		if err != nil {
			return change{}, err
		}
		if sp.AccountID != "" {
			acc, err := tx.Account(ctx, sp.AccountID)
			if err != nil {
				return change{}, err
			}
			if acc.ParticipantID != sp.ParticipantID {
				return change{}, venue.NotFound("account")
			}
		}
		if err := tx.CreateSettlementProvider(ctx, &sp); err != nil {
			return change{}, err
		}
		out = providerView(sp, part.DefaultSettlementProviderID)
		return change{action: "settlement_provider.create", entityType: "settlement_provider", entityID: sp.ID, after: sp}, nil
	})
	if err != nil {
		return out, fmt.Errorf("create settlement provider: %w", err)
	}
	return out, nil
}
