package trading

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/quagmt/udecimal"

	"github.com/bondvenue/bondvenue/internal/bondmath"
	"github.com/bondvenue/bondvenue/internal/sequencer"
	"github.com/bondvenue/bondvenue/internal/store"
	"github.com/bondvenue/bondvenue/internal/venue"
)

// This file holds firm offers and quotes as use cases: create, amend and
// cancel. Entry's checks are offerentry.go's, the reads offerviews.go's;
// the sequencer applies them (internal/sequencer/offers.go).

// CreateOffer creates a firm offer, or — with matched_offer_id naming an
// RFQ — a quote on that RFQ.
func (s *Service) CreateOffer(ctx context.Context, p venue.Principal, in OfferInput) (OfferView, error) {
	if s.replaying() { // not validated again: valid_until may have passed, the RFQ closed
		return s.replayedCreate(ctx, false)
	}
	typ := venue.TypeOffer
	if in.MatchedOfferID != "" {
		typ = venue.TypeQuote
		if !validID(in.MatchedOfferID) {
			return OfferView{}, venue.NotFound("request for quote")
		}
	}
	pr, err := s.prepare(ctx, p, in, typ)
	if err != nil {
		return OfferView{}, s.rejected(ctx, p, in, typ, pr, err)
	}
	o := pr.offer
	res, err := s.submit(ctx, func(st *sequencer.State, b *sequencer.Batch) (sequencer.OfferResult, error) {
		if typ == venue.TypeQuote {
			return st.CreateQuote(b, &o)
		}
		return st.CreateOffer(b, &o)
	})
	if err != nil {
		return OfferView{}, fmt.Errorf("create %s: %w", typ, err)
	}
	return OfferView{Offer: res.Offer, Instrument: &pr.instrument, Trades: res.Trades, ReferenceVersion: pr.refVersion}, nil
}

// submit runs an engine command and types its answer. On a Service
// replaying an applied request the command does not run: the answer is
// the result its batch committed.
func (s *Service) submit(ctx context.Context, fn func(*sequencer.State, *sequencer.Batch) (sequencer.OfferResult, error)) (sequencer.OfferResult, error) {
	if s.replaying() {
		var res sequencer.OfferResult
		return res, s.replayed(&res)
	}
	v, err := s.do(ctx, func(st *sequencer.State, b *sequencer.Batch) (any, error) { return fn(st, b) })
	if err != nil {
		return sequencer.OfferResult{}, s.fenced(ctx, err)
	}
	return v.(sequencer.OfferResult), nil
}

// fenced turns an engine's "not found" into the lease-lost error when
// another engine has taken the sequencer lease meanwhile: the record may
// well exist, made by the new leader, and this engine's books are stale
// (a leader cut off from the database that has not noticed yet). Only a
// refusal pays for the check.
func (s *Service) fenced(ctx context.Context, err error) error {
	if venue.KindOf(err) != venue.KindNotFound {
		return err
	}
	var epoch int64
	if verr := s.db.View(ctx, func(tx *store.Tx) error {
		var err error
		epoch, err = tx.LeaseEpoch(ctx)
		return err
	}); verr != nil || epoch == s.eng.Epoch() {
		return err
	}
	s.eng.LoseLease()
	return store.ErrLeaseLost
}

// ChangeInput is the update entity of an offer or RFQ (docs/rest-interface.md, "OfferUpdate").
type ChangeInput struct {
	Price *udecimal.Decimal
	// PriceField names the price in errors as the client sent it (default
	// price_per_unit).
	PriceField     string
	Quantity       *udecimal.Decimal
	SettlementDate *bondmath.Date
	Validity       *string
	ValidUntil     *time.Time
	Notes          *string
	// ClientOrderID, when set, is the amendment's ClOrdID (FIX), which the
	// offer keeps from then on.
	ClientOrderID *string
	// Parties, when set, replace the order's parties as a whole: an
	// amendment that names any of them restates all four.
	Parties *venue.Parties
}

// change validates an update entity for a record on an instrument.
func (s *Service) change(ctx context.Context, o venue.Offer, in ChangeInput) (sequencer.OfferChange, error) {
	var v venue.Validator
	ch := sequencer.OfferChange{Price: in.Price, Quantity: in.Quantity, SettlementDate: in.SettlementDate, Notes: in.Notes,
		ClientOrderID: in.ClientOrderID, Parties: in.Parties}
	// The record's listing: the sequencer's reference data when it runs
	// (no read on the amend path), else the database.
	ref := s.eng.Reference()
	var instr venue.Instrument
	var market venue.Market
	var err error
	if ref != nil {
		instr, market, err = listing(ctx, nil, ref, o.InstrumentID, o.MarketID)
	} else {
		err = s.db.View(ctx, func(tx *store.Tx) error {
			instr, market, err = listing(ctx, tx, nil, o.InstrumentID, o.MarketID)
			return err
		})
	}
	if err != nil {
		return ch, err
	}
	if in.Price != nil {
		venue.CheckPrice(&v, cmp.Or(in.PriceField, "price_per_unit"), *in.Price, instr)
	}
	if in.Notes != nil {
		v.CheckLength("notes", *in.Notes, venue.MaxText)
	}
	if in.ClientOrderID != nil {
		v.CheckLength("client_order_id", *in.ClientOrderID, venue.MaxName)
	}
	if in.Parties != nil {
		in.Parties.Check(&v, venue.RESTPartyFields)
	}
	if in.Quantity != nil {
		venue.CheckQuantity(&v, "quantity", *in.Quantity, instr)
	}
	if d := in.SettlementDate; d != nil {
		bond, bondErr := bondFor(ref, instr)
		venue.CheckSettlement(&v, *d, market.TradeDate(s.clock()), bond, bondErr)
	}
	if in.Validity != nil {
		val := venue.CheckValidity(&v, *in.Validity, in.ValidUntil, s.clock())
		ch.Validity = &val
	}
	if in.ValidUntil != nil && in.Validity == nil { // a new deadline for a gtd record
		v.Check(o.Validity == venue.GTD, "valid_until", "applies to a gtd record only: send validity gtd with it")
		v.Check(in.ValidUntil.After(s.clock()), "valid_until", "must be in the future")
	}
	if in.ValidUntil != nil && (in.Validity == nil || strings.ToLower(*in.Validity) == venue.GTD) {
		vu := in.ValidUntil.UTC().Truncate(time.Millisecond)
		ch.ValidUntil = &vu
	}
	return ch, v.Err()
}

// UpdateOffer amends the caller's open offer or quote.
func (s *Service) UpdateOffer(ctx context.Context, p venue.Principal, id string, in ChangeInput) (OfferView, error) {
	if err := require(p, traders...); err != nil {
		return OfferView{}, err
	}
	if s.replaying() { // the offer as the amendment left it, whatever it became since
		return s.replayedOffer(ctx, p)
	}
	cur, err := s.ownedOpen(ctx, p, id, "offer")
	if err != nil {
		return OfferView{}, err
	}
	if cur.Type == venue.TypeRFQ {
		return OfferView{}, venue.NotFound("offer")
	}
	ch, err := s.change(ctx, cur, in)
	if err != nil {
		return OfferView{}, err
	}
	res, err := s.submit(ctx, func(st *sequencer.State, b *sequencer.Batch) (sequencer.OfferResult, error) {
		return st.AmendOffer(b, p, id, ch)
	})
	if err != nil {
		// Closed since ownedOpen read it (filled meanwhile): 409, not 404.
		return OfferView{}, fmt.Errorf("update offer: %w", s.engineErr(ctx, p, id, err))
	}
	return s.reload(ctx, p, res)
}

// replayedCreate answers a replayed create (an offer or a quote; an RFQ
// when rfq is set) from its committed result, as the create answered: the
// record with its instrument.
func (s *Service) replayedCreate(ctx context.Context, rfq bool) (OfferView, error) {
	res, err := s.submit(ctx, nil)
	if err != nil {
		return OfferView{}, err
	}
	out := OfferView{Offer: res.Offer, Trades: res.Trades, ShowRecipients: rfq}
	if rfq {
		out.Trades = nil
	}
	ref := s.eng.Reference()
	if ref != nil {
		out.ReferenceVersion = ref.Version()
	}
	var in venue.Instrument
	err = s.db.View(ctx, func(tx *store.Tx) error {
		var err error
		in, _, err = listing(ctx, tx, ref, res.Offer.InstrumentID, res.Offer.MarketID)
		return err
	})
	out.Instrument = &in
	return out, err
}

// replayedOffer answers a replayed amendment from its committed result.
func (s *Service) replayedOffer(ctx context.Context, p venue.Principal) (OfferView, error) {
	res, err := s.submit(ctx, nil)
	if err != nil {
		return OfferView{}, err
	}
	return s.reload(ctx, p, res)
}

// ownedOpen loads a record of the caller's firm; a closed one is a 409.
func (s *Service) ownedOpen(ctx context.Context, p venue.Principal, id, what string) (venue.Offer, error) {
	var o venue.Offer
	err := s.db.View(ctx, func(tx *store.Tx) error {
		var err error
		o, err = s.visibleOffer(ctx, tx, p, id)
		return err
	})
	if err != nil {
		return o, err
	}
	if o.ParticipantID != p.ParticipantID {
		return o, venue.NotFound(what)
	}
	if !o.Open() {
		return o, venue.Conflict("%s %s is %s", what, id, o.Status)
	}
	return o, nil
}

// reload answers a command with the committed record and its nested
// objects.
func (s *Service) reload(ctx context.Context, p venue.Principal, res sequencer.OfferResult) (OfferView, error) {
	var out OfferView
	err := s.db.View(ctx, func(tx *store.Tx) error {
		var err error
		out, err = s.view(ctx, tx, p, res.Offer)
		return err
	})
	out.Trades = res.Trades
	return out, err
}

// engineErr turns "not open" from the engine into a 409 when the record
// exists and is visible but closed.
func (s *Service) engineErr(ctx context.Context, p venue.Principal, id string, err error) error {
	if !errors.Is(err, sequencer.ErrNotOpen) {
		return err
	}
	var o venue.Offer
	verr := s.db.View(ctx, func(tx *store.Tx) error {
		var err error
		o, err = s.visibleOffer(ctx, tx, p, id)
		return err
	})
	if verr != nil {
		return venue.NotFound("offer")
	}
	if !o.Open() {
		return venue.Conflict("%s %s is %s", strings.ReplaceAll(o.Type, "_", " "), id, o.Status)
	}
	return venue.NotFound("offer")
}

// DeleteOffer cancels the caller's offer or quote, or rejects a quote on
// the caller's RFQ.
func (s *Service) DeleteOffer(ctx context.Context, p venue.Principal, id string) (OfferView, error) {
	return s.CancelOrder(ctx, p, id, "")
}

// CancelOnDisconnect is the venue cancelling p's order id because p's FIX
// session dropped with cancel-on-disconnect on: DeleteOffer, recorded as
// the venue's cancel rather than the member's.
func (s *Service) CancelOnDisconnect(ctx context.Context, p venue.Principal, id string) (OfferView, error) {
	if err := require(p, traders...); err != nil {
		return OfferView{}, err
	}
	res, err := s.submit(sequencer.WithPriority(ctx), func(st *sequencer.State, b *sequencer.Batch) (sequencer.OfferResult, error) {
		b.ByVenue()
		return st.CancelOffer(b, p, id, "")
	})
	if err != nil {
		return OfferView{}, fmt.Errorf("cancel on disconnect: %w", s.engineErr(ctx, p, id, err))
	}
	return s.reload(ctx, p, res)
}

// CancelOrder is DeleteOffer naming the cancel request: a non-empty
// clientOrderID (FIX's ClOrdID of the OrderCancelRequest) is kept on the
// cancelled offer.
func (s *Service) CancelOrder(ctx context.Context, p venue.Principal, id, clientOrderID string) (OfferView, error) {
	if err := require(p, traders...); err != nil {
		return OfferView{}, err
	}
	var v venue.Validator
	v.CheckLength("client_order_id", clientOrderID, venue.MaxName)
	if err := v.Err(); err != nil {
		return OfferView{}, err
	}
	// A cancel takes the priority lane: it is never refused as late.
	res, err := s.submit(sequencer.WithPriority(ctx), func(st *sequencer.State, b *sequencer.Batch) (sequencer.OfferResult, error) {
		return st.CancelOffer(b, p, id, clientOrderID)
	})
	if err != nil {
		return OfferView{}, fmt.Errorf("delete offer: %w", s.engineErr(ctx, p, id, err))
	}
	return s.reload(ctx, p, res)
}
