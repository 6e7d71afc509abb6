package trading

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/quagmt/udecimal"

	"github.com/bondvenue/bondvenue/internal/bondmath"
	"github.com/bondvenue/bondvenue/internal/redact"
	"github.com/bondvenue/bondvenue/internal/sequencer"
	"github.com/bondvenue/bondvenue/internal/store"
	"github.com/bondvenue/bondvenue/internal/venue"
)

// This file holds portfolio (list) RFQs (docs/guide.md, "Portfolio RFQs"):
// a requester asks dealers to price a list of bonds whole, takes one
// dealer's quote, and every line trades in one sequencer batch or none
// does. The sequencer's side is internal/sequencer/portfolio.go.

// PortfolioInput is a new list.
type PortfolioInput struct {
	MarketID       string
	AccountID      string
	Counterparties []string
	SettlementDate *bondmath.Date
	ValidUntil     *time.Time
	Notes          string
	// ClientID is the requester's own id of the list (FIX: QuoteReqID).
	ClientID string
	// Parties are the requester's identifiers for the order records, which
	// its side of every traded line carries.
	Parties venue.Parties
	Lines   []PortfolioLineInput
}

// PortfolioLineInput is one line of a new list, its direction the
// requester's.
type PortfolioLineInput struct {
	InstrumentID string
	Direction    string
	Quantity     *udecimal.Decimal
}

// PortfolioQuoteInput is a dealer's quote for a whole list.
type PortfolioQuoteInput struct {
	// ClientID is the dealer's own id of the quote (FIX: QuoteID).
	ClientID   string
	AccountID  string
	ValidUntil *time.Time
	// Parties are the dealer's identifiers for the order records, which
	// its side of every traded line carries.
	Parties venue.Parties
	Lines   []PortfolioQuoteLineInput
}

// PortfolioQuoteLineInput is a quote's clean price for one line.
type PortfolioQuoteLineInput struct {
	LineID string
	Price  *udecimal.Decimal
}

// PortfolioView is a list as its reader may see it, with the trades of an
// accept.
type PortfolioView struct {
	venue.PortfolioRFQ
	Trades []venue.Trade
}

// defaultPortfolioLife is how long a list without valid_until is open.
const defaultPortfolioLife = 15 * time.Minute

// lineFields are the fields of a line an offer's checks name; the others
// (market, account, settlement date, validity) are the list's.
var lineFields = map[string]bool{"direction": true, "quantity": true, "instrument_id": true, "price_per_unit": true}

// inLine renames the line fields of a validation error to lines[i].field.
func inLine(err error, i int) error {
	ve, ok := err.(*venue.Error)
	if !ok || len(ve.Details) == 0 {
		return err
	}
	out := *ve
	out.Details = make([]venue.FieldIssue, len(ve.Details))
	for j, d := range ve.Details {
		if lineFields[d.Field] {
			d.Field = fmt.Sprintf("lines[%d].%s", i, d.Field)
		}
		out.Details[j] = d
	}
	return &out
}

// CreatePortfolioRFQ sends a list RFQ: 1 to venue.MaxPortfolioLines lines
// on one OTC market, to the chosen enabled counterparties (all of them
// when none are named), open until valid_until (15 minutes by default).
// Every line is checked as an RFQ on its own would be.
func (s *Service) CreatePortfolioRFQ(ctx context.Context, p venue.Principal, in PortfolioInput) (PortfolioView, error) {
	if err := require(p, traders...); err != nil {
		return PortfolioView{}, err
	}
	now := s.clock()
	var v venue.Validator
	v.Check(len(in.Lines) > 0 && len(in.Lines) <= venue.MaxPortfolioLines, "lines",
		fmt.Sprintf("must hold 1 to %d lines", venue.MaxPortfolioLines))
	v.CheckLength("notes", in.Notes, venue.MaxText)
	if in.ValidUntil != nil {
		v.Check(in.ValidUntil.After(now), "valid_until", "must be in the future")
	}
	for i, c := range in.Counterparties {
		v.Check(validID(c), fmt.Sprintf("counterparties[%d]", i), "must be a participant id")
	}
	in.Parties.Check(&v, venue.RESTPartyFields)
	if err := v.Err(); err != nil {
		return PortfolioView{}, err
	}
	vu := now.Add(defaultPortfolioLife)
	if in.ValidUntil != nil {
		vu = in.ValidUntil.UTC().Truncate(time.Millisecond)
	}
	if s.replaying() {
		return s.submitPortfolio(ctx, p, nil)
	}
	r := venue.PortfolioRFQ{ID: newID(), MarketID: in.MarketID, ParticipantID: p.ParticipantID, UserID: p.UserID,
		Counterparties: in.Counterparties, ValidUntil: vu, Notes: in.Notes, ClientID: in.ClientID, Parties: in.Parties,
		Lines: make([]venue.PortfolioLine, len(in.Lines))}
	account := in.AccountID
	for i, l := range in.Lines {
		pr, err := s.prepare(ctx, p, OfferInput{AccountID: account, InstrumentID: l.InstrumentID, MarketID: in.MarketID,
			Direction: l.Direction, Quantity: l.Quantity, SettlementDate: in.SettlementDate, Validity: venue.GTD, ValidUntil: &vu}, venue.TypeRFQ)
		if err != nil {
			return PortfolioView{}, fmt.Errorf("create portfolio rfq: %w", inLine(err, i))
		}
		o := pr.offer
		if i == 0 {
			account, r.AccountID, r.SettlementDate = o.AccountID, o.AccountID, o.SettlementDate
		}
		r.Lines[i] = venue.PortfolioLine{LineID: strconv.Itoa(i + 1), InstrumentID: o.InstrumentID, Direction: o.Direction, Quantity: o.Quantity}
	}
	return s.submitPortfolio(ctx, p, func(st *sequencer.State, b *sequencer.Batch) (sequencer.PortfolioResult, error) {
		return st.CreatePortfolioRFQ(b, &r)
	})
}

// submitPortfolio runs a portfolio command and answers with the list as p
// may see it (a replayed request from its kept result).
func (s *Service) submitPortfolio(ctx context.Context, p venue.Principal,
	fn func(*sequencer.State, *sequencer.Batch) (sequencer.PortfolioResult, error)) (PortfolioView, error) {
	var res sequencer.PortfolioResult
	if s.replaying() {
		if err := s.replayed(&res); err != nil {
			return PortfolioView{}, err
		}
	} else {
		v, err := s.do(ctx, func(st *sequencer.State, b *sequencer.Batch) (any, error) { return fn(st, b) })
		if err != nil {
			return PortfolioView{}, s.fenced(ctx, err)
		}
		res = v.(sequencer.PortfolioResult)
	}
	return PortfolioView{PortfolioRFQ: redact.Portfolio(p, res.Portfolio), Trades: res.Trades}, nil
}

// ownAccount is p's account id (its newest when id is ""), checked to be
// p's.
func ownAccount(ctx context.Context, tx *store.Tx, p venue.Principal, id string) (string, error) {
	if id == "" {
		return defaultAccount(ctx, tx, p.ParticipantID)
	}
	if !validID(id) {
		return "", venue.NotFound("account")
	}
	acc, err := tx.Account(ctx, id)
	if err != nil || acc.ParticipantID != p.ParticipantID {
		return "", notFoundOr(err, "account")
	}
	return acc.ID, nil
}

// QuotePortfolio is a dealer's quote for the whole list: a clean price
// for every line, each once. It replaces the dealer's live quote.
func (s *Service) QuotePortfolio(ctx context.Context, p venue.Principal, id string, in PortfolioQuoteInput) (PortfolioView, error) {
	if err := require(p, traders...); err != nil {
		return PortfolioView{}, err
	}
	if s.replaying() {
		return s.submitPortfolio(ctx, p, nil)
	}
	now := s.clock()
	var v venue.Validator
	if in.ValidUntil != nil {
		v.Check(in.ValidUntil.After(now), "valid_until", "must be in the future")
	}
	v.Check(len(in.Lines) > 0, "lines", "must price every line of the list")
	in.Parties.Check(&v, venue.RESTPartyFields)
	if err := v.Err(); err != nil {
		return PortfolioView{}, err
	}
	var q venue.PortfolioQuote
	prices := map[string]udecimal.Decimal{}
	err := s.db.View(ctx, func(tx *store.Tx) error {
		r, err := visiblePortfolio(ctx, tx, p, id)
		if err != nil {
			return err
		}
		if !r.Invited(p.ParticipantID) {
			return venue.NotFound("portfolio request for quote")
		}
		if q.AccountID, err = ownAccount(ctx, tx, p, in.AccountID); err != nil {
			return err
		}
		line := map[string]venue.PortfolioLine{}
		for _, l := range r.Lines {
			line[l.LineID] = l
		}
		ref := s.eng.Reference()
		for i, ql := range in.Lines {
			f := fmt.Sprintf("lines[%d]", i)
			l, ok := line[ql.LineID]
			_, twice := prices[ql.LineID]
			v.Check(ok, f+".line_id", "must be a line id of the list")
			v.Check(!twice, f+".line_id", "must price each line once")
			if ql.Price == nil {
				v.Addf(f+".price_per_unit", "is required: the clean price in percent of par")
				continue
			}
			if !venue.CheckAmount(&v, f+".price_per_unit", *ql.Price) || !ok {
				continue
			}
			if ref != nil {
				if ins, found := ref.Instrument(l.InstrumentID); found {
					venue.CheckPrecision(&v, f+".price_per_unit", *ql.Price, ins.Precision)
				}
			}
			prices[ql.LineID] = *ql.Price
		}
		if err := v.Err(); err != nil {
			return err
		}
		for i, l := range r.Lines {
			if _, ok := prices[l.LineID]; !ok {
				v.Addf("lines", "line %s (the list's lines[%d]) has no price: a quote prices every line", l.LineID, i)
			}
		}
		return v.Err()
	})
	if err != nil {
		return PortfolioView{}, fmt.Errorf("quote portfolio rfq: %w", err)
	}
	q.ID, q.UserID, q.ClientID, q.Parties = newID(), p.UserID, in.ClientID, in.Parties
	if in.ValidUntil != nil {
		vu := in.ValidUntil.UTC().Truncate(time.Millisecond)
		q.ValidUntil = &vu
	}
	return s.submitPortfolio(ctx, p, func(st *sequencer.State, b *sequencer.Batch) (sequencer.PortfolioResult, error) {
		return st.QuotePortfolio(b, p, id, q, prices)
	})
}

// DeclinePortfolio is an invited dealer declining the list.
func (s *Service) DeclinePortfolio(ctx context.Context, p venue.Principal, id string) (PortfolioView, error) {
	if err := require(p, traders...); err != nil {
		return PortfolioView{}, err
	}
	if s.replaying() {
		return s.submitPortfolio(ctx, p, nil)
	}
	rec := venue.PortfolioQuote{ID: newID(), UserID: p.UserID}
	if err := s.db.View(ctx, func(tx *store.Tx) error {
		var err error
		rec.AccountID, err = ownAccount(ctx, tx, p, "")
		return err
	}); err != nil {
		return PortfolioView{}, fmt.Errorf("decline portfolio rfq: %w", err)
	}
	return s.submitPortfolio(ctx, p, func(st *sequencer.State, b *sequencer.Batch) (sequencer.PortfolioResult, error) {
		return st.DeclinePortfolio(b, p, id, rec)
	})
}

// CancelPortfolio is the requester withdrawing its open list.
func (s *Service) CancelPortfolio(ctx context.Context, p venue.Principal, id string) (PortfolioView, error) {
	if err := require(p, traders...); err != nil {
		return PortfolioView{}, err
	}
	return s.submitPortfolio(ctx, p, func(st *sequencer.State, b *sequencer.Batch) (sequencer.PortfolioResult, error) {
		return st.CancelPortfolio(b, p, id)
	})
}

// PassPortfolioQuote is the requester rejecting one live quote.
func (s *Service) PassPortfolioQuote(ctx context.Context, p venue.Principal, id, quoteID string) (PortfolioView, error) {
	if err := require(p, traders...); err != nil {
		return PortfolioView{}, err
	}
	return s.submitPortfolio(ctx, p, func(st *sequencer.State, b *sequencer.Batch) (sequencer.PortfolioResult, error) {
		return st.PassPortfolioQuote(b, p, id, quoteID)
	})
}

// AcceptPortfolioQuote is the requester taking one live quote: every line
// trades in one batch, or the accept is refused naming the line that
// cannot. parties are the requester's identifiers for the accept's order
// record (each optional), which the sequencer has when it applies it.
func (s *Service) AcceptPortfolioQuote(ctx context.Context, p venue.Principal, id, quoteID string, parties venue.Parties) (PortfolioView, error) {
	if err := require(p, traders...); err != nil {
		return PortfolioView{}, err
	}
	if err := parties.Validate(); err != nil {
		return PortfolioView{}, err
	}
	return s.submitPortfolio(ctx, p, func(st *sequencer.State, b *sequencer.Batch) (sequencer.PortfolioResult, error) {
		return st.AcceptPortfolioQuote(b, p, id, sequencer.Accept{QuoteID: quoteID, Parties: parties})
	})
}

// visiblePortfolio reads one list p may see: its own, one it was asked to
// quote, any for the operator.
func visiblePortfolio(ctx context.Context, tx *store.Tx, p venue.Principal, id string) (venue.PortfolioRFQ, error) {
	if !validID(id) {
		return venue.PortfolioRFQ{}, venue.NotFound("portfolio request for quote")
	}
	r, err := tx.PortfolioRFQ(ctx, id)
	if err != nil {
		return r, notFoundOr(err, "portfolio request for quote")
	}
	if !p.IsOperator() && r.ParticipantID != p.ParticipantID && !r.Invited(p.ParticipantID) {
		return r, venue.NotFound("portfolio request for quote")
	}
	return r, nil
}

// PortfolioRFQ returns one list as p may see it.
func (s *Service) PortfolioRFQ(ctx context.Context, p venue.Principal, id string) (PortfolioView, error) {
	var out PortfolioView
	err := s.db.View(ctx, func(tx *store.Tx) error {
		r, err := visiblePortfolio(ctx, tx, p, id)
		out.PortfolioRFQ = redact.Portfolio(p, r)
		return err
	})
	if err != nil {
		return PortfolioView{}, fmt.Errorf("get portfolio rfq: %w", err)
	}
	return out, nil
}

// PortfolioRFQs lists the lists p sent or was asked to quote (all for the
// operator), newest first.
func (s *Service) PortfolioRFQs(ctx context.Context, p venue.Principal, status string, page venue.Page) (List[venue.PortfolioRFQ], error) {
	if status != "" && !contains([]string{venue.StatusCreated, venue.StatusClosed, venue.StatusCancelled,
		venue.StatusRejected, venue.StatusExpired}, status) {
		return List[venue.PortfolioRFQ]{}, venue.InvalidField("status", "must be created, closed, cancelled, rejected or expired")
	}
	f := store.PortfolioFilter{Status: status}
	if !p.IsOperator() {
		f.Party = p.ParticipantID
	}
	var out List[venue.PortfolioRFQ]
	err := s.db.View(ctx, func(tx *store.Tx) error {
		var err error
		out.Items, out.Next, err = tx.PortfolioRFQs(ctx, f, page)
		return err
	})
	if err != nil {
		return out, fmt.Errorf("list portfolio rfqs: %w", err)
	}
	for i := range out.Items {
		out.Items[i] = redact.Portfolio(p, out.Items[i])
	}
	return out, nil
}

// OpenPortfolioOfQuote is the id of p's open list that quote quoteID is
// on ("" when none is): how a FIX requester's QuoteResponse, which names
// only the quote, finds its list.
func (s *Service) OpenPortfolioOfQuote(ctx context.Context, p venue.Principal, quoteID string) (string, error) {
	if !validID(quoteID) {
		return "", nil
	}
	var out string
	err := s.db.View(ctx, func(tx *store.Tx) error {
		rs, _, err := tx.PortfolioRFQs(ctx, store.PortfolioFilter{Owner: p.ParticipantID, Status: venue.StatusCreated}, venue.Page{Limit: 1000})
		for _, r := range rs {
			if r.Quote(quoteID) != nil {
				out = r.ID
			}
		}
		return err
	})
	if err != nil {
		return "", fmt.Errorf("find the list of quote %s: %w", quoteID, err)
	}
	return out, nil
}
