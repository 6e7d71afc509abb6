package trading

import (
	"context"
	"fmt"
	"time"
	"unicode/utf8"

	"github.com/bondvenue/bondvenue/internal/store"
	"github.com/bondvenue/bondvenue/internal/venue"
)

// Idempotency-Key handling (DESIGN §3): the first answer to a request with
// a key is kept 24 hours per user and replayed to retries; the same key
// with another request is refused; a retry while the first is in flight
// is a conflict.
//
// A request never applies twice, even across a crash: its claim of the key
// rides in its context, and the transaction that applies it marks the claim
// applied in the same commit (store.InTx for the use cases' own
// transactions, the sequencer's batch for trading commands). A retry that
// finds a claim without an answer therefore knows which case it is in:
//   - applied, answer lost (the process died between the commit and keeping
//     the answer, or the answer failed after the commit): 409, the request
//     is not applied again, and the record shows its outcome;
//   - not applied, and the claim belongs to an earlier sequencer lease (the
//     process that made it is gone and its engine fenced): the retry takes
//     the key over and runs the request;
//   - not applied and still the running engine's: in flight, 409, unless
//     older than idempotencyAbandon (its handler died), when the retry takes
//     it over; a write of the old claim that commits later is refused
//     (store.ErrClaimLost), so the two never both apply.
const (
	idempotencyTTL     = 24 * time.Hour
	idempotencyAbandon = 10 * time.Minute
	// maxIdempotencyKey is the longest key in characters, as the OpenAPI
	// document declares it (the column is unbounded TEXT on both engines).
	maxIdempotencyKey = 255
)

// StoredResponse is a kept answer.
type StoredResponse struct {
	Status int
	Body   []byte
}

// IdempotencyClaim is a key claimed for one request: run the request with
// Context, then keep its answer with FinishIdempotencyKey or, when it
// failed on the server's side, ReleaseIdempotencyKey.
type IdempotencyClaim struct{ c store.IdempotencyClaim }

// Context returns ctx carrying the claim, for running its request.
func (c *IdempotencyClaim) Context(ctx context.Context) context.Context {
	return store.WithIdempotencyClaim(ctx, c.c)
}

// errAnswerLost answers a retry of a request that was applied but whose
// answer was never kept.
var errAnswerLost = venue.Conflict("the request with this Idempotency-Key was applied, but its answer was not kept " +
	"(the venue stopped or failed after the commit); it is not applied again: read the record to see its outcome")

// ClaimIdempotencyKey starts a request under key. It returns the kept
// answer to replay, or the claim under which the caller runs the request.
func (s *Service) ClaimIdempotencyKey(ctx context.Context, p venue.Principal, key, requestHash string) (*IdempotencyClaim, *StoredResponse, error) {
	if n := utf8.RuneCountInString(key); n == 0 || n > maxIdempotencyKey || !venue.ValidText(key) {
		return nil, nil, venue.InvalidField("Idempotency-Key", fmt.Sprintf("must be 1 to %d characters of UTF-8 text", maxIdempotencyKey))
	}
	now := s.clock()
	stale := now.Add(-idempotencyTTL)
	epoch := s.eng.epoch
	claim := store.IdempotencyClaim{UserID: p.UserID, Key: key, Claim: newID()}
	rec := store.IdempotencyRecord{UserID: p.UserID, Key: key, RequestHash: requestHash, CreatedAt: now, Claim: claim.Claim, Epoch: epoch}
	var cur store.IdempotencyRecord
	var claimed bool
	err := s.db.InTx(ctx, func(tx *store.Tx) error {
		var err error
		cur, claimed, err = tx.ClaimIdempotencyKey(ctx, rec, stale)
		if err == nil && !claimed && cur.RequestHash == requestHash && cur.StatusCode == 0 && cur.CommittedAt.IsZero() &&
			(cur.Epoch != epoch || cur.CreatedAt.Before(now.Add(-idempotencyAbandon))) {
			var released bool
			if released, err = tx.ReleaseIdempotencyKey(ctx, store.IdempotencyClaim{UserID: p.UserID, Key: key, Claim: cur.Claim}); released {
				cur, claimed, err = tx.ClaimIdempotencyKey(ctx, rec, stale)
			}
		}
		if err != nil || !claimed {
			return err
		}
		return tx.PruneIdempotencyKeys(ctx, stale)
	})
	switch {
	case err != nil:
		return nil, nil, fmt.Errorf("idempotency key: %w", err)
	case claimed:
		return &IdempotencyClaim{c: claim}, nil, nil
	case cur.RequestHash != requestHash:
		return nil, nil, &venue.Error{Kind: venue.KindMismatch, Message: "Idempotency-Key was already used with a different request"}
	case cur.StatusCode == 0 && !cur.CommittedAt.IsZero():
		return nil, nil, errAnswerLost
	case cur.StatusCode == 0:
		return nil, nil, venue.Conflict("a request with this Idempotency-Key is still in flight; retry later")
	}
	return nil, &StoredResponse{Status: cur.StatusCode, Body: cur.Response}, nil
}

// FinishIdempotencyKey keeps the answer of a claimed request.
func (s *Service) FinishIdempotencyKey(ctx context.Context, c *IdempotencyClaim, status int, body []byte) error {
	return s.db.InTx(ctx, func(tx *store.Tx) error { return tx.FinishIdempotencyKey(ctx, c.c, status, body) })
}

// ReleaseIdempotencyKey drops a claim whose request failed for a reason a
// retry may not meet (a server error), so the retry runs again, unless the
// request was applied before it failed: that claim stays, and retries are
// told the request was applied.
func (s *Service) ReleaseIdempotencyKey(ctx context.Context, c *IdempotencyClaim) error {
	return s.db.InTx(ctx, func(tx *store.Tx) error {
		_, err := tx.ReleaseIdempotencyKey(ctx, c.c)
		return err
	})
}
