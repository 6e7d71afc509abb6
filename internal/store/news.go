package store

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/bondvenue/bondvenue/internal/venue"
)

// CreateNews inserts n.
func (tx *Tx) CreateNews(ctx context.Context, n *venue.News) error {
	_, err := tx.exec(ctx, `INSERT INTO news (id, title, body, source, url, published_at, created_at, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, n.ID, n.Title, n.Body, n.Source, n.URL, ms(n.PublishedAt),
		ms(n.CreatedAt), ms(n.UpdatedAt))
	if err != nil {
		return fmt.Errorf("create news: %w", normalize(err))
	}
	return nil
}

// News lists news items, newest first.
func (tx *Tx) News(ctx context.Context, page Page) ([]venue.News, string, error) {
	q, args := pageSQL("SELECT id, title, body, source, url, published_at, created_at, updated_at FROM news WHERE 1 = 1",
		nil, page, "id", "created_at")
	out, err := selectAll(ctx, tx, func(r *sql.Rows) (venue.News, error) {
		var n venue.News
		var pub, created, updated int64
		err := r.Scan(&n.ID, &n.Title, &n.Body, &n.Source, &n.URL, &pub, &created, &updated)
		n.PublishedAt, n.CreatedAt, n.UpdatedAt = fromMS(pub), fromMS(created), fromMS(updated)
		return n, err
	}, q, args...)
	if err != nil {
		return nil, "", fmt.Errorf("list news: %w", normalize(err))
	}
	out, next := trimPage(out, page, func(n venue.News) string { return n.ID })
	return out, next, nil
}
