package trading

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/bondvenue/bondvenue/internal/bondmath"
	"github.com/bondvenue/bondvenue/internal/sequencer"
	"github.com/bondvenue/bondvenue/internal/store"
	"github.com/bondvenue/bondvenue/internal/venue"
	"github.com/quagmt/udecimal"
)

// This file is offer entry: the checks a new offer, quote or RFQ passes
// before it reaches the sequencer.

// traders are the roles that may enter offers, quotes and RFQs.
var traders = []venue.Role{venue.RoleAdmin, venue.RoleTrader}

// OfferInput is the create body of an offer, a quote or an RFQ (docs/rest-interface.md, "OfferCreate").
// Server-owned fields (id, status, filled_quantity, accrued_interest,
// timestamps) are not part of it.
type OfferInput struct {
	ParticipantID        string
	AccountID            string
	UserID               string
	InstrumentID         string
	MarketID             string
	SettlementProviderID string
	Direction            string
	Price                *udecimal.Decimal // clean price per unit, percent of par
	// PriceField names the price in errors as the client sent it (default
	// price_per_unit).
	PriceField     string
	Quantity       *udecimal.Decimal
	MatchedOfferID string
	Notes          string
	MarketOrder    bool
	IsExecutable   bool
	SettlementDate *bondmath.Date
	Validity       string
	ValidUntil     *time.Time
	Counterparties []string
	// ClientOrderID is the order's ClOrdID on FIX (kept on the offer; at
	// most venue.MaxName characters).
	ClientOrderID string
	// Parties are the client's identifiers for the order records, each
	// optional (venue.Parties.Validate).
	Parties venue.Parties
}

// prepared is a validated create request with the reference records it
// names.
type prepared struct {
	offer      venue.Offer
	instrument venue.Instrument
	market     venue.Market
	// refVersion is the reference-data version instrument and market are
	// of (0: read from the database).
	refVersion int64
}

// offerFields is what checkOfferFields worked out of a create body.
type offerFields struct {
	direction, validity string
	// priceField names the price in issues (the body's own name for it).
	priceField string
}

// prepare validates a create request against reference data and returns
// the record to submit. typ is the record type being created.
func (s *Service) prepare(ctx context.Context, p venue.Principal, in OfferInput, typ string) (prepared, error) {
	var pr prepared
	if err := require(p, traders...); err != nil {
		return pr, err
	}
	now := s.clock()
	var v venue.Validator
	f := checkOfferFields(&v, in, typ, now)
	if err := v.Err(); err != nil {
		if pr.instrument, pr.market, err = s.listingOf(ctx, in); err == nil { // a rejection to record
			return pr, v.Err()
		}
		return prepared{}, v.Err()
	}
	if in.ParticipantID != "" && in.ParticipantID != p.ParticipantID {
		return pr, venue.NotFound("participant")
	}
	ref := s.eng.Reference()
	if ref != nil {
		pr.refVersion = ref.Version() // listing reads ref whenever there is one
	}
	if ref != nil && s.partiesFromMemory(p, &in, now) {
		var err error
		if pr.instrument, pr.market, err = listing(ctx, nil, ref, in.InstrumentID, in.MarketID); err != nil {
			return pr, err
		}
	} else if err := s.db.View(ctx, func(tx *store.Tx) error {
		var err error
		if pr.instrument, pr.market, err = listing(ctx, tx, ref, in.InstrumentID, in.MarketID); err != nil {
			return err
		}
		return s.readParties(ctx, tx, p, &in, now)
	}); err != nil {
		return pr, err
	}
	settle := checkListing(&v, in, typ, f, pr.instrument, pr.market, ref, pr.market.TradeDate(now))
	if err := v.Err(); err != nil {
		return pr, err // with its listing: a rejection to record
	}
	o := venue.Offer{ID: newID(), Type: typ, Direction: f.direction, ParticipantID: p.ParticipantID, AccountID: in.AccountID,
		UserID: p.UserID, MarketID: pr.market.ID, InstrumentID: pr.instrument.ID, SettlementProviderID: in.SettlementProviderID,
		Quantity: *in.Quantity, MatchedOfferID: in.MatchedOfferID, Notes: in.Notes, MarketOrder: in.MarketOrder,
		IsExecutable: in.IsExecutable, SettlementDate: settle, Validity: f.validity, Counterparties: in.Counterparties,
		ClientOrderID: in.ClientOrderID, Parties: in.Parties}
	if in.UserID != "" {
		o.UserID = in.UserID
	}
	if in.Price != nil && !in.MarketOrder {
		o.Price, o.HasPrice = *in.Price, true
	}
	if f.validity == venue.GTD {
		vu := in.ValidUntil.UTC().Truncate(time.Millisecond)
		o.ValidUntil = &vu
	}
	pr.offer = o
	return pr, nil
}

// listingOf resolves the instrument and market a request names, for the
// record of its rejection.
func (s *Service) listingOf(ctx context.Context, in OfferInput) (in2 venue.Instrument, m venue.Market, err error) {
	ref := s.eng.Reference()
	err = s.db.View(ctx, func(tx *store.Tx) error {
		var err error
		in2, m, err = listing(ctx, tx, ref, in.InstrumentID, in.MarketID)
		return err
	})
	return in2, m, err
}

// rejected records the venue's refusal of an order entry that named an
// instrument and a market (pr's) before it reached the engine: the order
// records hold every rejection, with its reason (internal/records). It
// answers err, the refusal.
func (s *Service) rejected(ctx context.Context, p venue.Principal, in OfferInput, typ string, pr prepared, err error) error {
	if pr.market.ID == "" || pr.instrument.ID == "" || venue.KindOf(err) != venue.KindInvalid || s.replaying() {
		return err
	}
	o := venue.Offer{ID: newID(), Type: typ, ParticipantID: p.ParticipantID, AccountID: in.AccountID, UserID: p.UserID,
		MarketID: pr.market.ID, InstrumentID: pr.instrument.ID, MatchedOfferID: in.MatchedOfferID, MarketOrder: in.MarketOrder,
		Validity: in.Validity, ClientOrderID: in.ClientOrderID, Status: venue.StatusCreated}
	o.Direction, _ = venue.Direction(in.Direction)
	if in.Quantity != nil {
		o.Quantity = *in.Quantity
	}
	if in.Price != nil && !in.MarketOrder {
		o.Price, o.HasPrice = *in.Price, true
	}
	// Without the request's Idempotency-Key claim: the request was not
	// applied, and a retry is refused again (and recorded again).
	if _, rerr := s.eng.Do(ctx, nil, func(st *sequencer.State, b *sequencer.Batch) (any, error) {
		st.RecordRejected(b, &o, err)
		return nil, nil
	}); rerr != nil {
		s.log.Warn("the record of a rejected order was not written", "err", rerr.Error(), "rejection", err.Error())
	}
	return err
}

// checkOfferFields records on v the issues of a create body that need no
// reference data: direction, quantity and price present and well formed,
// the text fields' lengths, the ids' form, the validity.
func checkOfferFields(v *venue.Validator, in OfferInput, typ string, now time.Time) offerFields {
	var f offerFields
	var ok bool
	f.direction, ok = venue.Direction(in.Direction)
	v.Check(ok, "direction", "must be ask or bid (sell or buy)")
	if in.Quantity == nil {
		v.Addf("quantity", "is required")
	}
	f.priceField = cmp.Or(in.PriceField, "price_per_unit")
	if in.Price != nil {
		venue.CheckAmount(v, f.priceField, *in.Price)
	}
	if in.Quantity != nil && venue.AmountIssue(*in.Quantity) != "" {
		venue.CheckAmount(v, "quantity", *in.Quantity)
	}
	if typ != venue.TypeRFQ && !in.MarketOrder && in.Price == nil {
		v.Addf("price_per_unit", "is required (the clean price in percent of par) unless market_order is true")
	}
	if typ == venue.TypeRFQ && in.IsExecutable && in.Price == nil {
		v.Addf("price_per_unit", "is required with is_executable: an executable request needs a limit price")
	}
	v.CheckLength("notes", in.Notes, venue.MaxText)
	v.CheckLength("client_order_id", in.ClientOrderID, venue.MaxName)
	in.Parties.Check(v, venue.RESTPartyFields)
	v.Check(validID(in.InstrumentID), "instrument_id", "is required: an instrument id")
	v.Check(validID(in.MarketID), "market_id", "is required: a market id")
	f.validity = cmp.Or(in.Validity, venue.GTC)
	f.validity = venue.CheckValidity(v, f.validity, in.ValidUntil, now)
	return f
}

// readParties checks, in tx, the account, user and settlement provider a
// create body names as the caller's own, filling in the firm's default
// account and the account's default provider when none is named, and
// remembers what it read for partiesFromMemory.
func (s *Service) readParties(ctx context.Context, tx *store.Tx, p venue.Principal, in *OfferInput, now time.Time) error {
	if in.AccountID == "" {
		var err error
		if in.AccountID, err = defaultAccount(ctx, tx, p.ParticipantID); err != nil {
			return err
		}
	}
	if !validID(in.AccountID) {
		return venue.NotFound("account")
	}
	acc, err := tx.Account(ctx, in.AccountID)
	if err == nil {
		remember(s.lookups, s.lookups.accounts, acc.ID, acc, now.Add(lookupTTL))
	}
	if err != nil || acc.ParticipantID != p.ParticipantID {
		return notFoundOr(err, "account")
	}
	if in.UserID != "" && in.UserID != p.UserID {
		if !validID(in.UserID) {
			return venue.NotFound("user")
		}
		u, err := tx.User(ctx, in.UserID)
		if err != nil || u.ParticipantID != p.ParticipantID {
			return notFoundOr(err, "user")
		}
	}
	if in.SettlementProviderID == "" {
		in.SettlementProviderID = acc.DefaultSettlementProviderID
	}
	if in.SettlementProviderID == "" {
		return nil
	}
	if !validID(in.SettlementProviderID) {
		return venue.NotFound("settlement provider")
	}
	sp, err := tx.SettlementProvider(ctx, in.SettlementProviderID)
	if err == nil {
		remember(s.lookups, s.lookups.providers, sp.ID, sp, now.Add(lookupTTL))
	}
	if err != nil || sp.ParticipantID != p.ParticipantID {
		return notFoundOr(err, "settlement provider")
	}
	if !sp.Enabled {
		return venue.InvalidField("settlement_provider_id", "the settlement provider is disabled")
	}
	return nil
}

// checkListing records on v the issues of a create body against the
// instrument and market it names (listed, open, enabled, the facility's
// rules, quantity and price steps, the settlement date) and returns the
// settlement date: the body's, or a business day on the market's lag from
// today.
func checkListing(v *venue.Validator, in OfferInput, typ string, f offerFields, instr venue.Instrument, m venue.Market,
	ref *sequencer.Reference, today bondmath.Date) bondmath.Date {
	v.Check(slices.Contains(instr.MarketIDs, m.ID), "market_id", "the instrument is not listed on this market")
	v.Check(m.IsEnabled, "market_id", "the market is closed")
	v.Check(instr.Enabled, "instrument_id", "the instrument is not enabled for trading")
	otc := m.FacilityType == venue.FacilityOTC
	if typ == venue.TypeRFQ || typ == venue.TypeQuote {
		v.Check(otc, "market_id", "requests for quote and quotes trade on an OTC market")
	}
	if in.MarketOrder {
		v.Check(!otc, "market_order", "market orders are not allowed on an OTC market")
		v.Check(typ == venue.TypeOffer, "market_order", "only an offer can be a market order")
	}
	venue.CheckQuantity(v, "quantity", *in.Quantity, instr)
	if in.Price != nil {
		venue.CheckPrecision(v, f.priceField, *in.Price, instr.Precision) // bounds and sign checked above
	}
	bond, bondErr := bondFor(ref, instr)
	v.Check(bondErr == nil, "instrument_id", "the instrument's terms are withheld or invalid: it cannot be traded")
	settle := bondmath.TARGET2.AddBusinessDays(today, m.LagOn(today))
	if in.SettlementDate != nil {
		settle = *in.SettlementDate
	}
	venue.CheckSettlement(v, settle, today, bond, bondErr)
	for i, c := range in.Counterparties {
		v.Check(validID(c), fmt.Sprintf("counterparties[%d]", i), "must be a participant id")
	}
	return settle
}

// partiesFromMemory checks the account, user and settlement provider of an
// offer against remembered lookups and fills in the default provider. It
// only ever confirms: false means check them in the database (something is
// not remembered, or a check would fail, which the database then words).
func (s *Service) partiesFromMemory(p venue.Principal, in *OfferInput, now time.Time) bool {
	if in.AccountID == "" || (in.UserID != "" && in.UserID != p.UserID) {
		return false
	}
	acc, ok := recall(s.lookups, s.lookups.accounts, in.AccountID, now)
	if !ok || acc.ParticipantID != p.ParticipantID {
		return false
	}
	spID := in.SettlementProviderID
	if spID == "" {
		spID = acc.DefaultSettlementProviderID
	}
	if spID != "" {
		sp, ok := recall(s.lookups, s.lookups.providers, spID, now)
		if !ok || sp.ParticipantID != p.ParticipantID || !sp.Enabled {
			return false
		}
		spID = sp.ID
	}
	// The remembered ids, not the request's copies: a resting offer keeps
	// them for its life, and every offer of an account then shares one.
	in.AccountID, in.SettlementProviderID = acc.ID, spID
	return true
}

// listing returns the instrument and the market an offer names: from the
// sequencer's reference data when it runs, else from tx.
func listing(ctx context.Context, tx *store.Tx, ref *sequencer.Reference, instrumentID, marketID string) (venue.Instrument, venue.Market, error) {
	if ref != nil {
		in, ok := ref.Instrument(instrumentID)
		if !ok {
			return in, venue.Market{}, venue.InvalidField("instrument_id", "unknown instrument")
		}
		m, ok := ref.Market(marketID)
		if !ok {
			return in, m, venue.InvalidField("market_id", "unknown market")
		}
		return in, m, nil
	}
	in, err := tx.Instrument(ctx, instrumentID)
	if err != nil {
		if errors.Is(err, venue.ErrNotFound) {
			return in, venue.Market{}, venue.InvalidField("instrument_id", "unknown instrument")
		}
		return in, venue.Market{}, err
	}
	m, err := tx.Market(ctx, marketID)
	if err != nil {
		if errors.Is(err, venue.ErrNotFound) {
			return in, m, venue.InvalidField("market_id", "unknown market")
		}
		return in, m, err
	}
	return in, m, nil
}

// bondFor returns an instrument's priceable terms: parsed once by the
// sequencer when it runs, else now.
func bondFor(ref *sequencer.Reference, in venue.Instrument) (bondmath.Bond, error) {
	if ref == nil {
		return venue.BondOf(in)
	}
	if b, ok := ref.Bond(in.ID); ok {
		return b, nil
	}
	return bondmath.Bond{}, fmt.Errorf("instrument %s has no priceable terms", in.ID)
}
