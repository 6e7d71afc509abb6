package matching

import (
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/quagmt/udecimal"
)

// decimalEqual compares decimals by value, and Fixed values, for cmp.
var decimalEqual = cmp.Options{
	cmp.Comparer(func(a, b udecimal.Decimal) bool { return a.Equal(b) }),
	cmp.Comparer(func(a, b Fixed) bool { return a == b }),
}

func dec(s string) udecimal.Decimal { return udecimal.MustParse(s) }

// fxd returns decimal s as a Fixed.
func fxd(s string) Fixed { return mustFixed(dec(s)) }

// The tests name orders ("a1") and participants ("p1"); the book sees
// numbers. tid numbers an order name on first use, tname gives it back;
// participant "pN" is N and its user 100+N.
var (
	testIDs   = map[string]uint64{}
	testNames = map[uint64]string{}
)

func tid(name string) uint64 {
	id, ok := testIDs[name]
	if !ok {
		id = uint64(len(testIDs) + 1)
		testIDs[name], testNames[id] = id, name
	}
	return id
}

func tname(id uint64) string {
	if n, ok := testNames[id]; ok {
		return n
	}
	return fmt.Sprint(id)
}

func pnum(name string) uint32 {
	n, err := strconv.ParseUint(strings.TrimPrefix(name, "p"), 10, 32)
	if err != nil {
		panic("participant " + name)
	}
	return uint32(n)
}

// lim is a limit order: "id participant side qty@price".
func lim(spec string) Order {
	f := strings.Fields(spec)
	qp := strings.Split(f[3], "@")
	s := Bid
	if f[2] == "ask" {
		s = Ask
	}
	return Order{ID: tid(f[0]), Participant: pnum(f[1]), User: 100 + pnum(f[1]), Side: s, Quantity: fxd(qp[0]), Price: fxd(qp[1])}
}

// mkt is a market order: "id participant side qty".
func mkt(spec string) Order {
	o := lim(spec + "@0")
	o.Market = true
	return o
}

// notEligible returns an Eligible func under which the listed pairs
// ("p1-p3") are not counterparties.
func notEligible(pairs ...string) func(a, b uint32) bool {
	return func(a, b uint32) bool {
		return !slices.Contains(pairs, fmt.Sprintf("p%d-p%d", a, b)) && !slices.Contains(pairs, fmt.Sprintf("p%d-p%d", b, a))
	}
}

// fillStrings renders fills as "resting<-incoming qty@price rem".
func fillStrings(fs []Fill) []string {
	var out []string
	for _, f := range fs {
		out = append(out, fmt.Sprintf("%s<-%s %s@%s rem %s", tname(f.RestingID), tname(f.IncomingID), f.Quantity, f.Price, f.RestingRemaining))
	}
	return out
}

// bookStrings renders one side as "id remaining@price" in priority order.
func bookStrings(b *Book, s Side) []string {
	var out []string
	for o := range b.Orders(s) {
		out = append(out, fmt.Sprintf("%s %s@%s", tname(o.ID), o.Remaining(), o.Price))
	}
	return out
}

func mustAdd(t *testing.T, b *Book, orders ...Order) {
	t.Helper()
	for _, o := range orders {
		if _, err := b.Add(o); err != nil {
			t.Fatalf("Add(%s) = %v, want nil error", tname(o.ID), err)
		}
	}
}

func TestAdd(t *testing.T) {
	tests := []struct {
		name       string
		aon        bool
		eligible   func(a, b uint32) bool
		resting    []Order
		in         Order
		wantFills  []string
		wantStatus Status
		wantFilled string
		wantBids   []string
		wantAsks   []string
	}{
		{
			name:       "rests in empty book",
			in:         lim("b1 p1 bid 10@100"),
			wantStatus: StatusResting, wantFilled: "0",
			wantBids: []string{"b1 10@100"},
		},
		{
			name:       "no cross no trade",
			resting:    []Order{lim("a1 p2 ask 10@101")},
			in:         lim("b1 p1 bid 10@100.99"),
			wantStatus: StatusResting, wantFilled: "0",
			wantBids: []string{"b1 10@100.99"}, wantAsks: []string{"a1 10@101"},
		},
		{
			name: "price then time priority",
			resting: []Order{
				lim("a1 p2 ask 10@101"), lim("a2 p2 ask 10@100"), lim("a3 p3 ask 10@100"), lim("a4 p3 ask 10@102"),
			},
			in:         lim("b1 p1 bid 25@101"),
			wantFills:  []string{"a2<-b1 10@100 rem 0", "a3<-b1 10@100 rem 0", "a1<-b1 5@101 rem 5"},
			wantStatus: StatusFilled, wantFilled: "25",
			wantAsks: []string{"a1 5@101", "a4 10@102"},
		},
		{
			name: "bid priority highest first",
			resting: []Order{
				lim("b1 p2 bid 10@99"), lim("b2 p2 bid 10@100"), lim("b3 p3 bid 10@100"),
			},
			in:         lim("a1 p1 ask 15@99"),
			wantFills:  []string{"b2<-a1 10@100 rem 0", "b3<-a1 5@100 rem 5"},
			wantStatus: StatusFilled, wantFilled: "15",
			wantBids: []string{"b3 5@100", "b1 10@99"},
		},
		{
			name:       "trades at resting price for incoming bid",
			resting:    []Order{lim("a1 p2 ask 10@99")},
			in:         lim("b1 p1 bid 10@101"),
			wantFills:  []string{"a1<-b1 10@99 rem 0"},
			wantStatus: StatusFilled, wantFilled: "10",
		},
		{
			name:       "trades at resting price for incoming ask",
			resting:    []Order{lim("b1 p2 bid 10@101")},
			in:         lim("a1 p1 ask 10@99"),
			wantFills:  []string{"b1<-a1 10@101 rem 0"},
			wantStatus: StatusFilled, wantFilled: "10",
		},
		{
			name:       "equal prices of different scale are one level",
			resting:    []Order{lim("a1 p2 ask 10@100.50"), lim("a2 p3 ask 10@100.5")},
			in:         lim("b1 p1 bid 15@100.500"),
			wantFills:  []string{"a1<-b1 10@100.5 rem 0", "a2<-b1 5@100.5 rem 5"},
			wantStatus: StatusFilled, wantFilled: "15",
			wantAsks: []string{"a2 5@100.5"},
		},
		{
			name:       "partial fill of incoming rests remainder",
			resting:    []Order{lim("a1 p2 ask 4@100"), lim("a2 p2 ask 10@102")},
			in:         lim("b1 p1 bid 10@101"),
			wantFills:  []string{"a1<-b1 4@100 rem 0"},
			wantStatus: StatusResting, wantFilled: "4",
			wantBids: []string{"b1 6@101"}, wantAsks: []string{"a2 10@102"},
		},
		{
			name:       "partial fill of resting keeps its place",
			resting:    []Order{lim("a1 p2 ask 10@100"), lim("a2 p3 ask 10@100")},
			in:         lim("b1 p1 bid 3@100"),
			wantFills:  []string{"a1<-b1 3@100 rem 7"},
			wantStatus: StatusFilled, wantFilled: "3",
			wantAsks: []string{"a1 7@100", "a2 10@100"},
		},
		{
			name:       "self match skipped and keeps place",
			resting:    []Order{lim("a1 p1 ask 10@100"), lim("a2 p2 ask 5@100"), lim("a3 p1 ask 5@100.5"), lim("a4 p3 ask 5@101")},
			in:         lim("b1 p1 bid 20@101"),
			wantFills:  []string{"a2<-b1 5@100 rem 0", "a4<-b1 5@101 rem 0"},
			wantStatus: StatusResting, wantFilled: "10",
			wantBids: []string{"b1 10@101"}, wantAsks: []string{"a1 10@100", "a3 5@100.5"},
		},
		{
			name:       "non-eligible skipped and keeps place",
			eligible:   notEligible("p1-p3"),
			resting:    []Order{lim("a1 p3 ask 10@100"), lim("a2 p2 ask 5@100"), lim("a3 p3 ask 5@100")},
			in:         lim("b1 p1 bid 10@100"),
			wantFills:  []string{"a2<-b1 5@100 rem 0"},
			wantStatus: StatusResting, wantFilled: "5",
			wantBids: []string{"b1 5@100"}, wantAsks: []string{"a1 10@100", "a3 5@100"},
		},
		{
			name:       "market order sweeps levels and cancels rest",
			resting:    []Order{lim("a1 p2 ask 5@100"), lim("a2 p3 ask 5@101"), lim("a3 p2 ask 5@150")},
			in:         mkt("m1 p1 bid 20"),
			wantFills:  []string{"a1<-m1 5@100 rem 0", "a2<-m1 5@101 rem 0", "a3<-m1 5@150 rem 0"},
			wantStatus: StatusCancelled, wantFilled: "15",
		},
		{
			name:       "market order filled",
			resting:    []Order{lim("b1 p2 bid 5@100"), lim("b2 p3 bid 5@90")},
			in:         mkt("m1 p1 ask 7"),
			wantFills:  []string{"b1<-m1 5@100 rem 0", "b2<-m1 2@90 rem 3"},
			wantStatus: StatusFilled, wantFilled: "7",
			wantBids: []string{"b2 3@90"},
		},
		{
			name:       "market order on empty side cancelled",
			resting:    []Order{lim("b1 p2 bid 5@100")},
			in:         mkt("m1 p1 bid 7"),
			wantStatus: StatusCancelled, wantFilled: "0",
			wantBids: []string{"b1 5@100"},
		},
		{
			name:       "market order skips self and non-eligible",
			eligible:   notEligible("p1-p3"),
			resting:    []Order{lim("a1 p1 ask 5@100"), lim("a2 p3 ask 5@100"), lim("a3 p2 ask 5@105")},
			in:         mkt("m1 p1 bid 10"),
			wantFills:  []string{"a3<-m1 5@105 rem 0"},
			wantStatus: StatusCancelled, wantFilled: "5",
			wantAsks: []string{"a1 5@100", "a2 5@100"},
		},
		{
			name:       "all or none fills whole orders",
			aon:        true,
			resting:    []Order{lim("a1 p2 ask 4@100"), lim("a2 p3 ask 6@101")},
			in:         lim("b1 p1 bid 10@101"),
			wantFills:  []string{"a1<-b1 4@100 rem 0", "a2<-b1 6@101 rem 0"},
			wantStatus: StatusFilled, wantFilled: "10",
		},
		{
			name:       "all or none skips too large",
			aon:        true,
			resting:    []Order{lim("a1 p2 ask 20@100"), lim("a2 p3 ask 4@100"), lim("a3 p2 ask 5@100.5"), lim("a4 p3 ask 6@101"), lim("a5 p3 ask 1@101")},
			in:         lim("b1 p1 bid 10@101"),
			wantFills:  []string{"a2<-b1 4@100 rem 0", "a3<-b1 5@100.5 rem 0", "a5<-b1 1@101 rem 0"},
			wantStatus: StatusFilled, wantFilled: "10",
			wantAsks: []string{"a1 20@100", "a4 6@101"},
		},
		{
			name:       "all or none no trade when not exact",
			aon:        true,
			resting:    []Order{lim("a1 p2 ask 4@100"), lim("a2 p3 ask 4@100"), lim("a3 p3 ask 2@102")},
			in:         lim("b1 p1 bid 10@101"),
			wantStatus: StatusResting, wantFilled: "0",
			wantBids: []string{"b1 10@101"}, wantAsks: []string{"a1 4@100", "a2 4@100", "a3 2@102"},
		},
		{
			name:       "all or none market order cancelled",
			aon:        true,
			resting:    []Order{lim("a1 p2 ask 4@100"), lim("a2 p3 ask 4@100")},
			in:         mkt("m1 p1 bid 10"),
			wantStatus: StatusCancelled, wantFilled: "0",
			wantAsks: []string{"a1 4@100", "a2 4@100"},
		},
		{
			name:       "all or none market order fills",
			aon:        true,
			resting:    []Order{lim("a1 p2 ask 4@100"), lim("a2 p3 ask 7@100"), lim("a3 p3 ask 6@140")},
			in:         mkt("m1 p1 bid 10"),
			wantFills:  []string{"a1<-m1 4@100 rem 0", "a3<-m1 6@140 rem 0"},
			wantStatus: StatusFilled, wantFilled: "10",
			wantAsks: []string{"a2 7@100"},
		},
		{
			name:       "all or none skips self and non-eligible",
			aon:        true,
			eligible:   notEligible("p1-p3"),
			resting:    []Order{lim("a1 p1 ask 5@100"), lim("a2 p3 ask 5@100"), lim("a3 p2 ask 5@100")},
			in:         lim("b1 p1 bid 5@100"),
			wantFills:  []string{"a3<-b1 5@100 rem 0"},
			wantStatus: StatusFilled, wantFilled: "5",
			wantAsks: []string{"a1 5@100", "a2 5@100"},
		},
		{
			name:       "all or none crossed book between eligible participants is kept",
			aon:        true,
			resting:    []Order{lim("a1 p2 ask 10@100")},
			in:         lim("b1 p1 bid 5@101"),
			wantStatus: StatusResting, wantFilled: "0",
			wantBids: []string{"b1 5@101"}, wantAsks: []string{"a1 10@100"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := New(Config{AllOrNone: tt.aon, Eligible: tt.eligible})
			mustAdd(t, b, tt.resting...)
			got, err := b.Add(tt.in)
			if err != nil {
				t.Fatalf("Add(%s) = %v, want nil error", tname(tt.in.ID), err)
			}
			if diff := cmp.Diff(tt.wantFills, fillStrings(got.Fills)); diff != "" {
				t.Errorf("Add(%s) fills (-want +got):\n%s", tname(tt.in.ID), diff)
			}
			if got.Status != tt.wantStatus {
				t.Errorf("Add(%s) status = %v, want %v", tname(tt.in.ID), got.Status, tt.wantStatus)
			}
			if got.Order.Filled != fxd(tt.wantFilled) {
				t.Errorf("Add(%s) filled = %s, want %s", tname(tt.in.ID), got.Order.Filled, tt.wantFilled)
			}
			if want := uint64(len(tt.resting) + 1); got.Order.Seq != want {
				t.Errorf("Add(%s) seq = %d, want %d", tname(tt.in.ID), got.Order.Seq, want)
			}
			if diff := cmp.Diff(tt.wantBids, bookStrings(b, Bid)); diff != "" {
				t.Errorf("bids after Add(%s) (-want +got):\n%s", tname(tt.in.ID), diff)
			}
			if diff := cmp.Diff(tt.wantAsks, bookStrings(b, Ask)); diff != "" {
				t.Errorf("asks after Add(%s) (-want +got):\n%s", tname(tt.in.ID), diff)
			}
		})
	}
}

func TestAddFillRecord(t *testing.T) {
	b := New(Config{})
	mustAdd(t, b, lim("a1 p2 ask 10@99.5"))
	got, err := b.Add(lim("b1 p1 bid 4@100"))
	if err != nil {
		t.Fatalf("Add(b1) = %v, want nil error", err)
	}
	want := Result{
		Order:  Order{ID: tid("b1"), Participant: 1, User: 101, Side: Bid, Price: fxd("100"), Quantity: fxd("4"), Filled: fxd("4"), Seq: 2},
		Status: StatusFilled,
		Fills: []Fill{{
			RestingID: tid("a1"), IncomingID: tid("b1"),
			RestingParticipant: 2, IncomingParticipant: 1,
			RestingUser: 102, IncomingUser: 101,
			IncomingSide:  Bid,
			Price:         fxd("99.5"),
			Quantity:      fxd("4"),
			RestingFilled: fxd("4"), RestingRemaining: fxd("6"),
		}},
	}
	if diff := cmp.Diff(want, got, decimalEqual); diff != "" {
		t.Errorf("Add(b1) (-want +got):\n%s", diff)
	}
	if o, ok := b.Get(tid("a1")); !ok || o.Filled != fxd("4") || o.Seq != 1 {
		t.Errorf("Get(a1) = %+v, %v, want filled 4 seq 1, true", o, ok)
	}
	if _, ok := b.Get(tid("b1")); ok {
		t.Errorf("Get(b1) found a filled order, want not found")
	}
}

func TestAmend(t *testing.T) {
	tests := []struct {
		name       string
		aon        bool
		resting    []Order
		pre        []Order // added after resting (may trade)
		id         string
		price, qty string
		wantFills  []string
		wantStatus Status
		wantSeq    uint64
		post       []Order // added after the amend
		wantBids   []string
		wantAsks   []string
	}{
		{
			name:    "decrease keeps priority",
			resting: []Order{lim("a1 p2 ask 10@100"), lim("a2 p3 ask 10@100")},
			id:      "a1", price: "100", qty: "5",
			wantStatus: StatusResting, wantSeq: 1,
			post:     []Order{lim("b1 p1 bid 7@100")},
			wantAsks: []string{"a2 8@100"},
		},
		{
			name:    "no change keeps priority",
			resting: []Order{lim("a1 p2 ask 10@100"), lim("a2 p3 ask 10@100")},
			id:      "a1", price: "100.00", qty: "10",
			wantStatus: StatusResting, wantSeq: 1,
			wantAsks: []string{"a1 10@100", "a2 10@100"},
		},
		{
			name:    "increase loses priority",
			resting: []Order{lim("a1 p2 ask 10@100"), lim("a2 p3 ask 10@100")},
			id:      "a1", price: "100", qty: "15",
			wantStatus: StatusResting, wantSeq: 3,
			post:     []Order{lim("b1 p1 bid 7@100")},
			wantAsks: []string{"a2 3@100", "a1 15@100"},
		},
		{
			name:    "price change loses priority",
			resting: []Order{lim("a1 p2 ask 10@100"), lim("a2 p3 ask 10@100"), lim("a3 p3 ask 10@101")},
			id:      "a1", price: "101", qty: "5",
			wantStatus: StatusResting, wantSeq: 4,
			wantAsks: []string{"a2 10@100", "a3 10@101", "a1 5@101"},
		},
		{
			name:    "price change crosses and matches at resting price",
			resting: []Order{lim("b1 p1 bid 4@99"), lim("b2 p3 bid 4@98"), lim("a1 p2 ask 10@101")},
			id:      "a1", price: "98.5", qty: "10",
			wantFills:  []string{"b1<-a1 4@99 rem 0"},
			wantStatus: StatusResting, wantSeq: 4,
			wantBids: []string{"b2 4@98"}, wantAsks: []string{"a1 6@98.5"},
		},
		{
			name:    "price change fills completely",
			resting: []Order{lim("b1 p1 bid 10@99"), lim("a1 p2 ask 4@101")},
			id:      "a1", price: "99", qty: "4",
			wantFills:  []string{"b1<-a1 4@99 rem 6"},
			wantStatus: StatusFilled, wantSeq: 3,
			wantBids: []string{"b1 6@99"},
		},
		{
			name:    "decrease of partly filled order",
			resting: []Order{lim("a1 p2 ask 10@100")},
			pre:     []Order{lim("b1 p1 bid 4@100")},
			id:      "a1", price: "100", qty: "6",
			wantStatus: StatusResting, wantSeq: 1,
			wantAsks: []string{"a1 2@100"},
		},
		{
			name:    "quantity equal to filled closes",
			resting: []Order{lim("a1 p2 ask 10@100")},
			pre:     []Order{lim("b1 p1 bid 4@100")},
			id:      "a1", price: "100", qty: "4",
			wantStatus: StatusFilled, wantSeq: 1,
		},
		{
			name:    "all or none increase can match in crossed book",
			aon:     true,
			resting: []Order{lim("b1 p1 bid 10@101"), lim("a1 p2 ask 5@100")},
			id:      "a1", price: "100", qty: "10",
			wantFills:  []string{"b1<-a1 10@101 rem 0"},
			wantStatus: StatusFilled, wantSeq: 3,
		},
		{
			name:    "all or none decrease keeps priority and does not match",
			aon:     true,
			resting: []Order{lim("b1 p1 bid 5@101"), lim("a1 p2 ask 10@100")},
			id:      "a1", price: "100", qty: "5",
			wantStatus: StatusResting, wantSeq: 2,
			wantBids: []string{"b1 5@101"}, wantAsks: []string{"a1 5@100"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := New(Config{AllOrNone: tt.aon})
			mustAdd(t, b, tt.resting...)
			mustAdd(t, b, tt.pre...)
			got, err := b.Amend(tid(tt.id), fxd(tt.price), fxd(tt.qty))
			if err != nil {
				t.Fatalf("Amend(%s) = %v, want nil error", tt.id, err)
			}
			if diff := cmp.Diff(tt.wantFills, fillStrings(got.Fills)); diff != "" {
				t.Errorf("Amend(%s) fills (-want +got):\n%s", tt.id, diff)
			}
			if got.Status != tt.wantStatus {
				t.Errorf("Amend(%s) status = %v, want %v", tt.id, got.Status, tt.wantStatus)
			}
			if got.Order.Seq != tt.wantSeq {
				t.Errorf("Amend(%s) seq = %d, want %d", tt.id, got.Order.Seq, tt.wantSeq)
			}
			if got.Order.Quantity != fxd(tt.qty) {
				t.Errorf("Amend(%s) quantity = %s, want %s", tt.id, got.Order.Quantity, tt.qty)
			}
			mustAdd(t, b, tt.post...)
			if diff := cmp.Diff(tt.wantBids, bookStrings(b, Bid)); diff != "" {
				t.Errorf("bids (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantAsks, bookStrings(b, Ask)); diff != "" {
				t.Errorf("asks (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCancel(t *testing.T) {
	b := New(Config{})
	mustAdd(t, b, lim("a1 p2 ask 10@100"), lim("a2 p3 ask 10@100"), lim("a3 p3 ask 10@101"), lim("b1 p1 bid 4@100"))

	got, err := b.Cancel(tid("a1"))
	if err != nil {
		t.Fatalf("Cancel(a1) = %v, want nil error", err)
	}
	if got.Filled != fxd("4") || tname(got.ID) != "a1" {
		t.Errorf("Cancel(a1) = %+v, want a1 with filled 4", got)
	}
	if _, err := b.Cancel(tid("a1")); !errors.Is(err, ErrNotFound) {
		t.Errorf("second Cancel(a1) = %v, want %v", err, ErrNotFound)
	}
	if _, err := b.Cancel(tid("a2")); err != nil {
		t.Fatalf("Cancel(a2) = %v, want nil error", err)
	}
	if p, ok := b.Best(Ask); !ok || p != fxd("101") {
		t.Errorf("Best(Ask) = %s, %v, want 101, true", p, ok)
	}
	if _, err := b.Cancel(tid("a3")); err != nil {
		t.Fatalf("Cancel(a3) = %v, want nil error", err)
	}
	if _, ok := b.Best(Ask); ok {
		t.Errorf("Best(Ask) on empty side ok = true, want false")
	}
	if b.Len() != 0 {
		t.Errorf("Len() = %d, want 0", b.Len())
	}
	// The id can be used again once the order left the book.
	mustAdd(t, b, lim("a1 p2 ask 1@100"))
}

func TestErrors(t *testing.T) {
	setup := func() *Book {
		b := New(Config{})
		mustAdd(t, b, lim("a1 p2 ask 10@100"), lim("b1 p1 bid 4@100"))
		return b
	}
	withFilled := func(o Order, f string) Order { o.Filled = fxd(f); return o }
	withSide := func(o Order, s Side) Order { o.Side = s; return o }
	withID := func(o Order, id uint64) Order { o.ID = id; return o }
	tests := []struct {
		name string
		run  func(b *Book) error
		want error
	}{
		{"add zero quantity", func(b *Book) error { _, err := b.Add(lim("x p1 bid 0@100")); return err }, ErrInvalid},
		{"add zero price", func(b *Book) error { _, err := b.Add(lim("x p1 bid 1@0")); return err }, ErrInvalid},
		{"add market zero quantity", func(b *Book) error { _, err := b.Add(mkt("x p1 bid 0")); return err }, ErrInvalid},
		{"add empty id", func(b *Book) error { _, err := b.Add(withID(lim("x p1 bid 1@100"), 0)); return err }, ErrInvalid},
		{"add no side", func(b *Book) error { _, err := b.Add(withSide(lim("x p1 bid 1@100"), 0)); return err }, ErrInvalid},
		{"add filled at quantity", func(b *Book) error { _, err := b.Add(withFilled(lim("x p1 bid 1@100"), "1")); return err }, ErrInvalid},
		{"add duplicate id", func(b *Book) error { _, err := b.Add(lim("a1 p3 bid 1@90")); return err }, ErrDuplicateID},
		{"cancel unknown", func(b *Book) error { _, err := b.Cancel(tid("zz")); return err }, ErrNotFound},
		{"cancel filled order", func(b *Book) error { _, err := b.Cancel(tid("b1")); return err }, ErrNotFound},
		{"amend unknown", func(b *Book) error { _, err := b.Amend(tid("zz"), fxd("100"), fxd("1")); return err }, ErrNotFound},
		{"amend below filled", func(b *Book) error { _, err := b.Amend(tid("a1"), fxd("100"), fxd("3")); return err }, ErrInvalid},
		{"amend zero quantity", func(b *Book) error { _, err := b.Amend(tid("a1"), fxd("100"), fxd("0")); return err }, ErrInvalid},
		{"amend zero price", func(b *Book) error { _, err := b.Amend(tid("a1"), fxd("0"), fxd("10")); return err }, ErrInvalid},
		{"restore market order", func(b *Book) error { return b.Restore(mkt("x p1 bid 1")) }, ErrInvalid},
		{"restore duplicate", func(b *Book) error { return b.Restore(lim("a1 p1 bid 1@90")) }, ErrDuplicateID},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := setup()
			before := snapshot(b)
			err := tt.run(b)
			if !errors.Is(err, tt.want) {
				t.Fatalf("got error %v, want %v", err, tt.want)
			}
			if diff := cmp.Diff(before, snapshot(b), decimalEqual); diff != "" {
				t.Errorf("book changed by a failed command (-want +got):\n%s", diff)
			}
		})
	}
}

// snapshot returns both sides of b in priority order.
func snapshot(b *Book) [2][]Order {
	return [2][]Order{b.AppendDepth(nil, Bid, 0), b.AppendDepth(nil, Ask, 0)}
}

func TestRestore(t *testing.T) {
	orig := New(Config{})
	mustAdd(t, orig,
		lim("a1 p2 ask 10@100"), lim("a2 p3 ask 10@100"), lim("a3 p3 ask 10@101"),
		lim("b1 p1 bid 4@100"), lim("b2 p1 bid 5@99"), lim("b3 p2 bid 5@99"))
	if _, err := orig.Amend(tid("a1"), fxd("100"), fxd("20")); err != nil { // a1 behind a2 now
		t.Fatal(err)
	}
	want := snapshot(orig)

	// Restore in reverse priority order with the saved sequence numbers.
	var all []Order
	all = append(all, want[0]...)
	all = append(all, want[1]...)
	slices.Reverse(all)
	b := New(Config{})
	for _, o := range all {
		if err := b.Restore(o); err != nil {
			t.Fatalf("Restore(%s) = %v, want nil error", tname(o.ID), err)
		}
	}
	if diff := cmp.Diff(want, snapshot(b), decimalEqual); diff != "" {
		t.Errorf("restored book (-want +got):\n%s", diff)
	}
	if got, want := b.Seq(), orig.Seq(); got != want {
		t.Errorf("Seq() after restore = %d, want %d", got, want)
	}
	r, err := b.Add(lim("m p1 bid 100@101"))
	if err != nil {
		t.Fatal(err)
	}
	wantFills := []string{"a2<-m 10@100 rem 0", "a1<-m 16@100 rem 0", "a3<-m 10@101 rem 0"}
	if diff := cmp.Diff(wantFills, fillStrings(r.Fills)); diff != "" {
		t.Errorf("Add after restore fills (-want +got):\n%s", diff)
	}
	if r.Order.Seq != orig.Seq()+1 {
		t.Errorf("Add after restore seq = %d, want %d", r.Order.Seq, orig.Seq()+1)
	}

	// Seq 0 restores in call order.
	b = New(Config{})
	for _, id := range []string{"x1", "x2"} {
		if err := b.Restore(lim(id + " p1 bid 1@100")); err != nil {
			t.Fatal(err)
		}
	}
	if diff := cmp.Diff([]string{"x1 1@100", "x2 1@100"}, bookStrings(b, Bid)); diff != "" {
		t.Errorf("restore with seq 0 (-want +got):\n%s", diff)
	}
}

func TestDepth(t *testing.T) {
	b := New(Config{})
	mustAdd(t, b,
		lim("b1 p1 bid 1@99"), lim("b2 p1 bid 2@100"), lim("b3 p2 bid 3@100"), lim("b4 p2 bid 4@98"),
		lim("a1 p3 ask 1@102"), lim("a2 p3 ask 2@101"))
	ids := func(os []Order) []string {
		var out []string
		for _, o := range os {
			out = append(out, tname(o.ID))
		}
		return out
	}
	tests := []struct {
		side Side
		n    int
		want []string
	}{
		{Bid, 0, []string{"b2", "b3", "b1", "b4"}},
		{Bid, 2, []string{"b2", "b3"}},
		{Bid, 10, []string{"b2", "b3", "b1", "b4"}},
		{Ask, 1, []string{"a2"}},
		{Ask, -1, []string{"a2", "a1"}},
		{0, 0, nil},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%v/%d", tt.side, tt.n), func(t *testing.T) {
			got := ids(b.AppendDepth(nil, tt.side, tt.n))
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("AppendDepth(%v, %d) (-want +got):\n%s", tt.side, tt.n, diff)
			}
		})
	}
	buf := make([]Order, 0, 16)
	if n := testing.AllocsPerRun(100, func() { buf = b.AppendDepth(buf[:0], Bid, 0) }); n != 0 {
		t.Errorf("AppendDepth with room allocs = %v, want 0", n)
	}
	var first []string
	for o := range b.Orders(Ask) {
		first = append(first, tname(o.ID))
		break
	}
	if diff := cmp.Diff([]string{"a2"}, first); diff != "" {
		t.Errorf("Orders(Ask) with break (-want +got):\n%s", diff)
	}
}

func TestAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts differ under the race detector")
	}
	b := New(Config{Eligible: func(a, b uint32) bool { return true }})
	// Ids spread over the id space, as well as consecutive ones.
	ids := make([]uint64, 1000)
	for i := range ids {
		ids[i] = uint64(i + 1)
		if i%2 == 0 {
			ids[i] = uint64(i+1) << 40
		}
	}
	order := func(id uint64) Order {
		return Order{ID: id, Participant: 1, Side: Bid, Price: fxd("99"), Quantity: fxd("10")}
	}
	// Warm the slots and the index.
	for _, id := range ids {
		mustAdd(t, b, order(id))
	}
	for _, id := range ids {
		if _, err := b.Cancel(id); err != nil {
			t.Fatal(err)
		}
	}
	fills := make([]Fill, 0, 8)
	i := 0
	addCancel := testing.AllocsPerRun(500, func() {
		o := order(ids[i%len(ids)])
		i++
		if _, err := b.AddInto(&o, fills[:0]); err != nil {
			t.Fatal(err)
		}
		if _, err := b.Cancel(o.ID); err != nil {
			t.Fatal(err)
		}
	})
	if addCancel != 0 {
		t.Errorf("AddInto+Cancel allocs = %v, want 0", addCancel)
	}
	mustAdd(t, b, Order{ID: 1 << 50, Participant: 2, Side: Ask, Price: fxd("100"), Quantity: fxd("1000000000")})
	in := Order{ID: 7, Participant: 1, Side: Bid, Price: fxd("100"), Quantity: fxd("1")}
	cross := testing.AllocsPerRun(500, func() {
		r, err := b.AddInto(&in, fills[:0])
		if err != nil || len(r.Fills) != 1 {
			t.Fatalf("AddInto crossing = %d fills, %v; want 1 fill", len(r.Fills), err)
		}
	})
	if cross != 0 {
		t.Errorf("crossing AddInto allocs = %v, want 0", cross)
	}
	add := testing.AllocsPerRun(500, func() {
		if _, err := b.Add(in); err != nil {
			t.Fatal(err)
		}
	})
	if add > 1 {
		t.Errorf("crossing Add allocs = %v, want at most 1", add)
	}
}

func TestFixed(t *testing.T) {
	tests := []struct {
		in   string
		ok   bool
		want string // Decimal() of FixedOf(in)
	}{
		{"100", true, "100"},
		{"100.125", true, "100.125"},
		{"99.0000000010", true, "99.000000001"},
		{"99.0000000001", true, "99.0000000001"},
		{"0.0000000000000000001", true, "0.0000000000000000001"},
		{"1000000.0000000000", true, "1000000"},
		{"999999999999999999.99999999", true, "999999999999999999.99999999"},
		{"34028236692093846346.3374607431768211455", true, "34028236692093846346.3374607431768211455"},
		{"34028236692093846346.3374607431768211456", false, ""},
		{"34028236692093846347", false, ""},
		{"0", true, "0"},
		{"-1", false, ""},
	}
	for _, tt := range tests {
		f, ok := FixedOf(dec(tt.in))
		if ok != tt.ok {
			t.Errorf("FixedOf(%s) ok = %v, want %v", tt.in, ok, tt.ok)
			continue
		}
		if !ok {
			continue
		}
		got := f.Decimal()
		if got.String() != tt.want || !got.Equal(dec(tt.in)) {
			t.Errorf("FixedOf(%s).Decimal() = %s, want %s", tt.in, got, tt.want)
		}
		if _, hi, lo, prec, _ := got.ToHiLo(); prec > 0 && (hi == 0 && lo%10 == 0) {
			t.Errorf("FixedOf(%s).Decimal() has a trailing zero at precision %d", tt.in, prec)
		}
	}
	a, _ := FixedOf(dec("100.5"))
	b, _ := FixedOf(dec("100.49999"))
	if a.Cmp(b) != 1 || b.Cmp(a) != -1 || a.Cmp(a) != 0 {
		t.Errorf("cmp(100.5, 100.49999) = %d, want 1", a.Cmp(b))
	}
	if got := a.sub(b).add(b); got != a {
		t.Errorf("100.5 - 100.49999 + 100.49999 = %s", got.Decimal())
	}
}

// TestCapacity: a book sized ahead takes orders up to its capacity with
// no allocation, where one that grows allocates its slots and index.
func TestCapacity(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts are not meaningful under the race detector")
	}
	const n = 20_000
	mallocs := func(capacity int) uint64 {
		// Two price levels a side, made before counting: the orders then
		// only queue at them.
		bk := New(Config{Capacity: capacity})
		orders := benchOrders(1, n)
		for i := range orders {
			orders[i].Price = benchPrice(orders[i].Side, i%2)
		}
		fills := make([]Fill, 0, 16)
		for i := range 4 {
			if _, err := bk.AddInto(&orders[i], fills[:0]); err != nil {
				t.Fatal(err)
			}
		}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		for i := 4; i < n; i++ {
			if r, err := bk.AddInto(&orders[i], fills[:0]); err != nil || r.Status != StatusResting {
				t.Fatalf("order %d: %v, %v; want resting", i, r.Status, err)
			}
		}
		runtime.ReadMemStats(&after)
		if bk.Len() != n {
			t.Fatalf("%d resting, want %d", bk.Len(), n)
		}
		return after.Mallocs - before.Mallocs
	}
	// The count is the process's: a rare allocation of the runtime's own
	// may land in it, so the least of three tries is taken.
	if got := min(mallocs(n), mallocs(n), mallocs(n)); got != 0 {
		t.Errorf("sized for %d: %d allocations while filling it, want 0", n, got)
	}
	if got := mallocs(0); got == 0 {
		t.Errorf("unsized: no allocation while growing to %d orders; the check above cannot tell", n)
	}
}

// TestSettles: a resting order whose settlement cannot settle with the
// incoming one's is skipped like an ineligible participant, in both
// continuous modes, and an unknown settlement (0) trades with any.
func TestSettles(t *testing.T) {
	at := func(o Order, s uint16) Order { o.Settlement = s; return o }
	// Settlements 1 and 2 are linked, 3 is linked with none.
	settles := func(a, b uint16) bool { return (a == 1 && b == 2) || (a == 2 && b == 1) }
	for _, aon := range []bool{false, true} {
		t.Run(fmt.Sprintf("all or none %v", aon), func(t *testing.T) {
			b := New(Config{AllOrNone: aon, Settles: settles})
			mustAdd(t, b, at(lim("a1 p2 ask 5@100"), 3), at(lim("a2 p3 ask 5@100"), 2), at(lim("a3 p4 ask 5@100"), 0),
				at(lim("a4 p5 ask 5@100"), 1))
			got, err := b.Add(at(lim("b1 p1 bid 20@100"), 1))
			if err != nil {
				t.Fatalf("Add(b1) = %v", err)
			}
			want := []string{"a2<-b1 5@100 rem 0", "a3<-b1 5@100 rem 0", "a4<-b1 5@100 rem 0"}
			if aon {
				want = nil // 20 cannot fill in full without a1
			}
			if diff := cmp.Diff(want, fillStrings(got.Fills)); diff != "" {
				t.Errorf("fills (-want +got):\n%s", diff)
			}
			if !aon {
				if diff := cmp.Diff([]string{"a1 5@100"}, bookStrings(b, Ask)); diff != "" {
					t.Errorf("asks (-want +got):\n%s", diff)
				}
			}
			// The resting order keeps its settlement.
			for o := range b.Orders(Ask) {
				if o.ID == tid("a1") && o.Settlement != 3 {
					t.Errorf("a1 settlement = %d, want 3", o.Settlement)
				}
			}
		})
	}
}
