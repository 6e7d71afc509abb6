// Package envflag gives command-line flags their defaults from environment
// variables, so every flag of the bondvenue commands can also be set as
// BONDVENUE_<FLAG>. A variable that does not parse leaves the default.
package envflag

import (
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
