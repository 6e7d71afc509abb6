package store

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/bondvenue/bondvenue/internal/venue"
)

// This file holds the pre-trade controls the sequencer owns: each firm's
// kill switch and each instrument's halt on a market. The sequencer writes
// them in the batch that applies them (BatchWrite) and reads them back when
// it rebuilds its state.

// KillSwitch is a participant's kill switch.
type KillSwitch struct {
	ParticipantID string
	Enabled       bool
	UpdatedAt     time.Time
}

func killSwitchUpsert(k KillSwitch) statement {
	return statement{query: `INSERT INTO kill_switches (participant_id, enabled, updated_at) VALUES (?, ?, ?)
		ON CONFLICT (participant_id) DO UPDATE SET enabled = excluded.enabled, updated_at = excluded.updated_at`,
		args: []any{k.ParticipantID, k.Enabled, ms(k.UpdatedAt)}, what: "kill switch"}
}

func haltUpsert(h venue.Halt) statement {
	return statement{query: `INSERT INTO instrument_halts (market_id, instrument_id, halted, reason, updated_at) VALUES (?, ?, ?, ?, ?)
		ON CONFLICT (market_id, instrument_id) DO UPDATE SET halted = excluded.halted, reason = excluded.reason,
		updated_at = excluded.updated_at`,
		args: []any{h.MarketID, h.InstrumentID, h.Halted, h.Reason, ms(h.UpdatedAt)}, what: "instrument halt"}
}

// KillSwitches lists every kill switch ever set, on or off.
func (tx *Tx) KillSwitches(ctx context.Context) ([]KillSwitch, error) {
	out, err := selectAll(ctx, tx, func(r *sql.Rows) (KillSwitch, error) {
		var k KillSwitch
		var at int64
		err := r.Scan(&k.ParticipantID, &k.Enabled, &at)
		k.UpdatedAt = fromMS(at)
		return k, err
	}, "SELECT participant_id, enabled, updated_at FROM kill_switches ORDER BY participant_id")
	if err != nil {
		return nil, fmt.Errorf("kill switches: %w", normalize(err))
	}
	return out, nil
}

// Halts lists every instrument halt ever set, on or off.
func (tx *Tx) Halts(ctx context.Context) ([]venue.Halt, error) {
	out, err := selectAll(ctx, tx, func(r *sql.Rows) (venue.Halt, error) {
		var h venue.Halt
		var at int64
		err := r.Scan(&h.MarketID, &h.InstrumentID, &h.Halted, &h.Reason, &at)
		h.UpdatedAt = fromMS(at)
		return h, err
	}, "SELECT market_id, instrument_id, halted, reason, updated_at FROM instrument_halts ORDER BY market_id, instrument_id")
	if err != nil {
		return nil, fmt.Errorf("instrument halts: %w", normalize(err))
	}
	return out, nil
}
