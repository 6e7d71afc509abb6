// Package trading holds the venue's use cases. Adapters (REST, FIX, the
// live demo market) call a Service method per operation; each method checks
// the caller's role and visibility, then runs in exactly one store
// transaction or one sequencer command. The Service builds none of its
// peers: cmd/bondvenue hands it the store and the sequencer (Deps).
package trading

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/google/uuid"

	"github.com/bondvenue/bondvenue/internal/auth"
	"github.com/bondvenue/bondvenue/internal/cluster"
	"github.com/bondvenue/bondvenue/internal/ratelimit"
	"github.com/bondvenue/bondvenue/internal/sequencer"
	"github.com/bondvenue/bondvenue/internal/store"
	"github.com/bondvenue/bondvenue/internal/venue"
)

// Config tunes a Service.
type Config struct {
	// Hasher hashes the client secrets of new credentials (default
	// auth.DefaultHasher).
	Hasher *auth.Hasher
	// Now is the clock (default time.Now); tests may pin it.
	Now func() time.Time
	// Logger receives operational logs (default slog.Default()).
	Logger *slog.Logger
	// RateLimit is the sustained requests per second Admit allows per
	// credential, over every channel together (default 100), and RateBurst
	// the burst (default twice RateLimit).
	RateLimit float64
	RateBurst int
}

// Deps are what a Service runs on, built and started by the caller
// (cmd/bondvenue): the database, the sequencer that runs its trading
// commands, the cluster's list of instances, and the access tokens it
// forgets when a credential or a user changes.
type Deps struct {
	Store     *store.DB
	Sequencer *sequencer.Sequencer
	Instances Instances
	Tokens    TokenCache
}

// TokenCache is the remembered resolutions of access tokens
// (access.Tokens), forgotten when a credential is revoked or a user
// changes.
type TokenCache interface {
	Forget()
}

// Instances is the cluster's view of the venue's instances, for the
// operator's list (cluster.Cluster).
type Instances interface {
	Instances(ctx context.Context) ([]cluster.Instance, error)
}

// Service is the venue's application layer. A Service bound to an
// idempotency claim (WithClaim) is the same service whose writes also mark
// that claim.
type Service struct {
	*core
	// claim is the request's idempotency claim that every write of this
	// Service marks applied (nil: none).
	claim *store.IdempotencyClaim
	// replay is the committed result of the applied request this Service
	// answers again (a replayed claim's): its use case applies nothing
	// and answers from it. nil: the request runs.
	replay *[]byte
	// reason is why the caller makes its administrative writes, as their
	// audit entries record it (WithReason; "" for none).
	reason string
}

// core is a Service's state, shared by its claim-bound copies.
type core struct {
	db      *store.DB
	eng     *sequencer.Sequencer
	cl      Instances
	tokens  TokenCache
	hasher  auth.Hasher
	now     func() time.Time
	log     *slog.Logger
	lookups *lookups
	// perCredential is Admit's budget.
	perCredential *ratelimit.Limiters
}

// New returns a Service on d. The caller builds, starts and stops d's
// parts (cmd/bondvenue); Config.Now should be the clock they read too.
func New(d Deps, cfg Config) *Service {
	s := &Service{core: &core{db: d.Store, eng: d.Sequencer, cl: d.Instances, tokens: d.Tokens, hasher: auth.DefaultHasher,
		now: cfg.Now, log: cfg.Logger, lookups: newLookups()}}
	if cfg.Hasher != nil {
		s.hasher = *cfg.Hasher
	}
	if s.now == nil {
		s.now = time.Now
	}
	if s.log == nil {
		s.log = slog.Default()
	}
	if cfg.RateLimit <= 0 {
		cfg.RateLimit, cfg.RateBurst = 100, 200
	}
	if cfg.RateBurst <= 0 {
		cfg.RateBurst = int(cfg.RateLimit) * 2
	}
	s.perCredential = ratelimit.New(cfg.RateLimit, cfg.RateBurst)
	return s
}

// refreshEngine makes the sequencer reload reference data after an
// operator change (without a running engine there is nothing to refresh),
// and forgets the instruments and markets remembered for DefaultMarket.
func (s *Service) refreshEngine(ctx context.Context) error {
	s.lookups.forgetReference()
	if !s.eng.Running() {
		return nil
	}
	if err := s.eng.Refresh(ctx); err != nil {
		return fmt.Errorf("refresh engine: %w", err)
	}
	return nil
}

// Admit takes one request of p's credential from its rate budget, shared
// by every channel the credential uses; beyond it the answer is a
// rate-limited error saying how long to wait (venue.Error.RetryAfter).
func (s *Service) Admit(p venue.Principal) error {
	if wait := s.perCredential.Allow(p.ClientID, s.now()); wait > 0 {
		return &venue.Error{Kind: venue.KindRateLimited, Message: "rate limit exceeded; retry after the Retry-After delay",
			RetryAfter: wait}
	}
	return nil
}

// inTx runs fn in a write transaction that also marks the Service's
// idempotency claim, if it has one, keeping with it *result (a pointer to
// what the use case's answer is made of, as fn leaves it). On a Service
// replaying an applied request fn does not run: *result is what the first
// run kept.
func (s *Service) inTx(ctx context.Context, result any, fn func(*store.Tx) error) error {
	if s.replaying() {
		return s.replayed(result)
	}
	if s.claim == nil {
		return s.db.InTx(ctx, fn)
	}
	c := *s.claim
	return s.db.InTxClaimed(ctx, &c, func(tx *store.Tx) error {
		if err := fn(tx); err != nil {
			return err
		}
		var err error
		c.Result, err = sequencer.KeepResult(result) // marked with the claim, after fn
		return err
	})
}

// do submits a command to the sequencer, whose batch also marks the
// Service's idempotency claim if the command writes.
func (s *Service) do(ctx context.Context, run func(*sequencer.State, *sequencer.Batch) (any, error)) (any, error) {
	if s.replaying() {
		// A replay answers from the kept result (submit) and never reaches
		// the engine: a command here would apply the request again.
		return nil, fmt.Errorf("the replay of an applied request reached the engine")
	}
	return s.eng.Do(ctx, s.claim, run)
}

func newID() string { return uuid.Must(uuid.NewV7()).String() }

// clock returns the service time truncated to the millisecond precision
// the store keeps.
func (s *Service) clock() time.Time { return s.now().UTC().Truncate(time.Millisecond) }

// require returns a forbidden error unless the caller holds one of roles.
func require(p venue.Principal, roles ...venue.Role) error {
	for _, r := range roles {
		if p.Role == r {
			return nil
		}
	}
	return venue.Forbidden("role %s may not perform this operation", p.Role)
}

// readers are the roles that may read participant-scoped data.
var readers = []venue.Role{venue.RoleOperator, venue.RoleAdmin, venue.RoleTrader, venue.RoleViewer}

// validID reports whether s can be an id at all; anything else is a 404
// without a database round trip.
func validID(s string) bool { return venue.ValidID(s) }

// owned reports whether a record of participant owner is the caller's own.
func owned(p venue.Principal, owner string) bool {
	return p.IsOperator() || (owner != "" && owner == p.ParticipantID)
}

// List is one page of a list and the cursor of the next ("" when none).
type List[T any] struct {
	Items []T
	Next  string
}

func contains(ids []string, id string) bool {
	for _, x := range ids {
		if x == id {
			return true
		}
	}
	return false
}

// checkFilterID records an issue on a list's filter parameter name when
// it is set but cannot be an id; what names the record.
func checkFilterID(v *venue.Validator, name, id, what string) {
	v.Check(id == "" || validID(id), name, "must be "+what+" id")
}

// checkFilterRecords answers not found when a list is filtered by an
// instrument or a market (both visible to every caller) the venue does not
// have: one lookup per filter id given. A malformed id is checkFilterID's.
func checkFilterRecords(ctx context.Context, tx *store.Tx, instrumentID, marketID string) error {
	if instrumentID != "" {
		if _, err := tx.Instrument(ctx, instrumentID); err != nil {
			return notFoundOr(err, "instrument")
		}
	}
	if marketID != "" {
		if _, err := tx.Market(ctx, marketID); err != nil {
			return notFoundOr(err, "market")
		}
	}
	return nil
}

func notFoundOr(err error, what string) error {
	if err == nil || errors.Is(err, venue.ErrNotFound) {
		return venue.NotFound(what)
	}
	return err
}

// defaultAccount is the account a record that names none is entered on:
// the firm's oldest active account.
func defaultAccount(ctx context.Context, tx *store.Tx, participantID string) (string, error) {
	id, err := tx.FirstActiveAccount(ctx, participantID)
	if errors.Is(err, venue.ErrNotFound) {
		return "", venue.InvalidField("account_id", "is required: the participant has no active account")
	}
	return id, err
}

// set copies *src into *dst when src is not nil.
func set[T any](dst *T, src *T) {
	if src != nil {
		*dst = *src
	}
}

// errNoResult answers a retry of a request applied by an earlier version of
// the venue, which kept no result with the change, and whose answer was
// lost: there is nothing to answer it from.
var errNoResult = venue.Conflict("the request with this Idempotency-Key was applied, but by a version of the venue " +
	"that kept no result to answer a retry from; it is not applied again: read the record to see its outcome")

// replaying reports whether s answers an applied request from its kept
// result instead of running it.
func (s *Service) replaying() bool { return s.replay != nil }

// replayed decodes the kept result of the applied request s replays into
// out.
func (s *Service) replayed(out any) error {
	if len(*s.replay) == 0 {
		return errNoResult
	}
	if err := json.Unmarshal(*s.replay, out); err != nil {
		return fmt.Errorf("read the kept result of an idempotent request: %w", err)
	}
	return nil
}
