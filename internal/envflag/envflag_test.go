package envflag

import (
	"math"
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

func TestGetenv(t *testing.T) {
	vars := map[string]string{"S": "x", "B": "true", "I": "7", "F": "2.5", "D": "3s", "BAD": "nope"}
	g := Getenv(func(k string) string { return vars[k] })
	if got := g.String("S", "d"); got != "x" {
		t.Errorf("String(S) = %q, want x", got)
	}
	if got := g.String("MISSING", "d"); got != "d" {
		t.Errorf("String(MISSING) = %q, want the default d", got)
	}
	if !g.Bool("B") || g.Bool("BAD") || g.Bool("MISSING") {
		t.Errorf("Bool(B, BAD, MISSING) = %v %v %v, want true false false", g.Bool("B"), g.Bool("BAD"), g.Bool("MISSING"))
	}
	if !g.BoolOr("B", false) || !g.BoolOr("BAD", true) || !g.BoolOr("MISSING", true) || g.BoolOr("MISSING", false) {
		t.Errorf("BoolOr(B false, BAD true, MISSING true, MISSING false) = %v %v %v %v, want true true true false",
			g.BoolOr("B", false), g.BoolOr("BAD", true), g.BoolOr("MISSING", true), g.BoolOr("MISSING", false))
	}
	if got := g.Int("I", 1); got != 7 {
		t.Errorf("Int(I) = %d, want 7", got)
	}
	if got := g.Int("BAD", 1); got != 1 {
		t.Errorf("Int(BAD) = %d, want the default 1", got)
	}
	if got := g.Float("F", 1); got != 2.5 {
		t.Errorf("Float(F) = %v, want 2.5", got)
	}
	if got := g.Duration("D", time.Second); got != 3*time.Second {
		t.Errorf("Duration(D) = %v, want 3s", got)
	}
	if got := g.Duration("BAD", time.Second); got != time.Second {
		t.Errorf("Duration(BAD) = %v, want the default 1s", got)
	}
}

func TestTuneGC(t *testing.T) {
	oldPercent := debug.SetGCPercent(100)
	oldLimit := debug.SetMemoryLimit(math.MaxInt64)
	t.Cleanup(func() { debug.SetGCPercent(oldPercent); debug.SetMemoryLimit(oldLimit) })

	Getenv(func(k string) string { return map[string]string{"GOGC": "150", "GOMEMLIMIT": "1GiB"}[k] }).TuneGC()
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("with GOGC set, the GC percent became %d, want it left at 100", got)
	}
	if got := debug.SetMemoryLimit(-1); got != math.MaxInt64 {
		t.Errorf("with GOMEMLIMIT set, the memory limit became %d, want it left alone", got)
	}
	// Without GOGC the target is Go's own: TuneGC leaves it as it finds it.
	debug.SetGCPercent(150)
	Getenv(func(string) string { return "" }).TuneGC()
	if got := debug.SetGCPercent(100); got != 150 {
		t.Errorf("without GOGC, TuneGC changed the GC percent to %d, want it left at 150", got)
	}
	want := int64(math.MaxInt64)
	if total := availableMemory(); total > 0 {
		want = int64(float64(total) * MemoryShare)
	} else if runtime.GOOS == "linux" {
		t.Fatal("availableMemory() = 0 on Linux: /proc/meminfo unread")
	}
	if got := debug.SetMemoryLimit(-1); got != want {
		t.Errorf("without GOMEMLIMIT, the memory limit is %d, want %d (MemoryShare of %d)", got, want, availableMemory())
	}
}

func TestMemTotal(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int64
	}{
		{"MemTotal:       24684084 kB\nMemFree:        22000000 kB\n", 24684084 * 1024},
		{"MemFree:        1 kB\nMemTotal: 2048 kB\n", 2048 * 1024},
		{"MemFree:        1 kB\n", 0},
		{"MemTotal: 2048 MB\n", 0},
		{"MemTotal: lots kB\n", 0},
		{"", 0},
	} {
		if got := memTotal(c.in); got != c.want {
			t.Errorf("memTotal(%q) = %d, want %d", c.in, got, c.want)
		}
	}
}

func TestCgroupLimit(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int64
	}{
		{"2147483648\n", 2147483648},
		{"max\n", 0},
		{"9223372036854771712\n", 0}, // cgroup v1's "no limit"
		{"0\n", 0},
		{"", 0},
	} {
		if got := cgroupLimit(c.in); got != c.want {
			t.Errorf("cgroupLimit(%q) = %d, want %d", c.in, got, c.want)
		}
	}
}
