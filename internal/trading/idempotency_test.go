package trading_test

import (
	"context"
	"strings"
	"testing"

	"github.com/bondvenue/bondvenue/internal/store"
	"github.com/bondvenue/bondvenue/internal/testenv"
	"github.com/bondvenue/bondvenue/internal/trading"
	"github.com/bondvenue/bondvenue/internal/venue"
)

// TestIdempotencyInFlight: while a claimed request is being served, a
// retry is told it is in flight, also after the request committed and
// before its answer is kept (not "applied, answer lost"); once the answer
// is kept the retry replays it; a claim whose request failed is released
// and runs again.
func TestIdempotencyInFlight(t *testing.T) {
	testenv.ForEach(t, func(t *testing.T, e store.Engine) {
		t.Parallel()
		v := newDemoVenue(t, e)
		ctx := context.Background()
		trader := v.principal(t, 0, venue.RoleTrader)
		claim := func(key string) (*trading.IdempotencyClaim, *trading.Answer, error) {
			return v.svc.ClaimIdempotencyKey(ctx, trader, key, "hash-"+key)
		}
		inFlight := func(err error) bool { return err != nil && strings.Contains(err.Error(), "in flight") }

		c, _, err := claim("k1")
		if err != nil || c == nil {
			t.Fatalf("first claim = %v, %v", c, err)
		}
		if _, _, err := claim("k1"); !inFlight(err) {
			t.Errorf("retry while served = %v, want in flight", err)
		}
		// The request applies (a bucket, through its own transaction) and
		// is still being answered.
		name := "in flight"
		if _, err := v.svc.WithClaim(c).CreateBucket(ctx, trader, trading.BucketInput{Name: &name,
			InstrumentIDs: &[]string{v.instrument}}); err != nil {
			t.Fatal(err)
		}
		if _, _, err := claim("k1"); !inFlight(err) {
			t.Errorf("retry after the commit, before the answer is kept = %v, want in flight", err)
		}
		if err := v.svc.FinishIdempotencyKey(ctx, c, trading.Answer{Code: 202, Body: []byte(`{"kept":true}`)}); err != nil {
			t.Fatal(err)
		}
		if _, stored, err := claim("k1"); err != nil || stored == nil || stored.Code != 202 || string(stored.Body) != `{"kept":true}` {
			t.Errorf("retry after the answer = %+v, %v; want the kept answer", stored, err)
		}

		// A failed request's claim is released: the retry runs.
		c, _, err = claim("k2")
		if err != nil {
			t.Fatal(err)
		}
		if err := v.svc.ReleaseIdempotencyKey(ctx, c); err != nil {
			t.Fatal(err)
		}
		if c2, _, err := claim("k2"); err != nil || c2 == nil {
			t.Errorf("retry after a release = %v, %v; want a new claim", c2, err)
		}
		// Another request under the same key is refused whatever its state.
		if _, _, err := v.svc.ClaimIdempotencyKey(ctx, trader, "k2", "another"); venue.KindOf(err) != venue.KindMismatch {
			t.Errorf("same key, another request = %v, want a mismatch", err)
		}
	})
}
