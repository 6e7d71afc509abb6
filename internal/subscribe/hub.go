// Package subscribe runs the venue's live subscriptions: readers of the
// committed-event feed (internal/feed) that receive, in sequence order and
// without gap, the events they may see, redacted for them
// (internal/redact), first from the log and then live; the fan-out that
// delivers one event to every caught-up subscriber; and the OHLC bars,
// read and folded live alike. Every channel (the streams, FIX, GET
// /events) subscribes here.
package subscribe

import (
	"context"
	"log/slog"
	"runtime"
	"time"

	"github.com/bondvenue/bondvenue/internal/feed"
	"github.com/bondvenue/bondvenue/internal/redact"
	"github.com/bondvenue/bondvenue/internal/store"
	"github.com/bondvenue/bondvenue/internal/venue"
)

// Viewers says what a reader may see of the events: the redaction view of
// a principal (trading.Service.Viewer), asked again every Config.Refresh
// so that counterparty changes reach a live subscription.
type Viewers interface {
	Viewer(ctx context.Context, p venue.Principal) (*redact.Viewer, error)
}

// Config tunes a Hub.
type Config struct {
	// Buffer is each subscription's buffer in events (default
	// DefaultFeedBuffer): a subscriber further behind is cut off.
	Buffer int
	// Refresh is how long a subscription keeps its view before it asks
	// Viewers again (default one second).
	Refresh time.Duration
	// Now is the clock (default time.Now).
	Now func() time.Time
	// Logger receives operational logs (default slog.Default()).
	Logger *slog.Logger
}

// Hub is the venue's live subscriptions over one feed.
type Hub struct {
	db      *store.DB
	events  *feed.Feed
	viewers Viewers
	buffer  int
	refresh time.Duration
	now     func() time.Time
	log     *slog.Logger
	fans    []*fanout
}

// New returns the subscriptions to events (the feed of db's event log),
// redacted by viewers.
func New(db *store.DB, events *feed.Feed, viewers Viewers, cfg Config) *Hub {
	h := &Hub{db: db, events: events, viewers: viewers, buffer: cfg.Buffer, refresh: cfg.Refresh, now: cfg.Now, log: cfg.Logger}
	if h.buffer <= 0 {
		h.buffer = DefaultFeedBuffer
	}
	if h.refresh <= 0 {
		h.refresh = time.Second
	}
	if h.now == nil {
		h.now = time.Now
	}
	if h.log == nil {
		h.log = slog.Default()
	}
	for range max(1, runtime.GOMAXPROCS(0)) {
		h.fans = append(h.fans, newFanout(h))
	}
	return h
}

// readers are the roles that may read the feed: every role.
var readers = []venue.Role{venue.RoleOperator, venue.RoleAdmin, venue.RoleTrader, venue.RoleViewer}

// require returns a forbidden error unless the caller holds one of roles.
func require(p venue.Principal, roles ...venue.Role) error {
	for _, r := range roles {
		if p.Role == r {
			return nil
		}
	}
	return venue.Forbidden("role %s may not perform this operation", p.Role)
}
