package trading

import (
	"strconv"
	"testing"
	"time"

	"github.com/bondvenue/bondvenue/internal/venue"
)

// TestTokenLookups covers what the service tests cannot reach
// deterministically: a resolution read before forgetTokens is not
// remembered after it, a clock set back does not stretch an entry, and
// the table stays bounded.
func TestTokenLookups(t *testing.T) {
	now := time.Date(2026, 11, 20, 14, 48, 0, 0, time.UTC)
	p := venue.Principal{UserID: "u", ParticipantID: "p", Role: venue.RoleTrader, ClientID: "c"}

	t.Run("forgotten while resolving", func(t *testing.T) {
		l := newLookups()
		epoch := l.tokenEpochNow()
		l.forgetTokens() // a revocation committed while the token was read
		l.rememberToken("h", p, now.Add(tokenCacheTTL), epoch)
		if got, ok := recall(l, l.tokens, "h", now); ok {
			t.Errorf("recall() = %+v, remembered a resolution read before forgetTokens", got)
		}
		l.rememberToken("h", p, now.Add(tokenCacheTTL), l.tokenEpochNow())
		if got, ok := recall(l, l.tokens, "h", now); !ok || got != p {
			t.Errorf("recall() = %+v, %v, want %+v", got, ok, p)
		}
		l.forgetTokens()
		if _, ok := recall(l, l.tokens, "h", now); ok {
			t.Error("recall() after forgetTokens found the token")
		}
	})

	t.Run("clock set back", func(t *testing.T) {
		l := newLookups()
		l.rememberToken("h", p, now.Add(tokenCacheTTL), l.tokenEpochNow())
		if _, ok := recall(l, l.tokens, "h", now.Add(-time.Millisecond)); ok {
			t.Error("recall() before the entry was made trusted it beyond tokenCacheTTL")
		}
		if _, ok := recall(l, l.tokens, "h", now.Add(tokenCacheTTL-time.Millisecond)); !ok {
			t.Error("recall() within tokenCacheTTL missed")
		}
	})

	t.Run("bounded", func(t *testing.T) {
		l := newLookups()
		for i := range maxLookups + 1 {
			l.rememberToken(strconv.Itoa(i), p, now.Add(tokenCacheTTL), l.tokenEpochNow())
		}
		if n := len(l.tokens); n != 1 {
			t.Errorf("after %d entries the table holds %d, want 1 (emptied when full)", maxLookups+1, n)
		}
	})
}
