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
	"github.com/bondvenue/bondvenue/internal/redact"
	"github.com/bondvenue/bondvenue/internal/sequencer"
	"github.com/bondvenue/bondvenue/internal/store"
	"github.com/bondvenue/bondvenue/internal/venue"
)

// This file holds firm offers and quotes as use cases: create (prepare),
// amend, cancel, read and list. The rules they share are offerrules.go's;
// the sequencer applies them (internal/sequencer/offers.go).

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

var traders = []venue.Role{venue.RoleAdmin, venue.RoleTrader}

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
	dir, ok := venue.Direction(in.Direction)
	v.Check(ok, "direction", "must be ask or bid (sell or buy)")
	if in.Quantity == nil {
		v.Addf("quantity", "is required")
	}
	priceField := cmp.Or(in.PriceField, "price_per_unit")
	if in.Price != nil {
		venue.CheckAmount(&v, priceField, *in.Price)
	}
	if in.Quantity != nil && venue.AmountIssue(*in.Quantity) != "" {
		venue.CheckAmount(&v, "quantity", *in.Quantity)
	}
	if typ != venue.TypeRFQ && !in.MarketOrder && in.Price == nil {
		v.Addf("price_per_unit", "is required (the clean price in percent of par) unless market_order is true")
	}
	if typ == venue.TypeRFQ && in.IsExecutable && in.Price == nil {
		v.Addf("price_per_unit", "is required with is_executable: an executable request needs a limit price")
	}
	v.CheckLength("notes", in.Notes, venue.MaxText)
	v.CheckLength("client_order_id", in.ClientOrderID, venue.MaxName)
	v.Check(validID(in.InstrumentID), "instrument_id", "is required: an instrument id")
	v.Check(validID(in.MarketID), "market_id", "is required: a market id")
	validity := in.Validity
	if validity == "" {
		validity = venue.GTC
	}
	validity = venue.CheckValidity(&v, validity, in.ValidUntil, now)
	if err := v.Err(); err != nil {
		return pr, err
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
	venue.CheckQuantity(&v, "quantity", *in.Quantity, in2)
	if in.Price != nil {
		venue.CheckPrecision(&v, priceField, *in.Price, in2.Precision) // bounds and sign checked above
	}
	bond, bondErr := bondFor(ref, in2)
	v.Check(bondErr == nil, "instrument_id", "the instrument's terms are withheld or invalid: it cannot be traded")
	// The default is a business day from today on.
	settle := bondmath.TARGET2.AddBusinessDays(today, pr.market.LagOn(today))
	if in.SettlementDate != nil {
		settle = *in.SettlementDate
	}
	venue.CheckSettlement(&v, settle, today, bond, bondErr)
	for i, c := range in.Counterparties {
		v.Check(validID(c), fmt.Sprintf("counterparties[%d]", i), "must be a participant id")
	}
	if err := v.Err(); err != nil {
		return pr, err
	}
	o := venue.Offer{ID: newID(), Type: typ, Direction: dir, ParticipantID: p.ParticipantID, AccountID: in.AccountID,
		UserID: p.UserID, MarketID: pr.market.ID, InstrumentID: in2.ID, SettlementProviderID: in.SettlementProviderID,
		Quantity: *in.Quantity, MatchedOfferID: in.MatchedOfferID, Notes: in.Notes, MarketOrder: in.MarketOrder,
		IsExecutable: in.IsExecutable, SettlementDate: settle, Validity: validity, Counterparties: in.Counterparties,
		ClientOrderID: in.ClientOrderID}
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
		return OfferView{}, err
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
}

// change validates an update entity for a record on an instrument.
func (s *Service) change(ctx context.Context, o venue.Offer, in ChangeInput) (sequencer.OfferChange, error) {
	var v venue.Validator
	ch := sequencer.OfferChange{Price: in.Price, Quantity: in.Quantity, SettlementDate: in.SettlementDate, Notes: in.Notes,
		ClientOrderID: in.ClientOrderID}
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
		venue.CheckPrice(&v, cmp.Or(in.PriceField, "price_per_unit"), *in.Price, instr)
	}
	if in.Notes != nil {
		v.CheckLength("notes", *in.Notes, venue.MaxText)
	}
	if in.ClientOrderID != nil {
		v.CheckLength("client_order_id", *in.ClientOrderID, venue.MaxName)
	}
	if in.Quantity != nil {
		venue.CheckQuantity(&v, "quantity", *in.Quantity, instr)
	}
	if d := in.SettlementDate; d != nil {
		bond, bondErr := bondFor(s.eng.Reference(), instr)
		venue.CheckSettlement(&v, *d, bondmath.DateOf(s.clock()), bond, bondErr)
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
