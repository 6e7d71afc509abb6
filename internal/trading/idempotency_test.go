package trading_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/quagmt/udecimal"

	"github.com/bondvenue/bondvenue/internal/bondmath"
	"github.com/bondvenue/bondvenue/internal/idempotency"
	"github.com/bondvenue/bondvenue/internal/store"
	"github.com/bondvenue/bondvenue/internal/testenv"
	"github.com/bondvenue/bondvenue/internal/trading"
	"github.com/bondvenue/bondvenue/internal/venue"
)

// exactValues compares decimals by value and dates as values.
var exactValues = cmp.Options{
	cmp.Comparer(func(a, b udecimal.Decimal) bool { return a.Equal(b) }),
	cmp.Comparer(func(a, b bondmath.Date) bool { return a == b }),
}

// TestIdempotencyInFlight: while a claimed request is being served, a
// retry is told it is in flight, also after the request committed and
// before its answer is kept (not "applied, answer lost"); once the answer
// is kept the retry replays it; a claim whose request failed is released
// and runs again.
func TestIdempotencyInFlight(t *testing.T) {
	testenv.ForEach(t, func(t *testing.T, e store.Engine) {
		t.Parallel()
		v := testenv.NewDemoVenue(t, e)
		ctx := context.Background()
		trader := v.Principal(t, 0, venue.RoleTrader)
		claim := func(key string) (*idempotency.Claim, *idempotency.Answer, error) {
			return v.Core.Keys.Claim(ctx, trader, key, "hash-"+key)
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
		if _, err := v.Svc.WithClaim(c).CreateBucket(ctx, trader, trading.BucketInput{Name: &name,
			InstrumentIDs: &[]string{v.Instrument}}); err != nil {
			t.Fatal(err)
		}
		if _, _, err := claim("k1"); !inFlight(err) {
			t.Errorf("retry after the commit, before the answer is kept = %v, want in flight", err)
		}
		if err := v.Core.Keys.Finish(ctx, c, idempotency.Answer{Code: 202, Body: []byte(`{"kept":true}`)}); err != nil {
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
		if err := v.Core.Keys.Release(ctx, c); err != nil {
			t.Fatal(err)
		}
		if c2, _, err := claim("k2"); err != nil || c2 == nil {
			t.Errorf("retry after a release = %v, %v; want a new claim", c2, err)
		}
		// Another request under the same key is refused whatever its state.
		if _, _, err := v.Core.Keys.Claim(ctx, trader, "k2", "another"); venue.KindOf(err) != venue.KindMismatch {
			t.Errorf("same key, another request = %v, want a mismatch", err)
		}
	})
}

// TestIdempotencyAnswerAfterCrash: a request applied whose process died
// before keeping its answer (the venue restarts; the claim is an earlier
// sequencer lease's, applied, answerless) is answered on retry from what
// its commit kept: the retry's use case returns what the first returned,
// the record as it was committed, and applies nothing. Through the
// sequencer (an accept, an amendment of an offer cancelled since) and
// through a use case's own transaction (a bucket).
func TestIdempotencyAnswerAfterCrash(t *testing.T) {
	testenv.ForEach(t, func(t *testing.T, e store.Engine) {
		t.Parallel()
		clock := testenv.NewClock(time.Now().UTC())
		v := testenv.NewDemoVenueClocked(t, testenv.Open(t, e), clock.Now)
		ctx := context.Background()
		buyer, dealer := v.Principal(t, 0, venue.RoleTrader), v.Principal(t, 1, venue.RoleTrader)
		// firstRun runs a request under key, its answer never kept.
		firstRun := func(key string, run func(*trading.Service) (any, error)) any {
			t.Helper()
			c, _, err := v.Core.Keys.Claim(ctx, buyer, key, "hash-"+key)
			if err != nil || c == nil || c.Replayed() {
				t.Fatalf("claim %s = %v, %v", key, c, err)
			}
			got, err := run(v.Svc.WithClaim(c))
			if err != nil {
				t.Fatalf("%s: %v", key, err)
			}
			return got
		}
		// retry claims key again after the crash and runs the request on
		// the claim; its answer is then kept.
		retry := func(key string, first any, run func(*trading.Service) (any, error)) {
			t.Helper()
			c, kept, err := v.Core.Keys.Claim(ctx, buyer, key, "hash-"+key)
			if err != nil || kept != nil || c == nil || !c.Replayed() {
				t.Fatalf("retry of %s after the crash: claim %v, kept %v, %v; want a replayed claim", key, c, kept, err)
			}
			got, err := run(v.Svc.WithClaim(c))
			if err != nil {
				t.Fatalf("retry of %s = %v, want the first answer", key, err)
			}
			if d := cmp.Diff(first, got, exactValues); d != "" {
				t.Errorf("retry of %s answered otherwise than the first request (-first +retry):\n%s", key, d)
			}
			if err := v.Core.Keys.Finish(ctx, c, idempotency.Answer{Code: 200, Body: []byte(`{}`)}); err != nil {
				t.Fatal(err)
			}
			if _, kept, err := v.Core.Keys.Claim(ctx, buyer, key, "hash-"+key); err != nil || kept == nil {
				t.Errorf("retry of %s once answered = %v, %v; want the kept answer", key, kept, err)
			}
		}

		// The RFQ and the quote are created under keys too: their retries
		// come after the accept closed both.
		request := func(s *trading.Service) (any, error) {
			return s.CreateRFQ(ctx, buyer, trading.OfferInput{InstrumentID: v.Instrument, MarketID: v.OTC(t),
				Direction: venue.Bid, Quantity: ptrTo(dec("1000000")), Counterparties: []string{dealer.ParticipantID}})
		}
		requested := firstRun("rfq", request)
		rfq := requested.(trading.OfferView)
		// A quote valid for a moment: its retry comes after valid_until.
		validUntil := clock.Now().Add(1500 * time.Millisecond)
		quoting := func(s *trading.Service) (any, error) {
			return s.CreateOffer(ctx, dealer, trading.OfferInput{InstrumentID: v.Instrument, MarketID: v.OTC(t),
				Direction: venue.Ask, Price: ptrTo(dec("99.5")), Quantity: ptrTo(dec("1000000")), MatchedOfferID: rfq.ID,
				Validity: venue.GTD, ValidUntil: &validUntil})
		}
		quoted := firstRun("quote", quoting)
		quote := quoted.(trading.OfferView)
		accept := func(s *trading.Service) (any, error) { return s.AcceptQuote(ctx, buyer, quote.ID, venue.Parties{}) }
		accepted := firstRun("accept", accept)

		bid, err := v.Svc.CreateOffer(ctx, buyer, trading.OfferInput{InstrumentID: v.Instrument, MarketID: v.Partial,
			Direction: venue.Bid, Price: ptrTo(dec("90")), Quantity: ptrTo(dec("5000"))})
		if err != nil {
			t.Fatal(err)
		}
		amend := func(s *trading.Service) (any, error) {
			return s.UpdateOffer(ctx, buyer, bid.ID, trading.ChangeInput{Quantity: ptrTo(dec("7000"))})
		}
		amended := firstRun("amend", amend)
		if _, err := v.Svc.DeleteOffer(ctx, buyer, bid.ID); err != nil {
			t.Fatal(err)
		}

		name := "after a crash"
		bucket := func(s *trading.Service) (any, error) {
			return s.CreateBucket(ctx, buyer, trading.BucketInput{Name: &name, InstrumentIDs: &[]string{v.Instrument}})
		}
		created := firstRun("bucket", bucket)

		v.Restart(t) // the process died: no answer was kept
		clock.Advance(2 * time.Second)
		retry("rfq", requested, request)
		retry("quote", quoted, quoting)
		retry("accept", accepted, accept)
		retry("amend", amended, amend)
		retry("bucket", created, bucket)

		trades, err := v.Svc.Trades(ctx, buyer, trading.TradeFilter{OfferID: quote.ID}, venue.Page{})
		if err != nil || len(trades.Items) != 1 {
			t.Errorf("trades of the accepted quote = %d, %v; want 1", len(trades.Items), err)
		}
		buckets, err := v.Svc.Buckets(ctx, buyer, trading.BucketFilter{}, venue.Page{})
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, b := range buckets.Items {
			if b.Name == name {
				n++
			}
		}
		if n != 1 {
			t.Errorf("%d buckets named %q, want 1", n, name)
		}
	})
}
