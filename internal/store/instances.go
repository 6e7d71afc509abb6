package store

import (
	"context"
	"fmt"
	"time"
)

// Instance is one serve process on the database.
type Instance struct {
	ID, URL, Role     string
	StartedAt, SeenAt time.Time
}

// SaveInstance writes an instance's row.
func (tx *Tx) SaveInstance(ctx context.Context, in Instance) error {
	_, err := tx.exec(ctx, `INSERT INTO instances (id, url, role, started_at, seen_at) VALUES (?, ?, ?, ?, ?)
		ON CONFLICT (id) DO UPDATE SET url = excluded.url, role = excluded.role, seen_at = excluded.seen_at`,
		in.ID, in.URL, in.Role, ms(in.StartedAt), ms(in.SeenAt))
	if err != nil {
		return fmt.Errorf("save instance: %w", normalize(err))
	}
	return nil
}

// Instances lists the instances seen since after, most recently seen
// first, and forgets those not seen for a day.
func (tx *Tx) Instances(ctx context.Context, after time.Time) ([]Instance, error) {
	rows, err := tx.query(ctx, `SELECT id, url, role, started_at, seen_at FROM instances WHERE seen_at >= ?
		ORDER BY seen_at DESC, id`, ms(after))
	if err != nil {
		return nil, fmt.Errorf("instances: %w", normalize(err))
	}
	defer rows.Close()
	var out []Instance
	for rows.Next() {
		var in Instance
		var started, seen int64
		if err := rows.Scan(&in.ID, &in.URL, &in.Role, &started, &seen); err != nil {
			return nil, fmt.Errorf("instances: %w", normalize(err))
		}
		in.StartedAt, in.SeenAt = fromMS(started), fromMS(seen)
		out = append(out, in)
	}
	return out, normalize(rows.Err())
}

// ForgetInstances deletes the rows of instances not seen since before.
func (tx *Tx) ForgetInstances(ctx context.Context, before time.Time) error {
	if _, err := tx.exec(ctx, `DELETE FROM instances WHERE seen_at < ?`, ms(before)); err != nil {
		return fmt.Errorf("forget instances: %w", normalize(err))
	}
	return nil
}

// ClusterSecret returns the instances' shared secret, setting it to fresh
// the first time.
func (tx *Tx) ClusterSecret(ctx context.Context, fresh string) (string, error) {
	if _, err := tx.exec(ctx, `INSERT INTO cluster_secret (id, secret) VALUES (1, ?) ON CONFLICT (id) DO NOTHING`, fresh); err != nil {
		return "", fmt.Errorf("cluster secret: %w", normalize(err))
	}
	var s string
	if err := tx.queryRow(ctx, `SELECT secret FROM cluster_secret WHERE id = 1`).Scan(&s); err != nil {
		return "", fmt.Errorf("cluster secret: %w", normalize(err))
	}
	return s, nil
}
