package trading

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/bondvenue/bondvenue/internal/sequencer"
	"github.com/bondvenue/bondvenue/internal/store"
	"github.com/bondvenue/bondvenue/internal/venue"
)

// This file holds the pre-trade controls' use cases (docs/pretrade-controls.md):
// a firm's kill switch, an instrument's halt on a market and the price
// collar a client may read before it sends a price. The sequencer applies
// them (internal/sequencer/controls.go).

// killSwitchOwner is the participant whose kill switch p may reach:
// the operator any, named by participantID; a firm's user its own
// (participantID empty), which only its admin may set.
func killSwitchOwner(p venue.Principal, participantID string, write bool) (string, error) {
	if p.IsOperator() {
		if participantID == "" {
			return "", venue.Forbidden("the operator has no firm: its path names the participant")
		}
		if !validID(participantID) {
			return "", venue.NotFound("participant")
		}
		return participantID, nil
	}
	if participantID != "" {
		return "", venue.Forbidden("a participant's kill switch by id is the operator's")
	}
	if write {
		if err := require(p, venue.RoleAdmin); err != nil {
			return "", err
		}
	}
	return p.ParticipantID, nil
}

// KillSwitch reads a firm's kill switch: the caller's own (participantID
// empty), or any for the operator.
func (s *Service) KillSwitch(ctx context.Context, p venue.Principal, participantID string) (venue.KillSwitchResult, error) {
	id, err := killSwitchOwner(p, participantID, false)
	if err != nil {
		return venue.KillSwitchResult{}, err
	}
	if err := s.participantExists(ctx, id); err != nil {
		return venue.KillSwitchResult{}, err
	}
	v, err := s.do(sequencer.WithPriority(ctx), func(st *sequencer.State, b *sequencer.Batch) (any, error) {
		k := st.KillSwitch(id)
		return venue.KillSwitchResult{ParticipantID: id, Enabled: k.Enabled, UpdatedAt: k.UpdatedAt}, nil
	})
	if err != nil {
		return venue.KillSwitchResult{}, fmt.Errorf("kill switch: %w", err)
	}
	return v.(venue.KillSwitchResult), nil
}

// SetKillSwitch turns a firm's kill switch on (cancelling all its open
// offers, quotes and RFQs in one batch, and refusing new ones) or off, and
// records the change in the audit trail in that batch. It never asks for a
// reason: the Service's, if any, is recorded.
func (s *Service) SetKillSwitch(ctx context.Context, p venue.Principal, participantID string, enabled bool) (venue.KillSwitchResult, error) {
	id, err := killSwitchOwner(p, participantID, true)
	if err != nil {
		return venue.KillSwitchResult{}, err
	}
	if err := s.checkReason(); err != nil {
		return venue.KillSwitchResult{}, err
	}
	if err := s.participantExists(ctx, id); err != nil {
		return venue.KillSwitchResult{}, err
	}
	if s.replaying() { // applied before its answer was lost: answered from its result
		var res venue.KillSwitchResult
		return res, s.replayed(&res)
	}
	// The priority lane: a firm stopping its trading is never refused as late.
	v, err := s.do(sequencer.WithPriority(ctx), func(st *sequencer.State, b *sequencer.Batch) (any, error) {
		e, err := s.auditEntry(p, change{action: "killswitch.set", entityType: "kill_switch", entityID: id,
			before: killSwitchState{ParticipantID: id, Enabled: st.KillSwitch(id).Enabled},
			after:  killSwitchState{ParticipantID: id, Enabled: enabled}}, st.Now())
		if err != nil {
			return nil, err
		}
		if p.IsOperator() { // a firm's own kill switch cancels as the member
			b.ByVenue()
		}
		res, err := st.SetKillSwitch(b, id, enabled)
		if err == nil {
			b.Audit(e)
		}
		return res, err
	})
	if err != nil {
		return venue.KillSwitchResult{}, fmt.Errorf("set kill switch: %w", err)
	}
	res := v.(venue.KillSwitchResult)
	s.log.Info("kill switch set", "participant", id, "enabled", enabled, "cancelled", res.Cancelled, "by", p.UserID)
	return res, nil
}

func (s *Service) participantExists(ctx context.Context, id string) error {
	return s.db.View(ctx, func(tx *store.Tx) error {
		_, err := tx.Participant(ctx, id)
		return err
	})
}

// HaltInput halts or resumes an instrument on a market.
type HaltInput struct {
	Halted *bool
	Reason string
}

// SetHalt halts or resumes trading on an instrument on a market (the
// operator). While halted, new offers, quotes, RFQs, accepts and the
// amendments that could trade are refused; cancels go through.
func (s *Service) SetHalt(ctx context.Context, p venue.Principal, marketID, instrumentID string, in HaltInput) (venue.Halt, error) {
	if err := require(p, venue.RoleOperator); err != nil {
		return venue.Halt{}, err
	}
	if !validID(marketID) {
		return venue.Halt{}, venue.NotFound("market")
	}
	if !validID(instrumentID) {
		return venue.Halt{}, venue.NotFound("instrument")
	}
	var v venue.Validator
	v.Check(in.Halted != nil, "halted", "is required: true or false")
	in.Reason = strings.TrimSpace(in.Reason)
	v.Check(in.Halted == nil || !*in.Halted || in.Reason != "", "reason", "is required when halting")
	v.CheckLength("reason", in.Reason, venue.MaxText)
	if err := v.Err(); err != nil {
		return venue.Halt{}, err
	}
	var listed bool
	if err := s.db.View(ctx, func(tx *store.Tx) error {
		if _, err := tx.Market(ctx, marketID); err != nil {
			return err
		}
		in, err := tx.Instrument(ctx, instrumentID)
		if err != nil {
			return err
		}
		ms, _, err := tx.Markets(ctx, store.MarketFilter{InstrumentID: in.ID}, venue.Page{})
		for _, m := range ms {
			listed = listed || m.ID == marketID
		}
		return err
	}); err != nil {
		return venue.Halt{}, fmt.Errorf("set halt: %w", err)
	}
	if !listed {
		return venue.Halt{}, venue.NotFound("instrument on this market")
	}
	if s.replaying() {
		var h venue.Halt
		return h, s.replayed(&h)
	}
	v2, err := s.do(sequencer.WithPriority(ctx), func(st *sequencer.State, b *sequencer.Batch) (any, error) {
		before, action := st.Halt(marketID, instrumentID), "instrument.resume"
		if *in.Halted {
			action = "instrument.halt"
		}
		e, err := s.auditEntry(p, change{action: action, entityType: "halt", entityID: pairID(marketID, instrumentID),
			before: haltState{marketID, instrumentID, before.Halted, before.Reason},
			after:  haltState{marketID, instrumentID, *in.Halted, in.Reason}}, st.Now(), in.Reason)
		if err != nil {
			return nil, err
		}
		h, err := st.SetHalt(b, marketID, instrumentID, *in.Halted, in.Reason)
		if err == nil {
			b.Audit(e)
		}
		return h, err
	})
	if err != nil {
		return venue.Halt{}, fmt.Errorf("set halt: %w", err)
	}
	h := v2.(venue.Halt)
	s.log.Info("instrument halt set", "market", marketID, "instrument", instrumentID, "halted", h.Halted, "reason", h.Reason)
	return h, nil
}

// CollarView is the price band a market takes for an instrument now, and
// whether the instrument is halted there: what a client checks a price
// against before it sends it.
type CollarView struct {
	sequencer.Collar
	Halted     bool
	HaltReason string
	At         time.Time
}

// PriceCollar answers the collar of a market for an instrument now; with
// no market, of the instrument's continuous market that allows partial
// fills (else its first market).
func (s *Service) PriceCollar(ctx context.Context, p venue.Principal, instrumentID, marketID string) (CollarView, error) {
	if !validID(instrumentID) {
		return CollarView{}, venue.NotFound("instrument")
	}
	if marketID != "" && !validID(marketID) {
		return CollarView{}, venue.InvalidField("market_id", "must be a market id")
	}
	v, err := s.do(sequencer.WithPriority(ctx), func(st *sequencer.State, b *sequencer.Batch) (any, error) {
		in, ok := st.Instrument(instrumentID)
		if !ok {
			return nil, venue.NotFound("instrument")
		}
		if marketID == "" {
			marketID = st.DefaultMarket(in)
		}
		if _, ok := st.Market(marketID); !ok {
			return nil, venue.NotFound("market")
		}
		h := st.Halt(marketID, instrumentID)
		return CollarView{Collar: st.Collar(marketID, instrumentID), Halted: h.Halted, HaltReason: h.Reason, At: st.Now()}, nil
	})
	if err != nil {
		return CollarView{}, fmt.Errorf("price collar: %w", err)
	}
	return v.(CollarView), nil
}

// MassCancel cancels every open offer, quote and RFQ of the caller's firm
// in one sequencer batch (FIX OrderMassCancelRequest); unlike the kill
// switch it leaves the firm free to trade again at once. It answers how
// many it cancelled.
func (s *Service) MassCancel(ctx context.Context, p venue.Principal) (int, error) {
	if err := require(p, traders...); err != nil {
		return 0, err
	}
	v, err := s.do(sequencer.WithPriority(ctx), func(st *sequencer.State, b *sequencer.Batch) (any, error) {
		return st.CancelAll(b, p.ParticipantID), nil
	})
	if err != nil {
		return 0, fmt.Errorf("mass cancel: %w", err)
	}
	return v.(int), nil
}
