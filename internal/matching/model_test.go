package matching

import (
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/quagmt/udecimal"
)

var modelSeed = flag.Uint64("matching.seed", 1, "first seed of the model test's random command sequences")

// modelSequences is the number of random command sequences TestModel runs,
// whatever -short says.
const modelSequences = 10_000

// dOrder, dFill and dResult are Order, Fill and Result with decimal prices
// and quantities: the model and its reference work in udecimal, as the
// engine does, and convert at the book's edge (toBook, fromBook), so every
// comparison also checks FixedOf and Fixed.Decimal.
type dOrder struct {
	ID                      uint64
	Participant, User       uint32
	Side                    Side
	Price, Quantity, Filled udecimal.Decimal
	Market                  bool
	Seq                     uint64
}

func (o dOrder) Remaining() udecimal.Decimal { return o.Quantity.Sub(o.Filled) }

type dFill struct {
	RestingID, IncomingID                   uint64
	RestingParticipant, IncomingParticipant uint32
	RestingUser, IncomingUser               uint32
	IncomingSide                            Side
	Price, Quantity                         udecimal.Decimal
	RestingFilled, RestingRemaining         udecimal.Decimal
}

type dResult struct {
	Order  dOrder
	Status Status
	Fills  []dFill
}

// mustFixed is FixedOf for a value the model knows to be in range.
func mustFixed(d udecimal.Decimal) Fixed {
	f, ok := FixedOf(d)
	if !ok {
		panic(fmt.Sprintf("FixedOf(%s) refused", d))
	}
	return f
}

func toBook(o dOrder) Order {
	return Order{ID: o.ID, Participant: o.Participant, User: o.User, Side: o.Side, Market: o.Market,
		Price: mustFixed(o.Price), Quantity: mustFixed(o.Quantity), Filled: mustFixed(o.Filled), Seq: o.Seq}
}

func fromBook(o Order) dOrder {
	return dOrder{ID: o.ID, Participant: o.Participant, User: o.User, Side: o.Side, Market: o.Market,
		Price: o.Price.Decimal(), Quantity: o.Quantity.Decimal(), Filled: o.Filled.Decimal(), Seq: o.Seq}
}

func fromBookResult(r Result) dResult {
	out := dResult{Order: fromBook(r.Order), Status: r.Status}
	for _, f := range r.Fills {
		out.Fills = append(out.Fills, dFill{RestingID: f.RestingID, IncomingID: f.IncomingID,
			RestingParticipant: f.RestingParticipant, IncomingParticipant: f.IncomingParticipant,
			RestingUser: f.RestingUser, IncomingUser: f.IncomingUser, IncomingSide: f.IncomingSide,
			Price: f.Price.Decimal(), Quantity: f.Quantity.Decimal(),
			RestingFilled: f.RestingFilled.Decimal(), RestingRemaining: f.RestingRemaining.Decimal()})
	}
	return out
}

// refBook is the reference the Book is checked against: a flat slice of
// resting orders, scanned and sorted on every command. Slow and obviously
// correct.
type refBook struct {
	aon      bool
	eligible func(a, b uint32) bool
	orders   []dOrder
	seq      uint64
}

func (r *refBook) find(id uint64) int {
	return slices.IndexFunc(r.orders, func(o dOrder) bool { return o.ID == id })
}

func (r *refBook) add(o dOrder) (dResult, error) {
	switch {
	case o.ID == 0, o.Side != Bid && o.Side != Ask, !o.Quantity.IsPos(),
		o.Filled.IsNeg(), !o.Filled.LessThan(o.Quantity), !o.Market && !o.Price.IsPos():
		return dResult{}, ErrInvalid
	case r.find(o.ID) >= 0:
		return dResult{}, ErrDuplicateID
	}
	r.seq++
	o.Seq = r.seq
	return r.enter(o), nil
}

func (r *refBook) cancel(id uint64) (dOrder, error) {
	i := r.find(id)
	if i < 0 {
		return dOrder{}, ErrNotFound
	}
	o := r.orders[i]
	r.orders = slices.Delete(r.orders, i, i+1)
	return o, nil
}

func (r *refBook) amend(id uint64, price, qty udecimal.Decimal) (dResult, error) {
	i := r.find(id)
	if i < 0 {
		return dResult{}, ErrNotFound
	}
	o := r.orders[i]
	if !price.IsPos() || !qty.IsPos() || qty.LessThan(o.Filled) {
		return dResult{}, ErrInvalid
	}
	if qty.Equal(o.Filled) {
		r.orders = slices.Delete(r.orders, i, i+1)
		o.Quantity = qty
		return dResult{Order: o, Status: StatusFilled}, nil
	}
	if price.Equal(o.Price) && qty.LessThanOrEqual(o.Quantity) {
		r.orders[i].Quantity = qty
		return dResult{Order: r.orders[i], Status: StatusResting}, nil
	}
	r.orders = slices.Delete(r.orders, i, i+1)
	o.Price, o.Quantity = price, qty
	r.seq++
	o.Seq = r.seq
	return r.enter(o), nil
}

// better reports whether resting order x has priority over y (same side).
func better(x, y dOrder) bool {
	if c := x.Price.Cmp(y.Price); c != 0 {
		return (x.Side == Bid) == (c > 0)
	}
	return x.Seq < y.Seq
}

// crossing returns the orders on the other side that incoming o may trade
// with by price, best first.
func crossing(orders []dOrder, o dOrder) []dOrder {
	var out []dOrder
	for _, x := range orders {
		if x.Side == o.Side {
			continue
		}
		if o.Market || (o.Side == Bid && o.Price.GreaterThanOrEqual(x.Price)) || (o.Side == Ask && o.Price.LessThanOrEqual(x.Price)) {
			out = append(out, x)
		}
	}
	sort.Slice(out, func(i, j int) bool { return better(out[i], out[j]) })
	return out
}

func (r *refBook) canTrade(a, b uint32) bool {
	return a != b && (r.eligible == nil || r.eligible(a, b))
}

func (r *refBook) enter(o dOrder) dResult {
	need := o.Remaining()
	var take []dOrder
	var qty []udecimal.Decimal
	if r.aon {
		left := need
		for _, x := range crossing(r.orders, o) {
			if left.IsZero() {
				break
			}
			if r.canTrade(o.Participant, x.Participant) && x.Remaining().LessThanOrEqual(left) {
				take = append(take, x)
				qty = append(qty, x.Remaining())
				left = left.Sub(x.Remaining())
			}
		}
		if !left.IsZero() {
			take, qty = nil, nil
		}
	} else {
		left := need
		for _, x := range crossing(r.orders, o) {
			if left.IsZero() {
				break
			}
			if r.canTrade(o.Participant, x.Participant) {
				q := udecimal.Min(left, x.Remaining())
				take = append(take, x)
				qty = append(qty, q)
				left = left.Sub(q)
			}
		}
	}
	var fills []dFill
	for k, x := range take {
		i := r.find(x.ID)
		r.orders[i].Filled = r.orders[i].Filled.Add(qty[k])
		o.Filled = o.Filled.Add(qty[k])
		x = r.orders[i]
		fills = append(fills, dFill{
			RestingID: x.ID, IncomingID: o.ID,
			RestingParticipant: x.Participant, IncomingParticipant: o.Participant,
			RestingUser: x.User, IncomingUser: o.User,
			IncomingSide: o.Side, Price: x.Price, Quantity: qty[k],
			RestingFilled: x.Filled, RestingRemaining: x.Remaining(),
		})
		if x.Remaining().IsZero() {
			r.orders = slices.Delete(r.orders, i, i+1)
		}
	}
	res := dResult{Order: o, Fills: fills}
	switch {
	case o.Remaining().IsZero():
		res.Status = StatusFilled
	case o.Market:
		res.Status = StatusCancelled
	default:
		res.Status = StatusResting
		r.orders = append(r.orders, o)
	}
	return res
}

// depth returns the reference's side s in priority order.
func (r *refBook) depth(s Side) []dOrder {
	var out []dOrder
	for _, o := range r.orders {
		if o.Side == s {
			out = append(out, o)
		}
	}
	sort.Slice(out, func(i, j int) bool { return better(out[i], out[j]) })
	return out
}

func sameOrder(a, b dOrder) bool {
	return a.ID == b.ID && a.Participant == b.Participant && a.User == b.User && a.Side == b.Side &&
		a.Price.Equal(b.Price) && a.Quantity.Equal(b.Quantity) && a.Filled.Equal(b.Filled) &&
		a.Market == b.Market && a.Seq == b.Seq
}

func sameOrders(a, b []dOrder) bool {
	return slices.EqualFunc(a, b, sameOrder)
}

func sameFill(a, b dFill) bool {
	return a.RestingID == b.RestingID && a.IncomingID == b.IncomingID &&
		a.RestingParticipant == b.RestingParticipant && a.IncomingParticipant == b.IncomingParticipant &&
		a.RestingUser == b.RestingUser && a.IncomingUser == b.IncomingUser && a.IncomingSide == b.IncomingSide &&
		a.Price.Equal(b.Price) && a.Quantity.Equal(b.Quantity) &&
		a.RestingFilled.Equal(b.RestingFilled) && a.RestingRemaining.Equal(b.RestingRemaining)
}

// model runs one random command sequence against a Book and a refBook.
type model struct {
	rng      *rand.Rand
	aon      bool
	parts    []uint32
	ok       map[[2]uint32]bool // eligibility of distinct participants
	book     *Book
	ref      *refBook
	fillsBuf []Fill
	bids     []dOrder // book snapshot before the command
	asks     []dOrder
	depth    []Order                     // scratch for the book's depth
	filled   map[uint64]udecimal.Decimal // sum of fill quantities per order id
	isAdd    bool                        // the command is an Add: its id starts afresh
	nextID   int
	log      []string
}

func (m *model) eligible(a, b uint32) bool { return m.ok[[2]uint32{a, b}] }

func newModel(seed uint64) *model {
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	m := &model{rng: rng, aon: rng.IntN(2) == 0, ok: map[[2]uint32]bool{}, filled: map[uint64]udecimal.Decimal{}}
	for i := range 2 + rng.IntN(3) {
		m.parts = append(m.parts, uint32(i))
	}
	for i, a := range m.parts {
		for _, b := range m.parts[i+1:] {
			e := rng.IntN(10) < 7
			m.ok[[2]uint32{a, b}], m.ok[[2]uint32{b, a}] = e, e
		}
	}
	cfg := Config{AllOrNone: m.aon, Eligible: m.eligible}
	if rng.IntN(8) == 0 {
		// Everyone is eligible: exercise the nil Eligible path.
		cfg.Eligible = nil
		for k := range m.ok {
			m.ok[k] = true
		}
	}
	m.book = New(cfg)
	m.ref = &refBook{aon: m.aon, eligible: cfg.Eligible}
	m.log = append(m.log, fmt.Sprintf("config all-or-none=%v participants=%v eligible=%v nil-eligible=%v", m.aon, m.parts, m.ok, cfg.Eligible == nil))
	return m
}

// add, cancel, amend, get and appendDepth run one command or read on the
// book under test in its own terms.
func (m *model) add(o dOrder) (dResult, error) {
	bo := toBook(o)
	r, err := m.book.AddInto(&bo, m.fillsBuf[:0])
	m.fillsBuf = r.Fills[:0]
	return fromBookResult(r), err
}

func (m *model) cancel(id uint64) (dOrder, error) {
	o, err := m.book.Cancel(id)
	return fromBook(o), err
}

func (m *model) amend(id uint64, price, qty udecimal.Decimal) (dResult, error) {
	r, err := m.book.AmendInto(id, mustFixed(price), mustFixed(qty), m.fillsBuf[:0])
	m.fillsBuf = r.Fills[:0]
	return fromBookResult(r), err
}

func (m *model) get(id uint64) (dOrder, bool) {
	o, ok := m.book.Get(id)
	return fromBook(o), ok
}

func (m *model) appendDepth(dst []dOrder, s Side) []dOrder {
	m.depth = m.book.AppendDepth(m.depth[:0], s, 0)
	for _, o := range m.depth {
		dst = append(dst, fromBook(o))
	}
	return dst
}

// price returns 99.00 to 101.00 in steps of 0.25 at a random scale, now
// and then just off that grid by 10^-12 (so FixedOf must keep every
// digit).
func (m *model) price() udecimal.Decimal {
	c := int64(9900 + 25*m.rng.IntN(9))
	switch m.rng.IntN(10) {
	case 0, 1, 2:
		return udecimal.MustFromInt64(c, 2)
	case 3, 4, 5:
		return udecimal.MustFromInt64(c*10, 3)
	case 6:
		return udecimal.MustFromInt64(c*1e10, 12)
	case 7:
		return udecimal.MustFromInt64(c*1e10+1, 12)
	}
	return udecimal.MustFromInt64(c*100, 4)
}

// qty returns 1000 to 8000 in steps of 1000 (up to 5000 when all or none,
// so that exact combinations are frequent), at a random scale.
func (m *model) qty() udecimal.Decimal {
	k := int64(1 + m.rng.IntN(8))
	if m.aon {
		k = int64(1 + m.rng.IntN(5))
	}
	if m.rng.IntN(2) == 0 {
		return udecimal.MustFromInt64(k*1000, 0)
	}
	return udecimal.MustFromInt64(k*10000, 1)
}

// orderID returns the id of order number n.
func orderID(n int) uint64 { return uint64(n) }

func (m *model) newOrder(market bool) dOrder {
	m.nextID++
	p := m.parts[m.rng.IntN(len(m.parts))]
	o := dOrder{ID: orderID(m.nextID), Participant: p, User: 100 + p, Side: Side(1 + m.rng.IntN(2)), Quantity: m.qty(), Market: market}
	if !market {
		o.Price = m.price()
	}
	return o
}

// pick returns the id of a random resting order, or of a departed one.
func (m *model) pick() (dOrder, bool) {
	n := len(m.bids) + len(m.asks)
	if n == 0 || m.rng.IntN(20) == 0 {
		return dOrder{ID: orderID(1 + m.rng.IntN(m.nextID+1))}, false
	}
	i := m.rng.IntN(n)
	if i < len(m.bids) {
		return m.bids[i], true
	}
	return m.asks[i-len(m.bids)], true
}

// step applies one random command to both books and checks them.
func (m *model) step() error {
	m.bids = m.appendDepth(m.bids[:0], Bid)
	m.asks = m.appendDepth(m.asks[:0], Ask)
	var (
		got, want       dResult
		gotErr, wantErr error
		isCancel        bool
		isAdd           = true
		gotO, wantO     dOrder
	)
	switch r := m.rng.IntN(100); {
	case r < 48, r >= 60 && r < 63 && m.book.Len() == 0:
		o := m.newOrder(false)
		m.log = append(m.log, fmt.Sprintf("add %d p%d %s %s@%s", o.ID, o.Participant, o.Side, o.Quantity, o.Price))
		got, gotErr = m.add(o)
		want, wantErr = m.ref.add(o)
	case r < 58:
		o := m.newOrder(true)
		m.log = append(m.log, fmt.Sprintf("add market %d p%d %s %s", o.ID, o.Participant, o.Side, o.Quantity))
		got, gotErr = m.add(o)
		want, wantErr = m.ref.add(o)
	case r < 72:
		o, _ := m.pick()
		isCancel = true
		m.log = append(m.log, fmt.Sprint("cancel ", o.ID))
		gotO, gotErr = m.cancel(o.ID)
		wantO, wantErr = m.ref.cancel(o.ID)
	case r < 94:
		o, resting := m.pick()
		price, qty := o.Price, o.Quantity
		if !resting || m.rng.IntN(2) == 0 {
			price = m.price()
		}
		switch k := m.rng.IntN(20); {
		case k < 2:
			qty = o.Filled // close
		case k < 8:
			qty = qty.Sub(udecimal.MustFromInt64(1000, 0)) // may fall to or below filled
			if qty.IsNeg() {
				// Only for a departed order (quantity 0 here), which the
				// book does not find; a Fixed cannot be negative.
				qty = udecimal.Zero
			}
		case k < 14:
			qty = qty.Add(udecimal.MustFromInt64(int64(1000*m.rng.IntN(3)), 0))
		case k < 15:
			qty = udecimal.Zero
		case k < 16:
			price = udecimal.Zero
		default:
			qty = m.qty()
		}
		isAdd = false
		m.log = append(m.log, fmt.Sprintf("amend %d %s@%s", o.ID, qty, price))
		got, gotErr = m.amend(o.ID, price, qty)
		want, wantErr = m.ref.amend(o.ID, price, qty)
	case r < 97:
		o, _ := m.pick()
		dup := m.newOrder(false)
		dup.ID = o.ID
		m.log = append(m.log, fmt.Sprintf("add %d p%d %s %s@%s (reused id)", dup.ID, dup.Participant, dup.Side, dup.Quantity, dup.Price))
		got, gotErr = m.add(dup)
		want, wantErr = m.ref.add(dup)
	default:
		o := m.newOrder(m.rng.IntN(2) == 0)
		if m.rng.IntN(2) == 0 || o.Market {
			o.Quantity = udecimal.Zero
		} else {
			o.Price = udecimal.Zero
		}
		m.log = append(m.log, fmt.Sprintf("add invalid %d %s@%s market=%v", o.ID, o.Quantity, o.Price, o.Market))
		got, gotErr = m.add(o)
		want, wantErr = m.ref.add(o)
	}
	m.isAdd = isAdd

	if !sameErr(gotErr, wantErr) {
		return fmt.Errorf("got error %v, want %v", gotErr, wantErr)
	}
	if isCancel {
		if gotErr == nil && !sameOrder(gotO, wantO) {
			return fmt.Errorf("cancel (-want +got):\n%s", cmp.Diff(wantO, gotO, decimalEqual))
		}
	} else if gotErr == nil {
		if got.Status != want.Status || !sameOrder(got.Order, want.Order) || !slices.EqualFunc(got.Fills, want.Fills, sameFill) {
			return fmt.Errorf("result (-want +got):\n%s", cmp.Diff(want, got, decimalEqual))
		}
		if err := m.checkResult(got); err != nil {
			return err
		}
	} else if len(got.Fills) != 0 {
		return fmt.Errorf("failed command returned %d fills", len(got.Fills))
	}
	if err := m.checkBook(); err != nil {
		return err
	}
	if m.rng.IntN(50) == 0 {
		return m.rebuild()
	}
	return nil
}

func sameErr(got, want error) bool {
	for _, e := range []error{ErrInvalid, ErrNotFound, ErrDuplicateID} {
		if errors.Is(want, e) != errors.Is(got, e) {
			return false
		}
	}
	return (got == nil) == (want == nil)
}

// checkResult checks the invariants of one Add or Amend result against the
// book as it was before (m.bids, m.asks).
func (m *model) checkResult(r dResult) error {
	o := r.Order
	before := m.bids
	if o.Side == Bid {
		before = m.asks
	}
	pre := crossing(before, o)
	pos := map[uint64]int{}
	for i, x := range pre {
		pos[x.ID] = i
	}
	if m.isAdd {
		delete(m.filled, o.ID) // an id may be reused once its order left
	}
	need := o.Quantity.Sub(o.Filled)
	last := -1
	traded := map[uint64]udecimal.Decimal{}
	for _, f := range r.Fills {
		i, ok := pos[f.RestingID]
		if !ok {
			return fmt.Errorf("fill %v<-%v: resting order was not a crossing order on the other side", f.RestingID, f.IncomingID)
		}
		x := pre[i]
		switch {
		case i <= last:
			return fmt.Errorf("fill %v<-%v out of priority order", f.RestingID, f.IncomingID)
		case !f.Quantity.IsPos():
			return fmt.Errorf("fill %v<-%v quantity %v not positive", f.RestingID, f.IncomingID, f.Quantity)
		case !f.Price.Equal(x.Price):
			return fmt.Errorf("fill %v<-%v at %v, want resting price %v", f.RestingID, f.IncomingID, f.Price, x.Price)
		case x.Participant == o.Participant:
			return fmt.Errorf("fill %v<-%v within participant %v", f.RestingID, f.IncomingID, o.Participant)
		case !m.eligible(x.Participant, o.Participant):
			return fmt.Errorf("fill %v<-%v between non-eligible %v and %v", f.RestingID, f.IncomingID, x.Participant, o.Participant)
		case !f.RestingFilled.Add(f.RestingRemaining).Equal(x.Quantity) || f.RestingRemaining.IsNeg():
			return fmt.Errorf("fill %v<-%v: resting filled %v + remaining %v != quantity %v", f.RestingID, f.IncomingID, f.RestingFilled, f.RestingRemaining, x.Quantity)
		case m.aon && !f.RestingRemaining.IsZero():
			return fmt.Errorf("all-or-none fill %v<-%v leaves %v", f.RestingID, f.IncomingID, f.RestingRemaining)
		}
		last = i
		traded[f.RestingID] = f.Quantity
		need = need.Add(f.Quantity)
		for _, id := range []uint64{f.RestingID, f.IncomingID} {
			m.filled[id] = m.filled[id].Add(f.Quantity)
		}
		if !m.filled[f.RestingID].Equal(f.RestingFilled) {
			return fmt.Errorf("fill %v<-%v: resting filled %v, sum of its fills %v", f.RestingID, f.IncomingID, f.RestingFilled, m.filled[f.RestingID])
		}
	}
	// need is now what the order had open when it entered.
	if !m.filled[o.ID].Equal(o.Filled) {
		return fmt.Errorf("order %v filled %v, sum of its fills %v", o.ID, o.Filled, m.filled[o.ID])
	}
	if o.Filled.IsNeg() || o.Filled.GreaterThan(o.Quantity) {
		return fmt.Errorf("order %v filled %v of %v", o.ID, o.Filled, o.Quantity)
	}
	open := o.Remaining()
	switch r.Status {
	case StatusFilled:
		if !open.IsZero() {
			return fmt.Errorf("order %v filled with %v open", o.ID, open)
		}
	case StatusCancelled:
		if !o.Market || open.IsZero() {
			return fmt.Errorf("order %v cancelled: market %v, open %v", o.ID, o.Market, open)
		}
	case StatusResting:
		if got, ok := m.get(o.ID); !ok || !sameOrder(got, o) {
			return fmt.Errorf("order %v resting but Get = %+v, %v", o.ID, got, ok)
		}
	}
	if r.Status != StatusResting {
		if _, ok := m.get(o.ID); ok {
			return fmt.Errorf("order %v %v but still in the book", o.ID, r.Status)
		}
	}
	if len(r.Fills) == 0 {
		return nil
	}
	// Priority: every eligible crossing order ahead of the last one traded
	// was filled in full, or (all or none) did not fit.
	cum := udecimal.Zero
	for i, x := range pre {
		if x.Participant == o.Participant || !m.eligible(x.Participant, o.Participant) {
			continue
		}
		q, was := traded[x.ID]
		switch {
		case i > last && was:
			return fmt.Errorf("order %v traded after the last fill", x.ID)
		case i > last:
			if !m.aon && !open.IsZero() {
				return fmt.Errorf("eligible crossing order %v left while %v has %v open", x.ID, o.ID, open)
			}
		case m.aon && was:
			cum = cum.Add(q)
		case m.aon:
			if !x.Remaining().GreaterThan(need.Sub(cum)) {
				return fmt.Errorf("all-or-none skipped %v (%v) that fits the %v still needed", x.ID, x.Remaining(), need.Sub(cum))
			}
		case i < last && (!was || !q.Equal(x.Remaining())):
			return fmt.Errorf("order %v ahead of the last fill not filled in full", x.ID)
		}
	}
	if m.aon && (!cum.Equal(need) || !open.IsZero()) {
		return fmt.Errorf("all-or-none order %v traded %v of %v", o.ID, cum, need)
	}
	return nil
}

// checkBook compares the book with the reference and checks its invariants.
func (m *model) checkBook() error {
	bids := m.appendDepth(m.bids[:0], Bid)
	asks := m.appendDepth(m.asks[:0], Ask)
	m.bids, m.asks = bids, asks
	wb, wa := m.ref.depth(Bid), m.ref.depth(Ask)
	if !sameOrders(bids, wb) || !sameOrders(asks, wa) {
		return fmt.Errorf("book (-want +got):\n%s", cmp.Diff([2][]dOrder{wb, wa}, [2][]dOrder{bids, asks}, decimalEqual))
	}
	if got, want := m.book.Len(), len(bids)+len(asks); got != want {
		return fmt.Errorf("Len() = %d, want %d", got, want)
	}
	if got, want := m.book.Seq(), m.ref.seq; got != want {
		return fmt.Errorf("Seq() = %d, want %d", got, want)
	}
	for _, sd := range [][]dOrder{bids, asks} {
		for i, o := range sd {
			switch {
			case o.Market:
				return fmt.Errorf("market order %v rests", o.ID)
			case !o.Quantity.IsPos() || o.Filled.IsNeg() || !o.Filled.LessThan(o.Quantity):
				return fmt.Errorf("resting order %v filled %v of %v", o.ID, o.Filled, o.Quantity)
			case !m.filled[o.ID].Equal(o.Filled):
				return fmt.Errorf("resting order %v filled %v, sum of its fills %v", o.ID, o.Filled, m.filled[o.ID])
			case o.Seq == 0 || o.Seq > m.book.Seq():
				return fmt.Errorf("resting order %v seq %d, book seq %d", o.ID, o.Seq, m.book.Seq())
			case i > 0 && !better(sd[i-1], o):
				return fmt.Errorf("depth lists %v before %v", sd[i-1].ID, o.ID)
			}
		}
	}
	if m.aon {
		return nil // a crossed book between eligible participants is legal
	}
	for _, b := range bids {
		for _, a := range asks {
			if a.Price.GreaterThan(b.Price) {
				break
			}
			if a.Participant != b.Participant && m.eligible(a.Participant, b.Participant) {
				return fmt.Errorf("book crossed between eligible orders %v and %v", b.ID, a.ID)
			}
		}
	}
	return nil
}

// rebuild replaces the book by one restored from its resting orders in a
// random order, as after a restart.
func (m *model) rebuild() error {
	all := append(slices.Clone(m.bids), m.asks...)
	m.rng.Shuffle(len(all), func(i, j int) { all[i], all[j] = all[j], all[i] })
	b := New(Config{AllOrNone: m.aon, Eligible: m.ref.eligible})
	for _, o := range all {
		if err := b.Restore(toBook(o)); err != nil {
			return fmt.Errorf("restore %d: %v", o.ID, err)
		}
	}
	m.log = append(m.log, "rebuild")
	m.book = b
	// A rebuilt book continues after the highest restored sequence number.
	m.ref.seq = b.Seq()
	return m.checkBook()
}

func runModel(seed uint64, steps int) (err error) {
	m := newModel(seed)
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("panic: %v", p)
		}
		if err != nil {
			err = fmt.Errorf("%w\ncommands:\n  %s", err, strings.Join(m.log, "\n  "))
		}
	}()
	for i := range steps {
		if err := m.step(); err != nil {
			return fmt.Errorf("step %d: %w", i, err)
		}
	}
	return nil
}

// TestModel runs random command sequences against the Book and the naive
// refBook and requires identical results and books after every command.
// Rerun one failure with -args -matching.seed=N and -run 'TestModel$'.
func TestModel(t *testing.T) {
	const chunks = 10
	base := *modelSeed
	for c := range uint64(chunks) {
		t.Run(fmt.Sprint(c), func(t *testing.T) {
			t.Parallel()
			for i := range uint64(modelSequences / chunks) {
				seed := base + c*modelSequences/chunks + i
				steps := 20 + int(seed%41)
				if err := runModel(seed, steps); err != nil {
					t.Fatalf("seed %d: %v", seed, err)
				}
			}
		})
	}
}
