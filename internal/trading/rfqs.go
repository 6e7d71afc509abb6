package trading

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/bondvenue/bondvenue/internal/sequencer"
	"github.com/bondvenue/bondvenue/internal/store"
	"github.com/bondvenue/bondvenue/internal/venue"
)

// This file holds requests for quote and their workflow (docs/guide.md, "Trading"): send,
// amend, cancel, decline, and accept a quote. Quotes themselves are offers
// (offers.go); the sequencer's side is internal/sequencer/rfq.go.

// CreateRFQ sends a request for quote. Without counterparties it goes to
// every enabled counterparty; with matched_offer_id naming a resting offer
// it goes to that offer's owner.
func (s *Service) CreateRFQ(ctx context.Context, p venue.Principal, in OfferInput) (OfferView, error) {
	if s.replaying() {
		return s.replayedCreate(ctx, true)
	}
	target := in.MatchedOfferID
	in.MatchedOfferID = ""
	if in.Validity == "" {
		in.Validity = venue.GTD
		if in.ValidUntil == nil {
			vu := s.clock().Add(15 * time.Minute)
			in.ValidUntil = &vu
		}
	}
	pr, err := s.prepare(ctx, p, in, venue.TypeRFQ)
	if err != nil {
		err = s.rejected(ctx, p, in, venue.TypeRFQ, pr, err)
		return OfferView{}, err
	}
	r := pr.offer
	err = s.db.View(ctx, func(tx *store.Tx) error {
		cps, err := tx.Counterparties(ctx, p.ParticipantID)
		if err != nil {
			return err
		}
		if target != "" {
			if !validID(target) {
				return venue.NotFound("offer")
			}
			t, err := tx.Offer(ctx, target)
			if err != nil || t.Type != venue.TypeOffer || !t.Open() || !contains(cps, t.ParticipantID) {
				return notFoundOr(err, "offer")
			}
			// A request towards an offer asks its owner for the other side
			// of that offer.
			var v venue.Validator
			v.Check(t.InstrumentID == r.InstrumentID, "matched_offer_id", "must be an offer on the requested instrument")
			v.Check(t.Direction != r.Direction, "matched_offer_id", "must be an offer of the opposite direction ("+t.Direction+")")
			if err := v.Err(); err != nil {
				return err
			}
			r.MatchedOfferID, r.Counterparties = t.ID, []string{t.ParticipantID}
			return nil
		}
		if len(r.Counterparties) == 0 {
			r.Counterparties = cps
		}
		var v venue.Validator
		seen := map[string]bool{}
		for i, c := range r.Counterparties {
			v.Check(contains(cps, c) && !seen[c], fmt.Sprintf("counterparties[%d]", i), "must be an enabled counterparty, listed once")
			seen[c] = true
		}
		v.Check(len(r.Counterparties) > 0, "counterparties", "the participant has no enabled counterparty to ask")
		return v.Err()
	})
	if err != nil {
		return OfferView{}, fmt.Errorf("create rfq: %w", err)
	}
	res, err := s.submit(ctx, func(st *sequencer.State, b *sequencer.Batch) (sequencer.OfferResult, error) {
		return st.CreateRFQ(b, &r)
	})
	if err != nil {
		return OfferView{}, fmt.Errorf("create rfq: %w", err)
	}
	return OfferView{Offer: res.Offer, Instrument: &pr.instrument, ShowRecipients: true, ReferenceVersion: pr.refVersion}, nil
}

// RFQ returns one visible RFQ with its quotes (a dealer sees only its own).
func (s *Service) RFQ(ctx context.Context, p venue.Principal, id string) (OfferView, error) {
	var out OfferView
	err := s.db.View(ctx, func(tx *store.Tx) error {
		o, err := s.visibleOffer(ctx, tx, p, id)
		if err != nil {
			return err
		}
		if o.Type != venue.TypeRFQ {
			return venue.NotFound("request for quote")
		}
		out, err = s.view(ctx, tx, p, o)
		return err
	})
	if err != nil {
		return out, fmt.Errorf("get rfq: %w", err)
	}
	return out, nil
}

// RFQs lists the RFQs the caller sent or was invited to.
func (s *Service) RFQs(ctx context.Context, p venue.Principal, f OfferFilter, page venue.Page) (List[venue.Offer], error) {
	return s.listOffers(ctx, p, store.OfferFilter{Types: []string{venue.TypeRFQ}, Owner: p.ParticipantID,
		RecipientOf: p.ParticipantID, Status: f.Status, InstrumentID: f.InstrumentID, MarketID: f.MarketID}, page)
}

// UpdateRFQ changes the caller's open RFQ.
func (s *Service) UpdateRFQ(ctx context.Context, p venue.Principal, id string, in ChangeInput) (OfferView, error) {
	if err := require(p, traders...); err != nil {
		return OfferView{}, err
	}
	if s.replaying() {
		return s.replayedOffer(ctx, p)
	}
	cur, err := s.ownedOpen(ctx, p, id, "request for quote")
	if err != nil {
		return OfferView{}, err
	}
	if cur.Type != venue.TypeRFQ {
		return OfferView{}, venue.NotFound("request for quote")
	}
	ch, err := s.change(ctx, cur, in)
	if err != nil {
		return OfferView{}, err
	}
	res, err := s.submit(ctx, func(st *sequencer.State, b *sequencer.Batch) (sequencer.OfferResult, error) {
		return st.UpdateRFQ(b, p, id, ch)
	})
	if err != nil {
		return OfferView{}, fmt.Errorf("update rfq: %w", s.engineErr(ctx, p, id, err))
	}
	return s.reload(ctx, p, res)
}

// CancelRFQ withdraws the caller's RFQ.
func (s *Service) CancelRFQ(ctx context.Context, p venue.Principal, id string) (OfferView, error) {
	if err := require(p, traders...); err != nil {
		return OfferView{}, err
	}
	res, err := s.submit(sequencer.WithPriority(ctx), func(st *sequencer.State, b *sequencer.Batch) (sequencer.OfferResult, error) {
		return st.CancelRFQ(b, p, id)
	})
	if err != nil {
		return OfferView{}, fmt.Errorf("cancel rfq: %w", s.engineErr(ctx, p, id, err))
	}
	return s.reload(ctx, p, res)
}

// DeclineRFQ is an invited dealer declining an RFQ.
func (s *Service) DeclineRFQ(ctx context.Context, p venue.Principal, id string) (OfferView, error) {
	if err := require(p, traders...); err != nil {
		return OfferView{}, err
	}
	// The decline is recorded as a quote without price on the firm's
	// first active account (docs/guide.md, "Trading").
	var account string
	err := s.db.View(ctx, func(tx *store.Tx) (err error) {
		account, err = tx.FirstActiveAccount(ctx, p.ParticipantID)
		return err
	})
	if errors.Is(err, venue.ErrNotFound) {
		return OfferView{}, venue.Conflict("the firm has no active account to record the decline on")
	}
	if err != nil {
		return OfferView{}, fmt.Errorf("decline rfq: %w", err)
	}
	rec := &venue.Offer{ID: newID(), AccountID: account, UserID: p.UserID}
	res, err := s.submit(sequencer.WithPriority(ctx), func(st *sequencer.State, b *sequencer.Batch) (sequencer.OfferResult, error) {
		return st.DeclineRFQ(b, p, id, rec)
	})
	if err != nil {
		if errors.Is(err, venue.ErrNotFound) {
			err = s.engineErr(ctx, p, id, sequencer.ErrNotOpen)
		}
		return OfferView{}, fmt.Errorf("decline rfq: %w", err)
	}
	return s.reload(ctx, p, res)
}

// AcceptQuote trades the caller's RFQ with a quote; it answers the trade.
// parties are the requester's identifiers for the accept's order record
// (each optional), which the sequencer has when it applies the accept.
func (s *Service) AcceptQuote(ctx context.Context, p venue.Principal, id string, parties venue.Parties) (TradeView, error) {
	if err := require(p, traders...); err != nil {
		return TradeView{}, err
	}
	if err := parties.Validate(); err != nil {
		return TradeView{}, err
	}
	res, err := s.submit(ctx, func(st *sequencer.State, b *sequencer.Batch) (sequencer.OfferResult, error) {
		return st.AcceptQuote(b, p, sequencer.Accept{QuoteID: id, Parties: parties})
	})
	if err != nil {
		return TradeView{}, fmt.Errorf("accept quote: %w", s.engineErr(ctx, p, id, err))
	}
	var out TradeView
	err = s.db.View(ctx, func(tx *store.Tx) error {
		vs, err := tradeViews(ctx, tx, p, res.Trades[:1])
		if err == nil {
			out = vs[0]
		}
		return err
	})
	return out, err
}
