package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/bondvenue/bondvenue/internal/venue"
)

// IdempotencyRecord is the first answer to a request carrying an
// Idempotency-Key. StatusCode 0 means no answer is kept yet: the request is
// in flight, or its process died before keeping the answer.
type IdempotencyRecord struct {
	UserID, Key, RequestHash string
	StatusCode               int
	Response                 []byte
	CreatedAt                time.Time
	// Claim names this claim of the key; Epoch is the sequencer lease it
	// was made under.
	Claim string
	Epoch int64
	// CommittedAt is set by the transaction that applied the request; zero
	// while it has not.
	CommittedAt time.Time
	// Result is what the request's answer needs, written with CommittedAt
	// by the transaction that applied it (IdempotencyClaim.Result); nil
	// when none was.
	Result []byte
}

// IdempotencyClaim is a claimed key as a request's writes name it: every
// write transaction of the request marks the claim applied in the same
// transaction (InTxClaimed; the sequencer's batch for its commands), so a
// retry can tell a request that never committed from one whose answer was
// lost.
type IdempotencyClaim struct {
	UserID, Key, Claim string
	// Result is what the request's answer needs (its use case's result, in
	// the caller's own terms), kept with the mark so that a retry can be
	// answered after a crash before the answer itself was kept. nil keeps
	// what an earlier write of the request wrote.
	Result []byte
}

// ErrClaimLost refuses a write whose Idempotency-Key claim a retry took
// over (its request was presumed dead): the retry applies it instead.
var ErrClaimLost = venue.Conflict("a retry with this Idempotency-Key took over the request; it is not applied twice")

// ClaimIdempotencyKey records a new request under (user, key) unless a
// live record exists, which it returns instead (claimed = false). Records
// created before staleBefore are replaced.
func (tx *Tx) ClaimIdempotencyKey(ctx context.Context, rec IdempotencyRecord, staleBefore time.Time) (IdempotencyRecord, bool, error) {
	var cur IdempotencyRecord
	var resp string
	var created int64
	var committed sql.NullInt64
	var result sql.NullString
	err := tx.queryRow(ctx, `SELECT user_id, key, request_hash, status_code, response, created_at, claim, epoch, committed_at, result
		FROM idempotency_keys WHERE user_id = ? AND key = ?`, rec.UserID, rec.Key).Scan(&cur.UserID, &cur.Key,
		&cur.RequestHash, &cur.StatusCode, &resp, &created, &cur.Claim, &cur.Epoch, &committed, &result)
	switch {
	case err == nil && fromMS(created).After(staleBefore):
		cur.Response, cur.CreatedAt = []byte(resp), fromMS(created)
		if committed.Valid {
			cur.CommittedAt = fromMS(committed.Int64)
		}
		if result.Valid {
			cur.Result = []byte(result.String)
		}
		return cur, false, nil
	case err != nil && !errors.Is(err, sql.ErrNoRows):
		return cur, false, fmt.Errorf("idempotency key: %w", normalize(err))
	}
	_, err = tx.exec(ctx, `INSERT INTO idempotency_keys (user_id, key, request_hash, status_code, response, created_at, claim, epoch)
		VALUES (?, ?, ?, 0, '', ?, ?, ?) ON CONFLICT (user_id, key) DO UPDATE SET request_hash = excluded.request_hash,
		status_code = 0, response = '', created_at = excluded.created_at, claim = excluded.claim, epoch = excluded.epoch,
		committed_at = NULL, result = NULL`, rec.UserID, rec.Key, rec.RequestHash, ms(rec.CreatedAt), rec.Claim, rec.Epoch)
	if err != nil {
		return cur, false, fmt.Errorf("claim idempotency key: %w", normalize(err))
	}
	return rec, true, nil
}

// claimMark marks claim c applied at t (the first time only), with what
// its answer needs (the last write's that kept any).
func claimMark(c IdempotencyClaim, t time.Time) statement {
	var result any
	if c.Result != nil {
		result = string(c.Result)
	}
	return statement{query: `UPDATE idempotency_keys SET committed_at = COALESCE(committed_at, ?), result = COALESCE(?, result)
		WHERE user_id = ? AND key = ? AND claim = ?`, args: []any{ms(t), result, c.UserID, c.Key, c.Claim},
		what: "mark idempotency key applied"}
}

// markClaim marks c applied in tx, or fails with ErrClaimLost when a retry
// took the key over.
func (tx *Tx) markClaim(ctx context.Context, c IdempotencyClaim) error {
	st := claimMark(c, tx.now)
	res, err := tx.exec(ctx, st.query, st.args...)
	if err != nil {
		return fmt.Errorf("%s: %w", st.what, normalize(err))
	}
	if n, err := res.RowsAffected(); err != nil || n != 1 {
		return ErrClaimLost
	}
	return nil
}

// FinishIdempotencyKey stores the answer of claim c's request.
func (tx *Tx) FinishIdempotencyKey(ctx context.Context, c IdempotencyClaim, status int, response []byte) error {
	_, err := tx.exec(ctx, "UPDATE idempotency_keys SET status_code = ?, response = ? WHERE user_id = ? AND key = ? AND claim = ?",
		status, string(response), c.UserID, c.Key, c.Claim)
	if err != nil {
		return fmt.Errorf("finish idempotency key: %w", normalize(err))
	}
	return nil
}

// ReleaseIdempotencyKey forgets claim c so that a retry runs the request
// again (its request failed, or died), unless the request was applied:
// then the claim stays, and retries learn that the request was applied
// instead of applying it twice. It reports whether it forgot the claim.
func (tx *Tx) ReleaseIdempotencyKey(ctx context.Context, c IdempotencyClaim) (bool, error) {
	res, err := tx.exec(ctx, "DELETE FROM idempotency_keys WHERE user_id = ? AND key = ? AND claim = ? AND committed_at IS NULL",
		c.UserID, c.Key, c.Claim)
	if err != nil {
		return false, fmt.Errorf("release idempotency key: %w", normalize(err))
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

// PruneIdempotencyKeys deletes records created before t.
func (tx *Tx) PruneIdempotencyKeys(ctx context.Context, t time.Time) error {
	if _, err := tx.exec(ctx, "DELETE FROM idempotency_keys WHERE created_at < ?", ms(t)); err != nil {
		return fmt.Errorf("prune idempotency keys: %w", normalize(err))
	}
	return nil
}
