package trading

import (
	"golang.org/x/sync/singleflight"

	"sync"
	"time"

	"github.com/bondvenue/bondvenue/internal/venue"
)

// lookupTTL bounds how long offer entry trusts a remembered lookup. A
// change made through this Service forgets the lookups at once; a change
// made by another instance takes effect on offer entry within lookupTTL.
const lookupTTL = time.Second

// maxLookups bounds each table; a full table is emptied.
const maxLookups = 10000

// lookups remembers, for a moment, what every request checks and what
// rarely changes: the accounts and the settlement providers offers name,
// the instruments and markets, counterparties and participants' names.
// Without it every offer cost a read transaction of its own (four round
// trips on PostgreSQL) before it reached the sequencer. (The access
// tokens are remembered by internal/access.)
//
// Whoever changes an account's default provider or a provider's state
// through the Service calls forgetParties after the commit.
type lookups struct {
	mu        sync.RWMutex
	accounts  map[string]remembered[venue.Account]
	providers map[string]remembered[venue.SettlementProvider]
	// names holds participants' public names and LEIs, for the book
	// entries of price_change events.
	names map[string]remembered[[2]string]
	// nameReads collapses the readers that miss the same name at once
	// (every socket following the feed, when the entry lapses) into one
	// read of the store.
	nameReads singleflight.Group
	// cps holds participants' enabled counterparties, for the feed's
	// readers (shared, never changed once remembered).
	cps map[string]remembered[map[string]bool]
	// settlement holds, under "", which CSDs can settle together, for
	// the book entries readers see.
	settlement map[string]remembered[*venue.Settlement]
	// isins and instruments hold instruments by ISIN and by id, markets
	// the venue's markets (under ""), for DefaultMarket and
	// InstrumentByISIN.
	isins, instruments map[string]remembered[venue.Instrument]
	markets            map[string]remembered[[]venue.Market]
}

type remembered[T any] struct {
	v     T
	until time.Time
}

func newLookups() *lookups {
	return &lookups{accounts: map[string]remembered[venue.Account]{},
		providers:   map[string]remembered[venue.SettlementProvider]{},
		names:       map[string]remembered[[2]string]{},
		cps:         map[string]remembered[map[string]bool]{},
		settlement:  map[string]remembered[*venue.Settlement]{},
		isins:       map[string]remembered[venue.Instrument]{},
		instruments: map[string]remembered[venue.Instrument]{},
		markets:     map[string]remembered[[]venue.Market]{}}
}

func recall[T any](l *lookups, m map[string]remembered[T], key string, now time.Time) (T, bool) {
	l.mu.RLock()
	r, ok := m[key]
	l.mu.RUnlock()
	// An entry good for longer than lookupTTL from now was remembered in
	// the future: the clock was set back. It must not outlive its bound.
	if !ok || !now.Before(r.until) || r.until.Sub(now) > lookupTTL {
		var zero T
		return zero, false
	}
	return r.v, true
}

func remember[T any](l *lookups, m map[string]remembered[T], key string, v T, until time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(m) >= maxLookups {
		clear(m)
	}
	m[key] = remembered[T]{v: v, until: until}
}

// forgetParties drops every remembered account and settlement provider.
// forgetReference forgets the instruments and markets: an operator
// changed one.
func (l *lookups) forgetReference() {
	l.mu.Lock()
	clear(l.settlement)
	clear(l.isins)
	clear(l.instruments)
	clear(l.markets)
	l.mu.Unlock()
}

func (l *lookups) forgetParties() {
	l.mu.Lock()
	clear(l.accounts)
	clear(l.providers)
	clear(l.settlement)
	l.mu.Unlock()
}
