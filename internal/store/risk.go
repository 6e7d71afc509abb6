package store

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/bondvenue/bondvenue/internal/venue"
)

// UpsertRiskLimit creates or replaces the participant's limit of that name.
// l.ID is used only when the limit is new.
func (tx *Tx) UpsertRiskLimit(ctx context.Context, l *venue.RiskLimit) (venue.RiskLimit, error) {
	_, err := tx.exec(ctx, `INSERT INTO risk_limits (id, participant_id, name, value, created_at, updated_at)
		VALUES (?, ?, ?, ?, ?, ?)
		ON CONFLICT (participant_id, name) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`,
		l.ID, l.ParticipantID, l.Name, l.Value.String(), ms(l.CreatedAt), ms(l.UpdatedAt))
	if err != nil {
		return venue.RiskLimit{}, fmt.Errorf("upsert risk limit: %w", normalize(err))
	}
	if err := tx.referenceChanged(ctx); err != nil {
		return venue.RiskLimit{}, err
	}
	ls, err := tx.RiskLimits(ctx, l.ParticipantID)
	if err != nil {
		return venue.RiskLimit{}, err
	}
	for _, got := range ls {
		if got.Name == l.Name {
			return got, nil
		}
	}
	return venue.RiskLimit{}, venue.NotFound("risk limit")
}

// RiskLimits lists a participant's limits by name.
func (tx *Tx) RiskLimits(ctx context.Context, participantID string) ([]venue.RiskLimit, error) {
	ls, err := selectAll(ctx, tx, func(r *sql.Rows) (venue.RiskLimit, error) {
		var l venue.RiskLimit
		var created, updated int64
		err := r.Scan(&l.ID, &l.ParticipantID, &l.Name, decimal{&l.Value}, &created, &updated)
		l.CreatedAt, l.UpdatedAt = fromMS(created), fromMS(updated)
		return l, err
	}, `SELECT id, participant_id, name, value, created_at, updated_at FROM risk_limits
		WHERE participant_id = ? ORDER BY name`, participantID)
	if err != nil {
		return nil, fmt.Errorf("risk limits: %w", normalize(err))
	}
	return ls, nil
}

// AllRiskLimits returns every participant's limits, for the engine.
func (tx *Tx) AllRiskLimits(ctx context.Context) ([]venue.RiskLimit, error) {
	ls, err := selectAll(ctx, tx, func(r *sql.Rows) (venue.RiskLimit, error) {
		var l venue.RiskLimit
		var created, updated int64
		err := r.Scan(&l.ID, &l.ParticipantID, &l.Name, decimal{&l.Value}, &created, &updated)
		l.CreatedAt, l.UpdatedAt = fromMS(created), fromMS(updated)
		return l, err
	}, `SELECT id, participant_id, name, value, created_at, updated_at FROM risk_limits ORDER BY participant_id, name`)
	if err != nil {
		return nil, fmt.Errorf("all risk limits: %w", normalize(err))
	}
	return ls, nil
}
