//go:build !linux

package clock

import (
	"errors"
	"fmt"
	"runtime"
)

// Kernel reads the clock state of the running system. Only Linux's is
// read (adjtimex); elsewhere the state is unknown, and said to be.
type Kernel struct{}

// State returns an error that wraps errors.ErrUnsupported.
func (Kernel) State() (State, error) {
	return State{}, fmt.Errorf("the clock's state is not read on %s: %w", runtime.GOOS, errors.ErrUnsupported)
}
