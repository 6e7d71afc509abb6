package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"sync"
	"time"
)

// A target is what one scenario sends: every worker owns one keep-alive
// connection and asks next for each request's body and bearer token.
type target struct {
	url string
	// next returns the body (and a bearer token, or "") of worker w's n-th
	// request. It must be safe for concurrent calls with distinct w.
	next func(w, n int) (body []byte, token string)
	// seen, if set, inspects every 2xx response body (on the worker's
	// goroutine).
	seen func(w int, body []byte)
}

// The generator's clients.
const (
	clientRaw     = "raw"      // rawConn: lean HTTP/1.1, wrk's way (the default)
	clientNetHTTP = "net/http" // net/http's Client, for comparison
)

// loadConfig is the shape of a run.
type loadConfig struct {
	// client is clientRaw or clientNetHTTP.
	client      string
	connections int
	warmup      time.Duration
	duration    time.Duration
}

// stats is the outcome of one scenario's measured window.
type stats struct {
	Requests int           `json:"requests"`
	Errors   int           `json:"errors"`
	Elapsed  time.Duration `json:"-"`
	RPS      float64       `json:"requests_per_second"`
	P50      time.Duration `json:"-"`
	P90      time.Duration `json:"-"`
	P99      time.Duration `json:"-"`
	Max      time.Duration `json:"-"`
	// CPU is the process's CPU time (load generator and server together)
	// during the measured window.
	CPU time.Duration `json:"-"`
	// ErrorSamples are the first few failures, to say why a run is invalid.
	ErrorSamples []string `json:"error_samples,omitempty"`
}

const maxErrorSamples = 5

// worker is one connection's client loop.
type worker struct {
	client  *http.Client // net/http mode
	raw     *rawConn     // raw mode
	lat     []time.Duration
	errs    int
	samples []string
	buf     bytes.Buffer
}

// load drives t with cfg.connections concurrent keep-alive connections:
// requests started during the warm-up are not counted, requests started in
// the measured window are. Every request is answered before the next one
// on its connection is sent (closed loop), so throughput and latency are
// the server's.
func load(ctx context.Context, cfg loadConfig, t target) stats {
	start := time.Now()
	from := start.Add(cfg.warmup)
	until := from.Add(cfg.duration)
	workers := make([]*worker, cfg.connections)
	var wg sync.WaitGroup
	var cpu time.Duration
	wg.Go(func() {
		time.Sleep(time.Until(from))
		c0 := processCPU()
		time.Sleep(time.Until(until))
		cpu = processCPU() - c0
	})
	for i := range workers {
		w := &worker{lat: make([]time.Duration, 0, 4096)}
		if cfg.client == clientNetHTTP {
			w.client = newClient()
		} else {
			var err error
			if w.raw, err = newRawConn(t.url); err != nil {
				return stats{Errors: 1, ErrorSamples: []string{err.Error()}}
			}
		}
		workers[i] = w
		wg.Go(func() { w.run(ctx, t, i, from, until) })
	}
	wg.Wait()
	for _, w := range workers {
		if w.client != nil {
			w.client.CloseIdleConnections()
		}
		if w.raw != nil {
			w.raw.close()
		}
	}

	var s stats
	var all []time.Duration
	for _, w := range workers {
		all = append(all, w.lat...)
		s.Errors += w.errs
		for _, e := range w.samples {
			if len(s.ErrorSamples) < maxErrorSamples {
				s.ErrorSamples = append(s.ErrorSamples, e)
			}
		}
	}
	s.Elapsed, s.CPU = cfg.duration, cpu
	s.Requests = len(all)
	s.RPS = float64(s.Requests) / cfg.duration.Seconds()
	slices.Sort(all)
	s.P50, s.P90, s.P99 = percentile(all, 0.50), percentile(all, 0.90), percentile(all, 0.99)
	if len(all) > 0 {
		s.Max = all[len(all)-1]
	}
	return s
}

// newClient returns a client with one keep-alive connection of its own.
func newClient() *http.Client {
	return &http.Client{Transport: &http.Transport{
		DialContext:         (&net.Dialer{Timeout: 5 * time.Second}).DialContext,
		MaxIdleConns:        1,
		MaxIdleConnsPerHost: 1,
		MaxConnsPerHost:     1,
		DisableCompression:  true,
		ForceAttemptHTTP2:   false,
	}, Timeout: 30 * time.Second}
}

func (w *worker) run(ctx context.Context, t target, id int, from, until time.Time) {
	for n := 0; ctx.Err() == nil; n++ {
		begin := time.Now()
		if !begin.Before(until) {
			return
		}
		body, token := t.next(id, n)
		ok, why := w.do(ctx, t, id, body, token)
		elapsed := time.Since(begin)
		if begin.Before(from) {
			continue
		}
		if !ok {
			w.errs++
			if len(w.samples) < maxErrorSamples {
				w.samples = append(w.samples, why)
			}
			continue
		}
		w.lat = append(w.lat, elapsed)
	}
}

func (w *worker) do(ctx context.Context, t target, id int, body []byte, token string) (bool, string) {
	if w.raw != nil {
		status, err := w.raw.post(body, token, &w.buf)
		if err != nil {
			return false, err.Error()
		}
		return w.answered(t, id, status, http.StatusText(status), nil)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, t.url, bytes.NewReader(body))
	if err != nil {
		return false, err.Error()
	}
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := w.client.Do(req)
	if err != nil {
		return false, err.Error()
	}
	w.buf.Reset()
	_, err = io.Copy(&w.buf, resp.Body)
	resp.Body.Close()
	return w.answered(t, id, resp.StatusCode, resp.Status, err)
}

// answered judges a response whose body is in w.buf.
func (w *worker) answered(t target, id, code int, status string, readErr error) (bool, string) {
	if code/100 != 2 {
		return false, fmt.Sprintf("%d %s: %.300s", code, status, w.buf.Bytes())
	}
	if readErr != nil {
		return false, "read response: " + readErr.Error()
	}
	if t.seen != nil {
		t.seen(id, w.buf.Bytes())
	}
	return true, ""
}

// percentile returns the q-quantile of sorted latencies (nearest rank).
func percentile(sorted []time.Duration, q float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(q*float64(len(sorted))+0.5) - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}
