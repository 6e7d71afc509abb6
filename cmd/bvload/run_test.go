package main

import (
	"bytes"
	"context"
	"encoding/json"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/bondvenue/bondvenue/internal/envflag"
	"github.com/bondvenue/bondvenue/internal/sequencer"
	"github.com/bondvenue/bondvenue/internal/store"
	"github.com/bondvenue/bondvenue/internal/testenv"
)

// TestRunSmoke runs every scenario for a moment on SQLite, so the load
// command keeps working. It asserts no timing: only that every request
// was answered 2xx and that every scenario is reported.
func TestRunSmoke(t *testing.T) {
	getenv := func(string) string { return "" }
	args := []string{"--engine", "sqlite", "--data-dir", t.TempDir(), "--connections", "4",
		"--duration", "300ms", "--warmup", "100ms"}

	t.Run("table", func(t *testing.T) {
		var out, errOut bytes.Buffer
		if err := run(context.Background(), args, getenv, &out, &errOut); err != nil {
			t.Fatalf("run() = %v\nstdout:\n%s\nstderr:\n%s", err, out.String(), errOut.String())
		}
		for _, s := range allScenarios {
			if !strings.Contains(out.String(), titles[s]) {
				t.Errorf("report lacks scenario %s (%s):\n%s", s, titles[s], out.String())
			}
		}
		for _, g := range []string{"c / a", "c / b", "p99 c (ms)"} {
			if !strings.Contains(out.String(), g) {
				t.Errorf("report lacks goal %q:\n%s", g, out.String())
			}
		}
	})

	t.Run("json", func(t *testing.T) {
		var out bytes.Buffer
		// With net/http's client: both generator clients stay working.
		err := run(context.Background(), append(args, "--json", "--scenarios", "a,c2", "--client", "net/http"), getenv, &out, &bytes.Buffer{})
		if err != nil {
			t.Fatalf("run(--json) = %v\n%s", err, out.String())
		}
		var rep report
		if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
			t.Fatalf("report is not JSON: %v\n%s", err, out.String())
		}
		if !rep.Valid || len(rep.Scenarios) != 2 || rep.Client != clientNetHTTP {
			t.Fatalf("report = %+v, want 2 valid scenarios", rep)
		}
		for _, s := range rep.Scenarios {
			if s.Requests == 0 || s.Errors != 0 {
				t.Errorf("scenario %s: %d requests, %d errors (%v); want some and none", s.Name, s.Requests, s.Errors, s.ErrorSamples)
			}
		}
		if c2 := rep.Scenarios[1]; c2.TradedOffers == nil {
			t.Errorf("scenario c2 reports no traded offers count")
		}
	})
}

// TestOpenLoop runs the open loop for a second at a light rate on both
// engines, without a queue budget and with an hour's time-out: every
// scheduled request is sent and accepted, and the report has the
// collector's figures and the book. It asserts no latency, and nothing
// of where in time an answer lands: a machine that stalls for the whole
// window moves every answer after it.
func TestOpenLoop(t *testing.T) {
	testenv.ForEach(t, func(t *testing.T, e store.Engine) {
		const rate, seconds, preloaded = 200, 1, 300
		rep := runOpenJSON(t, e, "--open-rate", strconv.Itoa(rate), "--open-cross", "0.2", "--open-queue-budget", "0",
			"--open-timeout", "1h", "--open-preload", strconv.Itoa(preloaded), "--duration", strconv.Itoa(seconds)+"s", "--warmup", "200ms")
		o := rep.Open
		if want := rate * seconds; o.Sent < want-1 || o.Sent > want+1 {
			t.Errorf("sent %d requests at %d/s for %ds, want %d", o.Sent, rate, seconds, want)
		}
		if o.Accepted != o.Sent || o.Refused != 0 || o.Errors != 0 || o.TimedOut != 0 || o.Late != 0 {
			t.Errorf("sent %d: %d accepted, %d refused, %d errors (%v), %d timed out, %d late; want every one accepted on a light load",
				o.Sent, o.Accepted, o.Refused, o.Errors, o.ErrorSamples, o.TimedOut, o.Late)
		}
		// An answer counts where it lands, so where a stall of the machine
		// puts it is timing: the check is the accounting. The window holds
		// at most the answers to what the warm-up (200 ms) and the window
		// sent (none, were the machine stalled throughout); the window's
		// requests whose answers it does not hold were answered after it
		// (the drain).
		inWindow, warmup := o.Completed*seconds, 0.2*rate
		if inWindow < 0 || inWindow > float64(o.Accepted)+warmup {
			t.Errorf("%.0f answers in the window, of %d accepted and %.0f sent in the warm-up", inWindow, o.Accepted, warmup)
		}
		if inWindow < float64(o.Accepted)-warmup && o.Drain <= 0 {
			t.Errorf("%.0f answers in the window of %d accepted, and none after it", inWindow, o.Accepted)
		}
		if o.P50 <= 0 || o.P50 > o.P99 || o.P99 > o.P999 || o.P999 > o.Max {
			t.Errorf("percentiles p50 %v, p99 %v, p99.9 %v, max %v: want positive and in order", o.P50, o.P99, o.P999, o.Max)
		}
		if o.TradedOffers == 0 || o.Preloaded != preloaded || o.RestingOffers < preloaded+o.Accepted-2*int(o.TradedOffers) {
			t.Errorf("%d traded, %d resting of %d accepted and %d preloaded: want some trades, the rest and the %d preloaded resting",
				o.TradedOffers, o.RestingOffers, o.Accepted, o.Preloaded, preloaded)
		}
		if o.GC.GOGC == 0 || o.GC.HeapGoal == 0 || o.CPUPerRequest <= 0 {
			t.Errorf("GC %+v, cpu %v µs/req: want the collector's target, heap goal and the CPU", o.GC, o.CPUPerRequest)
		}
		var table bytes.Buffer
		if err := rep.writeTable(&table); err != nil {
			t.Fatal(err)
		}
		for _, line := range []string{"latency of accepted", "refused", "timed out", "server GC", "resting", "open loop p99 (ms)", "longest GC pause (ms)"} {
			if !strings.Contains(table.String(), line) {
				t.Errorf("the table lacks %q:\n%s", line, table.String())
			}
		}
	})

	t.Run("refusals", func(t *testing.T) {
		// A queue budget of a nanosecond: the venue refuses (503 with
		// Retry-After) nearly every offer, and refusals are not errors.
		rep := runOpenJSON(t, store.SQLite, "--open-rate", "200", "--open-queue-budget", "1ns", "--duration", "500ms", "--warmup", "100ms")
		o := rep.Open
		if o.Refused == 0 || o.Errors != 0 || o.Accepted+o.Refused+o.TimedOut != o.Sent || o.Admission.Expected+o.Admission.Waited == 0 {
			t.Errorf("sent %d: %d accepted, %d refused, %d errors (%v), %d timed out, admission %+v; want refusals, counted as such",
				o.Sent, o.Accepted, o.Refused, o.Errors, o.ErrorSamples, o.TimedOut, o.Admission)
		}
	})
}

// TestOpenLoopVenueProcess runs the open loop with the venue in a process
// of its own on one CPU and the generator on the others, on both engines:
// the venue's collector, CPU and book come back from the other process.
func TestOpenLoopVenueProcess(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("--open-venue-cpus needs Linux")
	}
	cpus, err := onlineCPUs()
	if err != nil || len(cpus) < 2 {
		t.Skipf("needs two CPUs to split (have %v, %v)", cpus, err)
	}
	testenv.ForEach(t, func(t *testing.T, e store.Engine) {
		const rate, seconds, preloaded = 200, 1, 100
		rep := runOpenJSON(t, e, "--open-rate", strconv.Itoa(rate), "--open-venue-cpus", strconv.Itoa(cpus[0]),
			"--open-queue-budget", "0", "--open-timeout", "1h", "--open-preload", strconv.Itoa(preloaded), "--duration", strconv.Itoa(seconds)+"s", "--warmup", "200ms")
		o := rep.Open
		if o.Accepted != o.Sent || o.Sent < rate*seconds-1 || o.Errors != 0 {
			t.Errorf("sent %d: %d accepted, %d errors (%v); want about %d, all accepted", o.Sent, o.Accepted, o.Errors, o.ErrorSamples, rate*seconds)
		}
		if o.RestingOffers != preloaded+o.Accepted && o.RestingOffers < preloaded+o.Accepted {
			t.Errorf("%d resting, want the %d preloaded and the %d accepted (more: the warm-up's)", o.RestingOffers, preloaded, o.Accepted)
		}
		if o.GC.GOGC == 0 || o.GC.HeapGoal == 0 || o.VenueCPUPerRequest <= 0 || o.CPUPerRequest <= o.VenueCPUPerRequest {
			t.Errorf("GC %+v, cpu %v µs/req of which the venue %v: want the venue's collector and CPU, and the generator's on top",
				o.GC, o.CPUPerRequest, o.VenueCPUPerRequest)
		}
		if len(o.VenueCPUs) != 1 || o.VenueCPUs[0] != cpus[0] || len(o.GeneratorCPUs) != len(cpus)-1 {
			t.Errorf("venue on %v, generator on %v; want %d and the other %d", o.VenueCPUs, o.GeneratorCPUs, cpus[0], len(cpus)-1)
		}
	})
}

// runOpenJSON runs bvload with args on a fresh database of engine e and
// returns its valid open-loop report.
func runOpenJSON(t *testing.T, e store.Engine, args ...string) report {
	t.Helper()
	args = append(args, "--engine", string(e), "--data-dir", t.TempDir(), "--json")
	if e == store.Postgres {
		args = append(args, "--database-url", testenv.DatabaseURL(t, e))
	}
	var out, errOut bytes.Buffer
	if err := run(context.Background(), args, func(string) string { return "" }, &out, &errOut); err != nil {
		t.Fatalf("run(%q) = %v\nstdout:\n%s\nstderr:\n%s", args, err, out.String(), errOut.String())
	}
	var rep report
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatalf("report is not JSON: %v\n%s", err, out.String())
	}
	if rep.Open == nil || !rep.Valid || len(rep.Scenarios) != 0 {
		t.Fatalf("report = %s, want a valid open-loop run and no scenarios", out.String())
	}
	return rep
}

func TestParseConfig(t *testing.T) {
	getenv := func(string) string { return "" }
	for _, args := range [][]string{
		{"--engine", "mysql"},
		{"--engine", "postgres"}, // no --database-url
		{"--scenarios", "a,x"},
		{"--connections", "0"},
		{"extra"},
		{"--open-rate", "-1"},
		{"--open-rate", "100", "--open-cross", "1.5"},
		{"--open-rate", "100", "--open-max-in-flight", "0"},
		{"--open-rate", "100", "--open-queue-budget", "-1ms"},
		{"--open-rate", "100", "--open-preload", "-1"},
		{"--open-rate", "100", "--scenarios", "c"}, // closed loop only
		{"--open-rate", "100", "--client", "net/http"},
	} {
		if _, err := parseConfig(args, getenv, &bytes.Buffer{}); envflag.ExitCode(err) != 2 {
			t.Errorf("parseConfig(%q) = %v, want a usage error", args, err)
		}
	}
	cfg, err := parseConfig(nil, getenv, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.load.connections != 64 || cfg.load.duration.String() != "10s" || cfg.load.warmup.String() != "2s" || len(cfg.scenarios) != 4 {
		t.Errorf("defaults = %+v, want 64 connections, 10s, 2s warm-up, every scenario", cfg)
	}
	if cfg.open.rate != 0 || cfg.open.maxInFlight != 4096 || cfg.open.timeout.String() != "10s" || cfg.open.queueBudget != sequencer.DefaultQueueBudget {
		t.Errorf("open-loop defaults = %+v, want off, 4096 in flight, 10s time-out, serve's queue budget", cfg.open)
	}
}
