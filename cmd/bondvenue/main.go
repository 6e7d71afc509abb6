// Command bondvenue runs the bondvenue trading venue: `serve` starts the
// HTTP API, `migrate` applies database migrations, and `admin` performs
// local administration (bootstrap the first operator, onboard
// participants, issue and revoke credentials).
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "bondvenue:", err)
		os.Exit(exitCode(err))
	}
}
