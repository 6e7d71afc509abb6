package trading

import (
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

// lookups remembers, for a moment, what offer entry checks on every
// request and what rarely changes: the accounts and the settlement
// providers offers name. Without it every offer cost a read transaction of
// its own (four round trips on PostgreSQL) before it reached the
// sequencer. Access tokens are not remembered: a revocation, also by the
// admin command in another process, must bind at once.
//
// Whoever changes an account's default provider or a provider's state
// through the Service calls forgetParties after the commit.
type lookups struct {
	mu        sync.RWMutex
	accounts  map[string]remembered[venue.Account]
	providers map[string]remembered[venue.SettlementProvider]
}

type remembered[T any] struct {
	v     T
	until time.Time
}

func newLookups() *lookups {
	return &lookups{accounts: map[string]remembered[venue.Account]{},
		providers: map[string]remembered[venue.SettlementProvider]{}}
}

func recall[T any](l *lookups, m map[string]remembered[T], key string, now time.Time) (T, bool) {
	l.mu.RLock()
	r, ok := m[key]
	l.mu.RUnlock()
	if !ok || !now.Before(r.until) {
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
func (l *lookups) forgetParties() {
	l.mu.Lock()
	clear(l.accounts)
	clear(l.providers)
	l.mu.Unlock()
}
