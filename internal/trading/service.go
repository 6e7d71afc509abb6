// Package trading holds the venue's use cases. Adapters (HTTP, later the
// streams and FIX) call a Service method per operation; each method checks
// the caller's role and visibility, then runs in exactly one store
// transaction.
package trading

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/bondvenue/bondvenue/internal/auth"
	"github.com/bondvenue/bondvenue/internal/cluster"
	"github.com/bondvenue/bondvenue/internal/feed"
	"github.com/bondvenue/bondvenue/internal/ratelimit"
	"github.com/bondvenue/bondvenue/internal/sequencer"
	"github.com/bondvenue/bondvenue/internal/store"
	"github.com/bondvenue/bondvenue/internal/transparency"
	"github.com/bondvenue/bondvenue/internal/venue"
)

// Config tunes a Service.
type Config struct {
	// TokenTTL is the lifetime of an access token (default 15 minutes).
	TokenTTL time.Duration
	// Hasher hashes client secrets (default auth.DefaultHasher).
	Hasher *auth.Hasher
	// Now is the clock (default time.Now); tests may pin it.
	Now func() time.Time
	// Logger receives operational logs (default slog.Default()).
	Logger *slog.Logger
	// FeedBuffer is each feed subscription's buffer in events (default
	// DefaultFeedBuffer): a subscriber further behind is cut off.
	FeedBuffer int
	// RateLimit is the sustained requests per second Admit allows per
	// credential, over every channel together (default 100), and RateBurst
	// the burst (default twice RateLimit).
	RateLimit float64
	RateBurst int
	// CampaignInterval is how often a standby tries for the leadership
	// (default cluster.DefaultCampaignInterval).
	CampaignInterval time.Duration
	// QueueBudget bounds how long a new offer, amendment, RFQ, quote or
	// accept may wait for the sequencer before it is refused as busy (0 or
	// negative: never refused; the serve command's default is
	// DefaultQueueBudget). See admission.go.
	QueueBudget time.Duration
	// MIC is the venue's ISO 10383 market identifier code on the public
	// tape (default sequencer.DefaultMIC, a placeholder).
	MIC string
	// Deferrals is the public tape's deferral table (default
	// transparency.Default()).
	Deferrals *transparency.Table
}

// Service is the venue's application layer. A Service bound to an
// idempotency claim (IdempotencyClaim.Service) is the same service whose
// writes also mark that claim.
type Service struct {
	*core
	// claim is the request's idempotency claim that every write of this
	// Service marks applied (nil: none).
	claim *store.IdempotencyClaim
	// replay is the committed result of the applied request this Service
	// answers again (a replayed claim's): its use case applies nothing
	// and answers from it. nil: the request runs.
	replay *[]byte
}

// core is a Service's state, shared by its claim-bound copies.
type core struct {
	mic      string
	db       *store.DB
	tokenTTL time.Duration
	hasher   auth.Hasher
	now      func() time.Time
	log      *slog.Logger
	eng      *sequencer.Sequencer
	events   *feed.Feed
	fans     []*fanout
	// feedBuffer is Config.FeedBuffer.
	feedBuffer int
	lookups    *lookups
	// perCredential is Admit's budget.
	perCredential *ratelimit.Limiters
	// serving holds the Idempotency-Key claims (by claim id) whose
	// requests this process is serving.
	serving sync.Map
	// dummyHash is verified against when a client id is unknown, so a
	// failed grant costs the same either way.
	dummyHash string
	// cl is the instance's part in the cluster: its role, its row, the
	// leader's address.
	cl *cluster.Cluster
}

// New returns a Service on db.
func New(db *store.DB, cfg Config) *Service {
	s := &Service{core: &core{db: db, tokenTTL: cfg.TokenTTL, hasher: auth.DefaultHasher, now: cfg.Now, log: cfg.Logger,
		lookups: newLookups()}}
	if s.tokenTTL <= 0 {
		s.tokenTTL = 15 * time.Minute
	}
	if cfg.Hasher != nil {
		s.hasher = *cfg.Hasher
	}
	if s.now == nil {
		s.now = time.Now
	}
	db.SetClock(s.now)
	if s.log == nil {
		s.log = slog.Default()
	}
	s.dummyHash, _ = s.hasher.Hash(auth.NewSecret())
	s.eng = sequencer.New(db, s.log, s.now, max(cfg.QueueBudget, 0))
	s.mic = cmp.Or(cfg.MIC, sequencer.DefaultMIC)
	deferrals := cfg.Deferrals
	if deferrals == nil {
		deferrals = transparency.Default()
	}
	s.eng.SetPostTrade(deferrals, s.mic)
	s.feedBuffer = cfg.FeedBuffer
	if s.feedBuffer <= 0 {
		s.feedBuffer = DefaultFeedBuffer
	}
	s.events = feed.New(db, s.log)
	for range max(1, runtime.GOMAXPROCS(0)) {
		s.fans = append(s.fans, newFanout(s))
	}
	if cfg.RateLimit <= 0 {
		cfg.RateLimit, cfg.RateBurst = 100, 200
	}
	if cfg.RateBurst <= 0 {
		cfg.RateBurst = int(cfg.RateLimit) * 2
	}
	s.perCredential = ratelimit.New(cfg.RateLimit, cfg.RateBurst)
	s.cl = cluster.New(db, s.eng, cluster.Config{CampaignInterval: cfg.CampaignInterval, Now: s.now, Logger: s.log})
	db.SetCommitHook(s.events.Committed)
	return s
}

// Start rebuilds the trading engine's books and risk state from the
// database and starts the sequencer — or, when another instance leads on
// the same PostgreSQL database, makes this one a standby that takes over
// when the leader is gone (internal/cluster). Reads work without the sequencer;
// trading commands fail with venue.KindNotReady (503) while it does not
// run here.
func (s *Service) Start(ctx context.Context) error {
	return s.cl.Start(ctx)
}

// EngineStats counts the sequencer's work since start.
type EngineStats struct {
	// Batches is how many batches the sequencer ran (one transaction
	// each, unless the batch changed nothing); Commands how many commands
	// they held.
	Batches, Commands int64
	// BatchTime is the sequencer's time in its batches: applying the
	// commands and committing their transaction.
	BatchTime time.Duration
}

// EngineStats reports the sequencer's counters.
func (s *Service) EngineStats() EngineStats {
	batches, commands, t := s.eng.Counters()
	return EngineStats{Batches: batches, Commands: commands, BatchTime: t}
}

// Close stops the sequencer after the commands already queued, and the
// event feed's tailer. (Subscriptions end with their contexts.)
func (s *Service) Close() {
	s.cl.Stop()
	if s.eng.Running() {
		s.eng.Stop()
	}
	s.events.Stop()
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

// Ready reports whether the service can serve requests: the database
// answers, its schema is migrated, and the sequencer runs holding its
// lease.
func (s *Service) Ready(ctx context.Context) error {
	_, err := s.Readiness(ctx)
	return err
}

// Readiness is Ready with the state of each thing it checks: "database"
// (ok, unavailable, not migrated) and "engine" (running, stopped, lease
// lost).
func (s *Service) Readiness(ctx context.Context) (map[string]string, error) {
	checks := map[string]string{"database": "ok", "engine": "running"}
	var errs []error
	v, err := s.db.SchemaVersion(ctx)
	var ms []store.Migration
	if err == nil {
		ms, err = store.Migrations(s.db.Engine())
	}
	switch {
	case err != nil:
		checks["database"] = "unavailable"
		errs = append(errs, err)
	case v < len(ms):
		checks["database"] = "not migrated"
		errs = append(errs, &venue.Error{Kind: venue.KindUnavailable, Message: "database schema not migrated"})
	}
	checks["role"] = s.Role()
	switch {
	case s.Role() == RoleStandby && s.cl.Campaigning():
		checks["engine"] = "standby" // ready: reads and streams are served here, commands by the leader
	case s.eng.LeaseLost():
		checks["engine"] = "lease lost"
		errs = append(errs, store.ErrLeaseLost)
	case !s.eng.Alive():
		checks["engine"] = "stopped"
		errs = append(errs, sequencer.ErrStopped)
	}
	return checks, errors.Join(errs...)
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

// Engine names the database engine behind the service.
func (s *Service) Engine() string { return string(s.db.Engine()) }

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

// KillSwitchResult is a firm's kill switch and, after turning it on, how
// many open records it cancelled.
type KillSwitchResult = sequencer.KillSwitchResult

// AdmissionStats are the sequencer's admission counters.
type AdmissionStats = sequencer.AdmissionStats

// AdmissionStats reports the sequencer's admission counters.
func (s *Service) AdmissionStats() AdmissionStats { return s.eng.AdmissionStats() }

// CheckQueue refuses new business as busy, as the sequencer would, when
// the expected wait is over the queue budget: for adapters to refuse
// before they decode a request.
func (s *Service) CheckQueue() error { return s.eng.CheckQueue() }
