package trading

import (
	"context"
	"errors"
	"fmt"

	"github.com/quagmt/udecimal"

	"github.com/bondvenue/bondvenue/internal/feed"
	"github.com/bondvenue/bondvenue/internal/store"
	"github.com/bondvenue/bondvenue/internal/venue"
)

// This file holds allocations: a firm splitting its side of a trade to its
// own accounts (docs/guide.md, "Allocations").

// AllocationInput is one requested part: an account of the caller's firm
// and its nominal.
type AllocationInput struct {
	AccountID *string
	Quantity  *udecimal.Decimal
}

// AllocateTrade splits the caller's firm's side of a trade to its
// accounts, once. Each part's quantity is a positive multiple of the
// instrument's min_increment and they sum to the trade's quantity; each
// gets its share of the accrued interest and settlement amount to the
// cent, the residual cents on the largest part (venue.Allocate). After the
// deadline (23:00 Central European time on the trade date) it is accepted
// and marked late.
func (s *Service) AllocateTrade(ctx context.Context, p venue.Principal, tradeID string, parts []AllocationInput) (venue.AllocationSet, error) {
	if err := require(p, traders...); err != nil {
		return venue.AllocationSet{}, err
	}
	if !validID(tradeID) {
		return venue.AllocationSet{}, venue.NotFound("trade")
	}
	var v venue.Validator
	v.Check(parts != nil, "allocations", "is required: an array of {account_id, quantity}")
	v.Check(len(parts) <= venue.MaxAllocations, "allocations", fmt.Sprintf("at most %d parts", venue.MaxAllocations))
	if err := v.Err(); err != nil {
		return venue.AllocationSet{}, err
	}
	var out venue.AllocationSet
	err := s.inTx(ctx, &out, func(tx *store.Tx) error {
		t, err := tx.Trade(ctx, tradeID)
		if err != nil {
			return err
		}
		dir := ""
		switch p.ParticipantID {
		case t.AskOrder.ParticipantID:
			dir = venue.Ask
		case t.BidOrder.ParticipantID:
			dir = venue.Bid
		default:
			return venue.NotFound("trade") // another firms' trade is not the caller's to see
		}
		in, err := tx.Instrument(ctx, t.InstrumentID)
		if err != nil {
			return err
		}
		market, err := tx.Market(ctx, t.MarketID)
		if err != nil {
			return err
		}
		req, err := allocationParts(ctx, tx, p, t, in, parts)
		if err != nil {
			return err
		}
		allocs, err := venue.Allocate(t.Quantity, t.AccruedInterest, t.SettlementAmount, req)
		if err != nil {
			return err
		}
		now := tx.Now()
		for i := range allocs {
			allocs[i].ID = newID()
		}
		out = venue.AllocationSet{TradeID: t.ID, ParticipantID: p.ParticipantID, UserID: p.UserID, Direction: dir,
			MarketID: t.MarketID, InstrumentID: t.InstrumentID, Allocations: allocs,
			Late: !now.Before(venue.AllocationDeadline(t.CreatedAt, market.Location())), CreatedAt: now}
		if err := tx.CreateAllocation(ctx, &out); err != nil {
			return err
		}
		rec := out
		return feed.Append(ctx, tx, feed.Event{Type: feed.EventAllocationCreate, Allocation: &rec, Owner: p.ParticipantID})
	})
	if err != nil {
		return venue.AllocationSet{}, fmt.Errorf("allocate trade: %w", err)
	}
	s.log.Info("trade allocated", "trade", tradeID, "participant", p.ParticipantID, "parts", len(out.Allocations), "late", out.Late)
	return out, nil
}

// allocationParts checks the requested parts: each an active account of
// the caller's firm, listed once, with a positive multiple of the
// instrument's min_increment; together the trade's quantity.
func allocationParts(ctx context.Context, tx *store.Tx, p venue.Principal, t venue.Trade, in venue.Instrument, parts []AllocationInput) ([]venue.AllocationPart, error) {
	var v venue.Validator
	v.Check(len(parts) > 0, "allocations", "must hold at least one part")
	seen := map[string]bool{}
	sum := udecimal.Zero
	out := make([]venue.AllocationPart, 0, len(parts))
	for i, a := range parts {
		f := fmt.Sprintf("allocations[%d]", i)
		if a.AccountID == nil || a.Quantity == nil {
			v.Check(a.AccountID != nil, f+".account_id", "is required")
			v.Check(a.Quantity != nil, f+".quantity", "is required")
			continue
		}
		acc := *a.AccountID
		ok := validID(acc) && !seen[acc]
		if ok {
			a, err := tx.Account(ctx, acc)
			switch {
			case errors.Is(err, venue.ErrNotFound):
				ok = false
			case err != nil:
				return nil, err
			default:
				ok = a.ParticipantID == p.ParticipantID && a.Status == "active"
			}
		}
		v.Check(ok, f+".account_id", "must be an active account of your firm, listed once")
		seen[acc] = true
		q := *a.Quantity
		inc := in.MinIncrement
		multiple := true
		if inc.IsPos() {
			_, rem, err := q.QuoRem(inc)
			multiple = err == nil && rem.IsZero()
		}
		v.Check(q.IsPos() && multiple, f+".quantity", "must be a positive multiple of the instrument's min_increment "+inc.String())
		sum = sum.Add(q)
		out = append(out, venue.AllocationPart{AccountID: acc, Quantity: q})
	}
	if v.Err() == nil {
		v.Check(sum.Equal(t.Quantity), "allocations", fmt.Sprintf("quantities sum to %s; they must sum to the trade's %s", sum, t.Quantity))
	}
	return out, v.Err()
}

// TradeAllocation returns the caller's firm's allocation of a trade
// (404 while its side has none).
func (s *Service) TradeAllocation(ctx context.Context, p venue.Principal, tradeID string) (venue.AllocationSet, error) {
	if err := require(p, venue.RoleAdmin, venue.RoleTrader, venue.RoleViewer); err != nil {
		return venue.AllocationSet{}, err
	}
	if !validID(tradeID) {
		return venue.AllocationSet{}, venue.NotFound("trade")
	}
	var out venue.AllocationSet
	err := s.db.View(ctx, func(tx *store.Tx) error {
		t, err := tx.Trade(ctx, tradeID)
		if err != nil {
			return err
		}
		if p.ParticipantID != t.AskOrder.ParticipantID && p.ParticipantID != t.BidOrder.ParticipantID {
			return venue.NotFound("trade")
		}
		out, err = tx.Allocation(ctx, tradeID, p.ParticipantID)
		return err
	})
	if err != nil {
		return out, fmt.Errorf("trade allocation: %w", err)
	}
	return out, nil
}

// Allocations lists the caller's firm's allocations, newest trade first:
// what the blotter shows of each trade's allocation.
func (s *Service) Allocations(ctx context.Context, p venue.Principal, page venue.Page) (List[venue.AllocationSet], error) {
	var out List[venue.AllocationSet]
	if err := require(p, venue.RoleAdmin, venue.RoleTrader, venue.RoleViewer); err != nil {
		return out, err
	}
	err := s.db.View(ctx, func(tx *store.Tx) error {
		var err error
		out.Items, out.Next, err = tx.Allocations(ctx, p.ParticipantID, page)
		return err
	})
	if err != nil {
		return out, fmt.Errorf("allocations: %w", err)
	}
	return out, nil
}
