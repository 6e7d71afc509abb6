package matching

import (
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"runtime"
	"strconv"
	"testing"

	"github.com/quagmt/udecimal"
)

// The book workloads W1–W4 of issue 15. Each is a fixed command stream
// drawn from a fixed seed, generated in plain integers (wop) so the same
// stream can be replayed against another order book for comparison (see
// docs/decisions.md, "The order book: slabs and handles"). Prices are in
// ticks of 0.01 around a mid of 100.00, quantities in whole units of
// nominal. Bids come from participants p0 and p1 and asks from p2 and p3,
// all eligible with each other, so no order ever meets its own firm and
// every book that matches on price and time makes the same trades. Order
// number n is the book's id n+1; the checksum names it by a UUID made from
// n (wID), as the venue's ids are.
//
//   - W1: 1 000 000 limit orders, bid or ask at random, priced at the mid
//     minus (bids) or plus (asks) a uniform offset of -100 to +309 ticks;
//     quantity 1 000 when the offset is negative (a marketable order),
//     else 1 000 to 10 000 in steps of 1 000. 22.9 % of them cross and
//     trade; 717 132 are left resting.
//   - W2: 1 000 000 commands, 70 % adds of non-crossing limit orders
//     (1 to 50 ticks off the mid on their side), 30 % cancels of an order
//     picked at random among the 64 most recently added that still rest.
//   - W3: a book of 100 000 non-crossing resting orders (untimed), then
//     1 000 000 commands alternating an add of a non-crossing order and a
//     cancel of the oldest resting order.
//   - W4: a book of 100 levels a side, each of 10 orders of 1 000 to
//     10 000 (untimed); then 10 000 sweeps, each a limit order on a random
//     side that takes exactly the best k levels of the other side (k
//     uniform in 1–20: its price is the k-th level's, its quantity their
//     sum), followed by the 10·k adds that put those levels back.
//
// Each benchmark op replays the whole workload on a new book (the book's
// construction and the workload's orders are made outside the timer),
// reports ns and allocations per command, and ends by checking the
// checksum of the final book (bookChecksum) against the value recorded
// below, so a change of behaviour cannot pass as a speed-up.

// wop is one command of a workload.
type wop struct {
	cancel bool
	side   Side
	price  int64 // ticks of 0.01
	qty    int64 // whole units
	id     int   // order number; a cancel names the order to cancel
}

// workload is a generated command stream: setup is applied untimed, ops
// timed.
type workload struct {
	name       string
	setup, ops []wop
	checksum   uint64 // bookChecksum of the final book
}

const wMid = 10_000 // 100.00 in ticks

// Checksums of the final books, recorded from the book that passes the
// model test. A change of matching behaviour changes them.
const (
	w1Checksum = 0xdc2c214e352ae31d
	w2Checksum = 0xf68b58f617f414a3
	w3Checksum = 0xc2b65c96bd58f288
	w4Checksum = 0x5a79d64a94df5a62
)

func w1() workload {
	rng := rand.New(rand.NewPCG(15, 1))
	w := workload{name: "W1", checksum: w1Checksum}
	for i := range 1_000_000 {
		s := Side(1 + rng.IntN(2))
		off := int64(rng.IntN(410)) - 100
		p := int64(wMid) - off
		if s == Ask {
			p = wMid + off
		}
		q := int64(1+rng.IntN(10)) * 1000
		if off < 0 {
			q = 1000 // marketable orders are small
		}
		w.ops = append(w.ops, wop{side: s, price: p, qty: q, id: i})
	}
	return w
}

// quiet returns a non-crossing order number id on a random side.
func quiet(rng *rand.Rand, id int) wop {
	s := Side(1 + rng.IntN(2))
	off := int64(1 + rng.IntN(50))
	p := int64(wMid) - off
	if s == Ask {
		p = wMid + off
	}
	return wop{side: s, price: p, qty: int64(1+rng.IntN(10)) * 1000, id: id}
}

func w2() workload {
	rng := rand.New(rand.NewPCG(15, 2))
	w := workload{name: "W2", checksum: w2Checksum}
	var recent []int // resting orders, most recent last
	next := 0
	for range 1_000_000 {
		if len(recent) == 0 || rng.IntN(10) < 7 {
			w.ops = append(w.ops, quiet(rng, next))
			recent = append(recent, next)
			next++
			continue
		}
		k := len(recent) - 1 - rng.IntN(min(64, len(recent)))
		w.ops = append(w.ops, wop{cancel: true, id: recent[k]})
		recent = append(recent[:k], recent[k+1:]...)
	}
	return w
}

func w3() workload {
	rng := rand.New(rand.NewPCG(15, 3))
	w := workload{name: "W3", checksum: w3Checksum}
	next := 0
	for range 100_000 {
		w.setup = append(w.setup, quiet(rng, next))
		next++
	}
	oldest := 0
	for range 500_000 {
		w.ops = append(w.ops, quiet(rng, next), wop{cancel: true, id: oldest})
		next++
		oldest++
	}
	return w
}

func w4() workload {
	const levels, perLevel = 100, 10
	rng := rand.New(rand.NewPCG(15, 4))
	w := workload{name: "W4", checksum: w4Checksum}
	next := 0
	level := func(dst []wop, s Side, k int) []wop {
		p := int64(wMid - 1 - k)
		if s == Ask {
			p = int64(wMid + 1 + k)
		}
		for j := range perLevel {
			dst = append(dst, wop{side: s, price: p, qty: int64(j+1) * 1000, id: next})
			next++
		}
		return dst
	}
	for k := range levels {
		w.setup = level(level(w.setup, Bid, k), Ask, k)
	}
	for range 10_000 {
		s := Side(1 + rng.IntN(2))
		k := 1 + rng.IntN(20)
		// The sweep takes levels 0..k-1 of the other side: 55 000 each.
		p := int64(wMid + k)
		if s == Ask {
			p = int64(wMid - k)
		}
		w.ops = append(w.ops, wop{side: s, price: p, qty: int64(k) * 55_000, id: next})
		next++
		for lv := range k {
			w.ops = level(w.ops, s.Opposite(), lv)
		}
	}
	return w
}

// wID returns the UUID of order number n, which the checksum writes for
// the order (the book knows it as n+1).
func wID(n int) string {
	return fmt.Sprintf("0190d4a0-%04x-7000-8000-%012x", n>>48, n&(1<<48-1))
}

// wParticipants is the number of participants of the workloads.
const wParticipants = 4

// fx returns units·10^-scale as a Fixed.
func fx(units int64, scale uint8) Fixed {
	f, ok := FixedOf(udecimal.MustFromInt64(units, scale))
	if !ok {
		panic(fmt.Sprintf("fx(%d, %d) out of range", units, scale))
	}
	return f
}

// wOrder returns the book order of an add.
func wOrder(op wop) Order {
	p := uint32(op.id % 2)
	if op.side == Ask {
		p += 2
	}
	return Order{ID: uint64(op.id) + 1, Participant: p, User: 100 + p, Side: op.side,
		Price: fx(op.price, 2), Quantity: fx(op.qty, 0)}
}

// wEligible is the venue's kind of eligibility: a map lookup.
func wEligible() func(a, b uint32) bool {
	ok := map[[2]uint32]bool{}
	for a := range uint32(wParticipants) {
		for b := range uint32(wParticipants) {
			ok[[2]uint32{a, b}] = a != b
		}
	}
	return func(a, b uint32) bool { return ok[[2]uint32{a, b}] }
}

// cmd is a workload command ready for the book.
type cmd struct {
	cancel bool
	id     uint64
	o      Order
}

func commands(ops []wop) []cmd {
	out := make([]cmd, len(ops))
	for i, op := range ops {
		if op.cancel {
			out[i] = cmd{cancel: true, id: uint64(op.id) + 1}
		} else {
			out[i] = cmd{o: wOrder(op)}
		}
	}
	return out
}

// replay applies cmds to bk; it counts the adds that traded.
func replay(tb testing.TB, bk *Book, cmds []cmd, fills []Fill) (crossed int) {
	for i := range cmds {
		c := &cmds[i]
		if c.cancel {
			if _, err := bk.Cancel(c.id); err != nil {
				tb.Fatal(err)
			}
			continue
		}
		r, err := bk.AddInto(&c.o, fills[:0])
		if err != nil {
			tb.Fatal(err)
		}
		if len(r.Fills) > 0 {
			crossed++
		}
	}
	return crossed
}

// bookChecksum is FNV-1a over every resting order of bk, bids then asks,
// each in priority order: side, price, remaining quantity, id (as the UUID
// of its order number, wID), sequence number. Prices and quantities are
// written as decimals with no trailing zeros.
func bookChecksum(bk *Book) uint64 {
	h := fnv.New64a()
	var buf []byte
	for _, s := range []Side{Bid, Ask} {
		for o := range bk.Orders(s) {
			buf = append(buf[:0], byte(s))
			buf = append(buf, o.Price.String()...)
			buf = append(buf, '/')
			buf = append(buf, o.Remaining().String()...)
			buf = append(buf, '/')
			buf = append(buf, wID(int(o.ID-1))...)
			buf = strconv.AppendUint(append(buf, '/'), o.Seq, 10)
			h.Write(buf)
		}
	}
	return h.Sum64()
}

// peakResting is the most orders that rest at once while setup and then
// ops are replayed on a new book.
func peakResting(tb testing.TB, setup, ops []cmd) int {
	bk := New(Config{Eligible: wEligible()})
	fills := make([]Fill, 0, 256)
	peak := 0
	for _, cmds := range [][]cmd{setup, ops} {
		for i := range cmds {
			replay(tb, bk, cmds[i:i+1], fills)
			peak = max(peak, bk.Len())
		}
	}
	return peak
}

// benchWorkload replays w's ops on a book that setup filled, each round
// on a new book: sized ahead for the most orders the workload rests at
// once (Config.Capacity) unless unsized, when it grows as orders arrive.
// Sizing and setup are untimed.
func benchWorkload(b *testing.B, w workload, unsized bool) {
	setup, ops := commands(w.setup), commands(w.ops)
	capacity := 0
	if !unsized {
		capacity = peakResting(b, setup, ops)
	}
	fills := make([]Fill, 0, 256)
	var crossed int
	var bk *Book
	var ms runtime.MemStats
	var mallocs uint64
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		bk = New(Config{Eligible: wEligible(), Capacity: capacity})
		replay(b, bk, setup, fills)
		runtime.ReadMemStats(&ms)
		mallocs -= ms.Mallocs
		b.StartTimer()
		crossed = replay(b, bk, ops, fills)
		b.StopTimer()
		runtime.ReadMemStats(&ms)
		mallocs += ms.Mallocs
		b.StartTimer()
	}
	b.StopTimer()
	n := float64(b.N) * float64(len(ops))
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/n, "ns/cmd")
	b.ReportMetric(float64(mallocs)/n, "allocs/cmd")
	b.ReportMetric(float64(crossed)/float64(len(ops)), "crossed/cmd")
	b.ReportMetric(float64(bk.Len()), "resting")
	if got := bookChecksum(bk); got != w.checksum {
		b.Fatalf("%s: final book checksum %#x, want %#x", w.name, got, w.checksum)
	}
}

// BenchmarkW1 is workload W1: 1 M limit orders, ~23 % crossing, ~750 k
// left resting.
func BenchmarkW1(b *testing.B) { benchWorkload(b, w1(), false) }

// BenchmarkW2 is workload W2: 70 % adds, 30 % cancels of recent orders.
func BenchmarkW2(b *testing.B) { benchWorkload(b, w2(), false) }

// BenchmarkW3 is workload W3: 100 k resting, then add one / cancel the
// oldest.
func BenchmarkW3(b *testing.B) { benchWorkload(b, w3(), false) }

// BenchmarkW4 is workload W4: sweeps of 1–20 levels and their
// replenishment.
func BenchmarkW4(b *testing.B) { benchWorkload(b, w4(), false) }

// BenchmarkW1Unsized to BenchmarkW4Unsized replay the same workloads on a
// book that grows as orders arrive (no Capacity): the page faults of its
// growth fall inside the timed replay.
func BenchmarkW1Unsized(b *testing.B) { benchWorkload(b, w1(), true) }
func BenchmarkW2Unsized(b *testing.B) { benchWorkload(b, w2(), true) }
func BenchmarkW3Unsized(b *testing.B) { benchWorkload(b, w3(), true) }
func BenchmarkW4Unsized(b *testing.B) { benchWorkload(b, w4(), true) }

// TestWorkloads replays W1–W4 once and checks their final books against
// the recorded checksums, so that the benchmarks measure the behaviour the
// model test checks.
func TestWorkloads(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("replays 3.6 M commands")
	}
	for _, w := range []workload{w1(), w2(), w3(), w4()} {
		t.Run(w.name, func(t *testing.T) {
			bk := New(Config{Eligible: wEligible()})
			fills := make([]Fill, 0, 256)
			replay(t, bk, commands(w.setup), fills)
			crossed := replay(t, bk, commands(w.ops), fills)
			got := bookChecksum(bk)
			t.Logf("%s: %d commands, %d crossed, %d resting, checksum %#x", w.name, len(w.ops), crossed, bk.Len(), got)
			if got != w.checksum {
				t.Errorf("%s: final book checksum %#x, want %#x", w.name, got, w.checksum)
			}
		})
	}
}
