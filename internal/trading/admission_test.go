package trading_test

import (
	"context"
	"errors"
	"runtime"
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

// admissionVenue is a demo venue with the queue budget given, a trader of
// the first firm, a way for it to bid on a continuous book, and its first
// bid, resting.
// The first bid is retried while the venue is busy: the test process,
// running other tests at once, may itself keep goroutines waiting for a
// CPU past the budget for a moment.
func admissionVenue(t *testing.T, e store.Engine, budget time.Duration) (*demoVenue, venue.Principal,
	func(price string) (trading.OfferView, error), trading.OfferView) {
	t.Helper()
	h := auth.FastHasher
	v := newDemoVenueWith(t, testenv.Open(t, e), trading.Config{Hasher: &h, QueueBudget: budget})
	trader := v.principal(t, 0, venue.RoleTrader)
	bid := func(price string) (trading.OfferView, error) {
		return v.svc.CreateOffer(context.Background(), trader, trading.OfferInput{InstrumentID: v.instrument, MarketID: v.partial,
			Direction: venue.Bid, Price: ptrTo(dec(price)), Quantity: ptrTo(dec("100000"))})
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		resting, err := bid("90")
		var ve *venue.Error
		if errors.As(err, &ve) && ve.Kind == venue.KindNotReady && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
			continue
		}
		if err != nil {
			t.Fatalf("CreateOffer = %v", err)
		}
		return v, trader, bid, resting
	}
}

// TestAdmission: the sequencer's queue is bounded in time. New business
// that cannot start within the queue budget is refused as busy — at
// submission when the expected wait is over the budget, when taken if it
// waited past it — with a Retry-After and nothing applied, while the
// priority lane (a cancel) goes through.
func TestAdmission(t *testing.T) {
	testenv.ForEach(t, func(t *testing.T, e store.Engine) {
		ctx := context.Background()
		const budget = 50 * time.Millisecond
		v, trader, bid, resting := admissionVenue(t, e, budget)
		v.svc.IgnoreCPUWait() // the queue's refusals alone are counted here
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

// TestAdmissionCPU: while goroutines wait for a CPU longer than the queue
// budget allows, new business is refused at once as busy, counted apart,
// and cancels still go through; once the CPUs are free again it is
// admitted. The CPUs are really saturated here: 100 goroutines for each P
// that each work for 200 µs and sleep for a moment keep every goroutine
// that wakes waiting about 20 ms for a CPU, as a flood of requests would.
func TestAdmissionCPU(t *testing.T) {
	testenv.ForEach(t, func(t *testing.T, e store.Engine) {
		ctx := context.Background()
		const budget = 20 * time.Millisecond
		v, trader, bid, resting := admissionVenue(t, e, budget)

		stop := make(chan struct{})
		var spinners sync.WaitGroup
		for range 100 * runtime.GOMAXPROCS(0) {
			spinners.Go(func() {
				for {
					select {
					case <-stop:
						return
					default:
					}
					for start := time.Now(); time.Since(start) < 200*time.Microsecond; {
					}
					time.Sleep(time.Microsecond)
				}
			})
		}
		stopSpinning := sync.OnceFunc(func() { close(stop); spinners.Wait() })
		defer stopSpinning()

		deadline := time.Now().Add(20 * time.Second)
		var refusal error
		for {
			if err := v.svc.CheckQueue(); err != nil {
				refusal = err
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("CheckQueue admitted for 20 s with the CPUs saturated (CPU wait %v, budget %v)",
					v.svc.AdmissionStats().CPUWait, budget)
			}
			time.Sleep(5 * time.Millisecond)
		}
		var ve *venue.Error
		if !errors.As(refusal, &ve) || ve.Kind != venue.KindNotReady || ve.RetryAfter < time.Second ||
			!strings.Contains(ve.Message, "CPU") || !strings.Contains(ve.Message, "nothing was applied") {
			t.Errorf("CheckQueue with the CPUs saturated = %v, want busy waiting for a CPU, with Retry-After", refusal)
		}
		if st := v.svc.AdmissionStats(); st.CPU < 1 || st.CPUWait*2 <= budget {
			t.Errorf("admission stats %+v: want a refusal for CPU and a CPU wait over half the budget", st)
		}
		// A cancel is not new business: it goes through.
		if _, err := v.svc.DeleteOffer(ctx, trader, resting.Offer.ID); err != nil {
			t.Errorf("cancel with the CPUs saturated = %v, want done", err)
		}

		stopSpinning()
		for {
			if _, err := bid("91"); err == nil {
				break
			} else if time.Now().After(deadline.Add(10 * time.Second)) {
				t.Fatalf("offer after the CPUs were freed = %v, want admitted again", err)
			}
			time.Sleep(20 * time.Millisecond)
		}
	})
}
