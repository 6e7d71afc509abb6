package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"
	"unicode/utf8"
)

var titles = map[string]string{
	"a":  "trivial net/http JSON handler",
	"b":  "offer entry, one commit per request",
	"c":  "venue offer entry, sequencer + group commit",
	"c2": "venue offer entry, half the offers trade",
}

// result is one scenario's line of the report.
type result struct {
	Name     string  `json:"name"`
	Title    string  `json:"title"`
	Requests int     `json:"requests"`
	RPS      float64 `json:"requests_per_second"`
	P50      float64 `json:"p50_ms"`
	P90      float64 `json:"p90_ms"`
	P99      float64 `json:"p99_ms"`
	Max      float64 `json:"max_ms"`
	Errors   int     `json:"errors"`
	// CPUPerRequest is the process's CPU time per measured request in
	// microseconds, load generator included: steadier than req/s on a
	// shared machine.
	CPUPerRequest float64 `json:"cpu_us_per_request"`
	// ErrorSamples are the first failures (status and body), if any.
	ErrorSamples []string `json:"error_samples,omitempty"`
	// MeanBatch is (c, c2) the sequencer's mean commands per committed
	// batch over the run, warm-up included.
	MeanBatch float64 `json:"mean_batch,omitempty"`
	// MeanBatchTime is (c, c2) the sequencer's mean time per batch
	// (apply and commit) in milliseconds.
	MeanBatchTime float64 `json:"mean_batch_ms,omitempty"`
	// TradedOffers counts (c2) offers that traded on entry.
	TradedOffers *int64 `json:"traded_offers,omitempty"`
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func resultOf(name string, s stats) result {
	r := result{Name: name, Title: titles[name], Requests: s.Requests, RPS: s.RPS, P50: ms(s.P50), P90: ms(s.P90),
		P99: ms(s.P99), Max: ms(s.Max), Errors: s.Errors, ErrorSamples: s.ErrorSamples}
	if s.Requests > 0 {
		r.CPUPerRequest = float64(s.CPU.Microseconds()) / float64(s.Requests)
	}
	return r
}

// goal is one performance goal checked against the run.
type goal struct {
	Name     string  `json:"name"`
	Measured float64 `json:"measured"`
	Target   float64 `json:"target"`
	// AtMost is set when the measured value must not exceed the target
	// (otherwise it must reach it).
	AtMost bool `json:"at_most,omitempty"`
	Pass   bool `json:"pass"`
	// Required goals are the issue's; the others are reported for
	// comparison.
	Required bool `json:"required"`
}

// report is the whole run.
type report struct {
	Engine      string   `json:"engine"`
	Client      string   `json:"client"`
	Connections int      `json:"connections"`
	Duration    string   `json:"duration"`
	Warmup      string   `json:"warmup"`
	Go          string   `json:"go"`
	OS          string   `json:"os"`
	CPUs        int      `json:"cpus"`
	Scenarios   []result `json:"scenarios"`
	Goals       []goal   `json:"goals"`
	// Valid is false when any request failed: the figures do not count.
	Valid bool `json:"valid"`
}

func (r *report) find(name string) *result {
	for i := range r.Scenarios {
		if r.Scenarios[i].Name == name {
			return &r.Scenarios[i]
		}
	}
	return nil
}

func (r *report) errors() int {
	n := 0
	for _, s := range r.Scenarios {
		n += s.Errors
	}
	return n
}

// judge checks the goals: (c) ≥ 0.4 × (a), (c) ≥ 5 × (b), p99 of (c) ≤ 10
// ms; the same figures for (c2) are reported but not required.
func (r *report) judge() {
	r.Valid = r.errors() == 0
	a, b := r.find("a"), r.find("b")
	for _, name := range []string{"c", "c2"} {
		c := r.find(name)
		if c == nil {
			continue
		}
		req := name == "c"
		if a != nil && a.RPS > 0 {
			v := c.RPS / a.RPS
			r.Goals = append(r.Goals, goal{Name: name + " / a", Measured: v, Target: 0.4, Pass: v >= 0.4, Required: req})
		}
		if b != nil && b.RPS > 0 {
			v := c.RPS / b.RPS
			r.Goals = append(r.Goals, goal{Name: name + " / b", Measured: v, Target: 5, Pass: v >= 5, Required: req})
		}
		r.Goals = append(r.Goals, goal{Name: "p99 " + name + " (ms)", Measured: c.P99, Target: 10, AtMost: true, Pass: c.P99 <= 10, Required: req})
	}
}

func (r *report) writeJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

func scenarioTitle(s result) string {
	var notes []string
	if s.TradedOffers != nil {
		notes = append(notes, fmt.Sprintf("%d traded", *s.TradedOffers))
	}
	if s.MeanBatch > 0 {
		notes = append(notes, fmt.Sprintf("batch %.1f in %.2f ms", s.MeanBatch, s.MeanBatchTime))
	}
	if len(notes) == 0 {
		return s.Title
	}
	return s.Title + " (" + strings.Join(notes, ", ") + ")"
}

func (r *report) writeTable(w io.Writer) error {
	fmt.Fprintf(w, "bvload: engine %s, %s client, %d connections, %s measured after %s warm-up per scenario; %s %s, %d CPUs\n\n",
		r.Engine, r.Client, r.Connections, r.Duration, r.Warmup, r.Go, r.OS, r.CPUs)
	titleWidth := len("scenario")
	for _, s := range r.Scenarios {
		titleWidth = max(titleWidth, utf8.RuneCountInString(scenarioTitle(s)))
	}
	fmt.Fprintf(w, "%-3s %-*s %8s %7s %7s %7s %8s %7s %11s\n", "", titleWidth, "scenario",
		"req/s", "p50 ms", "p90 ms", "p99 ms", "max ms", "errors", "cpu µs/req")
	for _, s := range r.Scenarios {
		fmt.Fprintf(w, "%-3s %-*s %8.0f %7.2f %7.2f %7.2f %8.2f %7d %11.0f\n", s.Name, titleWidth, scenarioTitle(s),
			s.RPS, s.P50, s.P90, s.P99, s.Max, s.Errors, s.CPUPerRequest)
	}
	if len(r.Goals) > 0 {
		fmt.Fprintln(w)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "goal\tmeasured\ttarget\tresult")
		for _, g := range r.Goals {
			op := "≥"
			if g.AtMost {
				op = "≤"
			}
			res := "FAIL"
			if g.Pass {
				res = "PASS"
			}
			if !g.Required {
				res = strings.ToLower(res) + " (for comparison)"
			}
			fmt.Fprintf(tw, "%s\t%.2f\t%s %g\t%s\n", g.Name, g.Measured, op, g.Target, res)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	for _, s := range r.Scenarios {
		for _, e := range s.ErrorSamples {
			fmt.Fprintf(w, "error in %s: %s\n", s.Name, e)
		}
	}
	if !r.Valid {
		fmt.Fprintln(w, "\nINVALID RUN: requests failed; the figures above do not count.")
	}
	return nil
}
