package records

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/quagmt/udecimal"
)

// This file rebuilds an order book at a past instant from the order
// records alone: each order's latest record at or before the instant says
// whether it rests, at what price, for how much, and since when.

// Resting is one order in a replayed book.
type Resting struct {
	OrderID       string           `json:"order_id"`
	ParticipantID string           `json:"participant_id"`
	Price         udecimal.Decimal `json:"price"`
	Remaining     udecimal.Decimal `json:"remaining_quantity"`
	PriorityTime  string           `json:"priority_time"`
	// prioritySeq is the sequence number of the record that gave the order
	// its priority time: records of one instant rank in sequence order.
	prioritySeq int64
}

// Book is a replayed book: bids best first, asks best first, each level in
// time priority.
type Book struct {
	Bids []Resting `json:"bids"`
	Asks []Resting `json:"asks"`
}

// Replayer rebuilds one book from its records, fed in sequence order.
type Replayer struct {
	orders map[string]*replayed
}

type replayed struct {
	side    string
	resting Resting
	live    bool
}

// NewReplayer returns an empty replayer.
func NewReplayer() *Replayer { return &Replayer{orders: map[string]*replayed{}} }

// index of each field Replay reads.
var (
	iOrderID      = fieldIndex("order_id")
	iParticipant  = fieldIndex("participant_id")
	iMarket       = fieldIndex("market_id")
	iOrderBook    = fieldIndex("order_book_code")
	iInstrument   = fieldIndex("instrument")
	iSide         = fieldIndex("buy_sell")
	iLimit        = fieldIndex("limit_price")
	iRemaining    = fieldIndex("remaining_quantity")
	iPriorityTime = fieldIndex("priority_time")
	iLive         = fieldIndex("live")
	iOrderType    = fieldIndex("order_type")
	iEvent        = fieldIndex("event")
	iEventTime    = fieldIndex("event_time")
)

// prioritySetBy are the events that may give an order a new priority.
var prioritySetBy = map[string]bool{New: true, ReplacedByMember: true, ReplacedByVenue: true, ReplacedByStaff: true}

func fieldIndex(name string) int {
	for i, f := range Fields {
		if f.Name == name {
			return i
		}
	}
	panic("records: no field " + name)
}

// Add applies the next record of the book (records of other order types
// than firm limit orders are ignored: only those rest in a book).
func (p *Replayer) Add(s Stored) error {
	v := s.Values
	if v[iOrderType] != TypeLimit {
		return nil
	}
	id := v[iOrderID]
	o := p.orders[id]
	if o == nil {
		o = &replayed{}
		p.orders[id] = o
	}
	o.live = v[iLive] == "true"
	if !o.live {
		delete(p.orders, id)
		return nil
	}
	price, err := udecimal.Parse(v[iLimit])
	if err != nil {
		return fmt.Errorf("order record %d: limit price: %w", s.Seq, err)
	}
	remaining, err := udecimal.Parse(v[iRemaining])
	if err != nil {
		return fmt.Errorf("order record %d: remaining quantity: %w", s.Seq, err)
	}
	if o.resting.PriorityTime != v[iPriorityTime] || (v[iPriorityTime] == v[iEventTime] && prioritySetBy[v[iEvent]]) {
		o.resting.prioritySeq = s.Seq
	}
	o.side = v[iSide]
	o.resting = Resting{OrderID: id, ParticipantID: v[iParticipant], Price: price, Remaining: remaining,
		PriorityTime: v[iPriorityTime], prioritySeq: o.resting.prioritySeq}
	if !remaining.IsPos() {
		delete(p.orders, id)
	}
	return nil
}

// Book is the book as the records added so far leave it.
func (p *Replayer) Book() Book {
	b := Book{Bids: []Resting{}, Asks: []Resting{}}
	for _, o := range p.orders {
		if o.side == "BUYI" {
			b.Bids = append(b.Bids, o.resting)
		} else {
			b.Asks = append(b.Asks, o.resting)
		}
	}
	byTime := func(a, c Resting) int {
		if n := cmp.Compare(a.PriorityTime, c.PriorityTime); n != 0 {
			return n
		}
		return cmp.Compare(a.prioritySeq, c.prioritySeq)
	}
	slices.SortFunc(b.Bids, func(a, c Resting) int {
		if n := c.Price.Cmp(a.Price); n != 0 {
			return n
		}
		return byTime(a, c)
	})
	slices.SortFunc(b.Asks, func(a, c Resting) int {
		if n := a.Price.Cmp(c.Price); n != 0 {
			return n
		}
		return byTime(a, c)
	})
	return b
}
