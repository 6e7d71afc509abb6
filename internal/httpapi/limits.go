package httpapi

import (
	"sync"
	"time"

	"github.com/bondvenue/bondvenue/internal/venue"
	"golang.org/x/time/rate"
)

// limiters keeps one token bucket per key (a credential or an address).
type limiters struct {
	mu    sync.Mutex
	limit rate.Limit
	burst int
	m     map[string]*limiterEntry
}

type limiterEntry struct {
	lim  *rate.Limiter
	seen time.Time
}

func newLimiters(limit rate.Limit, burst int) *limiters {
	return &limiters{limit: limit, burst: burst, m: map[string]*limiterEntry{}}
}

// maxLimiters bounds the map; idle buckets (which are full again) are
// dropped when it is reached.
const maxLimiters = 10000

// allow takes one token for key, or answers a rate-limited error carrying
// the wait.
func (l *limiters) allow(key string, now time.Time) error {
	l.mu.Lock()
	e, ok := l.m[key]
	if !ok {
		if len(l.m) >= maxLimiters {
			l.sweep(now)
		}
		e = &limiterEntry{lim: rate.NewLimiter(l.limit, l.burst)}
		l.m[key] = e
	}
	e.seen = now
	r := e.lim.ReserveN(now, 1)
	delay := r.DelayFrom(now)
	if delay > 0 {
		r.CancelAt(now)
	}
	l.mu.Unlock()
	if delay > 0 {
		return &retryAfter{error: &venue.Error{Kind: venue.KindRateLimited, Message: "rate limit exceeded; retry after the Retry-After delay"}, after: delay}
	}
	return nil
}

func (l *limiters) sweep(now time.Time) {
	idle := time.Duration(float64(l.burst)/float64(l.limit)*float64(time.Second)) + time.Second
	for k, e := range l.m {
		if now.Sub(e.seen) > idle {
			delete(l.m, k)
		}
	}
}
