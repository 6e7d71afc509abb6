package store

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/bondvenue/bondvenue/internal/bondmath"
	"github.com/bondvenue/bondvenue/internal/venue"
)

// tradeInserts returns the statements that write trades and their two
// orders, in a few multi-row statements: the trades first, then their
// orders.
func tradeInserts(e Engine, trades []venue.Trade) []statement {
	var out []statement
	inChunks(e, len(trades), func(from, n int) {
		args := make([]any, 0, n*18)
		for _, t := range trades[from : from+n] {
			args = append(args, t.ID, t.TransactionIdentificationCode, t.MarketID, t.InstrumentID, t.AskOrder.ID,
				t.BidOrder.ID, t.AskOrder.ParticipantID, t.BidOrder.ParticipantID, t.Status, t.Quantity.String(),
				t.PricePerUnit.String(), t.AccruedInterest.String(), t.Price.String(), t.Fee.String(),
				t.SettlementDate.String(), t.ExecutionType, ms(t.CreatedAt), ms(t.UpdatedAt))
		}
		out = append(out, statement{query: `INSERT INTO trades (id, transaction_identification_code, market_id, instrument_id,
		ask_order_id, bid_order_id, ask_participant_id, bid_participant_id, status, quantity, price_per_unit,
		accrued_interest, price, fee, settlement_date, execution_type, created_at, updated_at)
		VALUES ` + valueRows(n, 18), args: args, what: "insert trade"})
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

const tradeCols = `id, transaction_identification_code, market_id, instrument_id, ask_order_id, bid_order_id,
	status, quantity, price_per_unit, accrued_interest, price, fee, settlement_date, execution_type,
	created_at, updated_at`

func (tx *Tx) scanTrades(ctx context.Context, q string, args ...any) ([]venue.Trade, error) {
	ts, err := selectAll(ctx, tx, func(r *sql.Rows) (venue.Trade, error) {
		var t venue.Trade
		var settle string
		var created, updated int64
		err := r.Scan(&t.ID, &t.TransactionIdentificationCode, &t.MarketID, &t.InstrumentID, &t.AskOrder.ID,
			&t.BidOrder.ID, &t.Status, decimal{&t.Quantity}, decimal{&t.PricePerUnit}, decimal{&t.AccruedInterest},
			decimal{&t.Price}, decimal{&t.Fee}, &settle, &t.ExecutionType, &created, &updated)
		if err != nil {
			return t, err
		}
		t.CreatedAt, t.UpdatedAt = fromMS(created), fromMS(updated)
		t.SettlementDate, err = bondmath.ParseDate(settle)
		return t, err
	}, q, args...)
	if err != nil {
		return nil, err
	}
	for i := range ts {
		for _, o := range []*venue.Order{&ts[i].AskOrder, &ts[i].BidOrder} {
			var created, updated int64
			err := tx.queryRow(ctx, `SELECT offer_id, direction, participant_id, account_id, market_id, instrument_id,
				quantity, price_per_unit, filled_quantity, status, type, created_at, updated_at FROM orders WHERE id = ?`, o.ID).
				Scan(&o.OfferID, &o.Direction, &o.ParticipantID, &o.AccountID, &o.MarketID, &o.InstrumentID,
					decimal{&o.Quantity}, decimal{&o.PricePerUnit}, decimal{&o.Filled}, &o.Status, &o.Type, &created, &updated)
			if err != nil {
				return nil, fmt.Errorf("order %s: %w", o.ID, err)
			}
			o.CreatedAt, o.UpdatedAt = fromMS(created), fromMS(updated)
		}
	}
	return ts, nil
}

// Trade returns one trade with its orders.
func (tx *Tx) Trade(ctx context.Context, id string) (venue.Trade, error) {
	ts, err := tx.scanTrades(ctx, "SELECT "+tradeCols+" FROM trades WHERE id = ?", id)
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
}

// Trades lists trades matching f, newest first.
func (tx *Tx) Trades(ctx context.Context, f TradeFilter, page Page) ([]venue.Trade, string, error) {
	q, args := "SELECT "+tradeCols+" FROM trades WHERE 1 = 1", []any(nil)
	if f.Party != "" {
		q += " AND (ask_participant_id = ? OR bid_participant_id = ?)"
		args = append(args, f.Party, f.Party)
	}
	if f.InstrumentID != "" {
		q += " AND instrument_id = ?"
		args = append(args, f.InstrumentID)
	}
	if f.MarketID != "" {
		q += " AND market_id = ?"
		args = append(args, f.MarketID)
	}
	if f.OfferID != "" {
		q += " AND id IN (SELECT trade_id FROM orders WHERE offer_id = ?)"
		args = append(args, f.OfferID)
	}
	if f.ExecutionType != "" {
		q += " AND execution_type = ?"
		args = append(args, f.ExecutionType)
	}
	q, args = pageSQL(q, args, page, "id", "created_at")
	ts, err := tx.scanTrades(ctx, q, args...)
	if err != nil {
		return nil, "", fmt.Errorf("list trades: %w", normalize(err))
	}
	ts, next := trimPage(ts, page, func(t venue.Trade) string { return t.ID })
	return ts, next, nil
}
