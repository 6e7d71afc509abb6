package testenv

import (
	"context"
	"testing"
	"time"
)

// deadlineMargin is how long before go test's -timeout a wait gives up, so
// that the test fails with its own message rather than the binary's panic.
const deadlineMargin = 30 * time.Second

// Deadline is when a test's waits give up: shortly before go test's
// -timeout ends the test binary. How long a condition takes to come true
// is the machine's business, not the test's, so no wait has a budget of
// its own: a loaded machine makes a test slower, never failed. ok is
// false when the binary has no time-out (the waits never give up).
func Deadline(t testing.TB) (deadline time.Time, ok bool) {
	dt, isT := t.(interface{ Deadline() (time.Time, bool) })
	if !isT {
		return time.Time{}, false
	}
	d, ok := dt.Deadline()
	if !ok {
		return time.Time{}, false
	}
	if margin := time.Until(d) / 10; margin < deadlineMargin {
		return d.Add(-margin), true
	}
	return d.Add(-deadlineMargin), true
}

// Expired returns a channel that delivers when the test's waits give up
// (Deadline), for a select that waits on an event; nil, which never
// delivers, when the binary has no time-out.
func Expired(t testing.TB) <-chan time.Time {
	d, ok := Deadline(t)
	if !ok {
		return nil
	}
	return time.After(time.Until(d))
}

// Wait waits until cond holds, looking again every few milliseconds, and
// fails the test naming what only at its Deadline.
func Wait(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline, ok := Deadline(t)
	for pause := time.Millisecond; !cond(); pause = min(2*pause, 20*time.Millisecond) {
		if ok && time.Now().After(deadline) {
			t.Fatalf("%s: still not so when the test's time ran out", what)
		}
		time.Sleep(pause)
	}
}

// Context returns a context that ends at the test's Deadline, or when the
// test ends.
func Context(t testing.TB) context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	if d, ok := Deadline(t); ok {
		ctx, cancel = context.WithDeadline(context.Background(), d)
	}
	t.Cleanup(cancel)
	return ctx
}
