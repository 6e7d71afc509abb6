package trading

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/bondvenue/bondvenue/internal/bondmath"
	"github.com/bondvenue/bondvenue/internal/store"
	"github.com/bondvenue/bondvenue/internal/venue"
	"github.com/quagmt/udecimal"
)

// OfferInput is the create body of an offer, a quote or an RFQ (spec §4.2).
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
	Quantity             *udecimal.Decimal
	MatchedOfferID       string
	Notes                string
	MarketOrder          bool
	IsExecutable         bool
	SettlementDate       *bondmath.Date
	Validity             string
	ValidUntil           *time.Time
	Counterparties       []string
}

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
	Trades         []venue.Trade
}

var traders = []venue.Role{venue.RoleAdmin, venue.RoleTrader}

func direction(s string) (string, bool) {
	switch strings.ToLower(s) {
	case "ask", "sell":
		return venue.Ask, true
	case "bid", "buy":
		return venue.Bid, true
	}
	return "", false
}

// checkPrecision records an issue on field when price has more significant
// decimal places than an instrument's precision allows. Trailing zeros are
// not significant: "99.5000" fits a precision of 1.
func checkPrecision(v *venue.Validator, field string, price udecimal.Decimal, precision int) {
	if precision < 0 || !price.Trunc(uint8(precision)).Equal(price) {
		v.Addf(field, "has more than the instrument's %d decimal places", precision)
	}
}

// checkAmount records the issue of an amount (a nominal or a price) of
// any channel outside the venue's bounds (venue.AmountIssue) or not
// positive, and reports whether it is usable.
func checkAmount(v *venue.Validator, field string, d udecimal.Decimal) bool {
	if issue := venue.AmountIssue(d); issue != "" {
		v.Addf(field, "%s", issue)
		return false
	}
	if !d.IsPos() {
		v.Addf(field, "must be greater than 0")
		return false
	}
	return true
}

// checkPrice records the issues of a clean price on instrument in: the
// rules of every offer, RFQ, quote and indicative price, on create and on
// amend.
func checkPrice(v *venue.Validator, field string, price udecimal.Decimal, in venue.Instrument) {
	if checkAmount(v, field, price) {
		checkPrecision(v, field, price, in.Precision)
	}
}

// checkQuantity records the issues of a nominal quantity on instrument
// in: at least min_piece, a multiple of min_increment.
func checkQuantity(v *venue.Validator, field string, q udecimal.Decimal, in venue.Instrument) {
	if !checkAmount(v, field, q) {
		return
	}
	v.Check(q.GreaterThanOrEqual(in.MinPiece), field, "must be at least min_piece "+in.MinPiece.String())
	_, rem, err := q.QuoRem(in.MinIncrement)
	v.Check(err == nil && rem.IsZero(), field, "must be a multiple of min_increment "+in.MinIncrement.String())
}

// checkSettlement records the issues of settle as the settlement date of a
// record traded today on an instrument with terms bond: a TARGET2 business
// day, not before today, before maturity. bondErr says the terms are
// unusable, which the caller reports on instrument_id.
func checkSettlement(v *venue.Validator, settle, today bondmath.Date, bond bondmath.Bond, bondErr error) {
	v.Check(bondmath.TARGET2.IsBusinessDay(settle), "settlement_date", "must be a TARGET2 business day")
	v.Check(!settle.Before(today), "settlement_date", "must not be before the trade date "+today.String())
	if bondErr == nil {
		v.Check(settle.Before(bond.Maturity), "settlement_date", "must be before the instrument's maturity "+bond.Maturity.String())
	}
}

// prepared is a validated create request with the reference records it
// names.
type prepared struct {
	offer      venue.Offer
	instrument venue.Instrument
	market     venue.Market
}

// prepare validates a create request against reference data and returns
// the record to submit. typ is the record type being created.
func (s *Service) prepare(ctx context.Context, p venue.Principal, in OfferInput, typ string) (prepared, error) {
	var pr prepared
	if err := require(p, traders...); err != nil {
		return pr, err
	}
	now := s.clock()
	today := bondmath.DateOf(now)
	var v venue.Validator
	dir, ok := direction(in.Direction)
	v.Check(ok, "direction", "must be ask or bid (sell or buy)")
	if in.Quantity == nil {
		v.Addf("quantity", "is required")
	}
	if in.Price != nil {
		checkAmount(&v, "price_per_unit", *in.Price)
	}
	if in.Quantity != nil && venue.AmountIssue(*in.Quantity) != "" {
		checkAmount(&v, "quantity", *in.Quantity)
	}
	if typ != venue.TypeRFQ && !in.MarketOrder && in.Price == nil {
		v.Addf("price_per_unit", "is required (the clean price in percent of par) unless market_order is true")
	}
	if typ == venue.TypeRFQ && in.IsExecutable && in.Price == nil {
		v.Addf("price_per_unit", "is required with is_executable: an executable request needs a limit price")
	}
	v.CheckLength("notes", in.Notes, venue.MaxText)
	v.Check(validID(in.InstrumentID), "instrument_id", "is required: an instrument id")
	v.Check(validID(in.MarketID), "market_id", "is required: a market id")
	validity := strings.ToLower(in.Validity)
	if validity == "" {
		validity = venue.GTC
	}
	v.Check(validity == venue.GTC || validity == venue.GTD, "validity", "must be gtc or gtd")
	if validity == venue.GTD {
		v.Check(in.ValidUntil != nil && in.ValidUntil.After(now), "valid_until", "is required with gtd and must be in the future")
	}
	if err := v.Err(); err != nil {
		return pr, err
	}
	if in.ParticipantID != "" && in.ParticipantID != p.ParticipantID {
		return pr, venue.NotFound("participant")
	}
	ref := s.eng.reference()
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
		if in.AccountID == "" {
			as, _, err := tx.Accounts(ctx, store.AccountFilter{ParticipantIDs: []string{p.ParticipantID}}, venue.Page{Limit: 1})
			if err != nil {
				return err
			}
			if len(as) == 0 {
				return venue.InvalidField("account_id", "is required: the participant has no account")
			}
			in.AccountID = as[len(as)-1].ID
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
		if in.SettlementProviderID != "" {
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
		}
		return nil
	}); err != nil {
		return pr, err
	}
	in2 := pr.instrument
	listed := false
	for _, m := range in2.MarketIDs {
		listed = listed || m == pr.market.ID
	}
	v.Check(listed, "market_id", "the instrument is not listed on this market")
	v.Check(pr.market.IsEnabled, "market_id", "the market is closed")
	v.Check(in2.Enabled, "instrument_id", "the instrument is not enabled for trading")
	otc := pr.market.FacilityType == venue.FacilityOTC
	if typ == venue.TypeRFQ || typ == venue.TypeQuote {
		v.Check(otc, "market_id", "requests for quote and quotes trade on an OTC market")
	}
	if in.MarketOrder {
		v.Check(!otc, "market_order", "market orders are not allowed on an OTC market")
		v.Check(typ == venue.TypeOffer, "market_order", "only an offer can be a market order")
	}
	checkQuantity(&v, "quantity", *in.Quantity, in2)
	if in.Price != nil {
		checkPrecision(&v, "price_per_unit", *in.Price, in2.Precision) // bounds and sign checked above
	}
	bond, bondErr := bondFor(ref, in2)
	v.Check(bondErr == nil, "instrument_id", "the instrument's terms are withheld or invalid: it cannot be traded")
	// The default is a business day from today on.
	settle := bondmath.TARGET2.AddBusinessDays(today, pr.market.SettlementLag)
	if in.SettlementDate != nil {
		settle = *in.SettlementDate
	}
	checkSettlement(&v, settle, today, bond, bondErr)
	for i, c := range in.Counterparties {
		v.Check(validID(c), fmt.Sprintf("counterparties[%d]", i), "must be a participant id")
	}
	if err := v.Err(); err != nil {
		return pr, err
	}
	o := venue.Offer{ID: newID(), Type: typ, Direction: dir, ParticipantID: p.ParticipantID, AccountID: in.AccountID,
		UserID: p.UserID, MarketID: pr.market.ID, InstrumentID: in2.ID, SettlementProviderID: in.SettlementProviderID,
		Quantity: *in.Quantity, MatchedOfferID: in.MatchedOfferID, Notes: in.Notes, MarketOrder: in.MarketOrder,
		IsExecutable: in.IsExecutable, SettlementDate: settle, Validity: validity, Counterparties: in.Counterparties}
	if in.UserID != "" {
		o.UserID = in.UserID
	}
	if in.Price != nil && !in.MarketOrder {
		o.Price, o.HasPrice = *in.Price, true
	}
	if validity == venue.GTD {
		vu := in.ValidUntil.UTC().Truncate(time.Millisecond)
		o.ValidUntil = &vu
	}
	pr.offer = o
	return pr, nil
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
func listing(ctx context.Context, tx *store.Tx, ref *reference, instrumentID, marketID string) (venue.Instrument, venue.Market, error) {
	if ref != nil {
		in, ok := ref.instruments[instrumentID]
		if !ok {
			return in, venue.Market{}, venue.InvalidField("instrument_id", "unknown instrument")
		}
		m, ok := ref.markets[marketID]
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
func bondFor(ref *reference, in venue.Instrument) (bondmath.Bond, error) {
	if ref == nil {
		return bondOf(in)
	}
	if b, ok := ref.bonds[in.ID]; ok {
		return b, nil
	}
	return bondmath.Bond{}, fmt.Errorf("instrument %s has no priceable terms", in.ID)
}

func notFoundOr(err error, what string) error {
	if err == nil || errors.Is(err, venue.ErrNotFound) {
		return venue.NotFound(what)
	}
	return err
}

// CreateOffer creates a firm offer, or — with matched_offer_id naming an
// RFQ — a quote on that RFQ.
func (s *Service) CreateOffer(ctx context.Context, p venue.Principal, in OfferInput) (OfferView, error) {
	typ := venue.TypeOffer
	if in.MatchedOfferID != "" {
		typ = venue.TypeQuote
		if !validID(in.MatchedOfferID) {
			return OfferView{}, venue.NotFound("request for quote")
		}
	}
	pr, err := s.prepare(ctx, p, in, typ)
	if err != nil {
		return OfferView{}, err
	}
	o := pr.offer
	res, err := s.submit(ctx, func(st *state, b *batch) (OfferResult, error) {
		if typ == venue.TypeQuote {
			return st.createQuote(b, &o)
		}
		return st.createOffer(b, &o)
	})
	if err != nil {
		return OfferView{}, fmt.Errorf("create %s: %w", typ, err)
	}
	return OfferView{Offer: res.Offer, Instrument: &pr.instrument, Trades: res.Trades}, nil
}

// CreateRFQ sends a request for quote. Without counterparties it goes to
// every enabled counterparty; with matched_offer_id naming a resting offer
// it goes to that offer's owner.
func (s *Service) CreateRFQ(ctx context.Context, p venue.Principal, in OfferInput) (OfferView, error) {
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
	res, err := s.submit(ctx, func(st *state, b *batch) (OfferResult, error) { return st.createRFQ(b, &r) })
	if err != nil {
		return OfferView{}, fmt.Errorf("create rfq: %w", err)
	}
	return OfferView{Offer: res.Offer, Instrument: &pr.instrument, ShowRecipients: true}, nil
}

// submit runs an engine command and types its answer.
func (s *Service) submit(ctx context.Context, fn func(*state, *batch) (OfferResult, error)) (OfferResult, error) {
	v, err := s.eng.do(ctx, func(st *state, b *batch) (any, error) { return fn(st, b) })
	if err != nil {
		return OfferResult{}, err
	}
	return v.(OfferResult), nil
}

// ChangeInput is the update entity of an offer or RFQ (spec §4.3).
type ChangeInput struct {
	Price          *udecimal.Decimal
	Quantity       *udecimal.Decimal
	SettlementDate *bondmath.Date
	Validity       *string
	ValidUntil     *time.Time
	Notes          *string
}

// change validates an update entity for a record on an instrument.
func (s *Service) change(ctx context.Context, o venue.Offer, in ChangeInput) (OfferChange, error) {
	var v venue.Validator
	ch := OfferChange{Price: in.Price, Quantity: in.Quantity, SettlementDate: in.SettlementDate, Notes: in.Notes}
	var instr venue.Instrument
	err := s.db.View(ctx, func(tx *store.Tx) error {
		var err error
		instr, err = tx.Instrument(ctx, o.InstrumentID)
		return err
	})
	if err != nil {
		return ch, err
	}
	if in.Price != nil {
		checkPrice(&v, "price_per_unit", *in.Price, instr)
	}
	if in.Notes != nil {
		v.CheckLength("notes", *in.Notes, venue.MaxText)
	}
	if in.Quantity != nil {
		checkQuantity(&v, "quantity", *in.Quantity, instr)
	}
	if d := in.SettlementDate; d != nil {
		bond, bondErr := bondFor(s.eng.reference(), instr)
		checkSettlement(&v, *d, bondmath.DateOf(s.clock()), bond, bondErr)
	}
	if in.Validity != nil {
		val := strings.ToLower(*in.Validity)
		v.Check(val == venue.GTC || val == venue.GTD, "validity", "must be gtc or gtd")
		if val == venue.GTD {
			v.Check(in.ValidUntil != nil && in.ValidUntil.After(s.clock()), "valid_until", "is required with gtd and must be in the future")
		}
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
	v := OfferView{Offer: offerFor(p, o), ShowRecipients: owned(p, o.ParticipantID)}
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
				v.MatchedOffers = append(v.MatchedOffers, offerFor(p, q))
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

// OfferFilter selects offers or RFQs in a list. An instrument or market
// the venue does not have is not found.
type OfferFilter struct {
	Status, Type, InstrumentID, MarketID string
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

// RFQs lists the RFQs the caller sent or was invited to.
func (s *Service) RFQs(ctx context.Context, p venue.Principal, f OfferFilter, page venue.Page) (List[venue.Offer], error) {
	return s.listOffers(ctx, p, store.OfferFilter{Types: []string{venue.TypeRFQ}, Owner: p.ParticipantID,
		RecipientOf: p.ParticipantID, Status: f.Status, InstrumentID: f.InstrumentID, MarketID: f.MarketID}, page)
}

// checkFilterID records an issue on a list's filter parameter name when
// it is set but cannot be an id; what names the record.
func checkFilterID(v *venue.Validator, name, id, what string) {
	v.Check(id == "" || validID(id), name, "must be "+what+" id")
}

// checkFilterRecords answers not found when a list is filtered by an
// instrument or a market (both visible to every caller) the venue does not
// have: one lookup per filter id given. A malformed id is checkFilterID's.
func checkFilterRecords(ctx context.Context, tx *store.Tx, instrumentID, marketID string) error {
	if instrumentID != "" {
		if _, err := tx.Instrument(ctx, instrumentID); err != nil {
			return notFoundOr(err, "instrument")
		}
	}
	if marketID != "" {
		if _, err := tx.Market(ctx, marketID); err != nil {
			return notFoundOr(err, "market")
		}
	}
	return nil
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
		out.Items[i] = offerFor(p, out.Items[i])
	}
	return out, nil
}

// UpdateOffer amends the caller's open offer or quote.
func (s *Service) UpdateOffer(ctx context.Context, p venue.Principal, id string, in ChangeInput) (OfferView, error) {
	if err := require(p, traders...); err != nil {
		return OfferView{}, err
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
	res, err := s.submit(ctx, func(st *state, b *batch) (OfferResult, error) { return st.amendOffer(b, p, id, ch) })
	if err != nil {
		// Closed since ownedOpen read it (filled meanwhile): 409, not 404.
		return OfferView{}, fmt.Errorf("update offer: %w", s.engineErr(ctx, p, id, err))
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
func (s *Service) reload(ctx context.Context, p venue.Principal, res OfferResult) (OfferView, error) {
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
	if !errors.Is(err, errNotOpen) {
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
	if err := require(p, traders...); err != nil {
		return OfferView{}, err
	}
	res, err := s.submit(ctx, func(st *state, b *batch) (OfferResult, error) { return st.cancelOffer(b, p, id) })
	if err != nil {
		return OfferView{}, fmt.Errorf("delete offer: %w", s.engineErr(ctx, p, id, err))
	}
	return s.reload(ctx, p, res)
}

// AcceptQuote trades the caller's RFQ with a quote; it answers the trade.
func (s *Service) AcceptQuote(ctx context.Context, p venue.Principal, id string) (TradeView, error) {
	if err := require(p, traders...); err != nil {
		return TradeView{}, err
	}
	res, err := s.submit(ctx, func(st *state, b *batch) (OfferResult, error) { return st.acceptQuote(b, p, id) })
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

// UpdateRFQ changes the caller's open RFQ.
func (s *Service) UpdateRFQ(ctx context.Context, p venue.Principal, id string, in ChangeInput) (OfferView, error) {
	if err := require(p, traders...); err != nil {
		return OfferView{}, err
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
	res, err := s.submit(ctx, func(st *state, b *batch) (OfferResult, error) { return st.updateRFQ(b, p, id, ch) })
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
	res, err := s.submit(ctx, func(st *state, b *batch) (OfferResult, error) { return st.cancelRFQ(b, p, id) })
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
	res, err := s.submit(ctx, func(st *state, b *batch) (OfferResult, error) { return st.declineRFQ(b, p, id) })
	if err != nil {
		if errors.Is(err, venue.ErrNotFound) {
			err = s.engineErr(ctx, p, id, errNotOpen)
		}
		return OfferView{}, fmt.Errorf("decline rfq: %w", err)
	}
	return s.reload(ctx, p, res)
}

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
		v.Offer = offerFor(p, v.Offer)
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
