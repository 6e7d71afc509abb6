package main

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/bondvenue/bondvenue/internal/envflag"
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

func TestParseConfig(t *testing.T) {
	getenv := func(string) string { return "" }
	for _, args := range [][]string{
		{"--engine", "mysql"},
		{"--engine", "postgres"}, // no --database-url
		{"--scenarios", "a,x"},
		{"--connections", "0"},
		{"extra"},
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
}
