package idempotency_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/bondvenue/bondvenue/internal/idempotency"
	"github.com/bondvenue/bondvenue/internal/venue"
)

// TestSettlementOf: a claim keeps the answer of a request that succeeded or
// was refused for a reason a retry would meet again, and is released after
// a failure on the venue's side, whichever channel ran it.
func TestSettlementOf(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want idempotency.ClaimSettlement
	}{
		{"success", nil, idempotency.FinishClaim},
		{"invalid", venue.Invalid("bad"), idempotency.FinishClaim},
		{"unauthenticated", venue.Unauthenticated("who"), idempotency.FinishClaim},
		{"forbidden", venue.Forbidden("no"), idempotency.FinishClaim},
		{"not found", venue.NotFound("offer"), idempotency.FinishClaim},
		{"conflict", venue.Conflict("state"), idempotency.FinishClaim},
		{"limit", &venue.Error{Kind: venue.KindLimit, Message: "limit"}, idempotency.FinishClaim},
		{"mismatch", &venue.Error{Kind: venue.KindMismatch, Message: "mismatch"}, idempotency.FinishClaim},
		{"rate limited", &venue.Error{Kind: venue.KindRateLimited, Message: "slow down"}, idempotency.FinishClaim},
		{"too large", &venue.Error{Kind: venue.KindTooLarge, Message: "big"}, idempotency.FinishClaim},
		{"wrapped refusal", fmt.Errorf("create offer: %w", venue.Invalid("bad")), idempotency.FinishClaim},
		{"internal", &venue.Error{Kind: venue.KindInternal, Message: "bug"}, idempotency.ReleaseClaim},
		{"unavailable", venue.ErrUnavailable, idempotency.ReleaseClaim},
		{"not ready", &venue.Error{Kind: venue.KindNotReady, Message: "starting"}, idempotency.ReleaseClaim},
		{"not a venue error", errors.New("disk on fire"), idempotency.ReleaseClaim},
		{"wrapped failure", fmt.Errorf("create offer: %w", venue.ErrUnavailable), idempotency.ReleaseClaim},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := idempotency.SettlementOf(tt.err); got != tt.want {
				t.Errorf("SettlementOf(%v) = %v, want %v", tt.err, got, tt.want)
			}
		})
	}
}
