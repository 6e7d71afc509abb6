package matching

import "errors"

// Errors returned by Book commands, checkable with errors.Is. The returned
// error wraps one of them with the order id and the reason.
var (
	// ErrNotFound means no order with that id rests in the book.
	ErrNotFound = errors.New("order not found")
	// ErrDuplicateID means an order with that id already rests in the book.
	ErrDuplicateID = errors.New("duplicate order id")
	// ErrInvalid means the command is malformed: id 0, unknown side,
	// quantity not positive, limit price not positive, filled quantity not
	// below the quantity, or an amended quantity below the filled quantity.
	ErrInvalid = errors.New("invalid order")
)

// Side is the direction of an order: Bid (buy) or Ask (sell). The zero
// value is invalid.
type Side uint8

// The two sides of the book.
const (
	// Bid is a buy order.
	Bid Side = iota + 1
	// Ask is a sell order.
	Ask
)

// Opposite returns the side an order of side s trades against.
func (s Side) Opposite() Side {
	switch s {
	case Bid:
		return Ask
	case Ask:
		return Bid
	}
	return 0
}

// String returns "bid", "ask" or "invalid".
func (s Side) String() string {
	switch s {
	case Bid:
		return "bid"
	case Ask:
		return "ask"
	}
	return "invalid"
}

// Order is one firm offer as the book sees it. Its identities are integers
// the caller assigns and maps back to its own records (the engine interns
// offer, participant and user ids at its edge), and its price and
// quantities are Fixed, so an Order is small, holds no pointers and the
// book never parses, formats or interns a string.
type Order struct {
	// ID identifies the order: any number but 0, unique among resting
	// orders.
	ID uint64
	// Participant is the firm owning the order; it is what eligibility and
	// self-match prevention look at.
	Participant uint32
	// User is the user who entered the order, carried into fills.
	User uint32
	// Settlement is where the order would settle (the caller numbers
	// CSDs; 0 is unknown): Config.Settles says which two can trade.
	Settlement uint16
	// Side is Bid or Ask.
	Side Side
	// Market marks a market order: it trades at the best eligible prices
	// and its remainder is cancelled; it never rests.
	Market bool
	// Price is the clean price in percent of par. Ignored for market orders.
	Price Fixed
	// Quantity is the total nominal quantity of the order.
	Quantity Fixed
	// Filled is the nominal quantity already traded: 0 <= Filled <= Quantity.
	Filled Fixed
	// Seq is the time priority the book assigned (lower is earlier). The
	// book sets it on Add and when an amend loses priority; it is an input
	// only to Restore.
	Seq uint64
}

// Remaining returns the quantity still open: Quantity - Filled.
func (o Order) Remaining() Fixed {
	return o.Quantity.sub(o.Filled)
}

// Status is the state of an order after a command.
type Status uint8

// The states an incoming or amended order can end a command in.
const (
	// StatusResting means the order rests in the book (possibly partly
	// filled).
	StatusResting Status = iota + 1
	// StatusFilled means the order is completely filled and left the book
	// (the venue's "closed").
	StatusFilled
	// StatusCancelled means the unfilled remainder of a market order was
	// cancelled; Filled says how much traded before.
	StatusCancelled
)

// String returns "resting", "filled", "cancelled" or "invalid".
func (s Status) String() string {
	switch s {
	case StatusResting:
		return "resting"
	case StatusFilled:
		return "filled"
	case StatusCancelled:
		return "cancelled"
	}
	return "invalid"
}

// Fill is one trade between a resting order and the incoming order that
// crossed it. The venue books one trade per fill.
type Fill struct {
	// RestingID is the id of the resting (passive) order.
	RestingID uint64
	// IncomingID is the id of the incoming (aggressive) order.
	IncomingID uint64
	// RestingParticipant owns the resting order.
	RestingParticipant uint32
	// IncomingParticipant owns the incoming order.
	IncomingParticipant uint32
	// RestingUser entered the resting order.
	RestingUser uint32
	// IncomingUser entered the incoming order.
	IncomingUser uint32
	// IncomingSide is the incoming order's side; the resting order is on
	// the opposite side.
	IncomingSide Side
	// Price is the trade price: the resting order's price.
	Price Fixed
	// Quantity is the traded nominal quantity, always positive.
	Quantity Fixed
	// RestingFilled is the resting order's filled quantity after this fill.
	RestingFilled Fixed
	// RestingRemaining is the resting order's open quantity after this
	// fill; zero means it is filled and left the book.
	RestingRemaining Fixed
}

// Result is the outcome of an Add or Amend.
type Result struct {
	// Order is the incoming or amended order's final state, with the
	// sequence number the book gave it and its filled quantity.
	Order Order
	// Status says whether Order now rests, is filled or had its remainder
	// cancelled.
	Status Status
	// Fills are the trades the command produced, in execution order.
	Fills []Fill
}
