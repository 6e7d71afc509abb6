package trading

import (
	"context"
	"errors"
	"fmt"

	"github.com/quagmt/udecimal"

	"github.com/bondvenue/bondvenue/internal/store"
	"github.com/bondvenue/bondvenue/internal/venue"
)

// This file holds participants (firms) and their counterparty relations,
// as the venue operator onboards them and as each caller may read them;
// accounts.go and users.go what belongs to a firm.

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
	err := s.adminTx(ctx, p, &part, func(tx *store.Tx) (change, error) {
		if err := tx.CreateParticipant(ctx, &part); err != nil {
			return change{}, err
		}
		for _, name := range RiskLimitNames() {
			if _, err := tx.UpsertRiskLimit(ctx, &venue.RiskLimit{ID: newID(), ParticipantID: part.ID, Name: name,
				Value: udecimal.Zero, CreatedAt: now, UpdatedAt: now}); err != nil {
				return change{}, err
			}
		}
		return change{action: "participant.create", entityType: "participant", entityID: part.ID, after: part}, nil
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
	err := s.adminTx(ctx, p, &part, func(tx *store.Tx) (change, error) {
		before, err := tx.Participant(ctx, id)
		if err != nil {
			return change{}, err
		}
		part = before
		in.apply(&part)
		if err := venue.ValidateParticipant(&part); err != nil {
			return change{}, err
		}
		part.UpdatedAt = tx.Now()
		err = tx.UpdateParticipant(ctx, &part)
		return change{action: "participant.update", entityType: "participant", entityID: id, before: before, after: part}, err
	})
	if errors.Is(err, venue.ErrConflict) {
		return part, venue.Conflict("a participant with LEI %s exists", part.LEI)
	}
	if err != nil {
		return part, fmt.Errorf("update participant: %w", err)
	}
	return part, nil
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
	err := s.adminTx(ctx, p, &rel, func(tx *store.Tx) (change, error) {
		for _, id := range []string{a, b} {
			if _, err := tx.Participant(ctx, id); err != nil {
				return change{}, err
			}
		}
		c := change{action: "counterparty.set", entityType: "counterparty", entityID: pairID(a, b)}
		if before, err := tx.CounterpartyRelation(ctx, a, b); err == nil {
			c.before = before
		} else if !errors.Is(err, venue.ErrNotFound) {
			return c, err
		}
		var err error
		rel, err = tx.SetCounterparty(ctx, a, b, *enabled)
		c.after = rel
		return c, err
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
