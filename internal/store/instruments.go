package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"

	"github.com/bondvenue/bondvenue/internal/venue"
)

const instrumentCols = `id, enabled, min_piece, min_increment, par_amount, precision, terms, static_data, created_at, updated_at`

func scanInstrument(r interface{ Scan(...any) error }) (venue.Instrument, error) {
	var in venue.Instrument
	var terms, static string
	var created, updated int64
	err := r.Scan(&in.ID, &in.Enabled, decimal{&in.MinPiece}, decimal{&in.MinIncrement}, decimal{&in.ParAmount},
		&in.Precision, &terms, &static, &created, &updated)
	if err != nil {
		return in, err
	}
	if err := json.Unmarshal([]byte(terms), &in.Terms); err != nil {
		return in, fmt.Errorf("instrument %s terms: %w", in.ID, err)
	}
	if err := json.Unmarshal([]byte(static), &in.Static); err != nil {
		return in, fmt.Errorf("instrument %s static data: %w", in.ID, err)
	}
	in.CreatedAt, in.UpdatedAt = fromMS(created), fromMS(updated)
	return in, nil
}

func instrumentArgs(in *venue.Instrument) ([]any, error) {
	terms, err := json.Marshal(in.Terms)
	if err != nil {
		return nil, err
	}
	static, err := json.Marshal(in.Static)
	if err != nil {
		return nil, err
	}
	return []any{in.ID, in.Terms.ISIN, in.Terms.Name, in.Terms.Currency, in.Enabled, in.MinPiece.String(),
		in.MinIncrement.String(), in.ParAmount.String(), in.Precision, string(terms), string(static),
		ms(in.CreatedAt), ms(in.UpdatedAt)}, nil
}

// CreateInstrument inserts in and lists it on in.MarketIDs.
func (tx *Tx) CreateInstrument(ctx context.Context, in *venue.Instrument) error {
	args, err := instrumentArgs(in)
	if err != nil {
		return fmt.Errorf("create instrument: %w", err)
	}
	_, err = tx.exec(ctx, `INSERT INTO instruments (id, isin, name, currency, enabled, min_piece, min_increment,
		par_amount, precision, terms, static_data, created_at, updated_at) VALUES (`+placeholders(13)+`)`, args...)
	if err != nil {
		return fmt.Errorf("create instrument: %w", normalize(err))
	}
	return tx.setInstrumentMarkets(ctx, in.ID, in.MarketIDs)
}

// UpdateInstrument writes every field of in except id and created_at, and
// replaces its market listing.
func (tx *Tx) UpdateInstrument(ctx context.Context, in *venue.Instrument) error {
	args, err := instrumentArgs(in)
	if err != nil {
		return fmt.Errorf("update instrument: %w", err)
	}
	_, err = tx.exec(ctx, `UPDATE instruments SET isin = ?, name = ?, currency = ?, enabled = ?, min_piece = ?,
		min_increment = ?, par_amount = ?, precision = ?, terms = ?, static_data = ?, updated_at = ? WHERE id = ?`,
		append(args[1:11:11], args[12], in.ID)...)
	if err != nil {
		return fmt.Errorf("update instrument: %w", normalize(err))
	}
	if _, err := tx.exec(ctx, "DELETE FROM instrument_markets WHERE instrument_id = ?", in.ID); err != nil {
		return fmt.Errorf("update instrument markets: %w", normalize(err))
	}
	return tx.setInstrumentMarkets(ctx, in.ID, in.MarketIDs)
}

func (tx *Tx) setInstrumentMarkets(ctx context.Context, id string, marketIDs []string) error {
	for _, m := range marketIDs {
		if _, err := tx.exec(ctx, "INSERT INTO instrument_markets (instrument_id, market_id) VALUES (?, ?)", id, m); err != nil {
			return fmt.Errorf("list instrument on market %s: %w", m, normalize(err))
		}
	}
	return tx.referenceChanged(ctx) // the instrument and its listing
}

// Instrument returns one instrument with its market ids.
func (tx *Tx) Instrument(ctx context.Context, id string) (venue.Instrument, error) {
	in, err := scanInstrument(tx.queryRow(ctx, "SELECT "+instrumentCols+" FROM instruments WHERE id = ?", id))
	if err != nil {
		return in, fmt.Errorf("instrument %s: %w", id, normalize(err))
	}
	ids, err := selectAll(ctx, tx, scanString,
		"SELECT market_id FROM instrument_markets WHERE instrument_id = ? ORDER BY market_id", id)
	if err != nil {
		return in, fmt.Errorf("instrument %s markets: %w", id, normalize(err))
	}
	in.MarketIDs = ids
	return in, nil
}

// InstrumentListings returns the market ids of every listed instrument,
// sorted, in one query (Instruments lists instruments without them).
func (tx *Tx) InstrumentListings(ctx context.Context) (map[string][]string, error) {
	rows, err := tx.query(ctx, "SELECT instrument_id, market_id FROM instrument_markets ORDER BY instrument_id, market_id")
	if err != nil {
		return nil, fmt.Errorf("instrument listings: %w", normalize(err))
	}
	defer rows.Close()
	out := map[string][]string{}
	for rows.Next() {
		var in, m string
		if err := rows.Scan(&in, &m); err != nil {
			return nil, fmt.Errorf("instrument listings: %w", normalize(err))
		}
		out[in] = append(out[in], m)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("instrument listings: %w", normalize(err))
	}
	return out, nil
}

// InstrumentFilter selects instruments in a list.
type InstrumentFilter struct {
	IDs      []string // nil: any
	MarketID string
	// BucketID restricts to the instruments held in that bucket.
	BucketID string
	ISIN     string
	Currency string
}

// Instruments lists instruments matching f (without market ids).
func (tx *Tx) Instruments(ctx context.Context, f InstrumentFilter, page Page) ([]venue.Instrument, string, error) {
	q, args := "SELECT "+instrumentCols+" FROM instruments WHERE 1 = 1", []any(nil)
	if f.IDs != nil {
		if len(f.IDs) == 0 {
			return nil, "", nil
		}
		q, args = andIn(q, args, "id", f.IDs)
	}
	if f.MarketID != "" {
		q += " AND id IN (SELECT instrument_id FROM instrument_markets WHERE market_id = ?)"
		args = append(args, f.MarketID)
	}
	if f.BucketID != "" {
		q += " AND id IN (SELECT instrument_id FROM bucket_instruments WHERE bucket_id = ?)"
		args = append(args, f.BucketID)
	}
	if f.ISIN != "" {
		q += " AND isin = ?"
		args = append(args, f.ISIN)
	}
	if f.Currency != "" {
		q += " AND currency = ?"
		args = append(args, f.Currency)
	}
	q, args = pageSQL(q, args, page, "id", "created_at")
	out, err := selectAll(ctx, tx, func(r *sql.Rows) (venue.Instrument, error) { return scanInstrument(r) }, q, args...)
	if err != nil {
		return nil, "", fmt.Errorf("list instruments: %w", normalize(err))
	}
	out, next := trimPage(out, page, func(in venue.Instrument) string { return in.ID })
	return out, next, nil
}
