package clock

import (
	"fmt"
	"time"

	"golang.org/x/sys/unix"
)

// Kernel reads the clock state of the running system: on Linux, adjtimex
// with no modes set, which reads and changes nothing.
type Kernel struct{}

// State returns the kernel's clock state.
func (Kernel) State() (State, error) {
	var tx unix.Timex
	state, err := unix.Adjtimex(&tx)
	if err != nil {
		return State{}, fmt.Errorf("adjtimex: %w", err)
	}
	return State{
		Synchronised:   tx.Status&unix.STA_UNSYNC == 0 && state != unix.TIME_ERROR,
		EstimatedError: time.Duration(tx.Esterror) * time.Microsecond,
		MaxError:       time.Duration(tx.Maxerror) * time.Microsecond,
	}, nil
}
