// Package envflag gives command-line flags their defaults from environment
// variables, so every flag of the bondvenue commands can also be set as
// BONDVENUE_<FLAG>. A variable that does not parse leaves the default.
// It also holds what the commands share around their flags: the exit
// status of a usage error (Main, UsageError) and the runtime's tuning
// (TuneGC).
package envflag

import (
	"os"
	"runtime/debug"
	"strconv"
	"strings"
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

// BoolOr returns the variable as a boolean, or def when unset or invalid
// (for a flag that is on by default).
func (g Getenv) BoolOr(key string, def bool) bool {
	if b, err := strconv.ParseBool(g(key)); err == nil {
		return b
	}
	return def
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

// The garbage collector runs at Go's default target (GOGC 100). It ran at
// 800 while the sequencer's book and open offers were pointer-linked
// records, which the collector marked again every time the heap doubled
// (about a fifth of the CPU under offer-entry load); both are pointer-free
// now (internal/matching's slabs, internal/sequencer's open store), and at
// 100 with 750 000 offers resting a cycle costs a tenth of a second of
// CPU (docs/decisions.md, "Garbage collector: back at Go's default").

// MemoryShare is the part of the machine's memory (or of the control
// group's limit) that TuneGC lets the heap grow to before the collector
// runs more often than its target says.
const MemoryShare = 0.5

// TuneGC sets a soft memory limit of MemoryShare of the available memory
// unless GOMEMLIMIT is set (and the available memory is known: Linux). It
// leaves the collector's target (GOGC) as Go sets it.
func (g Getenv) TuneGC() {
	if g("GOMEMLIMIT") == "" {
		if total := availableMemory(); total > 0 {
			debug.SetMemoryLimit(int64(float64(total) * MemoryShare))
		}
	}
}

// availableMemory is the memory the process may use: the machine's
// (/proc/meminfo), or its control group's limit when that is lower; 0 when
// unknown.
func availableMemory() int64 {
	total := int64(0)
	if b, err := os.ReadFile("/proc/meminfo"); err == nil {
		total = memTotal(string(b))
	}
	for _, f := range []string{"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"} {
		if b, err := os.ReadFile(f); err == nil {
			if limit := cgroupLimit(string(b)); limit > 0 && (total == 0 || limit < total) {
				total = limit
			}
		}
	}
	return total
}

// memTotal reads MemTotal from /proc/meminfo's text, in bytes; 0 if absent.
func memTotal(meminfo string) int64 {
	for line := range strings.Lines(meminfo) {
		rest, ok := strings.CutPrefix(line, "MemTotal:")
		if !ok {
			continue
		}
		f := strings.Fields(rest)
		if len(f) != 2 || f[1] != "kB" {
			return 0
		}
		kb, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil || kb <= 0 {
			return 0
		}
		return kb * 1024
	}
	return 0
}

// cgroupLimit reads a control group's memory limit file (v2 memory.max or
// v1 memory.limit_in_bytes), in bytes; 0 for none ("max", or v1's
// page-rounded "no limit") or unreadable.
func cgroupLimit(s string) int64 {
	n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	if err != nil || n <= 0 || n >= 1<<62 {
		return 0
	}
	return n
}
