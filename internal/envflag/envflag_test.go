package envflag

import (
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
	old := debug.SetGCPercent(100)
	t.Cleanup(func() { debug.SetGCPercent(old) })

	Getenv(func(k string) string { return map[string]string{"GOGC": "150"}[k] }).TuneGC()
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("with GOGC set, the GC percent became %d, want it left at 100", got)
	}
	Getenv(func(string) string { return "" }).TuneGC()
	if got := debug.SetGCPercent(100); got != GCPercent {
		t.Errorf("without GOGC, the GC percent is %d, want %d", got, GCPercent)
	}
}
