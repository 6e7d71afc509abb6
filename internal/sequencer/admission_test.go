package sequencer_test

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bondvenue/bondvenue/internal/sequencer"
	"github.com/bondvenue/bondvenue/internal/store"
	"github.com/bondvenue/bondvenue/internal/testenv"
	"github.com/bondvenue/bondvenue/internal/venue"
)

// hold makes seq wait inside a command of the priority lane until release
// is called, so that a test can queue commands behind it. It returns once
// the sequencer is held.
func hold(t *testing.T, seq *sequencer.Sequencer) (release func()) {
	t.Helper()
	held, rel, done := make(chan struct{}), make(chan struct{}), make(chan error, 1)
	go func() {
		_, err := seq.Do(sequencer.WithPriority(context.Background()), nil, func(*sequencer.State, *sequencer.Batch) (any, error) {
			close(held)
			<-rel
			return nil, nil
		})
		done <- err
	}()
	select {
	case <-held:
	case err := <-done:
		t.Fatalf("hold the sequencer: %v", err)
	}
	return sync.OnceFunc(func() {
		close(rel)
		if err := <-done; err != nil {
			t.Errorf("the holding command = %v", err)
		}
	})
}

// queued returns a context whose command signals on the returned channel
// once it is in the sequencer's queue (sequencer.WithEnqueued).
func queued(ctx context.Context) (context.Context, <-chan struct{}) {
	in := make(chan struct{})
	return sequencer.WithEnqueued(ctx, func() { close(in) }), in
}

// isBusy reports whether err is the refusal of a command the sequencer
// cannot start in time: not ready, with a Retry-After, saying nothing was
// applied; the message names why (contains).
func isBusy(err error, contains string) bool {
	var ve *venue.Error
	return errors.As(err, &ve) && ve.Kind == venue.KindNotReady && ve.RetryAfter >= time.Second &&
		strings.Contains(ve.Message, "the venue is busy") && strings.Contains(ve.Message, "nothing was applied") &&
		strings.Contains(ve.Message, contains)
}

// TestAdmission: the sequencer's queue is bounded in time. New business
// (the ordinary lane) that cannot start within the queue budget is refused
// as busy — at submission when the expected wait is over the budget, when
// taken if it waited past it — with a Retry-After and nothing applied,
// while the priority lane (a cancel, a read) goes through. The waits are
// made, not raced: commands queue behind a held sequencer (each known to
// be queued through WithEnqueued), and the cost the expected wait rests on
// is pinned (PinCost). The CPU wait is off (IgnoreCPUWait): this test is of
// the queue alone.
func TestAdmission(t *testing.T) {
	testenv.ForEach(t, func(t *testing.T, e store.Engine) {
		ctx := context.Background()
		// Long enough that a command the test does not hold back never
		// waits so long, whatever else the machine runs.
		const budget = 200 * time.Millisecond
		v := newTestVenue(t, e, nil, budget)
		v.seq.IgnoreCPUWait()
		trader := v.principal(0, 1)
		bid := func(ctx context.Context, price string) (sequencer.OfferResult, error) {
			return v.create(ctx, v.offer(0, v.partial, venue.Bid, price, "100000"))
		}
		resting, err := bid(ctx, "90")
		if err != nil {
			t.Fatalf("first bid = %v", err)
		}

		// Queued behind a held sequencer past the budget: refused when taken.
		release := hold(t, v.seq)
		v.seq.PinCost(0) // nothing looks slow at submission
		const n = 5
		errs := make([]error, n)
		var wg sync.WaitGroup
		for i := range n {
			qctx, in := queued(ctx)
			wg.Go(func() { _, errs[i] = bid(qctx, "91") })
			<-in
		}
		// The rule is about time spent in the queue: this sleep is the
		// wait being measured, not a synchronisation.
		time.Sleep(budget + budget/2)
		cctx, in := queued(ctx)
		var cancelErr error
		cancelled := make(chan struct{})
		go func() {
			defer close(cancelled)
			_, cancelErr = v.cancel(cctx, trader, resting.Offer.ID)
		}()
		<-in // the cancel waits in the priority lane
		if got := v.seq.AdmissionStats().Queued; got != n+1 {
			t.Errorf("AdmissionStats().Queued = %d, want %d", got, n+1)
		}
		release()
		wg.Wait()
		<-cancelled
		for i, err := range errs {
			if !isBusy(err, "waited") {
				t.Errorf("offer %d queued past the budget: err = %v, want busy after waiting, with Retry-After", i, err)
			}
		}
		if cancelErr != nil {
			t.Errorf("cancel in the priority lane = %v, want done", cancelErr)
		}
		if got := v.seq.AdmissionStats().Waited; got != n {
			t.Errorf("AdmissionStats().Waited = %d, want %d", got, n)
		}

		// Expected to wait past the budget: refused at once, not queued.
		// One command ahead (a read, in the priority lane, behind a held
		// sequencer) at a cost of twice the budget each.
		release = hold(t, v.seq)
		rctx, in := queued(sequencer.WithPriority(ctx))
		read := make(chan error, 1)
		go func() {
			_, err := v.seq.Do(rctx, nil, func(*sequencer.State, *sequencer.Batch) (any, error) { return nil, nil })
			read <- err
		}()
		<-in
		v.seq.PinCost(2 * budget)
		if _, err := bid(ctx, "92"); !isBusy(err, "expected wait") {
			t.Errorf("offer with an expected wait over the budget: err = %v, want busy on the expected wait", err)
		}
		if err := v.seq.CheckQueue(); !isBusy(err, "expected wait") {
			t.Errorf("CheckQueue with an expected wait over the budget = %v, want busy on the expected wait", err)
		}
		if st := v.seq.AdmissionStats(); st.Expected != 2 || st.Queued != 1 {
			t.Errorf("AdmissionStats() = %+v, want 2 refused on expectation and only the read queued", st)
		}
		release()
		if err := <-read; err != nil { // the priority lane is served
			t.Errorf("read while busy = %v", err)
		}

		// Nothing refused was applied: only the first offer exists, cancelled.
		if got := v.offers(t); len(got) != 1 || got[0].ID != resting.Offer.ID || got[0].Status != venue.StatusCancelled {
			t.Errorf("offers after the refusals = %+v, want the first one only, cancelled", got)
		}

		// With nothing queued an offer is admitted whatever the last cost
		// measured, so a slow spell cannot lock the venue into refusing
		// everything: the offer's batch measures the cost again.
		v.seq.PinCost(time.Hour)
		if _, err := bid(ctx, "93"); err != nil {
			t.Errorf("offer to an empty queue after a slow spell = %v", err)
		}
		// The batch folds its cost in as it ends, just after it answers:
		// by the answer to the next command it has.
		if _, err := v.seq.Do(sequencer.WithPriority(ctx), nil, func(*sequencer.State, *sequencer.Batch) (any, error) { return nil, nil }); err != nil {
			t.Fatal(err)
		}
		if c := v.seq.AdmissionStats().CostPerCommand; c >= time.Hour {
			t.Errorf("cost per command after a batch = %v, want it measured again below the pinned hour", c)
		}
	})
}

// TestAdmissionOff: with no queue budget nothing is refused for time,
// however costly the commands ahead look.
func TestAdmissionOff(t *testing.T) {
	v := newTestVenue(t, store.SQLite, nil, 0)
	release := hold(t, v.seq)
	rctx, in := queued(sequencer.WithPriority(context.Background()))
	read := make(chan error, 1)
	go func() {
		_, err := v.seq.Do(rctx, nil, func(*sequencer.State, *sequencer.Batch) (any, error) { return nil, nil })
		read <- err
	}()
	<-in
	v.seq.PinCost(time.Hour)
	if err := v.seq.CheckQueue(); err != nil {
		t.Errorf("CheckQueue without a budget = %v, want nil", err)
	}
	created := make(chan error, 1)
	go func() {
		_, err := v.create(context.Background(), v.offer(0, v.partial, venue.Bid, "90", "100000"))
		created <- err
	}()
	release()
	if err := <-read; err != nil {
		t.Errorf("read = %v", err)
	}
	if err := <-created; err != nil {
		t.Errorf("offer without a budget = %v, want admitted", err)
	}
	if st := v.seq.AdmissionStats(); st.Budget != 0 || st.Expected+st.Waited+st.Full+st.CPU != 0 {
		t.Errorf("AdmissionStats() = %+v, want no budget and no refusals", st)
	}
}

// TestAdmissionCPU: while goroutines wait for a CPU longer than the queue
// budget allows, new business is refused at once as busy, counted apart,
// and cancels still go through; once the CPUs are free again it is
// admitted. The CPUs are really saturated here — the runtime's scheduling
// latencies are what the sequencer reads: 100 goroutines for each P that
// each work for 200 µs and sleep for a moment keep every goroutine that
// wakes waiting about 20 ms for a CPU, as a flood of requests would. (The
// rule itself, on a given wait, is TestCPUBusy.) The deadlines only bound
// a failure; no outcome depends on the machine's speed.
func TestAdmissionCPU(t *testing.T) {
	ctx := context.Background()
	const budget = 20 * time.Millisecond
	v := newTestVenue(t, store.SQLite, nil, budget)
	trader := v.principal(0, 1)
	bid := func(price string) (sequencer.OfferResult, error) {
		return v.create(ctx, v.offer(0, v.partial, venue.Bid, price, "100000"))
	}
	// admitted retries new business refused as busy: the test process,
	// running other tests at once, may itself keep goroutines waiting
	// for a CPU past the budget for a moment.
	admitted := func(price string) sequencer.OfferResult {
		t.Helper()
		deadline := time.Now().Add(30 * time.Second)
		for {
			res, err := bid(price)
			if err == nil {
				return res
			}
			if !isBusy(err, "") || time.Now().After(deadline) {
				t.Fatalf("offer at %s = %v, want admitted", price, err)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	resting := admitted("90")

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
		if refusal = v.seq.CheckQueue(); refusal != nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("CheckQueue admitted for 20 s with the CPUs saturated (CPU wait %v, budget %v)",
				v.seq.AdmissionStats().CPUWait, budget)
		}
		time.Sleep(5 * time.Millisecond)
	}
	if !isBusy(refusal, "CPU") {
		t.Errorf("CheckQueue with the CPUs saturated = %v, want busy waiting for a CPU, with Retry-After", refusal)
	}
	if st := v.seq.AdmissionStats(); st.CPU < 1 {
		t.Errorf("AdmissionStats() = %+v, want a refusal for CPU counted", st)
	}
	// A cancel is not new business: it goes through.
	if _, err := v.cancel(ctx, trader, resting.Offer.ID); err != nil {
		t.Errorf("cancel with the CPUs saturated = %v, want done", err)
	}

	stopSpinning()
	admitted("91")
}
