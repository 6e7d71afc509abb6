package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"

	"github.com/bondvenue/bondvenue/internal/bondmath"
	"github.com/bondvenue/bondvenue/internal/venue"
)

const marketCols = `id, name, type, facility_type, timezone, is_enabled, is_partial_fill_allowed,
	settlement_lag, calendar, price_collar_percent, max_price_percent, created_at, updated_at, settlement_lags,
	trading_open, trading_close, pre_open_minutes`

func scanMarket(r interface{ Scan(...any) error }) (venue.Market, error) {
	var m venue.Market
	var created, updated int64
	var lags string
	var h venue.TradingHours
	err := r.Scan(&m.ID, &m.Name, &m.Type, &m.FacilityType, &m.Timezone, &m.IsEnabled,
		&m.IsPartialFillAllowed, &m.SettlementLag, &m.Calendar, decimal{&m.PriceCollarPercent}, decimal{&m.MaxPricePercent},
		&created, &updated, &lags, &h.Open, &h.Close, &h.PreOpenMinutes)
	m.CreatedAt, m.UpdatedAt = fromMS(created), fromMS(updated)
	if h.Open != "" {
		m.Hours = &h
	}
	if err == nil {
		m.SettlementLags, err = decodeLags(lags)
	}
	return m, err
}

// lagJSON is a settlement lag change as the settlement_lags column keeps it.
type lagJSON struct {
	From string `json:"from"`
	Lag  int    `json:"lag"`
}

func encodeLags(ls []venue.LagChange) string {
	out := make([]lagJSON, len(ls))
	for i, l := range ls {
		out[i] = lagJSON{From: l.From.String(), Lag: l.Lag}
	}
	b, _ := json.Marshal(out) // strings and ints: it cannot fail
	return string(b)
}

func decodeLags(s string) ([]venue.LagChange, error) {
	var in []lagJSON
	if err := json.Unmarshal([]byte(s), &in); err != nil {
		return nil, fmt.Errorf("settlement_lags: %w", err)
	}
	var out []venue.LagChange
	for _, l := range in {
		d, err := bondmath.ParseDate(l.From)
		if err != nil {
			return nil, fmt.Errorf("settlement_lags: %w", err)
		}
		out = append(out, venue.LagChange{From: d, Lag: l.Lag})
	}
	return out, nil
}

// CreateMarket inserts m. A zero price collar or maximum price is stored
// as the column's default (venue.DefaultPriceCollarPercent,
// venue.DefaultMaxPricePercent).
func (tx *Tx) CreateMarket(ctx context.Context, m *venue.Market) error {
	collar, maxPrice := m.PriceCollarPercent, m.MaxPricePercent
	if collar.IsZero() {
		collar = venue.DefaultPriceCollarPercent
	}
	if maxPrice.IsZero() {
		maxPrice = venue.DefaultMaxPricePercent
	}
	h := hoursOf(m)
	_, err := tx.exec(ctx, "INSERT INTO markets ("+marketCols+") VALUES ("+placeholders(17)+")",
		m.ID, m.Name, m.Type, m.FacilityType, m.Timezone, m.IsEnabled, m.IsPartialFillAllowed,
		m.SettlementLag, m.Calendar, collar.String(), maxPrice.String(), ms(m.CreatedAt), ms(m.UpdatedAt), encodeLags(m.SettlementLags),
		h.Open, h.Close, h.PreOpenMinutes)
	if err != nil {
		return fmt.Errorf("create market: %w", normalize(err))
	}
	return tx.referenceChanged(ctx)
}

// hoursOf is m's trading hours as the columns keep them: empty around
// the clock.
func hoursOf(m *venue.Market) venue.TradingHours {
	if m.Hours == nil {
		return venue.TradingHours{}
	}
	return *m.Hours
}

// UpdateMarket writes every field of m except id and created_at.
func (tx *Tx) UpdateMarket(ctx context.Context, m *venue.Market) error {
	h := hoursOf(m)
	_, err := tx.exec(ctx, `UPDATE markets SET name = ?, type = ?, facility_type = ?, timezone = ?, is_enabled = ?,
		is_partial_fill_allowed = ?, settlement_lag = ?, calendar = ?, price_collar_percent = ?, max_price_percent = ?,
		updated_at = ?, settlement_lags = ?, trading_open = ?, trading_close = ?, pre_open_minutes = ? WHERE id = ?`,
		m.Name, m.Type, m.FacilityType, m.Timezone, m.IsEnabled, m.IsPartialFillAllowed, m.SettlementLag,
		m.Calendar, m.PriceCollarPercent.String(), m.MaxPricePercent.String(), ms(m.UpdatedAt), encodeLags(m.SettlementLags),
		h.Open, h.Close, h.PreOpenMinutes, m.ID)
	if err != nil {
		return fmt.Errorf("update market: %w", normalize(err))
	}
	return tx.referenceChanged(ctx)
}

// Market returns one market.
func (tx *Tx) Market(ctx context.Context, id string) (venue.Market, error) {
	m, err := scanMarket(tx.queryRow(ctx, "SELECT "+marketCols+" FROM markets WHERE id = ?", id))
	if err != nil {
		return m, fmt.Errorf("market %s: %w", id, normalize(err))
	}
	return m, nil
}

// MarketFilter selects markets in a list. Zero fields do not filter.
type MarketFilter struct {
	// InstrumentID restricts to the markets listing that instrument.
	InstrumentID string
	FacilityType string
	IsEnabled    *bool
}

// Markets lists markets matching f, newest first.
func (tx *Tx) Markets(ctx context.Context, f MarketFilter, page Page) ([]venue.Market, string, error) {
	q, args := "SELECT "+marketCols+" FROM markets WHERE 1 = 1", []any(nil)
	if f.InstrumentID != "" {
		q += " AND id IN (SELECT market_id FROM instrument_markets WHERE instrument_id = ?)"
		args = append(args, f.InstrumentID)
	}
	if f.FacilityType != "" {
		q += " AND facility_type = ?"
		args = append(args, f.FacilityType)
	}
	if f.IsEnabled != nil {
		q += " AND is_enabled = ?"
		args = append(args, *f.IsEnabled)
	}
	q, args = pageSQL(q, args, page, "id", "created_at")
	out, err := selectAll(ctx, tx, func(r *sql.Rows) (venue.Market, error) { return scanMarket(r) }, q, args...)
	if err != nil {
		return nil, "", fmt.Errorf("list markets: %w", normalize(err))
	}
	out, next := trimPage(out, page, func(m venue.Market) string { return m.ID })
	return out, next, nil
}

// referenceChanged counts a change of the trading engine's reference data
// (markets, instruments and listings, counterparty relations, risk
// limits, what settlement compatibility reads) in the transaction that makes it, so an engine of another
// process notices (ReferenceVersion).
func (tx *Tx) referenceChanged(ctx context.Context) error {
	if _, err := tx.exec(ctx, "UPDATE reference_version SET version = version + 1 WHERE id = 1"); err != nil {
		return fmt.Errorf("count reference change: %w", normalize(err))
	}
	return nil
}

// ReferenceVersion reads the count of reference data changes.
func (tx *Tx) ReferenceVersion(ctx context.Context) (int64, error) {
	var v int64
	if err := tx.queryRow(ctx, "SELECT version FROM reference_version WHERE id = 1").Scan(&v); err != nil {
		return 0, fmt.Errorf("reference version: %w", normalize(err))
	}
	return v, nil
}
