package access

import (
	"strconv"
	"testing"
	"time"

	"github.com/bondvenue/bondvenue/internal/venue"
)

// TestRemembered covers what the use-case tests cannot reach
// deterministically: a resolution read before Forget is not remembered
// after it, a clock set back does not stretch an entry, and the table
// stays bounded.
func TestRemembered(t *testing.T) {
	now := time.Date(2026, 11, 20, 14, 48, 0, 0, time.UTC)
	p := venue.Principal{UserID: "u", ParticipantID: "p", Role: venue.RoleTrader, ClientID: "c"}
	recall := func(tk *Tokens, hash string, at time.Time) (venue.Principal, bool) {
		p, ok, _ := tk.recall(hash, at)
		return p, ok
	}
	fresh := func() *Tokens { return &Tokens{resolved: map[string]resolution{}} }

	t.Run("forgotten while resolving", func(t *testing.T) {
		tk := fresh()
		epoch := tk.epoch
		tk.Forget() // a revocation committed while the token was read
		tk.remember("h", resolution{p: p, until: now.Add(CacheTTL)}, epoch)
		if got, ok := recall(tk, "h", now); ok {
			t.Errorf("recall() = %+v, remembered a resolution read before Forget", got)
		}
		tk.remember("h", resolution{p: p, until: now.Add(CacheTTL)}, tk.epoch)
		if got, ok := recall(tk, "h", now); !ok || got != p {
			t.Errorf("recall() = %+v, %v, want %+v", got, ok, p)
		}
		tk.Forget()
		if _, ok := recall(tk, "h", now); ok {
			t.Error("recall() after Forget found the token")
		}
	})

	t.Run("clock set back", func(t *testing.T) {
		tk := fresh()
		tk.remember("h", resolution{p: p, until: now.Add(CacheTTL)}, tk.epoch)
		if _, ok := recall(tk, "h", now.Add(-time.Millisecond)); ok {
			t.Error("recall() before the entry was made trusted it beyond CacheTTL")
		}
		if _, ok := recall(tk, "h", now.Add(CacheTTL-time.Millisecond)); !ok {
			t.Error("recall() within CacheTTL missed")
		}
	})

	t.Run("bounded", func(t *testing.T) {
		tk := fresh()
		for i := range maxTokens + 1 {
			tk.remember(strconv.Itoa(i), resolution{p: p, until: now.Add(CacheTTL)}, tk.epoch)
		}
		if n := len(tk.resolved); n != 1 {
			t.Errorf("after %d entries the table holds %d, want 1 (emptied when full)", maxTokens+1, n)
		}
	})
}
