package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/bondvenue/bondvenue/internal/trading"
	"github.com/bondvenue/bondvenue/internal/venue"
	"github.com/quagmt/udecimal"
)

// openConfig is the shape of an open-loop run.
type openConfig struct {
	// rate is the offers per second sent; 0 runs the closed-loop
	// scenarios instead.
	rate float64
	// cross is the share of offers that cross a counterparty's resting
	// offer (0–1).
	cross float64
	// timeout bounds a request from its scheduled time.
	timeout time.Duration
	// maxInFlight caps the connections, hence the requests in flight.
	maxInFlight int
	// queueBudget is the venue's admission bound (0: none).
	queueBudget time.Duration
	// preload is how many resting offers are entered before the warm-up.
	preload int
	// venueCPUs, if set, runs the venue in a process of its own on these
	// CPUs and the generator on the others.
	venueCPUs []int
	warmup    time.Duration
	duration  time.Duration
}

// An openTarget is what the open loop sends: body appends request n's body
// to dst and names its bearer token; seen, if set, inspects every 2xx
// answer (on the worker's goroutine, so it must be safe for concurrent
// calls).
type openTarget struct {
	url  string
	body func(dst []byte, n int) ([]byte, string)
	seen func(body []byte)
	// begin and end are called at the measured window's start and end
	// (the venue's readings).
	begin, end func()
}

// openStats is the outcome of the measured window of an open-loop run.
// Every request scheduled in the window is sent and counted once, as
// accepted, refused, failed or timed out.
type openStats struct {
	// Sent counts the requests scheduled in the window.
	Sent int
	// Accepted are the 2xx answers; Latencies their times from the
	// scheduled send to the answer, sorted. InWindow counts the 2xx
	// answers that arrived in the window (whenever their requests were
	// scheduled), Drain is how long after it the last answer came.
	Accepted  int
	Latencies []time.Duration
	InWindow  int
	Drain     time.Duration
	// Refused are 503 answers with Retry-After (the venue is busy);
	// RefusedLatencies their times, sorted.
	Refused          int
	RefusedLatencies []time.Duration
	// Errors are other answers and failed connections; TimedOut the
	// requests not answered within the time-out of their scheduled send.
	Errors, TimedOut int
	ErrorSamples     []string
	// Late counts requests that found every connection busy at their
	// scheduled time and waited for one (the in-flight cap was hit);
	// SendLag is the time from the scheduled send to the write (p99, max).
	Late                   int
	SendLagP99, SendLagMax time.Duration
	// Connections is how many connections the run opened.
	Connections int
	// CPU is the process's CPU time in the window.
	CPU time.Duration
}

// timerSlack is how early a request may be written: the runtime's timers
// fire up to a millisecond late when the process is idle (the poller
// sleeps in whole milliseconds), which would add up to a millisecond of
// the generator's own to every latency. A request written early has its
// latency counted from the write.
const timerSlack = time.Millisecond

// earlier returns the earlier of two times.
func earlier(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

// openJob is one scheduled request.
type openJob struct {
	n  int
	at time.Time
}

// openWorker owns one connection and sends the jobs it takes, one at a
// time.
type openWorker struct {
	raw             *rawConn
	buf             bytes.Buffer
	body            []byte
	lat, refusedLat []time.Duration
	lag             []time.Duration
	errs, timeouts  int
	inWindow        int
	last            time.Time
	samples         []string
}

// openLoop sends t's requests on a fixed schedule, request n at start +
// n/rate whatever the answers so far (open loop, as a population of
// independent clients sends them): requests scheduled in the warm-up are
// not counted, those in the measured window are. A request's latency runs
// from its scheduled time, not from when it was written, so a server that
// stalls is charged for every request it held up (no coordinated
// omission); a request may leave up to timerSlack early, and its latency
// then runs from the write. Each request in flight has a connection of its own, opened
// when every open one is busy, up to cfg.maxInFlight; past that a request
// waits for a connection and counts as late.
func openLoop(ctx context.Context, cfg openConfig, t openTarget) (openStats, error) {
	if _, err := newRawConn(t.url); err != nil {
		return openStats{}, err
	}
	interval := float64(time.Second) / cfg.rate
	start := time.Now()
	from := start.Add(cfg.warmup)
	until := from.Add(cfg.duration)

	// The CPU and the venue's readings over the window, taken by a
	// goroutine of their own at its start and end.
	var cpu time.Duration
	var measure sync.WaitGroup
	measure.Go(func() {
		if !sleepUntil(ctx, from) {
			return
		}
		cpu0 := processCPU()
		t.begin()
		if sleepUntil(ctx, until) {
			t.end()
			cpu = processCPU() - cpu0
		}
	})

	var s openStats

	jobs := make(chan openJob)
	var workers []*openWorker
	var wg sync.WaitGroup
	for n := 0; ctx.Err() == nil; n++ {
		at := start.Add(time.Duration(float64(n) * interval))
		if !at.Before(until) {
			break
		}
		if d := time.Until(at) - timerSlack; d > 0 {
			time.Sleep(d)
		}
		measured := !at.Before(from)
		if measured {
			s.Sent++
		}
		j := openJob{n: n, at: at}
		select {
		case jobs <- j: // an idle connection took it
			continue
		default:
		}
		if len(workers) < cfg.maxInFlight {
			raw, _ := newRawConn(t.url)
			w := &openWorker{raw: raw}
			workers = append(workers, w)
			wg.Go(func() { w.run(jobs, t, from, until, cfg.timeout) })
		} else if measured {
			s.Late++
		}
		select {
		case jobs <- j:
		case <-ctx.Done():
			if measured {
				s.Sent--
			}
		}
	}
	close(jobs)
	wg.Wait()
	measure.Wait()

	s.CPU, s.Connections = cpu, len(workers)
	var lags []time.Duration
	for _, w := range workers {
		w.raw.close()
		s.Latencies = append(s.Latencies, w.lat...)
		s.RefusedLatencies = append(s.RefusedLatencies, w.refusedLat...)
		lags = append(lags, w.lag...)
		s.Errors += w.errs
		s.TimedOut += w.timeouts
		s.InWindow += w.inWindow
		s.Drain = max(s.Drain, w.last.Sub(until))
		for _, e := range w.samples {
			if len(s.ErrorSamples) < maxErrorSamples {
				s.ErrorSamples = append(s.ErrorSamples, e)
			}
		}
	}
	s.Accepted, s.Refused = len(s.Latencies), len(s.RefusedLatencies)
	slices.Sort(s.Latencies)
	slices.Sort(s.RefusedLatencies)
	slices.Sort(lags)
	s.SendLagP99 = percentile(lags, 0.99)
	if len(lags) > 0 {
		s.SendLagMax = lags[len(lags)-1]
	}
	return s, ctx.Err()
}

// sleepUntil waits until t or until ctx ends, and reports whether t came.
func sleepUntil(ctx context.Context, t time.Time) bool {
	timer := time.NewTimer(time.Until(t))
	defer timer.Stop()
	select {
	case <-timer.C:
		return true
	case <-ctx.Done():
		return false
	}
}

func (w *openWorker) run(jobs <-chan openJob, t openTarget, from, until time.Time, timeout time.Duration) {
	for j := range jobs {
		deadline := j.at.Add(timeout)
		if !time.Now().Before(deadline) {
			// It waited for a connection past its time-out: not sent,
			// and the connection kept.
			if !j.at.Before(from) {
				w.timeouts++
			}
			continue
		}
		var token string
		w.body, token = t.body(w.body[:0], j.n)
		sent := time.Now()
		status, err := w.raw.postBy(deadline, w.body, token, &w.buf)
		done := time.Now()
		elapsed := done.Sub(earlier(j.at, sent)) // late: from the schedule; early: from the write
		if err == nil && status/100 == 2 && !done.Before(from) && done.Before(until) {
			w.inWindow++ // the window's throughput, whenever it was sent
		}
		if j.at.Before(from) {
			continue
		}
		w.last = done
		w.lag = append(w.lag, max(sent.Sub(j.at), 0))
		switch {
		case errors.Is(err, os.ErrDeadlineExceeded):
			w.timeouts++
		case err != nil:
			w.fail(err.Error())
		case status/100 == 2:
			w.lat = append(w.lat, elapsed)
			if t.seen != nil {
				t.seen(w.buf.Bytes())
			}
		case status == http.StatusServiceUnavailable && w.raw.retryAfter:
			w.refusedLat = append(w.refusedLat, elapsed)
		default:
			w.fail(fmt.Sprintf("%d %s: %.300s", status, http.StatusText(status), w.buf.Bytes()))
		}
	}
}

func (w *openWorker) fail(why string) {
	w.errs++
	if len(w.samples) < maxErrorSamples {
		w.samples = append(w.samples, why)
	}
}

// runOpen runs the open loop against the venue of scenario c on a fresh
// database: offers that rest (bids 80–89.99, asks 110–119.99), the given
// share of them instead crossing a counterparty's offer at 100.00.
func runOpen(ctx context.Context, cfg config, dbs *databases, log *slog.Logger) (openResult, error) {
	if len(cfg.open.venueCPUs) > 0 {
		return runOpenSplit(ctx, cfg)
	}
	runtime.GC()
	v, err := newOpenVenue(ctx, cfg, dbs, log)
	if err != nil {
		return openResult{}, err
	}
	defer v.close()
	var window venueWindow
	t, traded := openTargetOf(v.srv.url, v.dv, cfg.open.cross)
	t.begin, t.end = v.begin, func() { window = v.end() }
	stopProfile, err := startProfile(cfg.cpuProfile, cfg.memProfile, "open")
	if err != nil {
		return openResult{}, err
	}
	s, err := openLoop(ctx, cfg.open, t)
	if perr := stopProfile(); err == nil {
		err = perr
	}
	if err != nil {
		return openResult{}, err
	}
	sum, err := v.summary(ctx)
	res := openResultOf(cfg.open, s, window, sum)
	res.TradedOffers = traded.Load()
	return res, err
}

// runOpenSplit runs the open loop with the venue in a process of its own
// on cfg.open.venueCPUs and the generator, in this one, on the other CPUs,
// so that neither takes the other's CPU: the way to offer a venue more
// than it can take on a machine whose cores the generator would
// otherwise share.
func runOpenSplit(ctx context.Context, cfg config) (openResult, error) {
	all, err := onlineCPUs()
	if err != nil {
		return openResult{}, err
	}
	var generator []int
	for _, c := range all {
		if !slices.Contains(cfg.open.venueCPUs, c) {
			generator = append(generator, c)
		}
	}
	for _, c := range cfg.open.venueCPUs {
		if !slices.Contains(all, c) {
			return openResult{}, usageError{Msg: fmt.Sprintf("--open-venue-cpus: CPU %d is not one this process may use (%v)", c, all)}
		}
	}
	if len(generator) == 0 {
		return openResult{}, usageError{Msg: fmt.Sprintf("--open-venue-cpus leaves no CPU for the generator (of %v)", all)}
	}
	child, err := startChildVenue(cfg.args, cfg.open.venueCPUs)
	if err != nil {
		return openResult{}, err
	}
	defer child.close()
	unpin, err := pinProcess(generator)
	if err != nil {
		return openResult{}, err
	}
	defer func() {
		if err := unpin(); err != nil {
			slog.Warn("bvload: could not restore the CPU affinity", "error", err)
		}
	}()
	var window venueWindow
	var askErr error
	ask := func(cmd string, reply any) {
		if err := child.ask(cmd, reply); err != nil && askErr == nil {
			askErr = err
		}
	}
	t, traded := openTargetOf(child.hello.URL, child.hello.demoVenue(), cfg.open.cross)
	t.begin = func() { var ok string; ask("begin", &ok) }
	t.end = func() { ask("end", &window) }
	stopProfile, err := startProfile(cfg.cpuProfile, cfg.memProfile, "open-generator")
	if err != nil {
		return openResult{}, err
	}
	s, err := openLoop(ctx, cfg.open, t)
	if perr := stopProfile(); err == nil {
		err = perr
	}
	if err != nil {
		return openResult{}, err
	}
	var sum venueSummary
	ask("summary", &sum)
	if askErr != nil {
		return openResult{}, askErr
	}
	res := openResultOf(cfg.open, s, window, sum)
	res.TradedOffers = traded.Load()
	res.VenueCPUs, res.GeneratorCPUs = cfg.open.venueCPUs, generator
	return res, nil
}

// openTargetOf is the open loop's target on the venue at url: dv's offers,
// counting those that traded on entry.
func openTargetOf(url string, dv demoVenue, cross float64) (openTarget, *atomic.Int64) {
	var traded atomic.Int64
	t := openTarget{url: url + "/api/v1/participant/offers", body: openBody(dv, cross)}
	if cross > 0 {
		t.seen = func(body []byte) {
			if filled(body) {
				traded.Add(1)
			}
		}
	}
	return t, &traded
}

// openBody returns the body of the open loop's request n: a resting offer
// of the demo traders in turn (as scenario c's), or, for the given share of
// the requests spread evenly, one of a pair that trades: an ask at 100.00
// of one of the demo's mutual counterparties, then a bid at 100.00 of the
// next on the same instrument.
func openBody(dv demoVenue, cross float64) func(dst []byte, n int) ([]byte, string) {
	perFirm := len(dv.traders) / len(participantsOf(dv))
	return func(dst []byte, n int) ([]byte, string) {
		k := int(float64(n) * cross) // crossing requests before n
		if int(float64(n+1)*cross) == k {
			tr := dv.traders[n%len(dv.traders)]
			in := dv.instruments[(n/len(dv.traders))%len(dv.instruments)]
			return offerBody(dst, tr, in, dv.market, n, false), tr.token
		}
		pair := k / 2
		firm, dir := pair%dv.counterparties, "ask"
		if k%2 == 1 {
			firm, dir = (firm+1)%dv.counterparties, "bid"
		}
		tr := dv.traders[firm*perFirm+(pair/dv.counterparties)%perFirm]
		in := dv.instruments[pair%len(dv.instruments)]
		return offerBodyAt(dst, tr, in, dv.market, dir, 10000, false), tr.token
	}
}

// preload enters n resting offers through the offer-entry use case (no
// HTTP: faster than the open loop could) from 64 goroutines, priced as
// scenario c's so that none trades: the large book the collector goal is
// about (750 000 resting offers). A refusal by admission control (the
// goroutines outrun the budget for a moment) is retried.
func preload(ctx context.Context, svc *trading.Service, dv demoVenue, n int) error {
	const workers = 64
	qty := udecimal.MustParse(offerQuantity)
	var next atomic.Int64
	errs := make(chan error, workers)
	for range workers {
		go func() {
			for {
				i := int(next.Add(1)) - 1
				if i >= n {
					errs <- nil
					return
				}
				t := dv.traders[i%len(dv.traders)]
				dir, cents := venue.Bid, 8000+i%1000
				if i%2 == 1 {
					dir, cents = venue.Ask, 11000+i%1000
				}
				price := udecimal.MustFromInt64(int64(cents), 2)
				in := trading.OfferInput{AccountID: t.account, InstrumentID: dv.instruments[(i/len(dv.traders))%len(dv.instruments)],
					MarketID: dv.market, Direction: dir, Price: &price, Quantity: &qty}
				p := venue.Principal{UserID: t.user, ParticipantID: t.participant, Role: t.role}
				for {
					_, err := svc.CreateOffer(ctx, p, in)
					var ve *venue.Error
					if errors.As(err, &ve) && ve.Kind == venue.KindNotReady && ctx.Err() == nil {
						time.Sleep(time.Millisecond) // refused while busy: nothing applied
						continue
					}
					if err != nil {
						errs <- fmt.Errorf("offer %d: %w", i, err)
						return
					}
					break
				}
			}
		}()
	}
	var first error
	for range workers {
		if err := <-errs; err != nil && first == nil {
			first = err
			next.Store(int64(n)) // the others stop at their next offer
		}
	}
	return first
}
