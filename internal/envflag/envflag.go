// Package envflag gives command-line flags their defaults from environment
// variables, so every flag of the bondvenue commands can also be set as
// BONDVENUE_<FLAG>. A variable that does not parse leaves the default.
package envflag

import (
	"runtime/debug"
	"strconv"
	"time"
)

// Getenv reads one environment variable (os.Getenv, or a map in tests).
type Getenv func(string) string

// String returns the variable, or def when it is empty.
func (g Getenv) String(key, def string) string {
	if v := g(key); v != "" {
		return v
	}
	return def
}

// Bool returns the variable as a boolean, false when unset or invalid.
func (g Getenv) Bool(key string) bool {
	b, _ := strconv.ParseBool(g(key))
	return b
}

// Int returns the variable as an integer, or def.
func (g Getenv) Int(key string, def int) int {
	if v, err := strconv.Atoi(g(key)); err == nil {
		return v
	}
	return def
}

// Float returns the variable as a float, or def.
func (g Getenv) Float(key string, def float64) float64 {
	if v, err := strconv.ParseFloat(g(key), 64); err == nil {
		return v
	}
	return def
}

// Duration returns the variable as a duration, or def.
func (g Getenv) Duration(key string, def time.Duration) time.Duration {
	if v, err := time.ParseDuration(g(key)); err == nil {
		return v
	}
	return def
}

// GCPercent is the garbage collector's target the venue runs with when
// GOGC is not set. The sequencer keeps every open offer in memory, so the
// live heap grows with the book while requests allocate at a steady rate:
// at Go's default of 100 the collector marks the whole book again every
// time the heap doubles, about a fifth of the CPU under offer-entry load.
// 400 lets the heap reach five times the live data between collections,
// for a quarter of that work. GOGC (and GOMEMLIMIT) still win when set.
const GCPercent = 400

// TuneGC sets the collector's target to GCPercent unless GOGC is set.
func (g Getenv) TuneGC() {
	if g("GOGC") == "" {
		debug.SetGCPercent(GCPercent)
	}
}
