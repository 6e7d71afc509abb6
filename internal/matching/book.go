package matching

import (
	"fmt"
	"iter"
	"slices"

	"github.com/quagmt/udecimal"
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
	Eligible func(a, b string) bool
}

// Book is the order book of one instrument in one market. The zero value
// is not usable; call New. A Book is not safe for concurrent use.
//
// The book is laid out for the garbage collector to have next to nothing
// to scan however many orders rest (docs/decisions.md, "The order book:
// slabs and handles"): resting orders live in a slab of pointer-free slots
// addressed by integer handles, queued through handles, with prices and
// quantities as 128-bit fixed-point integers (fixed); ids in the canonical
// UUID form are kept as their 16 bytes and indexed by them; participants
// and users are interned to integers.
type Book struct {
	allOrNone bool
	eligible  func(a, b string) bool

	bids, asks side
	seq        uint64
	count      int

	slots  [][]slot // chunks of slotChunk slots; handle h is slots[h>>slotBits][h&slotMask]
	nslots uint32   // handles handed out, the unused handle 0 included
	free   uint32   // free slots, linked through next; 0 when none

	levels     []level  // by level handle; handle 0 unused
	freeLevels []uint32 // released level handles

	uuids map[[16]byte]uint32 // slot of each resting order whose id is a UUID
	named map[string]uint32   // slot of each resting order with another id
	shown map[uint32]string   // id of a slot with shown set: every named id, and UUIDs already returned

	owners    []owner              // interned (participant, user) pairs
	ownerIx   map[[2]string]uint32 // owner number of each pair
	parts     map[string]uint32    // participant → participant number
	lastOwner uint32               // the last owner interned, tried first

	fills []Fill   // scratch for Add and Amend
	takes []uint32 // scratch for all-or-none candidates
}

// slot is one resting order: no pointers, so a slab of them is not
// scanned by the collector.
type slot struct {
	rem, filled fixed // open and traded quantity; the order's quantity is their sum
	seq         uint64
	key         [16]byte // the id's bytes when uuid
	prev, next  uint32   // neighbours in the level's queue (next also links the free list)
	level       uint32
	owner       uint32
	side        Side
	uuid        bool // the id is the UUID in key, else it is in Book.shown
	shown       bool // the id string is in Book.shown
}

const (
	slotBits  = 12
	slotChunk = 1 << slotBits // slots allocated at once
	slotMask  = slotChunk - 1
)

// level is the FIFO queue of the orders resting at one price.
type level struct {
	price      fixed
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
	price fixed
	lv    uint32
}

// owner is an interned (participant, user) pair.
type owner struct {
	participant, user string
	part              uint32 // participant number: equal numbers, same participant
}

// depthCached is how many orders a side's AppendDepth and Orders keep the
// id strings of, so that reading the top of the book over and over does
// not allocate; deeper UUID ids are formatted afresh each time.
const depthCached = 64

// New returns an empty book with the rules in cfg.
func New(cfg Config) *Book {
	return &Book{
		allOrNone: cfg.AllOrNone,
		eligible:  cfg.Eligible,
		bids:      side{bid: true},
		nslots:    1,
		levels:    make([]level, 1),
		uuids:     make(map[[16]byte]uint32),
		named:     make(map[string]uint32),
		shown:     make(map[uint32]string),
		ownerIx:   make(map[[2]string]uint32),
		parts:     make(map[string]uint32),
	}
}

// Len returns the number of resting orders.
func (b *Book) Len() int { return b.count }

// Seq returns the last sequence number the book assigned (or restored), 0
// for a new book.
func (b *Book) Seq() uint64 { return b.seq }

// Get returns the resting order with that id, if any.
func (b *Book) Get(id string) (Order, bool) {
	h, ok := b.lookup(id)
	if !ok {
		return Order{}, false
	}
	return b.order(b.slot(h), id), true
}

// Best returns the best price on side s (highest bid or lowest ask),
// whoever can trade with it; ok is false when that side is empty.
func (b *Book) Best(s Side) (price udecimal.Decimal, ok bool) {
	sd := b.side(s)
	if sd == nil || len(sd.levels) == 0 {
		return udecimal.Zero, false
	}
	return sd.levels[len(sd.levels)-1].price.decimal(), true
}

// AppendDepth appends to dst up to n resting orders of side s in priority
// order (best price first, then time) and returns the extended slice; n <= 0
// means all. It does not allocate when dst has room, apart from the ids of
// orders deeper than the first few dozen, which are made afresh.
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
			dst = append(dst, b.order(sl, b.idString(h, sl, rank < depthCached)))
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
		rank := 0
		for i := len(sd.levels) - 1; i >= 0; i-- {
			for h := b.levels[sd.levels[i].lv].head; h != 0; {
				sl := b.slot(h)
				if !yield(b.order(sl, b.idString(h, sl, rank < depthCached))) {
					return
				}
				rank++
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
	r, err := b.AddInto(o, b.fills[:0])
	b.fills = r.Fills[:0]
	r.Fills = cloneFills(r.Fills)
	return r, err
}

// AddInto is Add appending the fills to dst: Result.Fills is dst extended
// with this command's fills (dst itself when nothing traded). With room in
// dst an order that rests allocates nothing in a steady state (a growing
// book allocates slots a block at a time and grows its id index); a fill
// allocates the resting order's id string the first time it is returned.
func (b *Book) AddInto(o Order, dst []Fill) (r Result, err error) {
	var in incoming
	if err := b.check("add", &o, &in); err != nil {
		return Result{Fills: dst}, err
	}
	key, isUUID := parseUUID(o.ID)
	if b.has(o.ID, key, isUUID) {
		return Result{Fills: dst}, fmt.Errorf("add order %s: %w", o.ID, ErrDuplicateID)
	}
	b.seq++
	o.Seq = b.seq
	r.Order = o
	in.o = &r.Order
	in.key, in.uuid = key, isUUID
	b.enter(&r, &in, dst)
	return r, nil
}

// Cancel removes a resting order and returns its final state.
func (b *Book) Cancel(id string) (Order, error) {
	h, ok := b.lookup(id)
	if !ok {
		return Order{}, fmt.Errorf("cancel order %s: %w", id, ErrNotFound)
	}
	o := b.order(b.slot(h), id)
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
func (b *Book) Amend(id string, price, quantity udecimal.Decimal) (Result, error) {
	r, err := b.AmendInto(id, price, quantity, b.fills[:0])
	b.fills = r.Fills[:0]
	r.Fills = cloneFills(r.Fills)
	return r, err
}

// AmendInto is Amend appending the fills to dst, as AddInto does.
func (b *Book) AmendInto(id string, price, quantity udecimal.Decimal, dst []Fill) (r Result, err error) {
	h, ok := b.lookup(id)
	if !ok {
		return Result{Fills: dst}, fmt.Errorf("amend order %s: %w", id, ErrNotFound)
	}
	switch {
	case !price.IsPos():
		return Result{Fills: dst}, fmt.Errorf("amend order %s: price %s must be positive: %w", id, price, ErrInvalid)
	case !quantity.IsPos():
		return Result{Fills: dst}, fmt.Errorf("amend order %s: quantity %s must be positive: %w", id, quantity, ErrInvalid)
	}
	pf, pok := toFixed(price)
	qf, qok := toFixed(quantity)
	switch {
	case !pok:
		return Result{Fills: dst}, fmt.Errorf("amend order %s: price %s out of range: %w", id, price, ErrInvalid)
	case !qok:
		return Result{Fills: dst}, fmt.Errorf("amend order %s: quantity %s out of range: %w", id, quantity, ErrInvalid)
	}
	sl := b.slot(h)
	qc := qf.cmp(sl.filled)
	if qc < 0 {
		return Result{Fills: dst}, fmt.Errorf("amend order %s: quantity %s below filled quantity %s: %w", id, quantity, sl.filled.decimal(), ErrInvalid)
	}
	if qc == 0 {
		o := b.order(sl, id)
		o.Quantity = quantity
		b.remove(h)
		return Result{Order: o, Status: StatusFilled, Fills: dst}, nil
	}
	if pf == b.levels[sl.level].price && qf.cmp(sl.filled.add(sl.rem)) <= 0 {
		// Same price, no increase: amend in place, keeping priority.
		sl.rem = qf.sub(sl.filled)
		return Result{Order: b.order(sl, id), Status: StatusResting, Fills: dst}, nil
	}
	r.Order = b.order(sl, id)
	r.Order.Price = price
	r.Order.Quantity = quantity
	in := incoming{o: &r.Order, price: pf, rem: qf.sub(sl.filled), filled: sl.filled, owner: sl.owner, key: sl.key, uuid: sl.uuid}
	b.remove(h)
	b.seq++
	r.Order.Seq = b.seq
	b.enter(&r, &in, dst)
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
	var in incoming
	if err := b.check("restore", &o, &in); err != nil {
		return err
	}
	if o.Market {
		return fmt.Errorf("restore order %s: a market order never rests: %w", o.ID, ErrInvalid)
	}
	key, isUUID := parseUUID(o.ID)
	if b.has(o.ID, key, isUUID) {
		return fmt.Errorf("restore order %s: %w", o.ID, ErrDuplicateID)
	}
	if o.Seq == 0 {
		b.seq++
		o.Seq = b.seq
	} else if o.Seq > b.seq {
		b.seq = o.Seq
	}
	in.o = &o
	in.key, in.uuid = key, isUUID
	in.owner = b.owner(o.Participant, o.User)
	b.rest(&in)
	return nil
}

// incoming is an order entering the book (by Add, Amend or Restore) in the
// book's own terms.
type incoming struct {
	o           *Order
	price       fixed // limit price; unused for a market order
	rem, filled fixed
	owner       uint32
	key         [16]byte
	uuid        bool
}

// check validates an order entering the book by Add or Restore and
// converts its price and quantities into in.
func (b *Book) check(op string, o *Order, in *incoming) error {
	var reason string
	switch {
	case o.ID == "":
		reason = "missing id"
	case o.Side != Bid && o.Side != Ask:
		reason = "unknown side"
	case !o.Quantity.IsPos():
		reason = "quantity " + o.Quantity.String() + " must be positive"
	case o.Filled.IsNeg() || o.Filled.Cmp(o.Quantity) >= 0:
		reason = "filled quantity " + o.Filled.String() + " must be at least 0 and below quantity " + o.Quantity.String()
	case !o.Market && !o.Price.IsPos():
		reason = "limit price " + o.Price.String() + " must be positive"
	default:
		q, qok := toFixed(o.Quantity)
		f, _ := toFixed(o.Filled) // below the quantity, so in range when it is
		p, pok := toFixed(o.Price)
		switch {
		case !qok:
			reason = "quantity " + o.Quantity.String() + " out of range"
		case !o.Market && !pok:
			reason = "limit price " + o.Price.String() + " out of range"
		default:
			in.price, in.filled, in.rem = p, f, q.sub(f)
			return nil
		}
	}
	return fmt.Errorf("%s order %s: %s: %w", op, o.ID, reason, ErrInvalid)
}

// enter matches incoming order r.Order (in), which already has its
// sequence number, then rests or cancels the remainder, completing r.
func (b *Book) enter(r *Result, in *incoming, dst []Fill) {
	o := in.o
	in.owner = b.owner(o.Participant, o.User)
	if b.allOrNone {
		r.Fills = b.matchAllOrNone(in, dst)
	} else {
		r.Fills = b.match(in, dst)
	}
	if len(r.Fills) > len(dst) {
		o.Filled = in.filled.decimal()
	}
	switch {
	case in.rem.isZero():
		r.Status = StatusFilled
	case o.Market:
		r.Status = StatusCancelled
	default:
		r.Status = StatusResting
		b.rest(in)
	}
}

// crosses reports whether in may trade at price p on the other side.
func (in *incoming) crosses(p fixed) bool {
	switch {
	case in.o.Market:
		return true
	case in.o.Side == Bid:
		return in.price.cmp(p) >= 0
	}
	return in.price.cmp(p) <= 0
}

// counterparties remembers eligibility answers during one match: asking
// Config.Eligible (typically a map lookup) costs more than comparing a few
// participant numbers.
type counterparties struct {
	n    int
	part [8]uint32
	ok   [8]bool
}

// canTrade reports whether incoming in may trade with a resting order of
// owner ow.
func (b *Book) canTrade(in *incoming, ow uint32, c *counterparties) bool {
	if ow == in.owner {
		return false
	}
	rest := &b.owners[ow]
	if rest.part == b.owners[in.owner].part {
		return false
	}
	if b.eligible == nil {
		return true
	}
	for i := range c.n {
		if c.part[i] == rest.part {
			return c.ok[i]
		}
	}
	ok := b.eligible(in.o.Participant, rest.participant)
	if c.n < len(c.part) {
		c.part[c.n], c.ok[c.n] = rest.part, ok
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
		var price udecimal.Decimal
		priced := false
		// Removing the last order of the level drops it from opp.levels at
		// index i; the levels below i, still to visit, do not move.
		for h := b.levels[pl.lv].head; h != 0; {
			sl := b.slot(h)
			next := sl.next
			if b.canTrade(in, sl.owner, &cp) {
				q := sl.rem
				if in.rem.cmp(q) < 0 {
					q = in.rem
				}
				sl.filled = sl.filled.add(q)
				sl.rem = sl.rem.sub(q)
				in.filled = in.filled.add(q)
				in.rem = in.rem.sub(q)
				if !priced {
					price, priced = pl.price.decimal(), true
				}
				dst = append(dst, b.fill(in, h, sl, price, q))
				if sl.rem.isZero() {
					b.remove(h)
				}
				if in.rem.isZero() {
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
			if sl.rem.cmp(left) <= 0 && b.canTrade(in, sl.owner, &cp) {
				takes = append(takes, h)
				left = left.sub(sl.rem)
				if left.isZero() {
					break walk
				}
			}
			h = sl.next
		}
	}
	if left.isZero() {
		for _, h := range takes {
			sl := b.slot(h)
			q := sl.rem
			sl.filled = sl.filled.add(q)
			sl.rem = fixed{}
			in.filled = in.filled.add(q)
			dst = append(dst, b.fill(in, h, sl, b.levels[sl.level].price.decimal(), q))
			b.remove(h)
		}
		in.rem = fixed{}
	}
	b.takes = takes[:0]
	return dst
}

// fill records a trade of q at price between incoming in and resting order
// h (slot sl), after both were updated and before a filled sl leaves.
func (b *Book) fill(in *incoming, h uint32, sl *slot, price udecimal.Decimal, q fixed) Fill {
	ow := &b.owners[sl.owner]
	return Fill{
		RestingID:           b.idString(h, sl, !sl.rem.isZero()),
		IncomingID:          in.o.ID,
		RestingParticipant:  ow.participant,
		IncomingParticipant: in.o.Participant,
		RestingUser:         ow.user,
		IncomingUser:        in.o.User,
		IncomingSide:        in.o.Side,
		Price:               price,
		Quantity:            q.decimal(),
		RestingFilled:       sl.filled.decimal(),
		RestingRemaining:    sl.rem.decimal(),
	}
}

// order returns resting order sl, whose id is id, as an Order.
func (b *Book) order(sl *slot, id string) Order {
	ow := &b.owners[sl.owner]
	return Order{ID: id, Participant: ow.participant, User: ow.user, Side: sl.side,
		Price: b.levels[sl.level].price.decimal(), Quantity: sl.filled.add(sl.rem).decimal(),
		Filled: sl.filled.decimal(), Seq: sl.seq}
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
func (sd *side) search(p fixed) (int, bool) {
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
func (sd *side) order(lp, p fixed) int {
	c := lp.cmp(p)
	if sd.bid {
		return c
	}
	return -c
}

// rest queues in at its price by sequence number and indexes it.
func (b *Book) rest(in *incoming) {
	o := in.o
	sd := b.side(o.Side)
	i, ok := sd.search(in.price)
	var lv uint32
	if ok {
		lv = sd.levels[i].lv
	} else {
		lv = b.newLevel(in.price)
		sd.levels = slices.Insert(sd.levels, i, pricedLevel{price: in.price, lv: lv})
	}
	h, sl := b.newSlot()
	*sl = slot{rem: in.rem, filled: in.filled, seq: o.Seq, key: in.key, level: lv, owner: in.owner, side: o.Side, uuid: in.uuid}
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
	if in.uuid {
		b.uuids[in.key] = h
	} else {
		b.named[o.ID] = h
		b.shown[h] = o.ID
		sl.shown = true
	}
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
	if sl.uuid {
		delete(b.uuids, sl.key)
	} else {
		delete(b.named, b.shown[h])
	}
	if sl.shown {
		delete(b.shown, h)
	}
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
func (b *Book) newLevel(p fixed) uint32 {
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

// lookup returns the slot of the resting order with that id.
func (b *Book) lookup(id string) (uint32, bool) {
	if key, ok := parseUUID(id); ok {
		h, ok := b.uuids[key]
		return h, ok
	}
	h, ok := b.named[id]
	return h, ok
}

// has reports whether an order with id id (key when isUUID) rests.
func (b *Book) has(id string, key [16]byte, isUUID bool) bool {
	if isUUID {
		_, ok := b.uuids[key]
		return ok
	}
	_, ok := b.named[id]
	return ok
}

// idString returns the id of slot h (sl); keep keeps a UUID's string made
// here for the next call.
func (b *Book) idString(h uint32, sl *slot, keep bool) string {
	if sl.shown {
		return b.shown[h]
	}
	id := formatUUID(&sl.key)
	if keep {
		b.shown[h] = id
		sl.shown = true
	}
	return id
}

// owner returns the owner number of (participant, user), interning the
// pair on first sight. Interned pairs are kept for the book's life: a
// venue has few.
func (b *Book) owner(participant, user string) uint32 {
	if len(b.owners) > 0 {
		if last := &b.owners[b.lastOwner]; last.participant == participant && last.user == user {
			return b.lastOwner
		}
	}
	k := [2]string{participant, user}
	ow, ok := b.ownerIx[k]
	if !ok {
		part, ok := b.parts[participant]
		if !ok {
			part = uint32(len(b.parts))
			b.parts[participant] = part
		}
		ow = uint32(len(b.owners))
		b.owners = append(b.owners, owner{participant: participant, user: user, part: part})
		b.ownerIx[k] = ow
	}
	b.lastOwner = ow
	return ow
}

// cloneFills returns a new slice with the fills, nil when there are none.
func cloneFills(f []Fill) []Fill {
	if len(f) == 0 {
		return nil
	}
	return slices.Clone(f)
}
