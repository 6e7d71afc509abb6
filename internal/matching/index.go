package matching

import "math/bits"

// index maps the id of each resting order to its slot handle: an open
// addressing hash table with linear probing, Fibonacci hashing and
// backward-shift deletion, held in one pointer-free array so the collector
// does not scan it and a lookup usually touches one cache line. Ids are
// never 0, so a cell with id 0 is empty. The zero value is an empty index.
type index struct {
	cells []cell
	shift uint8 // 64 - log2(len(cells))
	n     int   // ids held
}

// cell is one entry of an index.
type cell struct {
	id uint64
	h  uint32
}

const (
	indexMinCells = 1 << 10
	fibonacci     = 0x9e3779b97f4a7c15 // 2^64 / golden ratio
)

// home is where id's probe sequence starts.
func (x *index) home(id uint64) uint64 { return (id * fibonacci) >> x.shift }

// get returns the handle of id, 0 when id is not held.
func (x *index) get(id uint64) uint32 {
	if x.n == 0 {
		return 0
	}
	mask := uint64(len(x.cells) - 1)
	for i := x.home(id); ; i = (i + 1) & mask {
		c := &x.cells[i]
		if c.id == id {
			return c.h
		}
		if c.id == 0 {
			return 0
		}
	}
}

// put adds id, which the index does not hold, with handle h.
func (x *index) put(id uint64, h uint32) {
	if (x.n+1)*4 > len(x.cells)*3 {
		x.grow()
	}
	mask := uint64(len(x.cells) - 1)
	i := x.home(id)
	for x.cells[i].id != 0 {
		i = (i + 1) & mask
	}
	x.cells[i] = cell{id: id, h: h}
	x.n++
}

// del removes id, which the index holds, closing the gap it leaves so that
// every other id stays reachable from its home cell.
func (x *index) del(id uint64) {
	mask := uint64(len(x.cells) - 1)
	i := x.home(id)
	for x.cells[i].id != id {
		i = (i + 1) & mask
	}
	for j := (i + 1) & mask; x.cells[j].id != 0; j = (j + 1) & mask {
		// The entry at j may move back to i unless its home lies
		// cyclically in (i, j].
		if k := x.home(x.cells[j].id); (j-k)&mask < (j-i)&mask {
			continue
		}
		x.cells[i] = x.cells[j]
		i = j
	}
	x.cells[i] = cell{}
	x.n--
}

// reserve makes an empty index hold n ids before it grows, its cells
// written once so that their pages are faulted in now.
func (x *index) reserve(n int) {
	size := indexMinCells
	for size*3 < (n+1)*4 {
		size *= 2
	}
	x.cells = make([]cell, size)
	for i := range x.cells {
		x.cells[i].h = 0
	}
	x.shift = uint8(64 - bits.TrailingZeros(uint(size)))
}

// grow doubles the table (or makes the first one) and re-inserts every id.
func (x *index) grow() {
	old := x.cells
	size := max(indexMinCells, 2*len(old))
	x.cells = make([]cell, size)
	x.shift = uint8(64 - bits.TrailingZeros(uint(size)))
	mask := uint64(size - 1)
	for _, c := range old {
		if c.id == 0 {
			continue
		}
		i := x.home(c.id)
		for x.cells[i].id != 0 {
			i = (i + 1) & mask
		}
		x.cells[i] = c
	}
}
