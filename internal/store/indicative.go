package store

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/bondvenue/bondvenue/internal/bondmath"
	"github.com/bondvenue/bondvenue/internal/venue"
	"github.com/quagmt/udecimal"
)

const indicativeCols = `id, participant_id, account_id, user_id, instrument_id, bid_price, ask_price,
	bid_quantity, ask_quantity, bid_yield, ask_yield, settlement_date, valid_until, created_at, updated_at`

func scanIndicative(r interface{ Scan(...any) error }) (venue.IndicativePrice, error) {
	var ip venue.IndicativePrice
	var bid, ask, bidQty, askQty, bidYield, askYield sql.NullString
	var settle string
	var validUntil sql.NullInt64
	var created, updated int64
	err := r.Scan(&ip.ID, &ip.ParticipantID, &ip.AccountID, &ip.UserID, &ip.InstrumentID, &bid, &ask,
		&bidQty, &askQty, &bidYield, &askYield, &settle, &validUntil, &created, &updated)
	if err != nil {
		return ip, err
	}
	for _, c := range []struct {
		src sql.NullString
		dst **udecimal.Decimal
	}{{bid, &ip.BidPrice}, {ask, &ip.AskPrice}, {bidQty, &ip.BidQuantity}, {askQty, &ip.AskQuantity},
		{bidYield, &ip.BidYield}, {askYield, &ip.AskYield}} {
		if err := scanNullDecimal(c.src, c.dst); err != nil {
			return ip, fmt.Errorf("indicative price %s: %w", ip.ID, err)
		}
	}
	if ip.SettlementDate, err = bondmath.ParseDate(settle); err != nil {
		return ip, fmt.Errorf("indicative price %s settlement date: %w", ip.ID, err)
	}
	ip.ValidUntil = fromNullMS(validUntil)
	ip.CreatedAt, ip.UpdatedAt = fromMS(created), fromMS(updated)
	return ip, nil
}

// scanNullDecimal reads optional decimal text into dst; NULL leaves nil.
func scanNullDecimal(s sql.NullString, dst **udecimal.Decimal) error {
	*dst = nil
	if !s.Valid {
		return nil
	}
	var d udecimal.Decimal
	if err := (decimal{&d}).Scan(s.String); err != nil {
		return err
	}
	*dst = &d
	return nil
}

// decimalArg writes an optional decimal as text, nil as NULL.
func decimalArg(d *udecimal.Decimal) any {
	if d == nil {
		return nil
	}
	return d.String()
}

// CreateIndicativePrice inserts ip.
func (tx *Tx) CreateIndicativePrice(ctx context.Context, ip *venue.IndicativePrice) error {
	_, err := tx.exec(ctx, "INSERT INTO indicative_prices ("+indicativeCols+") VALUES ("+placeholders(15)+")",
		ip.ID, ip.ParticipantID, ip.AccountID, ip.UserID, ip.InstrumentID, decimalArg(ip.BidPrice),
		decimalArg(ip.AskPrice), decimalArg(ip.BidQuantity), decimalArg(ip.AskQuantity), decimalArg(ip.BidYield),
		decimalArg(ip.AskYield), ip.SettlementDate.String(), nullMS(ip.ValidUntil), ms(ip.CreatedAt), ms(ip.UpdatedAt))
	if err != nil {
		return fmt.Errorf("create indicative price: %w", normalize(err))
	}
	return nil
}

// UpdateIndicativePrice overwrites the mutable fields of ip: both sides'
// prices, quantities and yields, the settlement date, valid_until and
// updatedAt. The owner, account, user and instrument never change.
func (tx *Tx) UpdateIndicativePrice(ctx context.Context, ip *venue.IndicativePrice) error {
	res, err := tx.exec(ctx, `UPDATE indicative_prices SET bid_price = ?, ask_price = ?, bid_quantity = ?,
		ask_quantity = ?, bid_yield = ?, ask_yield = ?, settlement_date = ?, valid_until = ?, updated_at = ?
		WHERE id = ?`,
		decimalArg(ip.BidPrice), decimalArg(ip.AskPrice), decimalArg(ip.BidQuantity), decimalArg(ip.AskQuantity),
		decimalArg(ip.BidYield), decimalArg(ip.AskYield), ip.SettlementDate.String(), nullMS(ip.ValidUntil),
		ms(ip.UpdatedAt), ip.ID)
	if err != nil {
		return fmt.Errorf("update indicative price %s: %w", ip.ID, normalize(err))
	}
	return affectedOne(res, "indicative price")
}

// DeleteIndicativePrice removes one indicative price.
func (tx *Tx) DeleteIndicativePrice(ctx context.Context, id string) error {
	res, err := tx.exec(ctx, "DELETE FROM indicative_prices WHERE id = ?", id)
	if err != nil {
		return fmt.Errorf("delete indicative price %s: %w", id, normalize(err))
	}
	return affectedOne(res, "indicative price")
}

// affectedOne turns a write that touched no row into not found.
func affectedOne(res sql.Result, what string) error {
	n, err := res.RowsAffected()
	if err != nil {
		return fmt.Errorf("%s: %w", what, normalize(err))
	}
	if n == 0 {
		return venue.NotFound(what)
	}
	return nil
}

// IndicativePrice returns one indicative price.
func (tx *Tx) IndicativePrice(ctx context.Context, id string) (venue.IndicativePrice, error) {
	ip, err := scanIndicative(tx.queryRow(ctx, "SELECT "+indicativeCols+" FROM indicative_prices WHERE id = ?", id))
	if err != nil {
		return ip, fmt.Errorf("indicative price %s: %w", id, normalize(err))
	}
	return ip, nil
}

// IndicativeFilter selects indicative prices in a list. Zero fields do not
// filter.
type IndicativeFilter struct {
	InstrumentID  string
	ParticipantID string
	// LiveAt keeps only prices without valid_until or valid after it.
	LiveAt *time.Time
}

// IndicativePrices lists indicative prices matching f, newest first.
func (tx *Tx) IndicativePrices(ctx context.Context, f IndicativeFilter, page Page) ([]venue.IndicativePrice, string, error) {
	q, args := "SELECT "+indicativeCols+" FROM indicative_prices WHERE 1 = 1", []any(nil)
	if f.InstrumentID != "" {
		q += " AND instrument_id = ?"
		args = append(args, f.InstrumentID)
	}
	if f.ParticipantID != "" {
		q += " AND participant_id = ?"
		args = append(args, f.ParticipantID)
	}
	if f.LiveAt != nil {
		q += " AND (valid_until IS NULL OR valid_until > ?)"
		args = append(args, f.LiveAt.UnixMilli())
	}
	q, args = pageSQL(q, args, page, "id", "created_at")
	out, err := selectAll(ctx, tx, func(r *sql.Rows) (venue.IndicativePrice, error) { return scanIndicative(r) }, q, args...)
	if err != nil {
		return nil, "", fmt.Errorf("list indicative prices: %w", normalize(err))
	}
	out, next := trimPage(out, page, func(ip venue.IndicativePrice) string { return ip.ID })
	return out, next, nil
}
