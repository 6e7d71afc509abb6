package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/quagmt/udecimal"

	"github.com/bondvenue/bondvenue/internal/venue"
)

// allocationJSON is an allocation set's record of text.
type allocationJSON struct {
	TradeID       string           `json:"trade_id"`
	ParticipantID string           `json:"participant_id"`
	UserID        string           `json:"user_id"`
	Direction     string           `json:"direction"`
	MarketID      string           `json:"market_id"`
	InstrumentID  string           `json:"instrument_id"`
	Late          bool             `json:"late"`
	CreatedAt     time.Time        `json:"created_at"`
	Parts         []allocationPart `json:"allocations"`
}

type allocationPart struct {
	ID               string           `json:"id"`
	AccountID        string           `json:"account_id"`
	Quantity         udecimal.Decimal `json:"quantity"`
	AccruedInterest  udecimal.Decimal `json:"accrued_interest"`
	SettlementAmount udecimal.Decimal `json:"settlement_amount"`
}

// EncodeAllocation renders an allocation set as the log and the table keep
// it.
func EncodeAllocation(a *venue.AllocationSet) ([]byte, error) {
	j := allocationJSON{TradeID: a.TradeID, ParticipantID: a.ParticipantID, UserID: a.UserID, Direction: a.Direction,
		MarketID: a.MarketID, InstrumentID: a.InstrumentID, Late: a.Late, CreatedAt: a.CreatedAt,
		Parts: make([]allocationPart, len(a.Allocations))}
	for i, p := range a.Allocations {
		j.Parts[i] = allocationPart(p)
	}
	return json.Marshal(j)
}

// DecodeAllocation reads what EncodeAllocation wrote.
func DecodeAllocation(data []byte) (venue.AllocationSet, error) {
	var j allocationJSON
	if err := json.Unmarshal(data, &j); err != nil {
		return venue.AllocationSet{}, fmt.Errorf("allocation record: %w", err)
	}
	a := venue.AllocationSet{TradeID: j.TradeID, ParticipantID: j.ParticipantID, UserID: j.UserID, Direction: j.Direction,
		MarketID: j.MarketID, InstrumentID: j.InstrumentID, Late: j.Late, CreatedAt: j.CreatedAt.UTC(),
		Allocations: make([]venue.Allocation, len(j.Parts))}
	for i, p := range j.Parts {
		a.Allocations[i] = venue.Allocation(p)
	}
	return a, nil
}

// CreateAllocation records one side's allocation. A side allocates once:
// a second is a conflict.
func (tx *Tx) CreateAllocation(ctx context.Context, a *venue.AllocationSet) error {
	rec, err := EncodeAllocation(a)
	if err != nil {
		return err
	}
	_, err = tx.exec(ctx, `INSERT INTO trade_allocations (trade_id, participant_id, user_id, late, record, created_at)
		VALUES (?, ?, ?, ?, ?, ?)`, a.TradeID, a.ParticipantID, a.UserID, a.Late, string(rec), ms(a.CreatedAt))
	if err != nil {
		err = normalize(err)
		if errors.Is(err, venue.ErrConflict) {
			return venue.Conflict("your side of trade %s is already allocated", a.TradeID)
		}
		return fmt.Errorf("create allocation: %w", err)
	}
	return nil
}

// Allocation returns a side's allocation of a trade; ErrNotFound when the
// side has not allocated it.
func (tx *Tx) Allocation(ctx context.Context, tradeID, participantID string) (venue.AllocationSet, error) {
	var rec string
	err := tx.queryRow(ctx, "SELECT record FROM trade_allocations WHERE trade_id = ? AND participant_id = ?", tradeID, participantID).Scan(&rec)
	if errors.Is(err, sql.ErrNoRows) {
		return venue.AllocationSet{}, venue.NotFound("allocation")
	}
	if err != nil {
		return venue.AllocationSet{}, fmt.Errorf("allocation: %w", normalize(err))
	}
	return DecodeAllocation([]byte(rec))
}

// Allocations lists a firm's allocations, newest trade first, a page at a
// time.
func (tx *Tx) Allocations(ctx context.Context, participantID string, page Page) ([]venue.AllocationSet, string, error) {
	q, args := pageSQL("SELECT record FROM trade_allocations WHERE participant_id = ?", []any{participantID}, page, "trade_id", "created_at")
	recs, err := selectAll(ctx, tx, func(r *sql.Rows) (string, error) {
		var s string
		return s, r.Scan(&s)
	}, q, args...)
	if err != nil {
		return nil, "", fmt.Errorf("allocations: %w", normalize(err))
	}
	out := make([]venue.AllocationSet, 0, len(recs))
	for _, rec := range recs {
		a, err := DecodeAllocation([]byte(rec))
		if err != nil {
			return nil, "", err
		}
		out = append(out, a)
	}
	out, next := trimPage(out, page, func(a venue.AllocationSet) string { return a.TradeID })
	return out, next, nil
}
