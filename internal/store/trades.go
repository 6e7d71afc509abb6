package store

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"github.com/bondvenue/bondvenue/internal/bondmath"
	"github.com/bondvenue/bondvenue/internal/venue"
	"github.com/quagmt/udecimal"
)

// tradeInserts returns the statements that write trades and their two
// orders, in a few multi-row statements: the trades first, then their
// orders.
func tradeInserts(e Engine, trades []venue.Trade) []statement {
	var out []statement
	inChunks(e, len(trades), func(from, n int) {
		args := make([]any, 0, n*24)
		for _, t := range trades[from : from+n] {
			p := publicationOf(t)
			args = append(args, t.ID, t.TransactionIdentificationCode, t.MarketID, t.InstrumentID, t.AskOrder.ID,
				t.BidOrder.ID, t.AskOrder.ParticipantID, t.BidOrder.ParticipantID, t.Status, t.Quantity.String(),
				t.PricePerUnit.String(), t.AccruedInterest.String(), t.SettlementAmount.String(), t.Fee.String(),
				t.SettlementDate.String(), t.ExecutionType, ms(t.CreatedAt), ms(t.UpdatedAt), nullStr(t.PortfolioRFQID),
				p.Deferral, ms(p.PriceDueAt), ms(p.VolumeDueAt), nullMS(p.PublishedPriceAt), nullMS(p.PublishedVolumeAt))
		}
		out = append(out, statement{query: `INSERT INTO trades (id, transaction_identification_code, market_id, instrument_id,
		ask_order_id, bid_order_id, ask_participant_id, bid_participant_id, status, quantity, price_per_unit,
		accrued_interest, price, fee, settlement_date, execution_type, created_at, updated_at, portfolio_rfq_id,
		deferral, price_due_at, volume_due_at, published_price_at, published_volume_at)
		VALUES ` + valueRows(n, 24), args: args, what: "insert trade"})
	})
	inChunks(e, 2*len(trades), func(from, n int) {
		args := make([]any, 0, n*15)
		for i := from; i < from+n; i++ {
			t := &trades[i/2]
			o := &t.AskOrder
			if i%2 == 1 {
				o = &t.BidOrder
			}
			args = append(args, o.ID, t.ID, o.OfferID, o.Direction, o.ParticipantID, o.AccountID, o.MarketID,
				o.InstrumentID, o.Quantity.String(), o.PricePerUnit.String(), o.Filled.String(), o.Status, o.Type,
				ms(o.CreatedAt), ms(o.UpdatedAt))
		}
		out = append(out, statement{query: `INSERT INTO orders (id, trade_id, offer_id, direction, participant_id, account_id,
			market_id, instrument_id, quantity, price_per_unit, filled_quantity, status, type, created_at, updated_at)
			VALUES ` + valueRows(n, 15), args: args, what: "insert order"})
	})
	return out
}

// tradeFrom selects trades with their two orders: one row per trade, the
// ask order's columns then the bid order's, joined on the orders' primary
// key, so a list of any length is one query.
var tradeFrom = `SELECT t.id, t.transaction_identification_code, t.market_id, t.instrument_id, t.status, t.quantity,
	t.price_per_unit, t.accrued_interest, t.price, t.fee, t.settlement_date, t.execution_type, t.created_at, t.updated_at,
	t.portfolio_rfq_id, t.deferral, t.price_due_at, t.volume_due_at, t.published_price_at, t.published_volume_at,
	` + orderCols("a") + `,
	` + orderCols("b") + `
	FROM trades t JOIN orders a ON a.id = t.ask_order_id JOIN orders b ON b.id = t.bid_order_id WHERE 1 = 1`

// orderCols lists an order's columns under a table alias.
func orderCols(alias string) string {
	return strings.ReplaceAll(`o.id, o.offer_id, o.direction, o.participant_id, o.account_id, o.market_id,
	o.instrument_id, o.quantity, o.price_per_unit, o.filled_quantity, o.status, o.type, o.created_at, o.updated_at`,
		"o.", alias+".")
}

func scanTrade(r *sql.Rows) (venue.Trade, error) {
	var t venue.Trade
	var settle string
	var portfolio sql.NullString
	var created, updated, aCreated, aUpdated, bCreated, bUpdated int64
	var priceDue, volumeDue, pricePub, volumePub sql.NullInt64
	a, b := &t.AskOrder, &t.BidOrder
	err := r.Scan(&t.ID, &t.TransactionIdentificationCode, &t.MarketID, &t.InstrumentID, &t.Status,
		decimal{&t.Quantity}, decimal{&t.PricePerUnit}, decimal{&t.AccruedInterest}, decimal{&t.SettlementAmount}, decimal{&t.Fee},
		&settle, &t.ExecutionType, &created, &updated, &portfolio,
		&t.Publication.Deferral, &priceDue, &volumeDue, &pricePub, &volumePub,
		&a.ID, &a.OfferID, &a.Direction, &a.ParticipantID, &a.AccountID, &a.MarketID, &a.InstrumentID,
		decimal{&a.Quantity}, decimal{&a.PricePerUnit}, decimal{&a.Filled}, &a.Status, &a.Type, &aCreated, &aUpdated,
		&b.ID, &b.OfferID, &b.Direction, &b.ParticipantID, &b.AccountID, &b.MarketID, &b.InstrumentID,
		decimal{&b.Quantity}, decimal{&b.PricePerUnit}, decimal{&b.Filled}, &b.Status, &b.Type, &bCreated, &bUpdated)
	if err != nil {
		return t, err
	}
	t.CreatedAt, t.UpdatedAt, t.PortfolioRFQID = fromMS(created), fromMS(updated), portfolio.String
	t.Publication.PriceDueAt, t.Publication.VolumeDueAt = fromMS(cmp.Or(priceDue.Int64, created)), fromMS(cmp.Or(volumeDue.Int64, created))
	t.Publication.PublishedPriceAt, t.Publication.PublishedVolumeAt = fromNullMS(pricePub), fromNullMS(volumePub)
	a.CreatedAt, a.UpdatedAt = fromMS(aCreated), fromMS(aUpdated)
	b.CreatedAt, b.UpdatedAt = fromMS(bCreated), fromMS(bUpdated)
	t.SettlementDate, err = bondmath.ParseDate(settle)
	return t, err
}

// publicationOf is t's publication as written: a trade made without one
// (the engine always sets it) is published at once.
func publicationOf(t venue.Trade) venue.Publication {
	p := t.Publication
	if p.PriceDueAt.IsZero() {
		at := t.CreatedAt
		p = venue.Publication{PriceDueAt: at, VolumeDueAt: at, PublishedPriceAt: &at, PublishedVolumeAt: &at}
	}
	return p
}

// PublicationWrite records that the venue published a trade's price or
// volume (or both) at a time.
type PublicationWrite struct {
	TradeID       string
	Price, Volume bool
	At            time.Time
}

func publicationUpdate(p PublicationWrite) statement {
	q := "UPDATE trades SET "
	var set []string
	var args []any
	if p.Price {
		set, args = append(set, "published_price_at = ?"), append(args, ms(p.At))
	}
	if p.Volume {
		set, args = append(set, "published_volume_at = ?"), append(args, ms(p.At))
	}
	return statement{query: q + strings.Join(set, ", ") + " WHERE id = ?", args: append(args, p.TradeID), what: "publish trade"}
}

// Unpublished returns the trades whose volume the venue has not yet
// published, by due time: what the engine publishes when due.
func (tx *Tx) Unpublished(ctx context.Context) ([]venue.Trade, error) {
	ts, err := selectAll(ctx, tx, scanTrade, tradeFrom+" AND t.published_volume_at IS NULL ORDER BY t.volume_due_at")
	if err != nil {
		return nil, fmt.Errorf("unpublished trades: %w", normalize(err))
	}
	return ts, nil
}

// Trade returns one trade with its orders.
func (tx *Tx) Trade(ctx context.Context, id string) (venue.Trade, error) {
	ts, err := selectAll(ctx, tx, scanTrade, tradeFrom+" AND t.id = ?", id)
	if err != nil {
		return venue.Trade{}, fmt.Errorf("trade %s: %w", id, normalize(err))
	}
	if len(ts) == 0 {
		return venue.Trade{}, venue.NotFound("trade")
	}
	return ts[0], nil
}

// TradeFilter selects trades in a list.
type TradeFilter struct {
	Party         string // a participant on either side
	InstrumentID  string
	MarketID      string
	OfferID       string // an order of this offer
	ExecutionType string // otc or continuous
	PortfolioRFQ  string // the lines of this portfolio RFQ
	// PriceDueBy keeps the trades whose price is due on the public tape
	// by then; From and To bound the trade time (From inclusive, To
	// exclusive). Zero: no bound.
	PriceDueBy, From, To time.Time
}

// Trades lists trades matching f, newest first.
func (tx *Tx) Trades(ctx context.Context, f TradeFilter, page Page) ([]venue.Trade, string, error) {
	q, args := tradeFrom, []any(nil)
	if f.Party != "" {
		q += " AND (t.ask_participant_id = ? OR t.bid_participant_id = ?)"
		args = append(args, f.Party, f.Party)
	}
	if f.InstrumentID != "" {
		q += " AND t.instrument_id = ?"
		args = append(args, f.InstrumentID)
	}
	if f.MarketID != "" {
		q += " AND t.market_id = ?"
		args = append(args, f.MarketID)
	}
	if f.OfferID != "" {
		q += " AND t.id IN (SELECT trade_id FROM orders WHERE offer_id = ?)"
		args = append(args, f.OfferID)
	}
	if f.ExecutionType != "" {
		q += " AND t.execution_type = ?"
		args = append(args, f.ExecutionType)
	}
	if f.PortfolioRFQ != "" {
		q += " AND t.portfolio_rfq_id = ?"
		args = append(args, f.PortfolioRFQ)
	}
	if !f.PriceDueBy.IsZero() {
		q += " AND t.price_due_at <= ?"
		args = append(args, ms(f.PriceDueBy))
	}
	if !f.From.IsZero() {
		q += " AND t.created_at >= ?"
		args = append(args, ms(f.From))
	}
	if !f.To.IsZero() {
		q += " AND t.created_at < ?"
		args = append(args, ms(f.To))
	}
	q, args = pageSQL(q, args, page, "t.id", "t.created_at")
	ts, err := selectAll(ctx, tx, scanTrade, q, args...)
	if err != nil {
		return nil, "", fmt.Errorf("list trades: %w", normalize(err))
	}
	ts, next := trimPage(ts, page, func(t venue.Trade) string { return t.ID })
	return ts, next, nil
}

// LastTrades returns the latest trade of every market and instrument that
// has traded (market, instrument, clean price, quantity and time only).
func (tx *Tx) LastTrades(ctx context.Context) ([]venue.Trade, error) {
	out, err := selectAll(ctx, tx, func(r *sql.Rows) (venue.Trade, error) {
		var t venue.Trade
		var at int64
		err := r.Scan(&t.MarketID, &t.InstrumentID, decimal{&t.PricePerUnit}, decimal{&t.Quantity}, &at)
		t.CreatedAt = fromMS(at)
		return t, err
	}, `SELECT t.market_id, t.instrument_id, t.price_per_unit, t.quantity, t.created_at FROM trades t
	JOIN (SELECT market_id, instrument_id, MAX(id) AS id FROM trades GROUP BY market_id, instrument_id) l ON l.id = t.id`)
	if err != nil {
		return nil, fmt.Errorf("last trades: %w", normalize(err))
	}
	return out, nil
}

// TradePrint is a trade as market data: where, when, at what clean price
// and for how much, without its parties.
type TradePrint struct {
	MarketID     string
	PricePerUnit udecimal.Decimal
	Quantity     udecimal.Decimal
	At           time.Time
}

// TradePrints returns up to limit trades of an instrument (on one market,
// or on all when marketID is empty) made in [from, to), oldest first.
func (tx *Tx) TradePrints(ctx context.Context, instrumentID, marketID string, from, to time.Time, limit int) ([]TradePrint, error) {
	q := "SELECT market_id, price_per_unit, quantity, created_at FROM trades WHERE instrument_id = ? AND created_at >= ? AND created_at < ?"
	args := []any{instrumentID, ms(from), ms(to)}
	if marketID != "" {
		q += " AND market_id = ?"
		args = append(args, marketID)
	}
	q += " ORDER BY created_at, id LIMIT ?"
	args = append(args, limit)
	out, err := selectAll(ctx, tx, func(r *sql.Rows) (TradePrint, error) {
		var p TradePrint
		var at int64
		err := r.Scan(&p.MarketID, decimal{&p.PricePerUnit}, decimal{&p.Quantity}, &at)
		p.At = fromMS(at)
		return p, err
	}, q, args...)
	if err != nil {
		return nil, fmt.Errorf("trade prints: %w", normalize(err))
	}
	return out, nil
}
