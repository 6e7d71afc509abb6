package main

import (
	"context"
	"fmt"
	"os"
	"testing"
)

// TestMain lets the test binary serve as bvload's venue process: the open
// loop's --open-venue-cpus starts the running executable again with
// venueProcessEnv set, and under go test that is this binary.
func TestMain(m *testing.M) {
	if os.Getenv(venueProcessEnv) == "1" {
		if err := run(context.Background(), os.Args[1:], os.Getenv, os.Stdout, os.Stderr); err != nil {
			fmt.Fprintln(os.Stderr, "venue process:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}
