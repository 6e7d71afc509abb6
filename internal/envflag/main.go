package envflag

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

// UsageError marks a command-line mistake: the command exits with 2.
type UsageError struct{ Msg string }

func (e UsageError) Error() string { return e.Msg }

// ExitCode is the exit status for err: 0 for -h (the usage was asked for
// and printed), 2 for a usage error, else 1.
func ExitCode(err error) int {
	var u UsageError
	switch {
	case errors.Is(err, flag.ErrHelp):
		return 0
	case errors.As(err, &u):
		return 2
	}
	return 1
}

// Main runs a command's run function with the process's context (ended by
// SIGINT or SIGTERM), arguments, environment and streams, and exits with
// ExitCode after printing the error prefixed with the command's name.
func Main(name string, run func(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr)
	stop()
	if err != nil {
		if !errors.Is(err, flag.ErrHelp) { // the flag set printed the usage
			fmt.Fprintln(os.Stderr, name+":", err)
		}
		os.Exit(ExitCode(err))
	}
}
