package clock

import (
	"slices"
	"sync"
	"time"
)

// DefaultWindow is how many of the latest samples a Latency keeps: enough
// for a 99th percentile of 40 samples above it, little enough to sort at
// every check.
const DefaultWindow = 4096

// Latency is the venue's gateway-to-gateway latency: the time from an
// order-entry message entering a channel to its answer leaving it, as the
// channels record it (REST and FIX). It keeps the latest samples in a
// ring, so its percentile follows the recent load; safe for concurrent
// use.
type Latency struct {
	mu   sync.Mutex
	ring []time.Duration
	next int // where the next sample goes
	full bool
}

// NewLatency returns a Latency over the latest window samples
// (DefaultWindow when window ≤ 0).
func NewLatency(window int) *Latency {
	if window <= 0 {
		window = DefaultWindow
	}
	return &Latency{ring: make([]time.Duration, window)}
}

// Observe records one message's latency.
func (l *Latency) Observe(d time.Duration) {
	l.mu.Lock()
	l.ring[l.next] = d
	l.next++
	if l.next == len(l.ring) {
		l.next, l.full = 0, true
	}
	l.mu.Unlock()
}

// P99 returns the 99th percentile of the samples in the window (the
// nearest rank: at least 99 % of them are at or under it) and how many
// there are; 0, 0 before the first.
func (l *Latency) P99() (time.Duration, int) {
	l.mu.Lock()
	n := l.next
	if l.full {
		n = len(l.ring)
	}
	s := slices.Clone(l.ring[:n])
	l.mu.Unlock()
	if n == 0 {
		return 0, 0
	}
	slices.Sort(s)
	return s[(99*n+99)/100-1], n
}
