package matching

import (
	"fmt"
	"iter"
	"slices"
)

// Config fixes the rules of one book.
type Config struct {
	// AllOrNone is set for markets that do not allow partial fills: an
	// incoming order executes in full or not at all, and every resting
	// order it trades with is filled in full.
	AllOrNone bool
	// Eligible reports whether participants a and b are enabled
	// counterparties of each other. The book calls it with distinct
	// participants only (it never matches a participant with itself) and
	// expects the answer not to depend on the order of a and b. Nil means
	// every two distinct participants are eligible. It is asked at match
	// time, at most once per resting participant and incoming order, so a
	// change of relations applies from the next command on.
	Eligible func(a, b uint32) bool
	// Settles reports whether orders settling at a and b (Order.Settlement,
	// distinct and both known) can trade: the CSDs of their sides can
	// settle with each other. Nil means any two can. Like Eligible it is
	// asked at match time, at most once per resting participant and
	// settlement for an incoming order.
	Settles func(a, b uint16) bool
	// Capacity, when positive, is how many orders the caller expects to
	// rest at once: New reserves and touches the slots and the id index
	// for that many, so that the book grows to that size with no
	// allocation and no page fault (docs/decisions.md, "The order book:
	// slabs and handles"). Zero sizes the book as it grows.
	Capacity int
}

// Book is the order book of one instrument in one market. The zero value
// is not usable; call New. A Book is not safe for concurrent use.
//
// The book is laid out for the garbage collector to have next to nothing
// to scan however many orders rest (docs/decisions.md, "The order book:
// slabs and handles"): resting orders live in a slab of pointer-free slots
// addressed by integer handles, queued through handles, with prices and
// quantities as 128-bit fixed-point integers (Fixed), and indexed by their
// integer ids in a pointer-free hash table (index).
type Book struct {
	allOrNone bool
	eligible  func(a, b uint32) bool
	settles   func(a, b uint16) bool

	bids, asks side
	seq        uint64
	count      int

	slots  [][]slot // chunks of slotChunk slots; handle h is slots[h>>slotBits][h&slotMask]
	nslots uint32   // handles handed out, the unused handle 0 included
	free   uint32   // free slots, linked through next; 0 when none

	levels     []level  // by level handle; handle 0 unused
	freeLevels []uint32 // released level handles

	ids index // slot of each resting order by id

	fills []Fill   // scratch for Add and Amend
	takes []uint32 // scratch for all-or-none candidates
}

// slot is one resting order: no pointers, so a slab of them is not
// scanned by the collector.
type slot struct {
	rem, filled Fixed // open and traded quantity; the order's quantity is their sum
	seq         uint64
	id          uint64
	prev, next  uint32 // neighbours in the level's queue (next also links the free list)
	level       uint32
	part, user  uint32
	settle      uint16
	side        Side
}

const (
	slotBits  = 12
	slotChunk = 1 << slotBits // slots allocated at once
	slotMask  = slotChunk - 1
)

// level is the FIFO queue of the orders resting at one price.
type level struct {
	price      Fixed
	head, tail uint32 // slot handles, 0 when empty
}

// side is one side of the book: its price levels sorted from worst to best
// price, so the best level is last and taking or adding at the top of the
// book moves nothing.
type side struct {
	levels []pricedLevel
	bid    bool
}

// pricedLevel is a level handle with its price, so searching a side reads
// one array.
type pricedLevel struct {
	price Fixed
	lv    uint32
}

// New returns an empty book with the rules in cfg.
func New(cfg Config) *Book {
	b := &Book{
		allOrNone: cfg.AllOrNone,
		eligible:  cfg.Eligible,
		settles:   cfg.Settles,
		bids:      side{bid: true},
		nslots:    1,
		levels:    make([]level, 1),
	}
	if cfg.Capacity > 0 {
		b.reserve(cfg.Capacity)
	}
	return b
}

// reserve allocates the slot chunks and the index cells for n resting
// orders and writes to each, so that the pages are the process's before
// the first order arrives rather than faulted in while it is matched.
func (b *Book) reserve(n int) {
	chunks := (n + 1 + slotChunk - 1) / slotChunk // handle 0 is never used
	b.slots = make([][]slot, 0, chunks)
	for range chunks {
		c := make([]slot, slotChunk)
		for i := range c {
			c[i].seq = 0
		}
		b.slots = append(b.slots, c)
	}
	b.ids.reserve(n)
}

// Len returns the number of resting orders.
func (b *Book) Len() int { return b.count }

// Seq returns the last sequence number the book assigned (or restored), 0
// for a new book.
func (b *Book) Seq() uint64 { return b.seq }

// Get returns the resting order with that id, if any.
func (b *Book) Get(id uint64) (Order, bool) {
	h := b.ids.get(id)
	if h == 0 {
		return Order{}, false
	}
	return b.order(b.slot(h)), true
}

// Best returns the best price on side s (highest bid or lowest ask),
// whoever can trade with it; ok is false when that side is empty.
func (b *Book) Best(s Side) (price Fixed, ok bool) {
	sd := b.side(s)
	if sd == nil || len(sd.levels) == 0 {
		return Fixed{}, false
	}
	return sd.levels[len(sd.levels)-1].price, true
}

// AppendDepth appends to dst up to n resting orders of side s in priority
// order (best price first, then time) and returns the extended slice; n <= 0
// means all. It does not allocate when dst has room.
func (b *Book) AppendDepth(dst []Order, s Side, n int) []Order {
	sd := b.side(s)
	if sd == nil {
		return dst
	}
	rank := 0
	for i := len(sd.levels) - 1; i >= 0; i-- {
		for h := b.levels[sd.levels[i].lv].head; h != 0; {
			if n > 0 && rank == n {
				return dst
			}
			sl := b.slot(h)
			dst = append(dst, b.order(sl))
			rank++
			h = sl.next
		}
	}
	return dst
}

// Orders returns an iterator over the resting orders of side s in priority
// order (best price first, then time). The book must not change while the
// iteration runs.
func (b *Book) Orders(s Side) iter.Seq[Order] {
	return func(yield func(Order) bool) {
		sd := b.side(s)
		if sd == nil {
			return
		}
		for i := len(sd.levels) - 1; i >= 0; i-- {
			for h := b.levels[sd.levels[i].lv].head; h != 0; {
				sl := b.slot(h)
				if !yield(b.order(sl)) {
					return
				}
				h = sl.next
			}
		}
	}
}

// Add enters an order, matches it against the book and rests or cancels
// what is left; see the package documentation for the rules. The book
// assigns o.Seq; o.Filled must be below o.Quantity (normally zero).
// Result.Fills is a new slice, nil when nothing traded.
func (b *Book) Add(o Order) (Result, error) {
	r, err := b.AddInto(&o, b.fills[:0])
	b.fills = r.Fills[:0]
	r.Fills = cloneFills(r.Fills)
	return r, err
}

// AddInto is Add appending the fills to dst: Result.Fills is dst extended
// with this command's fills (dst itself when nothing traded). The book
// reads *o and does not keep it. With room in dst it allocates nothing in
// a steady state (a growing book allocates slots a block at a time and
// grows its id index).
func (b *Book) AddInto(o *Order, dst []Fill) (r Result, err error) {
	if err := b.check("add", o); err != nil {
		return Result{Fills: dst}, err
	}
	if b.ids.get(o.ID) != 0 {
		return Result{Fills: dst}, fmt.Errorf("add order %d: %w", o.ID, ErrDuplicateID)
	}
	b.seq++
	r.Order = *o
	r.Order.Seq = b.seq
	b.enter(&r, dst)
	return r, nil
}

// Cancel removes a resting order and returns its final state.
func (b *Book) Cancel(id uint64) (Order, error) {
	h := b.ids.get(id)
	if h == 0 {
		return Order{}, fmt.Errorf("cancel order %d: %w", id, ErrNotFound)
	}
	o := b.order(b.slot(h))
	b.remove(h)
	return o, nil
}

// Amend changes a resting order's price and total quantity; pass the
// current value for one that does not change. quantity must be positive and
// at least the filled quantity; price must be positive. A quantity decrease
// at the same price keeps the order's time priority and never trades; a
// quantity equal to the filled quantity closes the order (StatusFilled); a
// price change or a quantity increase gives the order a new sequence number
// and re-enters it as an incoming order, so it may trade. Result.Fills is a
// new slice, nil when nothing traded.
func (b *Book) Amend(id uint64, price, quantity Fixed) (Result, error) {
	r, err := b.AmendInto(id, price, quantity, b.fills[:0])
	b.fills = r.Fills[:0]
	r.Fills = cloneFills(r.Fills)
	return r, err
}

// AmendInto is Amend appending the fills to dst, as AddInto does.
func (b *Book) AmendInto(id uint64, price, quantity Fixed, dst []Fill) (r Result, err error) {
	h := b.ids.get(id)
	if h == 0 {
		return Result{Fills: dst}, fmt.Errorf("amend order %d: %w", id, ErrNotFound)
	}
	switch {
	case price.IsZero():
		return Result{Fills: dst}, fmt.Errorf("amend order %d: price must be positive: %w", id, ErrInvalid)
	case quantity.IsZero():
		return Result{Fills: dst}, fmt.Errorf("amend order %d: quantity must be positive: %w", id, ErrInvalid)
	}
	sl := b.slot(h)
	qc := quantity.Cmp(sl.filled)
	if qc < 0 {
		return Result{Fills: dst}, fmt.Errorf("amend order %d: quantity %s below filled quantity %s: %w", id, quantity, sl.filled, ErrInvalid)
	}
	if qc == 0 {
		o := b.order(sl)
		o.Quantity = quantity
		b.remove(h)
		return Result{Order: o, Status: StatusFilled, Fills: dst}, nil
	}
	if price == b.levels[sl.level].price && quantity.Cmp(sl.filled.add(sl.rem)) <= 0 {
		// Same price, no increase: amend in place, keeping priority.
		sl.rem = quantity.sub(sl.filled)
		return Result{Order: b.order(sl), Status: StatusResting, Fills: dst}, nil
	}
	r.Order = b.order(sl)
	r.Order.Price = price
	r.Order.Quantity = quantity
	b.remove(h)
	b.seq++
	r.Order.Seq = b.seq
	b.enter(&r, dst)
	return r, nil
}

// Restore puts a resting order back into the book without matching it, for
// rebuilding a book after a restart. o.Seq is the order's priority as the
// book assigned it: orders at one price are queued by it, and the book's
// later sequence numbers continue after the highest restored one. Any
// restore order works; priority order is cheapest (each order goes straight
// to the back of its queue). o.Seq 0 means "next", so a book can also be
// rebuilt by restoring its orders in priority order with Seq 0. Restore
// trusts the caller that the orders were resting: it does not match them,
// so it does not check that the book is uncrossed.
func (b *Book) Restore(o Order) error {
	if err := b.check("restore", &o); err != nil {
		return err
	}
	if o.Market {
		return fmt.Errorf("restore order %d: a market order never rests: %w", o.ID, ErrInvalid)
	}
	if b.ids.get(o.ID) != 0 {
		return fmt.Errorf("restore order %d: %w", o.ID, ErrDuplicateID)
	}
	if o.Seq == 0 {
		b.seq++
		o.Seq = b.seq
	} else if o.Seq > b.seq {
		b.seq = o.Seq
	}
	b.rest(&o, o.Quantity.sub(o.Filled))
	return nil
}

// incoming is an order entering the book by Add or Amend: the order, which
// the book updates as it trades, and what it still has open.
type incoming struct {
	o   *Order
	rem Fixed
}

// check validates an order entering the book by Add or Restore.
func (b *Book) check(op string, o *Order) error {
	var reason string
	switch {
	case o.ID == 0:
		reason = "missing id"
	case o.Side != Bid && o.Side != Ask:
		reason = "unknown side"
	case o.Quantity.IsZero():
		reason = "quantity must be positive"
	case o.Filled.Cmp(o.Quantity) >= 0:
		reason = "filled quantity " + o.Filled.String() + " must be below quantity " + o.Quantity.String()
	case !o.Market && o.Price.IsZero():
		reason = "limit price must be positive"
	default:
		return nil
	}
	return fmt.Errorf("%s order %d: %s: %w", op, o.ID, reason, ErrInvalid)
}

// enter matches incoming order r.Order, which already has its sequence
// number, then rests or cancels the remainder, completing r.
func (b *Book) enter(r *Result, dst []Fill) {
	in := incoming{o: &r.Order, rem: r.Order.Quantity.sub(r.Order.Filled)}
	if b.allOrNone {
		r.Fills = b.matchAllOrNone(&in, dst)
	} else {
		r.Fills = b.match(&in, dst)
	}
	switch {
	case in.rem.IsZero():
		r.Status = StatusFilled
	case in.o.Market:
		r.Status = StatusCancelled
	default:
		r.Status = StatusResting
		b.rest(in.o, in.rem)
	}
}

// crosses reports whether in may trade at price p on the other side.
func (in *incoming) crosses(p Fixed) bool {
	switch {
	case in.o.Market:
		return true
	case in.o.Side == Bid:
		return in.o.Price.Cmp(p) >= 0
	}
	return in.o.Price.Cmp(p) <= 0
}

// counterparties remembers eligibility answers during one match: asking
// Config.Eligible and Config.Settles (typically map lookups) costs more
// than comparing a few numbers.
type counterparties struct {
	n   int
	key [8]uint64 // participant << 16 | settlement
	ok  [8]bool
}

// canTrade reports whether incoming in may trade with resting order sl.
func (b *Book) canTrade(in *incoming, sl *slot, c *counterparties) bool {
	part := sl.part
	if part == in.o.Participant {
		return false
	}
	if b.eligible == nil && b.settles == nil {
		return true
	}
	key := uint64(part)<<16 | uint64(sl.settle)
	for i := range c.n {
		if c.key[i] == key {
			return c.ok[i]
		}
	}
	ok := b.eligible == nil || b.eligible(in.o.Participant, part)
	if ok && b.settles != nil && sl.settle != 0 && in.o.Settlement != 0 && sl.settle != in.o.Settlement {
		ok = b.settles(in.o.Settlement, sl.settle)
	}
	if c.n < len(c.key) {
		c.key[c.n], c.ok[c.n] = key, ok
		c.n++
	}
	return ok
}

// match fills in against the other side with partial fills.
func (b *Book) match(in *incoming, dst []Fill) []Fill {
	opp := b.side(in.o.Side.Opposite())
	var cp counterparties
	for i := len(opp.levels) - 1; i >= 0; i-- {
		pl := opp.levels[i]
		if !in.crosses(pl.price) {
			break
		}
		// Removing the last order of the level drops it from opp.levels at
		// index i; the levels below i, still to visit, do not move.
		for h := b.levels[pl.lv].head; h != 0; {
			sl := b.slot(h)
			next := sl.next
			if b.canTrade(in, sl, &cp) {
				q := sl.rem
				if in.rem.Cmp(q) < 0 {
					q = in.rem
				}
				sl.filled = sl.filled.add(q)
				sl.rem = sl.rem.sub(q)
				in.o.Filled = in.o.Filled.add(q)
				in.rem = in.rem.sub(q)
				dst = append(dst, b.fill(in, sl, pl.price, q))
				if sl.rem.IsZero() {
					b.remove(h)
				}
				if in.rem.IsZero() {
					return dst
				}
			}
			h = next
		}
	}
	return dst
}

// matchAllOrNone fills in against the other side in full or not at all,
// taking only resting orders that fill in full.
func (b *Book) matchAllOrNone(in *incoming, dst []Fill) []Fill {
	opp := b.side(in.o.Side.Opposite())
	var cp counterparties
	takes := b.takes[:0]
	left := in.rem
walk:
	for i := len(opp.levels) - 1; i >= 0; i-- {
		pl := opp.levels[i]
		if !in.crosses(pl.price) {
			break
		}
		for h := b.levels[pl.lv].head; h != 0; {
			sl := b.slot(h)
			if sl.rem.Cmp(left) <= 0 && b.canTrade(in, sl, &cp) {
				takes = append(takes, h)
				left = left.sub(sl.rem)
				if left.IsZero() {
					break walk
				}
			}
			h = sl.next
		}
	}
	if left.IsZero() {
		for _, h := range takes {
			sl := b.slot(h)
			q := sl.rem
			sl.filled = sl.filled.add(q)
			sl.rem = Fixed{}
			in.o.Filled = in.o.Filled.add(q)
			dst = append(dst, b.fill(in, sl, b.levels[sl.level].price, q))
			b.remove(h)
		}
		in.rem = Fixed{}
	}
	b.takes = takes[:0]
	return dst
}

// fill records a trade of q at price between incoming in and resting order
// sl, after both were updated and before a filled sl leaves.
func (b *Book) fill(in *incoming, sl *slot, price, q Fixed) Fill {
	return Fill{
		RestingID:           sl.id,
		IncomingID:          in.o.ID,
		RestingParticipant:  sl.part,
		IncomingParticipant: in.o.Participant,
		RestingUser:         sl.user,
		IncomingUser:        in.o.User,
		IncomingSide:        in.o.Side,
		Price:               price,
		Quantity:            q,
		RestingFilled:       sl.filled,
		RestingRemaining:    sl.rem,
	}
}

// order returns resting order sl as an Order.
func (b *Book) order(sl *slot) Order {
	return Order{ID: sl.id, Participant: sl.part, User: sl.user, Settlement: sl.settle, Side: sl.side,
		Price: b.levels[sl.level].price, Quantity: sl.filled.add(sl.rem), Filled: sl.filled, Seq: sl.seq}
}

// side returns the book side s, nil for an invalid side.
func (b *Book) side(s Side) *side {
	switch s {
	case Bid:
		return &b.bids
	case Ask:
		return &b.asks
	}
	return nil
}

// search returns the index of the level at price p in sd.levels, or where
// it would be inserted, and whether it exists.
func (sd *side) search(p Fixed) (int, bool) {
	lv := sd.levels
	// Most activity is at the top of the book: try the best level first.
	if k := len(lv); k > 0 {
		c := sd.order(lv[k-1].price, p)
		if c == 0 {
			return k - 1, true
		}
		if c < 0 {
			return k, false
		}
	}
	lo, hi := 0, len(lv)
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if sd.order(lv[mid].price, p) < 0 {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo, lo < len(lv) && lv[lo].price == p
}

// order compares a level's price lp with price p in the side's level
// order: negative when lp is worse than p (sorts before it).
func (sd *side) order(lp, p Fixed) int {
	c := lp.Cmp(p)
	if sd.bid {
		return c
	}
	return -c
}

// rest queues order o, with rem open, at its price by sequence number and
// indexes it.
func (b *Book) rest(o *Order, rem Fixed) {
	sd := b.side(o.Side)
	i, ok := sd.search(o.Price)
	var lv uint32
	if ok {
		lv = sd.levels[i].lv
	} else {
		lv = b.newLevel(o.Price)
		sd.levels = slices.Insert(sd.levels, i, pricedLevel{price: o.Price, lv: lv})
	}
	h, sl := b.newSlot()
	*sl = slot{rem: rem, filled: o.Filled, seq: o.Seq, id: o.ID, level: lv, part: o.Participant, user: o.User, settle: o.Settlement, side: o.Side}
	// Append, or walk back to keep the queue in sequence order when a
	// restore comes out of order.
	q := &b.levels[lv]
	after := q.tail
	for after != 0 && b.slot(after).seq > o.Seq {
		after = b.slot(after).prev
	}
	sl.prev = after
	if after == 0 {
		sl.next = q.head
		q.head = h
	} else {
		a := b.slot(after)
		sl.next = a.next
		a.next = h
	}
	if sl.next == 0 {
		q.tail = h
	} else {
		b.slot(sl.next).prev = h
	}
	b.ids.put(o.ID, h)
	b.count++
}

// remove unlinks slot h from its level (dropping the level when it
// empties), forgets its id and frees it.
func (b *Book) remove(h uint32) {
	sl := b.slot(h)
	q := &b.levels[sl.level]
	if sl.prev == 0 {
		q.head = sl.next
	} else {
		b.slot(sl.prev).next = sl.next
	}
	if sl.next == 0 {
		q.tail = sl.prev
	} else {
		b.slot(sl.next).prev = sl.prev
	}
	if q.head == 0 {
		sd := b.side(sl.side)
		if k := len(sd.levels) - 1; sd.levels[k].lv == sl.level {
			sd.levels = sd.levels[:k]
		} else {
			i, _ := sd.search(q.price)
			sd.levels = slices.Delete(sd.levels, i, i+1)
		}
		*q = level{}
		b.freeLevels = append(b.freeLevels, sl.level)
	}
	b.ids.del(sl.id)
	*sl = slot{next: b.free}
	b.free = h
	b.count--
}

// slot returns the slot of handle h.
func (b *Book) slot(h uint32) *slot {
	return &b.slots[h>>slotBits][h&slotMask]
}

// newSlot takes a slot from the free list, or the next unused one,
// allocating slots a chunk at a time.
func (b *Book) newSlot() (uint32, *slot) {
	if h := b.free; h != 0 {
		sl := b.slot(h)
		b.free = sl.next
		return h, sl
	}
	h := b.nslots
	if int(h>>slotBits) == len(b.slots) {
		b.slots = append(b.slots, make([]slot, slotChunk))
	}
	b.nslots++
	return h, b.slot(h)
}

// newLevel returns the handle of an empty level at price p, reusing a
// freed one.
func (b *Book) newLevel(p Fixed) uint32 {
	var lv uint32
	if k := len(b.freeLevels); k > 0 {
		lv = b.freeLevels[k-1]
		b.freeLevels = b.freeLevels[:k-1]
	} else {
		lv = uint32(len(b.levels))
		b.levels = append(b.levels, level{})
	}
	b.levels[lv].price = p
	return lv
}

// cloneFills returns a new slice with the fills, nil when there are none.
func cloneFills(f []Fill) []Fill {
	if len(f) == 0 {
		return nil
	}
	return slices.Clone(f)
}
