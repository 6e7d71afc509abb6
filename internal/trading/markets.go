package trading

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/bondvenue/bondvenue/internal/feed"
	"github.com/bondvenue/bondvenue/internal/store"
	"github.com/bondvenue/bondvenue/internal/venue"
	"github.com/quagmt/udecimal"
)

// This file holds the venue's markets as the operator sets them up and
// every caller reads them.

// MarketFilter selects markets in the index. Zero fields do not filter.
type MarketFilter struct {
	FacilityType string
	IsEnabled    *bool
}

// MarketInput creates or changes a market. Nil fields keep their value.
type MarketInput struct {
	Name, Type, FacilityType, Timezone, Calendar *string
	IsEnabled, IsPartialFillAllowed              *bool
	SettlementLag                                *int
	// SettlementLags, when set, replace the market's lag changes.
	SettlementLags *[]venue.LagChange
	// PriceCollarPercent and MaxPricePercent are the pre-trade price
	// controls (internal/sequencer/controls.go).
	PriceCollarPercent, MaxPricePercent *udecimal.Decimal
	// Hours, when HoursSet, replace the market's trading hours (nil:
	// around the clock).
	HoursSet bool
	Hours    *venue.TradingHours
	// Issues are problems the adapter found decoding the request.
	Issues []venue.FieldIssue
}

// Markets lists every market.
func (s *Service) Markets(ctx context.Context, p venue.Principal, f MarketFilter, page venue.Page) (List[venue.Market], error) {
	var out List[venue.Market]
	err := s.db.View(ctx, func(tx *store.Tx) error {
		var err error
		out.Items, out.Next, err = tx.Markets(ctx, store.MarketFilter{FacilityType: f.FacilityType, IsEnabled: f.IsEnabled}, page)
		return err
	})
	if err != nil {
		return out, fmt.Errorf("list markets: %w", err)
	}
	return out, nil
}

// Market returns one market.
func (s *Service) Market(ctx context.Context, p venue.Principal, id string) (venue.Market, error) {
	if !validID(id) {
		return venue.Market{}, venue.NotFound("market")
	}
	var m venue.Market
	err := s.db.View(ctx, func(tx *store.Tx) error {
		var err error
		m, err = tx.Market(ctx, id)
		return err
	})
	if err != nil {
		return m, fmt.Errorf("get market: %w", err)
	}
	return m, nil
}

// Phase is the trading phase of market m now (venue.Market.PhaseAt).
func (s *Service) Phase(m venue.Market) venue.PhaseState { return m.PhaseAt(s.clock()) }

// MarketPhase is a market's trading phase at an instant.
type MarketPhase struct {
	MarketID string
	State    venue.PhaseState
	At       time.Time
}

// MarketPhases are the phases now of the markets with trading hours,
// what a stream's new subscriber is told before the changes that follow.
func (s *Service) MarketPhases(ctx context.Context) ([]MarketPhase, error) {
	var ms []venue.Market
	err := s.db.View(ctx, func(tx *store.Tx) error {
		var err error
		ms, _, err = tx.Markets(ctx, store.MarketFilter{}, venue.Page{})
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("market phases: %w", err)
	}
	now := s.clock()
	var out []MarketPhase
	for _, m := range ms {
		if m.Hours != nil {
			out = append(out, MarketPhase{MarketID: m.ID, State: m.PhaseAt(now), At: now})
		}
	}
	return out, nil
}

func (in MarketInput) apply(m *venue.Market) {
	set(&m.Name, in.Name)
	set(&m.Type, in.Type)
	set(&m.FacilityType, in.FacilityType)
	set(&m.Timezone, in.Timezone)
	set(&m.Calendar, in.Calendar)
	set(&m.IsEnabled, in.IsEnabled)
	set(&m.IsPartialFillAllowed, in.IsPartialFillAllowed)
	set(&m.SettlementLag, in.SettlementLag)
	if in.SettlementLags != nil {
		m.SettlementLags = slices.Clone(*in.SettlementLags)
	}
	set(&m.PriceCollarPercent, in.PriceCollarPercent)
	set(&m.MaxPricePercent, in.MaxPricePercent)
	if in.HoursSet {
		m.Hours = nil
		if in.Hours != nil {
			h := *in.Hours
			m.Hours = &h
		}
	}
}

// collarChanged reports whether in changes a's price controls.
func (in MarketInput) collarChanged(m venue.Market) bool {
	return (in.PriceCollarPercent != nil && !in.PriceCollarPercent.Equal(m.PriceCollarPercent)) ||
		(in.MaxPricePercent != nil && !in.MaxPricePercent.Equal(m.MaxPricePercent))
}

// issuesErr reports the adapter's decoding issues, if any.
func issuesErr(issues []venue.FieldIssue) error {
	if len(issues) == 0 {
		return nil
	}
	return venue.Invalid("Validation Error", issues...)
}

// CreateMarket adds a market.
func (s *Service) CreateMarket(ctx context.Context, p venue.Principal, in MarketInput) (venue.Market, error) {
	if err := require(p, venue.RoleOperator); err != nil {
		return venue.Market{}, err
	}
	if err := issuesErr(in.Issues); err != nil {
		return venue.Market{}, err
	}
	now := s.clock()
	m := venue.Market{ID: newID(), Type: "secondary", Timezone: "UTC", IsEnabled: true, IsPartialFillAllowed: true,
		SettlementLag: 2, Calendar: "TARGET2", PriceCollarPercent: venue.DefaultPriceCollarPercent,
		MaxPricePercent: venue.DefaultMaxPricePercent, CreatedAt: now, UpdatedAt: now}
	in.apply(&m)
	if err := venue.ValidateMarket(&m); err != nil {
		return m, err
	}
	m.Calendar = "TARGET2"
	err := s.adminTx(ctx, p, &m, func(tx *store.Tx) (change, error) {
		err := tx.CreateMarket(ctx, &m)
		return change{action: "market.create", entityType: "market", entityID: m.ID, after: m}, err
	})
	if errors.Is(err, venue.ErrConflict) {
		return m, venue.Conflict("a market named %s exists", m.Name)
	}
	if err != nil {
		return m, fmt.Errorf("create market: %w", err)
	}
	if err := s.refreshEngine(ctx); err != nil {
		return m, err
	}
	return m, nil
}

// UpdateMarket changes a market.
func (s *Service) UpdateMarket(ctx context.Context, p venue.Principal, id string, in MarketInput) (venue.Market, error) {
	if err := require(p, venue.RoleOperator); err != nil {
		return venue.Market{}, err
	}
	if !validID(id) {
		return venue.Market{}, venue.NotFound("market")
	}
	if err := issuesErr(in.Issues); err != nil {
		return venue.Market{}, err
	}
	var m venue.Market
	err := s.adminTx(ctx, p, &m, func(tx *store.Tx) (change, error) {
		before, err := tx.Market(ctx, id)
		if err != nil {
			return change{}, err
		}
		m = before
		m.SettlementLags = slices.Clone(before.SettlementLags)
		collar := in.collarChanged(m)
		in.apply(&m)
		if err := venue.ValidateMarket(&m); err != nil {
			return change{}, err
		}
		m.UpdatedAt = tx.Now()
		err = tx.UpdateMarket(ctx, &m)
		c := change{action: "market.update", entityType: "market", entityID: m.ID, before: before, after: m}
		if err != nil || !collar {
			return c, err
		}
		// The collar settings are a pre-trade control: the log keeps each change.
		pc, mp := m.PriceCollarPercent, m.MaxPricePercent
		return c, feed.Append(ctx, tx, feed.Event{Type: feed.EventMarketUpdate, Control: &feed.Control{MarketID: m.ID,
			PriceCollarPercent: &pc, MaxPricePercent: &mp, UpdatedAt: m.UpdatedAt}})
	})
	if errors.Is(err, venue.ErrConflict) {
		return m, venue.Conflict("a market named %s exists", m.Name)
	}
	if err != nil {
		return m, fmt.Errorf("update market: %w", err)
	}
	if err := s.refreshEngine(ctx); err != nil {
		return m, err
	}
	return m, nil
}
