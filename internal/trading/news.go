package trading

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/bondvenue/bondvenue/internal/feed"
	"github.com/bondvenue/bondvenue/internal/store"
	"github.com/bondvenue/bondvenue/internal/venue"
)

// This file holds news: published by the operator, read by everyone, each
// item a news.create event.

// maxURL bounds a news item's link: longer ones are not URLs browsers or
// servers agree to handle.
const maxURL = 2048

// NewsInput creates a news item.
type NewsInput struct {
	Title, Body, Source, URL string
}

// CreateNews publishes a news item and records a news.create event.
func (s *Service) CreateNews(ctx context.Context, p venue.Principal, in NewsInput) (venue.News, error) {
	if err := require(p, venue.RoleOperator); err != nil {
		return venue.News{}, err
	}
	var v venue.Validator
	v.Check(strings.TrimSpace(in.Title) != "" && utf8.RuneCountInString(in.Title) <= 300, "title", "is required (at most 300 characters)")
	v.Check(strings.TrimSpace(in.Body) != "" && utf8.RuneCountInString(in.Body) <= 20000, "body", "is required (at most 20000 characters)")
	v.Check(in.URL == "" || strings.HasPrefix(in.URL, "https://") || strings.HasPrefix(in.URL, "http://"), "url", "must be an http(s) URL")
	v.CheckLength("url", in.URL, maxURL)
	v.CheckLength("source", in.Source, venue.MaxName)
	if err := v.Err(); err != nil {
		return venue.News{}, err
	}
	now := s.clock()
	n := venue.News{ID: newID(), Title: strings.TrimSpace(in.Title), Body: in.Body, Source: in.Source, URL: in.URL,
		PublishedAt: now, CreatedAt: now, UpdatedAt: now}
	err := s.adminTx(ctx, p, &n, func(tx *store.Tx) (change, error) {
		if err := tx.CreateNews(ctx, &n); err != nil {
			return change{}, err
		}
		err := feed.Append(ctx, tx, feed.Event{Type: feed.EventNewsCreate, News: &n})
		return change{action: "news.create", entityType: "news", entityID: n.ID, after: n}, err
	})
	if err != nil {
		return n, fmt.Errorf("create news: %w", err)
	}
	return n, nil
}

// News lists news items, newest first.
func (s *Service) News(ctx context.Context, p venue.Principal, page venue.Page) (List[venue.News], error) {
	var out List[venue.News]
	err := s.db.View(ctx, func(tx *store.Tx) error {
		var err error
		out.Items, out.Next, err = tx.News(ctx, page)
		return err
	})
	if err != nil {
		return out, fmt.Errorf("list news: %w", err)
	}
	return out, nil
}
