package store

import (
	"context"
	"fmt"

	"github.com/bondvenue/bondvenue/internal/venue"
)

// ErrLeaseLost reports that another engine took the sequencer lease.
var ErrLeaseLost = &venue.Error{Kind: venue.KindNotReady, Message: "the trading engine lost its lease to another instance"}

// AcquireLease takes the sequencer lease for holder and returns its epoch.
// It waits for (or, on PostgreSQL, conflicts with and is retried after) a
// batch of the previous holder still committing, so state read after it
// commits includes everything the previous holder wrote.
func (tx *Tx) AcquireLease(ctx context.Context, holder string) (int64, error) {
	var epoch int64
	err := tx.queryRow(ctx, `UPDATE sequencer_lease SET epoch = epoch + 1, holder = ?, acquired_at = ?
		WHERE id = 1 RETURNING epoch`, holder, ms(tx.now)).Scan(&epoch)
	if err != nil {
		return 0, fmt.Errorf("acquire sequencer lease: %w", normalize(err))
	}
	return epoch, nil
}

// leaseLostCode is the SQLSTATE with which PostgreSQL's
// sequencer_check_lease (migration 0005) refuses an epoch that no longer
// holds the lease; normalize turns it into ErrLeaseLost.
const leaseLostCode = "BV001"

// CheckLease fails with ErrLeaseLost unless epoch still holds the lease.
// It writes the lease row, so a concurrent AcquireLease and this
// transaction cannot both commit. (SequencerBatch checks the lease on
// PostgreSQL with sequencer_check_lease, which does the same in a
// statement that fails.)
func (tx *Tx) CheckLease(ctx context.Context, epoch int64) error {
	res, err := tx.exec(ctx, "UPDATE sequencer_lease SET epoch = epoch WHERE id = 1 AND epoch = ?", epoch)
	if err != nil {
		return fmt.Errorf("check sequencer lease: %w", normalize(err))
	}
	n, err := res.RowsAffected()
	if err != nil {
		return fmt.Errorf("check sequencer lease: %w", err)
	}
	if n != 1 {
		return ErrLeaseLost
	}
	return nil
}

// LeaseEpoch is the sequencer lease's current epoch.
func (tx *Tx) LeaseEpoch(ctx context.Context) (int64, error) {
	var epoch int64
	if err := tx.queryRow(ctx, `SELECT epoch FROM sequencer_lease WHERE id = 1`).Scan(&epoch); err != nil {
		return 0, fmt.Errorf("sequencer lease: %w", normalize(err))
	}
	return epoch, nil
}
