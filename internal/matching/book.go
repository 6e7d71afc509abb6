package matching

import (
	"cmp"
	"fmt"
	"iter"
	"math"
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
	// every two distinct participants are eligible.
	Eligible func(a, b string) bool
}

// Book is the order book of one instrument in one market. The zero value
// is not usable; call New. A Book is not safe for concurrent use.
type Book struct {
	allOrNone bool
	eligible  func(a, b string) bool

	bids, asks side
	index      map[string]*node
	seq        uint64

	freeNodes  *node    // free list linked through next
	freeLevels []*level // released levels, reused
	fills      []Fill   // scratch for Add and Amend
	takes      []*node  // scratch for all-or-none candidates
}

// side is one side of the book: its price levels sorted from worst to best
// price, so the best level is last and taking or adding at the top of the
// book moves nothing.
type side struct {
	levels []*level
	bid    bool
}

// level is the FIFO queue of the orders resting at one price.
type level struct {
	price      udecimal.Decimal
	key        int64 // priceKey(price)
	head, tail *node
}

// node is one resting order in its level's queue.
type node struct {
	o          Order
	rem        udecimal.Decimal // o.Quantity - o.Filled, kept to save a subtraction per visit
	lvl        *level
	prev, next *node
}

// nodeChunk is how many nodes are allocated at once when the free list is
// empty.
const nodeChunk = 128

// New returns an empty book with the rules in cfg.
func New(cfg Config) *Book {
	return &Book{
		allOrNone: cfg.AllOrNone,
		eligible:  cfg.Eligible,
		bids:      side{bid: true},
		index:     make(map[string]*node),
	}
}

// Len returns the number of resting orders.
func (b *Book) Len() int { return len(b.index) }

// Seq returns the last sequence number the book assigned (or restored), 0
// for a new book.
func (b *Book) Seq() uint64 { return b.seq }

// Get returns the resting order with that id, if any.
func (b *Book) Get(id string) (Order, bool) {
	n, ok := b.index[id]
	if !ok {
		return Order{}, false
	}
	return n.o, true
}

// Best returns the best price on side s (highest bid or lowest ask),
// whoever can trade with it; ok is false when that side is empty.
func (b *Book) Best(s Side) (price udecimal.Decimal, ok bool) {
	sd := b.side(s)
	if sd == nil || len(sd.levels) == 0 {
		return udecimal.Zero, false
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
	count := 0
	for i := len(sd.levels) - 1; i >= 0; i-- {
		for nd := sd.levels[i].head; nd != nil; nd = nd.next {
			if n > 0 && count == n {
				return dst
			}
			dst = append(dst, nd.o)
			count++
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
			for nd := sd.levels[i].head; nd != nil; nd = nd.next {
				if !yield(nd.o) {
					return
				}
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
// dst it allocates nothing in a steady state; a growing book allocates
// resting-order nodes a block at a time and grows its id index.
func (b *Book) AddInto(o Order, dst []Fill) (r Result, err error) {
	if err := b.check("add", &o); err != nil {
		return Result{Fills: dst}, err
	}
	if _, dup := b.index[o.ID]; dup {
		return Result{Fills: dst}, fmt.Errorf("add order %s: %w", o.ID, ErrDuplicateID)
	}
	b.seq++
	o.Seq = b.seq
	r.Order = o
	b.enter(&r, dst)
	return r, nil
}

// Cancel removes a resting order and returns its final state.
func (b *Book) Cancel(id string) (Order, error) {
	n, ok := b.index[id]
	if !ok {
		return Order{}, fmt.Errorf("cancel order %s: %w", id, ErrNotFound)
	}
	o := n.o
	b.remove(n)
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
	n, ok := b.index[id]
	if !ok {
		return Result{Fills: dst}, fmt.Errorf("amend order %s: %w", id, ErrNotFound)
	}
	switch {
	case !price.IsPos():
		return Result{Fills: dst}, fmt.Errorf("amend order %s: price %s must be positive: %w", id, price, ErrInvalid)
	case !quantity.IsPos():
		return Result{Fills: dst}, fmt.Errorf("amend order %s: quantity %s must be positive: %w", id, quantity, ErrInvalid)
	}
	qc := quantity.Cmp(n.o.Filled)
	if qc < 0 {
		return Result{Fills: dst}, fmt.Errorf("amend order %s: quantity %s below filled quantity %s: %w", id, quantity, n.o.Filled, ErrInvalid)
	}
	if qc == 0 {
		o := n.o
		o.Quantity = quantity
		b.remove(n)
		return Result{Order: o, Status: StatusFilled, Fills: dst}, nil
	}
	if price.Cmp(n.o.Price) == 0 && quantity.Cmp(n.o.Quantity) <= 0 {
		// Same price, no increase: amend in place, keeping priority.
		n.o.Quantity = quantity
		n.rem = quantity.Sub(n.o.Filled)
		return Result{Order: n.o, Status: StatusResting, Fills: dst}, nil
	}
	r.Order = n.o
	r.Order.Price = price
	r.Order.Quantity = quantity
	b.remove(n)
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
		return fmt.Errorf("restore order %s: a market order never rests: %w", o.ID, ErrInvalid)
	}
	if _, dup := b.index[o.ID]; dup {
		return fmt.Errorf("restore order %s: %w", o.ID, ErrDuplicateID)
	}
	if o.Seq == 0 {
		b.seq++
		o.Seq = b.seq
	} else if o.Seq > b.seq {
		b.seq = o.Seq
	}
	b.rest(&o, priceKey(o.Price), o.Quantity.Sub(o.Filled))
	return nil
}

// check validates an order entering the book by Add or Restore.
func (b *Book) check(op string, o *Order) error {
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
		return nil
	}
	return fmt.Errorf("%s order %s: %s: %w", op, o.ID, reason, ErrInvalid)
}

// enter matches incoming order r.Order, which already has its sequence
// number, then rests or cancels the remainder, completing r.
func (b *Book) enter(r *Result, dst []Fill) {
	o := &r.Order
	rem := o.Quantity.Sub(o.Filled)
	key := int64(-1)
	if !o.Market {
		key = priceKey(o.Price)
	}
	if b.allOrNone {
		r.Fills, rem = b.matchAllOrNone(o, key, rem, dst)
	} else {
		r.Fills, rem = b.match(o, key, rem, dst)
	}
	switch {
	case rem.IsZero():
		r.Status = StatusFilled
	case o.Market:
		r.Status = StatusCancelled
	default:
		r.Status = StatusResting
		b.rest(o, key, rem)
	}
}

// crosses reports whether an incoming order o, whose price has key ok,
// may trade at level lv on the other side.
func crosses(o *Order, ok int64, lv *level) bool {
	if o.Market {
		return true
	}
	c := cmpPrice(o.Price, ok, lv.price, lv.key)
	if o.Side == Bid {
		return c >= 0
	}
	return c <= 0
}

// priceKey returns price p as an integer number of 10^-9 when that is exact
// and fits, else -1. Comparing keys is much cheaper than comparing
// decimals, and every realistic bond price has a key.
func priceKey(p udecimal.Decimal) int64 {
	neg, hi, lo, prec, ok := p.ToHiLo()
	if !ok || neg || hi != 0 || lo > math.MaxInt64 {
		return -1
	}
	if prec > keyScale {
		f := pow10[prec-keyScale]
		if lo%f != 0 {
			return -1
		}
		return int64(lo / f)
	}
	f := pow10[keyScale-prec]
	if lo > math.MaxInt64/f {
		return -1
	}
	return int64(lo * f)
}

// keyScale is the number of decimal places of a price key.
const keyScale = 9

var pow10 = [...]uint64{1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19}

// cmpPrice compares prices a and b given their keys.
func cmpPrice(a udecimal.Decimal, ak int64, b udecimal.Decimal, bk int64) int {
	if ak >= 0 && bk >= 0 {
		return cmp.Compare(ak, bk)
	}
	return a.Cmp(b)
}

// counterparties remembers eligibility answers during one match: a book
// holds orders of few participants, and asking Config.Eligible (typically a
// map lookup) costs more than comparing a few ids.
type counterparties struct {
	n  int
	id [4]string
	ok [4]bool
}

// canTrade reports whether incoming participant in may trade with resting
// participant p.
func (b *Book) canTrade(in, p string, c *counterparties) bool {
	if p == in {
		return false
	}
	if b.eligible == nil {
		return true
	}
	for i := range c.n {
		if c.id[i] == p {
			return c.ok[i]
		}
	}
	ok := b.eligible(in, p)
	if c.n < len(c.id) {
		c.id[c.n], c.ok[c.n] = p, ok
		c.n++
	}
	return ok
}

// match fills o (price key ok, rem open) against the other side with
// partial fills.
func (b *Book) match(o *Order, ok int64, rem udecimal.Decimal, dst []Fill) ([]Fill, udecimal.Decimal) {
	opp := b.side(o.Side.Opposite())
	var cp counterparties
	for i := len(opp.levels) - 1; i >= 0; i-- {
		lv := opp.levels[i]
		if !crosses(o, ok, lv) {
			break
		}
		// Removing the last node of lv drops lv from opp.levels at index i;
		// the levels below i, still to visit, do not move.
		for n := lv.head; n != nil; {
			next := n.next
			if b.canTrade(o.Participant, n.o.Participant, &cp) {
				q := n.rem
				if rem.Cmp(q) < 0 {
					q = rem
				}
				n.o.Filled = n.o.Filled.Add(q)
				n.rem = n.rem.Sub(q)
				o.Filled = o.Filled.Add(q)
				rem = rem.Sub(q)
				dst = append(dst, fill(o, n, q))
				if n.rem.IsZero() {
					b.remove(n)
				}
				if rem.IsZero() {
					return dst, rem
				}
			}
			n = next
		}
	}
	return dst, rem
}

// matchAllOrNone fills o (price key ok, rem open) against the other side in
// full or not at all, taking only resting orders that fill in full.
func (b *Book) matchAllOrNone(o *Order, ok int64, rem udecimal.Decimal, dst []Fill) ([]Fill, udecimal.Decimal) {
	opp := b.side(o.Side.Opposite())
	var cp counterparties
	takes := b.takes[:0]
	left := rem
walk:
	for i := len(opp.levels) - 1; i >= 0; i-- {
		lv := opp.levels[i]
		if !crosses(o, ok, lv) {
			break
		}
		for n := lv.head; n != nil; n = n.next {
			if n.rem.Cmp(left) <= 0 && b.canTrade(o.Participant, n.o.Participant, &cp) {
				takes = append(takes, n)
				left = left.Sub(n.rem)
				if left.IsZero() {
					break walk
				}
			}
		}
	}
	if left.IsZero() {
		for _, n := range takes {
			q := n.rem
			n.o.Filled = n.o.Quantity
			n.rem = udecimal.Zero
			o.Filled = o.Filled.Add(q)
			dst = append(dst, fill(o, n, q))
			b.remove(n)
		}
		rem = left
	}
	clear(takes)
	b.takes = takes[:0]
	return dst, rem
}

// fill records a trade of q between incoming o and resting n, after both
// were updated.
func fill(o *Order, n *node, q udecimal.Decimal) Fill {
	return Fill{
		RestingID:           n.o.ID,
		IncomingID:          o.ID,
		RestingParticipant:  n.o.Participant,
		IncomingParticipant: o.Participant,
		RestingUser:         n.o.User,
		IncomingUser:        o.User,
		IncomingSide:        o.Side,
		Price:               n.o.Price,
		Quantity:            q,
		RestingFilled:       n.o.Filled,
		RestingRemaining:    n.rem,
	}
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

// search returns the index of the level at price p (with key pk) in
// sd.levels, or where it would be inserted, and whether it exists.
func (sd *side) search(p udecimal.Decimal, pk int64) (int, bool) {
	lv := sd.levels
	// Most activity is at the top of the book: try the best level first.
	if k := len(lv); k > 0 {
		c := sd.order(lv[k-1], p, pk)
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
		if sd.order(lv[mid], p, pk) < 0 {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo, lo < len(lv) && sd.order(lv[lo], p, pk) == 0
}

// order compares level lv with price p (key pk) in the side's level order:
// negative when lv's price is worse than p (sorts before it).
func (sd *side) order(lv *level, p udecimal.Decimal, pk int64) int {
	c := cmpPrice(lv.price, lv.key, p, pk)
	if sd.bid {
		return c
	}
	return -c
}

// rest queues o (price key pk, rem open) in its price level by sequence
// number and indexes it.
func (b *Book) rest(o *Order, pk int64, rem udecimal.Decimal) {
	sd := b.side(o.Side)
	i, ok := sd.search(o.Price, pk)
	var lv *level
	if ok {
		lv = sd.levels[i]
	} else {
		lv = b.newLevel(o.Price, pk)
		sd.levels = slices.Insert(sd.levels, i, lv)
	}
	n := b.newNode()
	n.o, n.rem, n.lvl = *o, rem, lv
	// Append, or walk back to keep the queue in sequence order when a
	// restore comes out of order.
	after := lv.tail
	for after != nil && after.o.Seq > o.Seq {
		after = after.prev
	}
	n.prev = after
	if after == nil {
		n.next = lv.head
		lv.head = n
	} else {
		n.next = after.next
		after.next = n
	}
	if n.next == nil {
		lv.tail = n
	} else {
		n.next.prev = n
	}
	b.index[o.ID] = n
}

// remove unlinks n from its level (dropping the level when it empties),
// forgets its id and frees it.
func (b *Book) remove(n *node) {
	lv := n.lvl
	if n.prev == nil {
		lv.head = n.next
	} else {
		n.prev.next = n.next
	}
	if n.next == nil {
		lv.tail = n.prev
	} else {
		n.next.prev = n.prev
	}
	if lv.head == nil {
		sd := b.side(n.o.Side)
		if k := len(sd.levels) - 1; sd.levels[k] == lv {
			sd.levels[k] = nil
			sd.levels = sd.levels[:k]
		} else {
			i, _ := sd.search(lv.price, lv.key)
			sd.levels = slices.Delete(sd.levels, i, i+1)
		}
		*lv = level{}
		b.freeLevels = append(b.freeLevels, lv)
	}
	delete(b.index, n.o.ID)
	*n = node{next: b.freeNodes}
	b.freeNodes = n
}

// newNode takes a node from the free list, refilling it a block at a time.
func (b *Book) newNode() *node {
	if b.freeNodes == nil {
		block := make([]node, nodeChunk)
		for i := range block[:len(block)-1] {
			block[i].next = &block[i+1]
		}
		b.freeNodes = &block[0]
	}
	n := b.freeNodes
	b.freeNodes = n.next
	n.next = nil
	return n
}

// newLevel returns an empty level at price p (key pk), reusing a freed one.
func (b *Book) newLevel(p udecimal.Decimal, pk int64) *level {
	var lv *level
	if k := len(b.freeLevels); k > 0 {
		lv = b.freeLevels[k-1]
		b.freeLevels[k-1] = nil
		b.freeLevels = b.freeLevels[:k-1]
	} else {
		lv = new(level)
	}
	lv.price, lv.key = p, pk
	return lv
}

// cloneFills returns a new slice with the fills, nil when there are none.
func cloneFills(f []Fill) []Fill {
	if len(f) == 0 {
		return nil
	}
	return slices.Clone(f)
}
