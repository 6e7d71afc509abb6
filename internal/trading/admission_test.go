package trading_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bondvenue/bondvenue/internal/auth"
	"github.com/bondvenue/bondvenue/internal/store"
	"github.com/bondvenue/bondvenue/internal/testenv"
	"github.com/bondvenue/bondvenue/internal/trading"
	"github.com/bondvenue/bondvenue/internal/venue"
)

// TestAdmission: the sequencer's queue is bounded in time. New business
// that cannot start within the queue budget is refused as busy — at
// submission when the expected wait is over the budget, when taken if it
// waited past it — with a Retry-After and nothing applied, while the
// priority lane (a cancel) goes through.
func TestAdmission(t *testing.T) {
	testenv.ForEach(t, func(t *testing.T, e store.Engine) {
		ctx := context.Background()
		h := auth.FastHasher
		const budget = 50 * time.Millisecond
		v := newDemoVenueWith(t, testenv.Open(t, e), trading.Config{Hasher: &h, QueueBudget: budget})
		trader := v.principal(t, 0, venue.RoleTrader)
		bid := func(price string) (trading.OfferView, error) {
			return v.svc.CreateOffer(ctx, trader, trading.OfferInput{InstrumentID: v.instrument, MarketID: v.partial,
				Direction: venue.Bid, Price: ptrTo(dec(price)), Quantity: ptrTo(dec("100000"))})
		}
		resting, err := bid("90")
		if err != nil {
			t.Fatalf("CreateOffer = %v", err)
		}
		isBusy := func(err error) bool {
			var ve *venue.Error
			return errors.As(err, &ve) && ve.Kind == venue.KindNotReady && ve.RetryAfter >= time.Second &&
				strings.Contains(ve.Message, "the venue is busy") && strings.Contains(ve.Message, "nothing was applied")
		}

		// Queued behind a held sequencer past the budget: refused when taken.
		release := v.svc.HoldSequencer()
		v.svc.SetCommandCost(0) // nothing looks slow at submission
		const queued = 5
		errs := make([]error, queued)
		var wg sync.WaitGroup
		for i := range queued {
			wg.Go(func() { _, errs[i] = bid("91") })
		}
		deadline := time.Now().Add(10 * time.Second)
		for v.svc.AdmissionStats().Queued < queued {
			if time.Now().After(deadline) {
				t.Fatalf("queued %d commands, want %d", v.svc.AdmissionStats().Queued, queued)
			}
			time.Sleep(time.Millisecond)
		}
		time.Sleep(2 * budget) // the queued commands are now past the budget
		var cancelErr error
		cancelled := make(chan struct{})
		go func() {
			defer close(cancelled)
			_, cancelErr = v.svc.DeleteOffer(ctx, trader, resting.Offer.ID)
		}()
		for v.svc.AdmissionStats().Queued < queued+1 { // the cancel waits in the priority lane
			if time.Now().After(deadline) {
				t.Fatal("the cancel did not queue")
			}
			time.Sleep(time.Millisecond)
		}
		release()
		wg.Wait()
		<-cancelled
		for i, err := range errs {
			if !isBusy(err) {
				t.Errorf("offer %d queued past the budget: err = %v, want busy with Retry-After", i, err)
			}
		}
		if cancelErr != nil {
			t.Errorf("cancel in the priority lane = %v, want done", cancelErr)
		}
		if got := v.svc.AdmissionStats().Waited; got != queued {
			t.Errorf("refused after waiting = %d, want %d", got, queued)
		}

		// Expected to wait past the budget: refused at once, not queued.
		// One command ahead (a read, in the priority lane, behind a held
		// sequencer) at a cost of twice the budget each.
		release = v.svc.HoldSequencer()
		read := make(chan error, 1)
		go func() { _, err := v.svc.RiskLimits(ctx, trader); read <- err }()
		for v.svc.AdmissionStats().Queued < 1 {
			if time.Now().After(deadline) {
				t.Fatal("the read did not queue")
			}
			time.Sleep(time.Millisecond)
		}
		v.svc.SetCommandCost(2 * budget)
		if _, err := bid("92"); !isBusy(err) {
			t.Errorf("offer with an expected wait over the budget: err = %v, want busy", err)
		}
		if err := v.svc.CheckQueue(); !isBusy(err) {
			t.Errorf("CheckQueue with an expected wait over the budget = %v, want busy", err)
		}
		if got := v.svc.AdmissionStats().Expected; got != 2 {
			t.Errorf("refused on expectation = %d, want 2", got)
		}
		release()
		// The sequencer's reads are in the priority lane: served.
		if err := <-read; err != nil {
			t.Errorf("risk limits while busy = %v", err)
		}

		// Nothing refused was applied: only the first offer exists, cancelled.
		for _, o := range v.offers(t) {
			if o.ID != resting.Offer.ID {
				t.Errorf("offer %s at %s exists; refused offers must not be applied", o.ID, o.Price)
			}
		}
		if st := v.offers(t); len(st) != 1 || st[0].Status != venue.StatusCancelled {
			t.Errorf("offers after the refusals = %+v, want the first one, cancelled", st)
		}

		// With nothing queued an offer is admitted whatever the last cost
		// measured, so a slow spell cannot lock the venue into refusing
		// everything: the offer's batch measures the cost again.
		v.svc.SetCommandCost(10 * budget)
		if _, err := bid("93"); err != nil {
			t.Errorf("offer to an empty queue after a slow spell = %v", err)
		}
		// The batch folds its cost in as it ends, just after it answers.
		for c := v.svc.AdmissionStats().CostPerCommand; c >= 10*budget; c = v.svc.AdmissionStats().CostPerCommand {
			if time.Now().After(deadline.Add(10 * time.Second)) {
				t.Fatalf("cost per command after a batch = %v, want it measured again below %v", c, 10*budget)
			}
			time.Sleep(time.Millisecond)
		}
	})
}
