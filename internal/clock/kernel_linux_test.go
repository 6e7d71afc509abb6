package clock_test

import (
	"testing"

	"github.com/bondvenue/bondvenue/internal/clock"
)

// TestKernel: reading the clock's state needs no privilege.
func TestKernel(t *testing.T) {
	s, err := clock.Kernel{}.State()
	if err != nil {
		t.Fatalf("Kernel.State() = %v", err)
	}
	if s.MaxError < 0 || s.EstimatedError < 0 {
		t.Errorf("Kernel.State() = %+v, want errors ≥ 0", s)
	}
	t.Logf("this machine's clock: %+v", s)
}
