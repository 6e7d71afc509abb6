// Package positions holds the use case that reads a firm's positions: by
// instrument and account, the nominal it holds, the average price of the
// open part, and the P&L realised and unrealised, worked out from the
// trades the firm is a party to (its allocations where it made them) and
// marked at each instrument's latest trade. It never changes a record.
package positions

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/quagmt/udecimal"

	"github.com/bondvenue/bondvenue/internal/store"
	"github.com/bondvenue/bondvenue/internal/venue"
)

// MarkLastTrade is the mark source of a price that is the instrument's
// latest trade on the venue.
const MarkLastTrade = "last_trade"

// Service reads positions.
type Service struct {
	db *store.DB
}

// New returns the service on db.
func New(db *store.DB) *Service { return &Service{db: db} }

// Query selects positions. Zero fields do not filter.
type Query struct {
	// ParticipantID is the firm, for the operator (empty: every firm); a
	// firm's user may name only its own.
	ParticipantID string
	InstrumentID  string
	AccountID     string
}

// Position is what a firm holds of an instrument in an account.
type Position struct {
	ParticipantID string
	InstrumentID  string
	ISIN          string
	Name          string
	Currency      string
	AccountID     string
	Ledger        Ledger
	// Mark is the price the open position is valued at; nil when the
	// instrument has none.
	Mark *Mark
}

// Mark is a price a position is valued at, and where it comes from.
type Mark struct {
	Price    udecimal.Decimal
	Source   string // MarkLastTrade
	MarketID string
	At       time.Time
}

// Unrealised is the open position's P&L at its mark (zero without one).
func (p Position) Unrealised() udecimal.Decimal {
	if p.Mark == nil {
		return udecimal.Zero
	}
	return p.Ledger.Unrealised(p.Mark.Price)
}

// readers are the roles that may read positions: a firm's traders and
// admins, and the operator.
var readers = []venue.Role{venue.RoleOperator, venue.RoleAdmin, venue.RoleTrader}

// pageSize is how many trades (or allocations) a read takes at a time.
const pageSize = 1000

// Positions returns the positions q selects, by firm, ISIN and account.
func (s *Service) Positions(ctx context.Context, p venue.Principal, q Query) ([]Position, error) {
	if !slices.Contains(readers, p.Role) {
		return nil, venue.Forbidden("role %s may not read positions", p.Role)
	}
	var v venue.Validator
	v.Check(q.ParticipantID == "" || venue.ValidID(q.ParticipantID), "participant_id", "must be a participant's id")
	v.Check(q.InstrumentID == "" || venue.ValidID(q.InstrumentID), "instrument_id", "must be an instrument's id")
	v.Check(q.AccountID == "" || venue.ValidID(q.AccountID), "account_id", "must be an account's id")
	if err := v.Err(); err != nil {
		return nil, err
	}
	if !p.IsOperator() {
		if q.ParticipantID != "" && q.ParticipantID != p.ParticipantID {
			return nil, venue.NotFound("participant")
		}
		q.ParticipantID = p.ParticipantID
	}
	var out []Position
	err := s.db.View(ctx, func(tx *store.Tx) error {
		if err := check(ctx, tx, q); err != nil {
			return err
		}
		var err error
		out, err = read(ctx, tx, q)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("positions: %w", err)
	}
	return out, nil
}

// check finds the records q names: a participant, instrument or account
// the venue does not have (or, for an account, that is not the firm's)
// is not found.
func check(ctx context.Context, tx *store.Tx, q Query) error {
	if q.ParticipantID != "" {
		if _, err := tx.Participant(ctx, q.ParticipantID); err != nil {
			return notFound(err, "participant")
		}
	}
	if q.InstrumentID != "" {
		if _, err := tx.Instrument(ctx, q.InstrumentID); err != nil {
			return notFound(err, "instrument")
		}
	}
	if q.AccountID != "" {
		a, err := tx.Account(ctx, q.AccountID)
		if err != nil {
			return notFound(err, "account")
		}
		if q.ParticipantID != "" && a.ParticipantID != q.ParticipantID {
			return venue.NotFound("account")
		}
	}
	return nil
}

// notFound names what a read did not find; other errors pass.
func notFound(err error, what string) error {
	var ve *venue.Error
	if errors.As(err, &ve) && ve.Kind == venue.KindNotFound {
		return venue.NotFound(what)
	}
	return err
}

// key is a position's identity.
type key struct{ participant, instrument, account string }

// read folds the trades q selects into positions, oldest trade first.
func read(ctx context.Context, tx *store.Tx, q Query) ([]Position, error) {
	var trades []venue.Trade
	page := venue.Page{Limit: pageSize}
	for {
		ts, next, err := tx.Trades(ctx, store.TradeFilter{Party: q.ParticipantID, InstrumentID: q.InstrumentID}, page)
		if err != nil {
			return nil, err
		}
		trades = append(trades, ts...)
		if next == "" {
			break
		}
		page.Cursor = next
	}
	// The list is newest first: the ledgers take the trades in the order
	// they were made.
	slices.Reverse(trades)

	firms := map[string]bool{}
	for _, t := range trades {
		for _, o := range []venue.Order{t.AskOrder, t.BidOrder} {
			if q.ParticipantID == "" || o.ParticipantID == q.ParticipantID {
				firms[o.ParticipantID] = true
			}
		}
	}
	allocated, err := allocations(ctx, tx, firms)
	if err != nil {
		return nil, err
	}

	ledgers := map[key]*Ledger{}
	var order []key
	add := func(k key, buy bool, nominal, price udecimal.Decimal) {
		if q.AccountID != "" && k.account != q.AccountID {
			return
		}
		l, ok := ledgers[k]
		if !ok {
			l = &Ledger{}
			ledgers[k] = l
			order = append(order, k)
		}
		if buy {
			l.Buy(nominal, price)
		} else {
			l.Sell(nominal, price)
		}
	}
	for _, t := range trades {
		for _, o := range []venue.Order{t.AskOrder, t.BidOrder} {
			if !firms[o.ParticipantID] {
				continue
			}
			buy := o.Direction == venue.Bid
			if parts, ok := allocated[tradeSide{t.ID, o.ParticipantID}]; ok {
				for _, a := range parts {
					add(key{o.ParticipantID, t.InstrumentID, a.AccountID}, buy, a.Quantity, t.PricePerUnit)
				}
				continue
			}
			add(key{o.ParticipantID, t.InstrumentID, o.AccountID}, buy, t.Quantity, t.PricePerUnit)
		}
	}

	instrumentIDs := make([]string, 0, len(order))
	for _, k := range order {
		instrumentIDs = append(instrumentIDs, k.instrument)
	}
	instruments, err := tx.InstrumentsByID(ctx, instrumentIDs)
	if err != nil {
		return nil, err
	}
	marks, err := lastTrades(ctx, tx)
	if err != nil {
		return nil, err
	}
	out := make([]Position, 0, len(order))
	for _, k := range order {
		in, ok := instruments[k.instrument]
		if !ok {
			return nil, fmt.Errorf("position: instrument %s not found", k.instrument)
		}
		pos := Position{ParticipantID: k.participant, InstrumentID: k.instrument, ISIN: in.Terms.ISIN, Name: in.Terms.Name,
			Currency: in.Terms.Currency, AccountID: k.account, Ledger: *ledgers[k]}
		if m, ok := marks[k.instrument]; ok {
			pos.Mark = &m
		}
		out = append(out, pos)
	}
	slices.SortFunc(out, func(a, b Position) int {
		return cmp.Or(cmp.Compare(a.ParticipantID, b.ParticipantID), cmp.Compare(a.ISIN, b.ISIN),
			cmp.Compare(a.InstrumentID, b.InstrumentID), cmp.Compare(a.AccountID, b.AccountID))
	})
	return out, nil
}

// tradeSide is one firm's side of a trade.
type tradeSide struct{ trade, participant string }

// allocations returns the allocations the firms made, by trade side.
func allocations(ctx context.Context, tx *store.Tx, firms map[string]bool) (map[tradeSide][]venue.Allocation, error) {
	out := map[tradeSide][]venue.Allocation{}
	for firm := range firms {
		page := venue.Page{Limit: pageSize}
		for {
			as, next, err := tx.Allocations(ctx, firm, page)
			if err != nil {
				return nil, err
			}
			for _, a := range as {
				out[tradeSide{a.TradeID, a.ParticipantID}] = a.Allocations
			}
			if next == "" {
				break
			}
			page.Cursor = next
		}
	}
	return out, nil
}

// lastTrades returns each instrument's latest trade on the venue (on any
// market; the latest market's when two trade in the same millisecond) as
// a mark.
func lastTrades(ctx context.Context, tx *store.Tx) (map[string]Mark, error) {
	ts, err := tx.LastTrades(ctx)
	if err != nil {
		return nil, err
	}
	out := map[string]Mark{}
	for _, t := range ts {
		m, ok := out[t.InstrumentID]
		if ok && (m.At.After(t.CreatedAt) || (m.At.Equal(t.CreatedAt) && m.MarketID > t.MarketID)) {
			continue
		}
		out[t.InstrumentID] = Mark{Price: t.PricePerUnit, Source: MarkLastTrade, MarketID: t.MarketID, At: t.CreatedAt}
	}
	return out, nil
}
