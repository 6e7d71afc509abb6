package trading

import (
	"context"
	"fmt"
	"slices"

	"github.com/bondvenue/bondvenue/internal/store"
	"github.com/bondvenue/bondvenue/internal/venue"
)

// Every order and RFQ of FIX names its instrument by ISIN, and may leave
// its market out. Which instrument an ISIN names and which market an order
// or RFQ then goes to are the venue's rules, here for every channel; what
// they read is remembered for lookupTTL (reference data rarely changes,
// and a change through this Service forgets it at once, refreshEngine), so
// an order costs no read transaction for them.

// instrumentByISIN is InstrumentByISIN's read, remembered.
func (s *Service) instrumentByISIN(ctx context.Context, isin string) (venue.Instrument, error) {
	l, now := s.lookups, s.clock()
	if in, ok := recall(l, l.isins, isin, now); ok {
		return in, nil
	}
	var out venue.Instrument
	err := s.db.View(ctx, func(tx *store.Tx) error {
		ins, _, err := tx.Instruments(ctx, store.InstrumentFilter{ISIN: isin}, venue.Page{Limit: 1})
		if err != nil {
			return err
		}
		if isin == "" || len(ins) == 0 {
			return venue.NotFound("instrument with ISIN " + isin)
		}
		out, err = tx.Instrument(ctx, ins[0].ID)
		return err
	})
	if err != nil {
		return out, err
	}
	remember(l, l.isins, isin, out, now.Add(lookupTTL))
	remember(l, l.instruments, out.ID, out, now.Add(lookupTTL))
	return out, nil
}

// DefaultMarket is the market an order or an RFQ for the instrument goes
// to when it names none: for an order (facility venue.FacilityContinuous)
// the first enabled continuous market that allows partial fills the
// instrument is listed on, for an RFQ (venue.FacilityOTC) the first enabled
// OTC market, in the order of the venue's markets. It is "" when the
// instrument has no such market.
func (s *Service) DefaultMarket(ctx context.Context, p venue.Principal, instrumentID, facility string) (string, error) {
	if err := require(p, readers...); err != nil {
		return "", err
	}
	in, err := s.instrumentByID(ctx, instrumentID)
	if err != nil {
		return "", fmt.Errorf("default market: %w", err)
	}
	markets, err := s.allMarkets(ctx)
	if err != nil {
		return "", fmt.Errorf("default market: %w", err)
	}
	for _, m := range markets {
		if m.FacilityType != facility || !m.IsEnabled || !slices.Contains(in.MarketIDs, m.ID) {
			continue
		}
		if facility == venue.FacilityContinuous && !m.IsPartialFillAllowed {
			continue
		}
		return m.ID, nil
	}
	return "", nil
}

// instrumentByID is an instrument with its markets, remembered.
func (s *Service) instrumentByID(ctx context.Context, id string) (venue.Instrument, error) {
	l, now := s.lookups, s.clock()
	if in, ok := recall(l, l.instruments, id, now); ok {
		return in, nil
	}
	if !validID(id) {
		return venue.Instrument{}, venue.NotFound("instrument")
	}
	var out venue.Instrument
	err := s.db.View(ctx, func(tx *store.Tx) error {
		var err error
		out, err = tx.Instrument(ctx, id)
		return err
	})
	if err != nil {
		return out, err
	}
	remember(l, l.instruments, id, out, now.Add(lookupTTL))
	return out, nil
}

// allMarkets is every market of the venue in its list order, remembered.
func (s *Service) allMarkets(ctx context.Context) ([]venue.Market, error) {
	l, now := s.lookups, s.clock()
	if ms, ok := recall(l, l.markets, "", now); ok {
		return ms, nil
	}
	var all []venue.Market
	page := venue.Page{Limit: 100}
	err := s.db.View(ctx, func(tx *store.Tx) error {
		for {
			ms, next, err := tx.Markets(ctx, store.MarketFilter{}, page)
			if err != nil {
				return err
			}
			all = append(all, ms...)
			if next == "" {
				return nil
			}
			page.Cursor = next
		}
	})
	if err != nil {
		return nil, err
	}
	remember(l, l.markets, "", all, now.Add(lookupTTL))
	return all, nil
}
