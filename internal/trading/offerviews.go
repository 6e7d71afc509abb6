package trading

import (
	"context"
	"fmt"

	"github.com/bondvenue/bondvenue/internal/redact"
	"github.com/bondvenue/bondvenue/internal/store"
	"github.com/bondvenue/bondvenue/internal/venue"
)

// This file reads offers, quotes and RFQs as the caller may see them.

// OfferView is a record with the objects the spec nests in it.
type OfferView struct {
	venue.Offer
	Instrument    *venue.Instrument
	Market        *venue.Market
	Participant   *venue.Participant
	Account       *venue.Account
	User          *venue.User
	MatchedOffers []venue.Offer
	// ShowRecipients is set when the caller may see an RFQ's recipients.
	ShowRecipients bool
	// Declined are the recipients of an RFQ that declined it, when the
	// caller may see its recipients (the RFQ stays open for the others).
	Declined []string
	Trades   []venue.Trade
	// ReferenceVersion is the reference-data version Instrument was read
	// at: the same version always holds the same instrument, so an adapter
	// may keep what it renders of it until the version moves. 0 when the
	// instrument was read otherwise (the engine not running).
	ReferenceVersion int64
}

// OfferFilter selects offers or RFQs in a list. An instrument or market
// the venue does not have is not found.
type OfferFilter struct {
	Status, Type, InstrumentID, MarketID string
}

// visibleOffer loads a record the caller may see: its own, a quote on its
// RFQ, an RFQ it sent or was invited to; the operator sees all.
func (s *Service) visibleOffer(ctx context.Context, tx *store.Tx, p venue.Principal, id string) (venue.Offer, error) {
	if !validID(id) {
		return venue.Offer{}, venue.NotFound("offer")
	}
	o, err := tx.Offer(ctx, id)
	if err != nil {
		return o, err
	}
	if p.IsOperator() || o.ParticipantID == p.ParticipantID {
		return o, nil
	}
	switch o.Type {
	case venue.TypeQuote:
		rfq, err := tx.Offer(ctx, o.MatchedOfferID)
		if err == nil && rfq.ParticipantID == p.ParticipantID {
			return o, nil
		}
	case venue.TypeRFQ:
		if contains(o.Counterparties, p.ParticipantID) {
			return o, nil
		}
	}
	return venue.Offer{}, venue.NotFound("offer")
}

// view loads the nested objects of a record for the caller.
func (s *Service) view(ctx context.Context, tx *store.Tx, p venue.Principal, o venue.Offer) (OfferView, error) {
	v := OfferView{Offer: redact.Offer(p, o), ShowRecipients: owned(p, o.ParticipantID)}
	in, err := tx.Instrument(ctx, o.InstrumentID)
	if err != nil {
		return v, err
	}
	m, err := tx.Market(ctx, o.MarketID)
	if err != nil {
		return v, err
	}
	v.Instrument, v.Market = &in, &m
	if v.ShowRecipients {
		part, err := tx.Participant(ctx, o.ParticipantID)
		if err != nil {
			return v, err
		}
		acc, err := tx.Account(ctx, o.AccountID)
		if err != nil {
			return v, err
		}
		u, err := tx.User(ctx, o.UserID)
		if err != nil {
			return v, err
		}
		v.Participant, v.Account, v.User = &part, &acc, &u
	}
	if o.Type == venue.TypeRFQ {
		f := store.OfferFilter{Types: []string{venue.TypeQuote}, MatchedOfferID: o.ID}
		qs, _, err := tx.Offers(ctx, f, venue.Page{})
		if err != nil {
			return v, err
		}
		v.MatchedOffers = []venue.Offer{}
		for _, q := range qs {
			if v.ShowRecipients || q.ParticipantID == p.ParticipantID {
				v.MatchedOffers = append(v.MatchedOffers, redact.Offer(p, q))
			}
		}
		if v.ShowRecipients {
			rs, err := tx.Recipients(ctx, o.ID)
			if err != nil {
				return v, err
			}
			for _, r := range rs {
				if r.Declined {
					v.Declined = append(v.Declined, r.ParticipantID)
				}
			}
		}
	}
	return v, nil
}

// Offer returns one visible offer or quote with its nested objects.
func (s *Service) Offer(ctx context.Context, p venue.Principal, id string) (OfferView, error) {
	var out OfferView
	err := s.db.View(ctx, func(tx *store.Tx) error {
		o, err := s.visibleOffer(ctx, tx, p, id)
		if err != nil {
			return err
		}
		if o.Type == venue.TypeRFQ {
			return venue.NotFound("offer")
		}
		out, err = s.view(ctx, tx, p, o)
		return err
	})
	if err != nil {
		return out, fmt.Errorf("get offer: %w", err)
	}
	return out, nil
}

// OfferByClientOrderID returns the caller's firm's order whose latest
// ClOrdID (FIX) is clientOrderID, the most recent when several are.
func (s *Service) OfferByClientOrderID(ctx context.Context, p venue.Principal, clientOrderID string) (OfferView, error) {
	var out OfferView
	err := s.db.View(ctx, func(tx *store.Tx) error {
		id, err := tx.OfferIDByClientOrderID(ctx, p.ParticipantID, clientOrderID)
		if err != nil {
			return err
		}
		o, err := s.visibleOffer(ctx, tx, p, id)
		if err != nil {
			return err
		}
		out, err = s.view(ctx, tx, p, o)
		return err
	})
	if err != nil {
		return out, fmt.Errorf("get order by ClOrdID: %w", err)
	}
	return out, nil
}

// Offers lists the caller's offers and quotes (all for the operator).
func (s *Service) Offers(ctx context.Context, p venue.Principal, f OfferFilter, page venue.Page) (List[venue.Offer], error) {
	types := []string{venue.TypeOffer, venue.TypeQuote}
	if f.Type != "" {
		if f.Type != venue.TypeOffer && f.Type != venue.TypeQuote {
			return List[venue.Offer]{}, venue.InvalidField("type", "must be offer or quote")
		}
		types = []string{f.Type}
	}
	return s.listOffers(ctx, p, store.OfferFilter{Types: types, Owner: p.ParticipantID, Status: f.Status,
		InstrumentID: f.InstrumentID, MarketID: f.MarketID}, page)
}

func (s *Service) listOffers(ctx context.Context, p venue.Principal, f store.OfferFilter, page venue.Page) (List[venue.Offer], error) {
	var v venue.Validator
	v.Check(f.Status == "" || contains([]string{venue.StatusCreated, venue.StatusClosed, venue.StatusCancelled,
		venue.StatusRejected, venue.StatusExpired}, f.Status), "status", "must be created, closed, cancelled, rejected or expired")
	checkFilterID(&v, "instrument_id", f.InstrumentID, "an instrument")
	checkFilterID(&v, "market_id", f.MarketID, "a market")
	if err := v.Err(); err != nil {
		return List[venue.Offer]{}, err
	}
	var out List[venue.Offer]
	err := s.db.View(ctx, func(tx *store.Tx) error {
		if err := checkFilterRecords(ctx, tx, f.InstrumentID, f.MarketID); err != nil {
			return err
		}
		var err error
		out.Items, out.Next, err = tx.Offers(ctx, f, page)
		return err
	})
	if err != nil {
		return out, fmt.Errorf("list offers: %w", err)
	}
	for i := range out.Items {
		out.Items[i] = redact.Offer(p, out.Items[i])
	}
	return out, nil
}
