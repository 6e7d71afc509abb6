package ratelimit_test

import (
	"testing"
	"time"

	"github.com/bondvenue/bondvenue/internal/ratelimit"
)

func TestAllow(t *testing.T) {
	l := ratelimit.New(1, 2)
	now := time.Date(2026, 11, 20, 14, 48, 0, 0, time.UTC)
	for i, want := range []bool{true, true, false} {
		if got := l.Allow("a", now) == 0; got != want {
			t.Errorf("request %d: allowed = %v, want %v", i, got, want)
		}
	}
	if wait := l.Allow("a", now); wait <= 0 || wait > time.Second {
		t.Errorf("Allow over the burst waits %v, want within (0, 1s]", wait)
	}
	if l.Allow("b", now) != 0 {
		t.Error("another key was refused: each key has its own bucket")
	}
	if l.Allow("a", now.Add(time.Second)) != 0 {
		t.Error("a second later the bucket holds a token again")
	}
}
