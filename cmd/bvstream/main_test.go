package main

import (
	"context"
	"fmt"
	"os"
	"testing"
)

// TestMain lets the test binary be the subscribers' process too, as the
// command is for itself with --subscribers-process.
func TestMain(m *testing.M) {
	if os.Getenv(childEnv) != "" {
		if err := runChild(context.Background(), os.Args[1:]); err != nil {
			fmt.Fprintln(os.Stderr, "subscribers:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestRunSmoke runs a short measurement with the subscribers in the
// process and in a process of their own; each must deliver and report.
func TestRunSmoke(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a venue")
	}
	for _, extra := range [][]string{nil, {"--subscribers-process"}} {
		args := append([]string{"--subscribers", "20", "--rate", "20", "--duration", "1s", "--warmup", "500ms"}, extra...)
		r, err := measure(context.Background(), args)
		if err != nil {
			t.Fatalf("bvstream %v: %v", args, err)
		}
		if r.Delivered == 0 || r.P99 <= 0 || r.Dropped != 0 {
			t.Errorf("bvstream %v: %d delivered, p99 %s, %d dropped; want deliveries, a delay and none dropped", args, r.Delivered, r.P99, r.Dropped)
		}
		if len(extra) > 0 && r.CPU <= 0 {
			t.Errorf("bvstream %v: the subscribers' process reports no CPU time", args)
		}
	}
}
