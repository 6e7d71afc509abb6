package trading

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/bondvenue/bondvenue/internal/audit"
	"github.com/bondvenue/bondvenue/internal/store"
	"github.com/bondvenue/bondvenue/internal/venue"
)

// This file holds the operator's audit trail as the use cases keep it
// (internal/audit): every change an operator or a firm's admin makes —
// reference data, users and credentials, settlement, risk limits, the
// pre-trade controls — writes one entry in the transaction, or the
// sequencer batch, that applies it; and the operator reads the trail.

// auditReaders are the roles that read the audit trail.
var auditReaders = []venue.Role{venue.RoleOperator}

// WithReason returns the Service whose administrative writes record reason
// (trimmed; "" for none) as the why of their audit entries. Like a claim,
// the reason is a value the adapter holds and passes on explicitly: a use
// case that requires one (a halt) takes it in its input instead.
func (s *Service) WithReason(reason string) *Service {
	out := *s
	out.reason = strings.TrimSpace(reason)
	return &out
}

// checkReason refuses a reason the trail cannot keep. A missing reason is
// never refused here: only a halt requires one.
func (s *Service) checkReason() error {
	var v venue.Validator
	v.Check(venue.ValidText(s.reason), "reason", "must be UTF-8 text without NUL characters")
	v.CheckLength("reason", s.reason, venue.MaxText)
	return v.Err()
}

// change is an administrative write as its audit entry records it: what
// was done to which entity, and the entity's state before and after (nil:
// none, as before a create).
type change struct {
	action, entityType, entityID string
	before, after                any
}

// auditEntry is c, made by p at now, as the trail's entry, with the
// Service's reason unless reason is given.
func (s *Service) auditEntry(p venue.Principal, c change, now time.Time, reason ...string) (audit.Entry, error) {
	e := audit.Entry{At: audit.Truncate(now), UserID: p.UserID, Role: string(p.Role), Channel: p.Channel,
		Action: c.action, EntityType: c.entityType, EntityID: c.entityID, Reason: s.reason}
	if e.Channel == "" {
		e.Channel = venue.ChannelSystem
	}
	if len(reason) > 0 {
		e.Reason = reason[0]
	}
	var err error
	if e.Before, err = audit.State(c.before); err != nil {
		return e, err
	}
	e.After, err = audit.State(c.after)
	return e, err
}

// adminTx is inTx for an administrative write by p: fn makes the change
// and says what it was; its audit entry is written last in the same
// transaction (after any event, as the store requires), so the change and
// its entry commit together or not at all.
func (s *Service) adminTx(ctx context.Context, p venue.Principal, result any, fn func(*store.Tx) (change, error)) error {
	if err := s.checkReason(); err != nil {
		return err
	}
	return s.inTx(ctx, result, func(tx *store.Tx) error {
		c, err := fn(tx)
		if err != nil {
			return err
		}
		e, err := s.auditEntry(p, c, s.now())
		if err != nil {
			return err
		}
		return tx.AppendAudit(ctx, e)
	})
}

// AuditFilter selects entries of the audit trail. Zero fields do not
// filter.
type AuditFilter struct {
	// From and To bound the entries' time: From ≤ at < To.
	From, To *time.Time
	// EntityType keeps one type of entity's entries ("market",
	// "participant", ...); with EntityID, one entity's.
	EntityType, EntityID string
	// After keeps the entries numbered after it; Limit bounds how many
	// (1 to 1000).
	After int64
	Limit int
}

// AuditLog lists the audit trail's entries f selects, in sequence order.
func (s *Service) AuditLog(ctx context.Context, p venue.Principal, f AuditFilter) ([]audit.Entry, error) {
	if err := require(p, auditReaders...); err != nil {
		return nil, err
	}
	var v venue.Validator
	v.Check(f.EntityType != "" || f.EntityID == "", "entity", "names an entity's id only after its type: type:id")
	v.CheckLength("entity", f.EntityType+":"+f.EntityID, venue.MaxName)
	v.Check(f.Limit >= 1 && f.Limit <= 1000, "limit", "must be an integer between 1 and 1000")
	v.Check(f.After >= 0, "after", "must be a non-negative sequence number")
	if err := v.Err(); err != nil {
		return nil, err
	}
	var out []audit.Entry
	err := s.db.View(ctx, func(tx *store.Tx) error {
		var err error
		out, err = tx.AuditEntries(ctx, store.AuditFilter{From: f.From, To: f.To, EntityType: f.EntityType,
			EntityID: f.EntityID, After: f.After, Limit: f.Limit})
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("audit log: %w", err)
	}
	return out, nil
}

// RecordDeferralTable writes the deferral table the venue runs with to the
// audit trail, as p, when it is not the table the trail last recorded: the
// table is a setting of the serve command (--deferral-table), so a change
// shows when an instance starts with another one. It reports whether it
// wrote an entry.
func (s *Service) RecordDeferralTable(ctx context.Context, p venue.Principal, table any) (bool, error) {
	state, err := audit.State(table)
	if err != nil {
		return false, err
	}
	wrote := false
	err = s.db.InTx(ctx, func(tx *store.Tx) error {
		last, err := tx.LastAuditOf(ctx, "deferral_table", "venue")
		if err != nil && !errors.Is(err, venue.ErrNotFound) {
			return err
		}
		if wrote = err != nil || !bytes.Equal(last.After, state); !wrote {
			return nil
		}
		e, err := s.auditEntry(p, change{action: "deferral_table.set", entityType: "deferral_table", entityID: "venue"}, s.now())
		if err != nil {
			return err
		}
		if last.Seq > 0 {
			e.Before = last.After
		}
		e.After = state
		return tx.AppendAudit(ctx, e)
	})
	if err != nil {
		return false, fmt.Errorf("record the deferral table: %w", err)
	}
	return wrote, nil
}

// credentialState is a credential as the trail keeps it: never its secret's
// hash.
type credentialState struct {
	ClientID, UserID string
	CreatedAt        time.Time
	RevokedAt        *time.Time
}

func credentialOf(c venue.Credential) credentialState {
	return credentialState{ClientID: c.ClientID, UserID: c.UserID, CreatedAt: c.CreatedAt, RevokedAt: c.RevokedAt}
}

// killSwitchState and haltState are the pre-trade controls as the trail
// keeps them.
type killSwitchState struct {
	ParticipantID string
	Enabled       bool
}

type haltState struct {
	MarketID, InstrumentID string
	Halted                 bool
	Reason                 string
}

// pairID names a record kept under two ids (a counterparty relation, an
// instrument's halt on a market).
func pairID(a, b string) string { return a + "/" + b }
