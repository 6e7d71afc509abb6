package store

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/bondvenue/bondvenue/internal/venue"
)

const bucketCols = `id, name, type, participant_id, is_enabled, created_at, updated_at`

func scanBucket(r interface{ Scan(...any) error }) (venue.Bucket, error) {
	var b venue.Bucket
	var pid sql.NullString
	var created, updated int64
	err := r.Scan(&b.ID, &b.Name, &b.Type, &pid, &b.IsEnabled, &created, &updated)
	b.ParticipantID = pid.String
	b.CreatedAt, b.UpdatedAt = fromMS(created), fromMS(updated)
	return b, err
}

// CreateBucket inserts b with its instruments in order.
func (tx *Tx) CreateBucket(ctx context.Context, b *venue.Bucket) error {
	_, err := tx.exec(ctx, "INSERT INTO buckets ("+bucketCols+") VALUES ("+placeholders(7)+")",
		b.ID, b.Name, b.Type, nullStr(b.ParticipantID), b.IsEnabled, ms(b.CreatedAt), ms(b.UpdatedAt))
	if err != nil {
		return fmt.Errorf("create bucket: %w", normalize(err))
	}
	return tx.setBucketInstruments(ctx, b.ID, b.InstrumentIDs)
}

// UpdateBucket writes name, is_enabled and the instrument list of b.
func (tx *Tx) UpdateBucket(ctx context.Context, b *venue.Bucket) error {
	_, err := tx.exec(ctx, "UPDATE buckets SET name = ?, is_enabled = ?, updated_at = ? WHERE id = ?",
		b.Name, b.IsEnabled, ms(b.UpdatedAt), b.ID)
	if err != nil {
		return fmt.Errorf("update bucket: %w", normalize(err))
	}
	if _, err := tx.exec(ctx, "DELETE FROM bucket_instruments WHERE bucket_id = ?", b.ID); err != nil {
		return fmt.Errorf("update bucket instruments: %w", normalize(err))
	}
	return tx.setBucketInstruments(ctx, b.ID, b.InstrumentIDs)
}

// DeleteBucket removes a bucket and its instrument list.
func (tx *Tx) DeleteBucket(ctx context.Context, id string) error {
	if _, err := tx.exec(ctx, "DELETE FROM bucket_instruments WHERE bucket_id = ?", id); err != nil {
		return fmt.Errorf("delete bucket instruments: %w", normalize(err))
	}
	if _, err := tx.exec(ctx, "DELETE FROM buckets WHERE id = ?", id); err != nil {
		return fmt.Errorf("delete bucket: %w", normalize(err))
	}
	return nil
}

func (tx *Tx) setBucketInstruments(ctx context.Context, id string, instrumentIDs []string) error {
	for i, in := range instrumentIDs {
		if _, err := tx.exec(ctx, "INSERT INTO bucket_instruments (bucket_id, instrument_id, position) VALUES (?, ?, ?)",
			id, in, i); err != nil {
			return fmt.Errorf("add instrument %s to bucket: %w", in, normalize(err))
		}
	}
	return nil
}

// Bucket returns one bucket with its instrument ids.
func (tx *Tx) Bucket(ctx context.Context, id string) (venue.Bucket, error) {
	b, err := scanBucket(tx.queryRow(ctx, "SELECT "+bucketCols+" FROM buckets WHERE id = ?", id))
	if err != nil {
		return b, fmt.Errorf("bucket %s: %w", id, normalize(err))
	}
	ids, err := selectAll(ctx, tx, scanString,
		"SELECT instrument_id FROM bucket_instruments WHERE bucket_id = ? ORDER BY position", id)
	if err != nil {
		return b, fmt.Errorf("bucket %s instruments: %w", id, normalize(err))
	}
	b.InstrumentIDs = ids
	return b, nil
}

// BucketFilter selects buckets in a list. Zero fields do not filter.
type BucketFilter struct {
	// VisibleTo restricts to public buckets and the participant's private
	// ones; empty means every bucket (the operator's view).
	VisibleTo string
	// InstrumentID restricts to buckets holding that instrument.
	InstrumentID string
	Type         string
	IsEnabled    *bool
}

// Buckets lists buckets matching f, each with its instrument ids.
func (tx *Tx) Buckets(ctx context.Context, f BucketFilter, page Page) ([]venue.Bucket, string, error) {
	q, args := "SELECT "+bucketCols+" FROM buckets WHERE 1 = 1", []any(nil)
	if f.VisibleTo != "" {
		q += " AND (type = 'public' OR participant_id = ?)"
		args = append(args, f.VisibleTo)
	}
	if f.InstrumentID != "" {
		q += " AND id IN (SELECT bucket_id FROM bucket_instruments WHERE instrument_id = ?)"
		args = append(args, f.InstrumentID)
	}
	if f.Type != "" {
		q += " AND type = ?"
		args = append(args, f.Type)
	}
	if f.IsEnabled != nil {
		q += " AND is_enabled = ?"
		args = append(args, *f.IsEnabled)
	}
	q, args = pageSQL(q, args, page, "id", "created_at")
	bs, err := selectAll(ctx, tx, func(r *sql.Rows) (venue.Bucket, error) { return scanBucket(r) }, q, args...)
	if err != nil {
		return nil, "", fmt.Errorf("list buckets: %w", normalize(err))
	}
	bs, next := trimPage(bs, page, func(b venue.Bucket) string { return b.ID })
	for i := range bs {
		ids, err := selectAll(ctx, tx, scanString,
			"SELECT instrument_id FROM bucket_instruments WHERE bucket_id = ? ORDER BY position", bs[i].ID)
		if err != nil {
			return nil, "", fmt.Errorf("bucket %s instruments: %w", bs[i].ID, normalize(err))
		}
		bs[i].InstrumentIDs = ids
	}
	return bs, next, nil
}
