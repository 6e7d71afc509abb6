package trading

import (
	"context"
	"fmt"

	"github.com/bondvenue/bondvenue/internal/redact"
	"github.com/bondvenue/bondvenue/internal/store"
	"github.com/bondvenue/bondvenue/internal/venue"
)

// This file holds trades as their parties read them: each with its market,
// instrument and two orders, the other firm's order redacted.

// TradeView is a trade with the objects the spec nests in it: its market
// and instrument, and for each order what it nests.
type TradeView struct {
	venue.Trade
	Market     venue.Market
	Instrument venue.Instrument
	// Ask and Bid are what AskOrder and BidOrder nest.
	Ask, Bid OrderView
}

// OrderView is what a trade's order nests: the offer, quote or RFQ it
// filled, its participant and its account. A firm sees its own order's
// participant in full and account; of the other firm's order only the
// participant's public fields and no account (the operator sees all).
type OrderView struct {
	Offer       venue.Offer
	Participant ParticipantView
	Account     *venue.Account // nil on the other firm's order
}

// tradeViews adds to each trade what it nests, as p may see it. Each kind
// of record is looked up once for the whole list (a statement per 512
// distinct ids), not per trade; each order's expires_at comes from its
// offer.
func tradeViews(ctx context.Context, tx *store.Tx, p venue.Principal, ts []venue.Trade) ([]TradeView, error) {
	var marketIDs, instrumentIDs, offerIDs, participantIDs, accountIDs []string
	for _, t := range ts {
		marketIDs, instrumentIDs = append(marketIDs, t.MarketID), append(instrumentIDs, t.InstrumentID)
		for _, o := range []venue.Order{t.AskOrder, t.BidOrder} {
			offerIDs, participantIDs = append(offerIDs, o.OfferID), append(participantIDs, o.ParticipantID)
			if p.IsOperator() || o.ParticipantID == p.ParticipantID {
				accountIDs = append(accountIDs, o.AccountID)
			}
		}
	}
	markets, err := tx.MarketsByID(ctx, marketIDs)
	if err != nil {
		return nil, err
	}
	instruments, err := tx.InstrumentsByID(ctx, instrumentIDs)
	if err != nil {
		return nil, err
	}
	offers, err := tx.OffersByID(ctx, offerIDs)
	if err != nil {
		return nil, err
	}
	participants, err := tx.ParticipantsByID(ctx, participantIDs)
	if err != nil {
		return nil, err
	}
	accounts, err := tx.AccountsByID(ctx, accountIDs)
	if err != nil {
		return nil, err
	}
	nest := func(o *venue.Order) (OrderView, error) {
		var v OrderView
		var ok bool
		if v.Offer, ok = offers[o.OfferID]; !ok {
			return v, fmt.Errorf("order %s: offer %s not found", o.ID, o.OfferID)
		}
		o.ExpiresAt = v.Offer.ExpiresAt()
		own := owned(p, o.ParticipantID)
		v.Offer = redact.Offer(p, v.Offer)
		if !own {
			o.AccountID = ""   // the other firm's account is its own
			v.Offer.Notes = "" // and so are its notes, trade or not
		}
		v.Participant.PublicOnly = !own
		if v.Participant.Participant, ok = participants[o.ParticipantID]; !ok {
			return v, fmt.Errorf("order %s: participant %s not found", o.ID, o.ParticipantID)
		}
		if own {
			a, ok := accounts[o.AccountID]
			if !ok {
				return v, fmt.Errorf("order %s: account %s not found", o.ID, o.AccountID)
			}
			v.Account = &a
		}
		return v, nil
	}
	out := make([]TradeView, 0, len(ts))
	for _, t := range ts {
		v := TradeView{Trade: t}
		var ok bool
		if v.Market, ok = markets[t.MarketID]; !ok {
			return nil, fmt.Errorf("trade %s: market %s not found", t.ID, t.MarketID)
		}
		if v.Instrument, ok = instruments[t.InstrumentID]; !ok {
			return nil, fmt.Errorf("trade %s: instrument %s not found", t.ID, t.InstrumentID)
		}
		if v.Ask, err = nest(&v.AskOrder); err != nil {
			return nil, err
		}
		if v.Bid, err = nest(&v.BidOrder); err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

// TradeFilter selects trades in a list. An instrument or market the venue
// does not have, or an offer, quote or RFQ the caller cannot see, is not
// found.
type TradeFilter struct {
	InstrumentID, MarketID, OfferID string
	ExecutionType                   string // otc or continuous
}

// Trades lists trades the caller is party to (all for the operator).
func (s *Service) Trades(ctx context.Context, p venue.Principal, f TradeFilter, page venue.Page) (List[TradeView], error) {
	var v venue.Validator
	checkFilterID(&v, "instrument_id", f.InstrumentID, "an instrument")
	checkFilterID(&v, "market_id", f.MarketID, "a market")
	checkFilterID(&v, "offer_id", f.OfferID, "an offer")
	v.Check(f.ExecutionType == "" || f.ExecutionType == venue.ExecutionOTC || f.ExecutionType == venue.ExecutionContinuous,
		"execution_type", "must be otc or continuous")
	if err := v.Err(); err != nil {
		return List[TradeView]{}, err
	}
	var out List[TradeView]
	err := s.db.View(ctx, func(tx *store.Tx) error {
		if err := checkFilterRecords(ctx, tx, f.InstrumentID, f.MarketID); err != nil {
			return err
		}
		if f.OfferID != "" {
			if _, err := s.visibleOffer(ctx, tx, p, f.OfferID); err != nil {
				return notFoundOr(err, "offer")
			}
		}
		ts, next, err := tx.Trades(ctx, store.TradeFilter{Party: p.ParticipantID, InstrumentID: f.InstrumentID,
			MarketID: f.MarketID, OfferID: f.OfferID, ExecutionType: f.ExecutionType}, page)
		if err != nil {
			return err
		}
		out.Next = next
		out.Items, err = tradeViews(ctx, tx, p, ts)
		return err
	})
	if err != nil {
		return out, fmt.Errorf("list trades: %w", err)
	}
	return out, nil
}

// Trade returns one trade the caller is party to.
func (s *Service) Trade(ctx context.Context, p venue.Principal, id string) (TradeView, error) {
	if !validID(id) {
		return TradeView{}, venue.NotFound("trade")
	}
	var out TradeView
	err := s.db.View(ctx, func(tx *store.Tx) error {
		t, err := tx.Trade(ctx, id)
		if err != nil {
			return err
		}
		if !p.IsOperator() && t.AskOrder.ParticipantID != p.ParticipantID && t.BidOrder.ParticipantID != p.ParticipantID {
			return venue.NotFound("trade")
		}
		vs, err := tradeViews(ctx, tx, p, []venue.Trade{t})
		if err == nil {
			out = vs[0]
		}
		return err
	})
	if err != nil {
		return out, fmt.Errorf("get trade: %w", err)
	}
	return out, nil
}
