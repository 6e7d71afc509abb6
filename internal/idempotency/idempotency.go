// Package idempotency keeps the venue's Idempotency-Keys (and the FIX
// ClOrdIDs that act as theirs): the claim of a key for one request, the
// kept answer replayed to retries, and the one rule for how a claim ends.
// The use cases mark a claim applied in the transaction that applies its
// request (trading.Service.WithClaim).
package idempotency

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/bondvenue/bondvenue/internal/store"
	"github.com/bondvenue/bondvenue/internal/venue"
)

// Idempotency-Key handling (docs/guide.md, "Trading"): the first answer to a request with
// a key is kept 24 hours per user and replayed to retries; the same key
// with another request is refused; a retry while the first is in flight
// is a conflict.
//
// A request never applies twice, even across a crash: it runs on the
// use cases bound to its claim of the key (trading.Service.WithClaim), and the transaction
// that applies it marks the claim applied in the same commit
// (store.InTxClaimed for the use cases' own transactions, the sequencer's
// batch for trading commands). Each claim
// carries the sequencer lease epoch of the process that made it, and the
// process knows which of its own claims are still being served. A retry
// that finds a claim without a kept answer therefore knows its case:
//   - the claim is being served (this process's, its request still
//     running; or a later epoch's, another live instance's): in flight, 409;
//   - otherwise, applied: its process died, or its answer failed, after the
//     commit. The transaction that applied it kept what the answer needs
//     (the use case's result: an engine command's in the sequencer's batch,
//     a use case's own transaction's with its writes), so the retry is
//     answered from that, as the first request would have been, on any
//     instance; it is never applied again;
//   - otherwise not applied, so its request can no longer apply: an earlier
//     epoch's engine is fenced (and a write of its process's own
//     transactions is refused, store.ErrClaimLost), and a claim of this
//     process that it no longer serves has no request left. The retry takes
//     the key over and runs the request.
//
// A claim of the running engine is never taken over while its request is
// served, so the sequencer's batch can mark claims without checking that
// they are still current.
const (
	idempotencyTTL = 24 * time.Hour
	// maxIdempotencyKey is the longest key in characters, as the OpenAPI
	// document declares it (the column is unbounded TEXT on both engines).
	maxIdempotencyKey = 255
)

// Answer is a request's kept answer, opaque to the venue: each adapter
// keeps what it sends back, in its own terms (REST: the status and the
// body; FIX: the message), and replays it as it stands.
type Answer struct {
	Code int
	Body []byte
}

// Claim is a key claimed for one request: run the request on the
// use cases bound to it (trading.Service.WithClaim), then end the claim
// with Keys.Settle, which keeps its answer or, when it failed on the
// venue's side, releases it (SettlementOf).
//
// The claim of a request applied earlier whose answer was not kept is a
// replay (Replayed): run on it, the request applies nothing and its use
// case answers with the result its first run committed, so the adapter
// renders the answer the first request would have got and keeps it.
type Claim struct {
	c store.IdempotencyClaim
	// grouped is set for a claim made in the group commit (Keys.ClaimFIX):
	// its answer is kept there too.
	grouped bool
	// replay is set for an applied request; result is what its
	// transaction kept.
	replay bool
	result []byte
}

// Replayed reports whether the claim's request was applied already: it is
// answered from its committed result, not run again.
func (c *Claim) Replayed() bool { return c.replay }

// OrderID is the offer, quote or RFQ a replayed claim's engine command made
// or changed, as its commit kept it ("" when it kept none): what a FIX
// repeat of the ClOrdID names.
func (c *Claim) OrderID() string {
	var res struct{ Offer struct{ ID string } } // an sequencer.OfferResult
	if !c.replay || json.Unmarshal(c.result, &res) != nil {
		return ""
	}
	return res.Offer.ID
}

// Record is the claim as the store keeps it: what the transaction that
// applies the request marks applied.
func (c *Claim) Record() store.IdempotencyClaim { return c.c }

// Result is what the commit of a replayed claim's request kept.
func (c *Claim) Result() []byte { return c.result }

// Resume is the claim a command passed on to the leader carries (its
// user, key and claim id), to run there.
func Resume(rec store.IdempotencyClaim) *Claim { return &Claim{c: rec} }

// Epochs says which sequencer lease this process holds
// (sequencer.Sequencer): a claim made under a later one is another live
// instance's.
type Epochs interface {
	Epoch() int64
}

// Keys is the venue's Idempotency-Keys on one database.
type Keys struct {
	db  *store.DB
	eng Epochs
	now func() time.Time
	// serving holds the claims (by claim id) whose requests this process
	// is serving.
	serving sync.Map
}

// New returns the keys of db, claimed under the epochs of eng, on the clock
// now (nil: time.Now).
func New(db *store.DB, eng Epochs, now func() time.Time) *Keys {
	if now == nil {
		now = time.Now
	}
	return &Keys{db: db, eng: eng, now: now}
}

// Claim starts a request under key. It returns the kept
// answer to replay, or the claim under which the caller runs the request;
// the caller must end the claim with Settle, Finish or Release whatever happens.
//
// key is the client's (an Idempotency-Key header, a FIX ClOrdID), scoped
// to p's user; requestHash fingerprints the request, so the same key with
// another request is refused (venue.KindMismatch).
func (s *Keys) Claim(ctx context.Context, p venue.Principal, key, requestHash string) (*Claim, *Answer, error) {
	return s.claimKey(ctx, p, key, requestHash, s.db.InTx)
}

// ClaimFIX is Claim for the FIX gateway's ClOrdIDs: the
// claim commits in the database's group commit (store.GroupWriter),
// together with the FIX sessions' other writes waiting at the same time, and so does its answer when
// Settle keeps it.
func (s *Keys) ClaimFIX(ctx context.Context, p venue.Principal, key string) (*Claim, *Answer, error) {
	c, a, err := s.claimKey(ctx, p, key, "", s.db.InTxGrouped)
	if c != nil {
		c.grouped = true
	}
	return c, a, err
}

// CheckKey refuses an Idempotency-Key the venue would not keep: empty,
// longer than 255 characters, or not UTF-8 text.
func CheckKey(key string) error {
	if n := utf8.RuneCountInString(key); n == 0 || n > maxIdempotencyKey || !venue.ValidText(key) {
		return venue.InvalidField("Idempotency-Key", fmt.Sprintf("must be 1 to %d characters of UTF-8 text", maxIdempotencyKey))
	}
	return nil
}

func (s *Keys) claimKey(ctx context.Context, p venue.Principal, key, requestHash string,
	inTx func(context.Context, func(*store.Tx) error) error) (*Claim, *Answer, error) {
	if err := CheckKey(key); err != nil {
		return nil, nil, err
	}
	now := s.now().UTC().Truncate(time.Millisecond)
	stale := now.Add(-idempotencyTTL)
	epoch := s.eng.Epoch()
	claim := store.IdempotencyClaim{UserID: p.UserID, Key: key, Claim: uuid.Must(uuid.NewV7()).String()}
	rec := store.IdempotencyRecord{UserID: p.UserID, Key: key, RequestHash: requestHash, CreatedAt: now, Claim: claim.Claim, Epoch: epoch}
	// Served from before the claim can commit, so a retry never finds it
	// unserved while its request runs.
	s.serving.Store(claim.Claim, struct{}{})
	var cur store.IdempotencyRecord
	var claimed bool
	err := inTx(ctx, func(tx *store.Tx) error {
		var err error
		cur, claimed, err = tx.ClaimIdempotencyKey(ctx, rec, stale)
		if err == nil && !claimed && cur.RequestHash == requestHash && cur.StatusCode == 0 && cur.CommittedAt.IsZero() &&
			!s.served(cur, epoch) {
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
	if err != nil || !claimed {
		s.serving.Delete(claim.Claim)
	}
	switch {
	case err != nil:
		return nil, nil, fmt.Errorf("idempotency key: %w", err)
	case claimed:
		return &Claim{c: claim}, nil, nil
	case cur.RequestHash != requestHash:
		return nil, nil, &venue.Error{Kind: venue.KindMismatch, Message: "Idempotency-Key was already used with a different request"}
	case cur.StatusCode == 0 && (s.served(cur, epoch) || cur.CommittedAt.IsZero()):
		return nil, nil, venue.Conflict("a request with this Idempotency-Key is still in flight; retry later")
	case cur.StatusCode == 0:
		// Applied, its answer lost: answered from what its commit kept.
		return &Claim{c: store.IdempotencyClaim{UserID: p.UserID, Key: key, Claim: cur.Claim},
			replay: true, result: cur.Result}, nil, nil
	}
	return nil, &Answer{Code: cur.StatusCode, Body: cur.Response}, nil
}

// served reports whether claim cur's request may still be running: it is
// this process's and being served, or it belongs to a later sequencer
// lease, another instance's that this one cannot see into.
func (s *Keys) served(cur store.IdempotencyRecord, epoch int64) bool {
	if cur.Epoch > epoch {
		return true
	}
	_, ok := s.serving.Load(cur.Claim)
	return ok && cur.Epoch == epoch
}

// Finish keeps the answer of a claimed request and ends the
// claim. The answer's Code must not be 0 (which marks a claim without one).
func (s *Keys) Finish(ctx context.Context, c *Claim, a Answer) error {
	defer s.serving.Delete(c.c.Claim)
	if a.Code == 0 {
		return fmt.Errorf("keep idempotent answer: code 0 is reserved")
	}
	return s.db.InTx(ctx, func(tx *store.Tx) error { return tx.FinishIdempotencyKey(ctx, c.c, a.Code, a.Body) })
}

// finishGrouped is Finish in the group commit, for a claim
// made there.
func (s *Keys) finishGrouped(ctx context.Context, c *Claim, a Answer) error {
	defer s.serving.Delete(c.c.Claim)
	if a.Code == 0 {
		return fmt.Errorf("keep idempotent answer: code 0 is reserved")
	}
	return s.db.InTxGrouped(ctx, func(tx *store.Tx) error { return tx.FinishIdempotencyKey(ctx, c.c, a.Code, a.Body) })
}

// ClaimSettlement is how a claim ends once its request has run.
type ClaimSettlement int

const (
	// FinishClaim keeps the request's answer, replayed to every retry: the
	// request succeeded, or the venue refused it for a reason a retry
	// would meet again (invalid, forbidden, a conflict, a limit...).
	FinishClaim ClaimSettlement = iota
	// ReleaseClaim lets a retry run the request again: it failed on the
	// venue's side (an internal error, the database, no sequencer), which
	// a retry may not meet. A claim whose request was applied before the
	// failure is not released but kept as applied, and a retry is answered
	// from the result its commit kept.
	ReleaseClaim
)

// SettlementOf is the one rule for ending a claim after its request
// returned err, by the venue's error kind, for every channel.
func SettlementOf(err error) ClaimSettlement {
	if err == nil {
		return FinishClaim
	}
	switch venue.KindOf(err) {
	case venue.KindInternal, venue.KindUnavailable, venue.KindNotReady:
		return ReleaseClaim
	}
	return FinishClaim
}

// Settle ends claim c after its request returned err, as
// SettlementOf decides: it keeps answer a (Finish), or
// releases the claim (Release). The adapter renders a in its
// own terms, the answer to err included.
func (s *Keys) Settle(ctx context.Context, c *Claim, err error, a Answer) error {
	switch {
	case SettlementOf(err) == ReleaseClaim:
		return s.Release(ctx, c)
	case c.grouped:
		return s.finishGrouped(ctx, c, a)
	}
	return s.Finish(ctx, c, a)
}

// Release drops a claim whose request failed for a reason a
// retry may not meet (a server error), so the retry runs again, unless the
// request was applied before it failed: that claim stays, and retries are
// answered from its committed result.
func (s *Keys) Release(ctx context.Context, c *Claim) error {
	defer s.serving.Delete(c.c.Claim)
	return s.db.InTx(ctx, func(tx *store.Tx) error {
		_, err := tx.ReleaseIdempotencyKey(ctx, c.c)
		return err
	})
}
