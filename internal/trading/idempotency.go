package trading

import (
	"context"
	"fmt"
	"time"

	"github.com/bondvenue/bondvenue/internal/store"
	"github.com/bondvenue/bondvenue/internal/venue"
)

// Idempotency-Key handling (DESIGN §3): the first answer to a request with
// a key is kept 24 hours per user and replayed to retries; the same key
// with another request is refused; a retry while the first is in flight
// is a conflict. A claim left in flight longer than idempotencyInFlight
// (the process died) is abandoned so the client can retry.
const (
	idempotencyTTL      = 24 * time.Hour
	idempotencyInFlight = time.Minute
)

// StoredResponse is a kept answer.
type StoredResponse struct {
	Status int
	Body   []byte
}

// ClaimIdempotencyKey starts a request under key. It returns the kept
// answer to replay, or nil when the caller should run the request and then
// call FinishIdempotencyKey (or ReleaseIdempotencyKey).
func (s *Service) ClaimIdempotencyKey(ctx context.Context, p venue.Principal, key, requestHash string) (*StoredResponse, error) {
	if key == "" || len(key) > 200 || !venue.ValidText(key) {
		return nil, venue.InvalidField("Idempotency-Key", "must be 1 to 200 characters of UTF-8 text")
	}
	now := s.clock()
	var cur store.IdempotencyRecord
	var claimed bool
	err := s.db.InTx(ctx, func(tx *store.Tx) error {
		var err error
		cur, claimed, err = tx.ClaimIdempotencyKey(ctx, store.IdempotencyRecord{UserID: p.UserID, Key: key,
			RequestHash: requestHash, CreatedAt: now}, now.Add(-idempotencyTTL))
		if err != nil || !claimed {
			return err
		}
		return tx.PruneIdempotencyKeys(ctx, now.Add(-idempotencyTTL))
	})
	if err != nil {
		return nil, fmt.Errorf("idempotency key: %w", err)
	}
	if claimed {
		return nil, nil
	}
	if cur.RequestHash != requestHash {
		return nil, &venue.Error{Kind: venue.KindMismatch, Message: "Idempotency-Key was already used with a different request"}
	}
	if cur.StatusCode == 0 {
		if cur.CreatedAt.Before(now.Add(-idempotencyInFlight)) {
			if err := s.ReleaseIdempotencyKey(ctx, p, key); err != nil {
				return nil, err
			}
			return s.ClaimIdempotencyKey(ctx, p, key, requestHash)
		}
		return nil, venue.Conflict("a request with this Idempotency-Key is still in flight; retry later")
	}
	return &StoredResponse{Status: cur.StatusCode, Body: cur.Response}, nil
}

// FinishIdempotencyKey keeps the answer of a claimed request.
func (s *Service) FinishIdempotencyKey(ctx context.Context, p venue.Principal, key string, status int, body []byte) error {
	return s.db.InTx(ctx, func(tx *store.Tx) error { return tx.FinishIdempotencyKey(ctx, p.UserID, key, status, body) })
}

// ReleaseIdempotencyKey drops a claim whose request failed for a reason a
// retry may not meet (a server error), so the retry runs again.
func (s *Service) ReleaseIdempotencyKey(ctx context.Context, p venue.Principal, key string) error {
	return s.db.InTx(ctx, func(tx *store.Tx) error { return tx.ReleaseIdempotencyKey(ctx, p.UserID, key) })
}
