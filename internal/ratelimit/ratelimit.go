// Package ratelimit keeps one token bucket per key (a credential, a client
// address) for every adapter that admits requests.
package ratelimit

import (
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// Limiters is a token bucket per key, all of one rate and burst. It is
// safe for concurrent use.
type Limiters struct {
	mu    sync.Mutex
	limit rate.Limit
	burst int
	m     map[string]*entry
}

type entry struct {
	lim  *rate.Limiter
	seen time.Time
}

// New returns buckets refilling at perSecond with room for burst.
func New(perSecond float64, burst int) *Limiters {
	return &Limiters{limit: rate.Limit(perSecond), burst: burst, m: map[string]*entry{}}
}

// maxKeys bounds the map; idle buckets (which are full again) are dropped
// when it is reached.
const maxKeys = 10000

// Allow takes one token of key's bucket at now. It returns 0 when the
// token was there, else how long until it will be (and takes nothing).
func (l *Limiters) Allow(key string, now time.Time) time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	e, ok := l.m[key]
	if !ok {
		if len(l.m) >= maxKeys {
			l.sweep(now)
		}
		e = &entry{lim: rate.NewLimiter(l.limit, l.burst)}
		l.m[key] = e
	}
	e.seen = now
	r := e.lim.ReserveN(now, 1)
	delay := r.DelayFrom(now)
	if delay > 0 {
		r.CancelAt(now)
	}
	return delay
}

func (l *Limiters) sweep(now time.Time) {
	idle := time.Duration(float64(l.burst)/float64(l.limit)*float64(time.Second)) + time.Second
	for k, e := range l.m {
		if now.Sub(e.seen) > idle {
			delete(l.m, k)
		}
	}
}
