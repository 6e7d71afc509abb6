package matching

import (
	"math/rand/v2"
	"testing"
)

// Benchmark books look like a liquid bond book: benchLevels price levels a
// side one cent apart around 99.50/100.50 with benchPerLevel orders each,
// from four participants who are all counterparties of each other (looked
// up in a map, as the venue would).
const (
	benchLevels   = 50
	benchPerLevel = 20
	benchBatch    = 10_000 // orders added or removed between timer pauses
)

var benchParticipants = []uint32{1, 2, 3, 4}

const benchUser = 9

func benchEligible() func(a, b uint32) bool {
	ok := map[[2]uint32]bool{}
	for _, a := range benchParticipants {
		for _, b := range benchParticipants {
			ok[[2]uint32{a, b}] = a != b
		}
	}
	return func(a, b uint32) bool { return ok[[2]uint32{a, b}] }
}

// benchPrice returns the price of level k (0 = best) on side s.
func benchPrice(s Side, k int) Fixed {
	if s == Bid {
		return fx(int64(9950-k), 2)
	}
	return fx(int64(10050+k), 2)
}

// benchBook returns a book with the benchmark depth on both sides.
func benchBook(b *testing.B) *Book {
	bk := New(Config{Eligible: benchEligible()})
	qty := fx(1_000_000, 0)
	n := 0
	for _, s := range []Side{Bid, Ask} {
		for k := range benchLevels {
			for range benchPerLevel {
				n++
				o := Order{ID: uint64(n), Participant: benchParticipants[n%4], User: benchUser, Side: s, Price: benchPrice(s, k), Quantity: qty}
				if _, err := bk.Add(o); err != nil {
					b.Fatal(err)
				}
			}
		}
	}
	return bk
}

// benchOrders returns n non-crossing limit orders spread over the depth of
// both sides.
func benchOrders(first uint64, n int) []Order {
	rng := rand.New(rand.NewPCG(1, 2))
	qty := fx(250_000, 0)
	orders := make([]Order, n)
	for i := range orders {
		s := Side(1 + i%2)
		orders[i] = Order{ID: first + uint64(i), Participant: benchParticipants[i%4], User: benchUser, Side: s, Price: benchPrice(s, rng.IntN(benchLevels)), Quantity: qty}
	}
	return orders
}

func reportOps(b *testing.B, perOp float64, unit string) {
	if s := b.Elapsed().Seconds(); s > 0 {
		b.ReportMetric(float64(b.N)*perOp/s, unit)
	}
}

// BenchmarkAdd adds non-crossing limit orders into a book 1000 orders deep
// a side.
func BenchmarkAdd(b *testing.B) {
	bk := benchBook(b)
	orders := benchOrders(1e6, benchBatch)
	fills := make([]Fill, 0, 16)
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		k := i % benchBatch
		if k == 0 && i > 0 {
			b.StopTimer()
			for _, o := range orders {
				if _, err := bk.Cancel(o.ID); err != nil {
					b.Fatal(err)
				}
			}
			b.StartTimer()
		}
		r, err := bk.AddInto(&orders[k], fills[:0])
		if err != nil || r.Status != StatusResting {
			b.Fatalf("AddInto = %v, %v; want resting", r.Status, err)
		}
	}
	b.StopTimer()
	reportOps(b, 1, "ops/s")
}

// BenchmarkCancel cancels resting orders, in random order, from a book 1000
// orders deep a side.
func BenchmarkCancel(b *testing.B) {
	bk := benchBook(b)
	orders := benchOrders(1e6, benchBatch)
	ids := make([]uint64, len(orders))
	for i, j := range rand.New(rand.NewPCG(3, 4)).Perm(len(orders)) {
		ids[i] = orders[j].ID
	}
	fills := make([]Fill, 0, 16)
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		k := i % benchBatch
		if k == 0 {
			b.StopTimer()
			if i > 0 {
				for _, id := range ids {
					if _, ok := bk.Get(id); ok {
						b.Fatalf("order %d survived its cancel", id)
					}
				}
			}
			for i := range orders {
				if _, err := bk.AddInto(&orders[i], fills[:0]); err != nil {
					b.Fatal(err)
				}
			}
			b.StartTimer()
		}
		if _, err := bk.Cancel(ids[k]); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	reportOps(b, 1, "ops/s")
}

// BenchmarkCrossingAdd adds limit orders that each fill one resting order
// at the top of a book 1000 orders deep a side.
func BenchmarkCrossingAdd(b *testing.B) {
	bk := benchBook(b)
	const top = 10 // levels the resting batch is spread over
	one := fx(1000, 0)
	resting := make([]Order, benchBatch)
	for i := range resting {
		// Better than the depth, so the incoming orders meet them first.
		resting[i] = Order{ID: 1e6 + uint64(i), Participant: benchParticipants[i%2], User: benchUser, Side: Ask, Price: fx(int64(10040+i%top), 2), Quantity: one}
	}
	incoming := make([]Order, benchBatch)
	for i := range incoming {
		incoming[i] = Order{ID: 2e6 + uint64(i), Participant: benchParticipants[2+i%2], User: benchUser, Side: Bid, Price: fx(10040+top, 2), Quantity: one}
	}
	fills := make([]Fill, 0, 16)
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		k := i % benchBatch
		if k == 0 {
			b.StopTimer()
			for i := range resting {
				if _, err := bk.AddInto(&resting[i], fills[:0]); err != nil {
					b.Fatal(err)
				}
			}
			b.StartTimer()
		}
		r, err := bk.AddInto(&incoming[k], fills[:0])
		if err != nil || len(r.Fills) != 1 || r.Status != StatusFilled {
			b.Fatalf("AddInto = %d fills, %v, %v; want 1 fill, filled", len(r.Fills), r.Status, err)
		}
	}
	b.StopTimer()
	reportOps(b, 1, "ops/s")
}

// BenchmarkSweep sends market orders that sweep 1000 resting orders over
// 50 levels, then cancel their remainder.
func BenchmarkSweep(b *testing.B) {
	const levels, perLevel = 50, 20
	one := fx(1000, 0)
	resting := make([]Order, 0, levels*perLevel)
	for k := range levels {
		for j := range perLevel {
			resting = append(resting, Order{ID: uint64(1 + k*perLevel + j), Participant: benchParticipants[j%3], User: benchUser, Side: Ask, Price: benchPrice(Ask, k), Quantity: one})
		}
	}
	sweep := Order{ID: 1e6, Participant: benchParticipants[3], User: benchUser, Side: Bid, Market: true, Quantity: fx(2_000_000, 0)}
	bk := New(Config{Eligible: benchEligible()})
	fills := make([]Fill, 0, len(resting))
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		for i := range resting {
			if _, err := bk.AddInto(&resting[i], fills[:0]); err != nil {
				b.Fatal(err)
			}
		}
		b.StartTimer()
		r, err := bk.AddInto(&sweep, fills[:0])
		if err != nil || len(r.Fills) != len(resting) || r.Status != StatusCancelled {
			b.Fatalf("AddInto = %d fills, %v, %v; want %d fills, cancelled", len(r.Fills), r.Status, err, len(resting))
		}
	}
	b.StopTimer()
	reportOps(b, 1, "ops/s")
	reportOps(b, float64(len(resting)), "fills/s")
}
