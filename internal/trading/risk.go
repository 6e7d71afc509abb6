package trading

import (
	"context"
	"fmt"
	"strings"

	"github.com/quagmt/udecimal"

	"github.com/bondvenue/bondvenue/internal/sequencer"
	"github.com/bondvenue/bondvenue/internal/store"
	"github.com/bondvenue/bondvenue/internal/venue"
)

// This file holds risk limits (docs/guide.md, "Trading"): the kinds of limit, the
// operator's setter and each firm's view of its limits and their use. The
// sequencer enforces them (internal/sequencer/risk.go).

// RiskLimitNames lists the kinds of risk limit every participant carries.
func RiskLimitNames() []string {
	out := make([]string, len(sequencer.LimitKinds))
	for i, k := range sequencer.LimitKinds {
		out[i] = k.Name
	}
	return out
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
	_, known := sequencer.LimitKindOf(in.Name)
	v.Check(known, "name", "must be one of "+strings.Join(RiskLimitNames(), ", "))
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
	err := s.adminTx(ctx, p, &out, func(tx *store.Tx) (change, error) {
		if _, err := tx.Participant(ctx, participantID); err != nil {
			return change{}, err
		}
		ls, err := tx.RiskLimits(ctx, participantID)
		if err != nil {
			return change{}, err
		}
		c := change{action: "risk_limit.set", entityType: "risk_limit"}
		for _, l := range ls {
			if l.Name == in.Name {
				c.before = l
			}
		}
		out, err = tx.UpsertRiskLimit(ctx, &venue.RiskLimit{ID: newID(), ParticipantID: participantID, Name: in.Name,
			Value: *in.Value, CreatedAt: tx.Now(), UpdatedAt: tx.Now()})
		c.entityID, c.after = out.ID, out
		return c, err
	})
	if err != nil {
		return out, fmt.Errorf("set risk limit: %w", err)
	}
	if err := s.refreshEngine(ctx); err != nil {
		return out, err
	}
	return out, nil
}

// RiskLimits returns the caller's firm's limits with their current use.
// Use counts open offer and quote quantity; until trading exists it is 0.
func (s *Service) RiskLimits(ctx context.Context, p venue.Principal) ([]venue.RiskLimit, error) {
	if p.IsOperator() {
		return nil, venue.Forbidden("risk limits belong to a participant; the operator reads them under /admin")
	}
	var out []venue.RiskLimit
	err := s.db.View(ctx, func(tx *store.Tx) error {
		var err error
		out, err = tx.RiskLimits(ctx, p.ParticipantID)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("risk limits: %w", err)
	}
	// Use is the engine's: the open offer and quote quantity it counts,
	// for the caller's firm and the caller itself.
	v, err := s.do(sequencer.WithPriority(ctx), func(st *sequencer.State, b *sequencer.Batch) (any, error) {
		used := map[string]udecimal.Decimal{}
		for _, k := range sequencer.LimitKinds {
			used[k.Name] = st.Use(k, p.ParticipantID, p.UserID)
		}
		return used, nil
	})
	if err != nil {
		return nil, fmt.Errorf("risk limits: %w", err)
	}
	used := v.(map[string]udecimal.Decimal)
	for i := range out {
		out[i].Used = used[out[i].Name]
	}
	return out, nil
}
