// Package matching is the continuous order book of one instrument in one
// continues-matching market: price-time priority matching of firm offers,
// pure and deterministic.
//
// A Book holds no goroutines, locks, clock, I/O or logging. One owner (the
// trading sequencer) applies commands to it in order and persists what each
// command returns. Given the same commands, a Book always returns the same
// fills and ends in the same state, so a book is rebuilt after a restart by
// restoring its resting orders (Book.Restore) in their priority order.
//
// # Matching rules
//
//   - Priority. Resting orders are ranked by price (highest bid, lowest ask
//     first), then by time: the sequence number the book assigned when the
//     order last entered it. Every Add takes the next number (market orders
//     too, though they never rest); sequence numbers are per book, start at 1
//     and never repeat.
//   - Crossing. An incoming limit bid crosses asks priced at or below its
//     price; an incoming limit ask crosses bids priced at or above its
//     price. An incoming market order crosses every resting order on the
//     other side whatever its price; its own Price is ignored.
//   - Trade price. Every fill is at the resting order's price.
//   - Eligibility. An incoming order trades only with resting orders of
//     another participant that is an enabled counterparty
//     (Config.Eligible). A resting order of the same participant
//     (self-match) or of a participant that is not eligible is skipped: it
//     keeps its place and the walk goes on to the next resting order.
//     Eligibility is asked at match time only, so a book may be crossed
//     between participants that cannot trade with each other.
//   - Partial fills (Config.AllOrNone false). The incoming order walks the
//     crossing resting orders in priority order and takes from each as much
//     as both have left, until it is filled or nothing crosses any more.
//     A resting order that is filled leaves the book; a partly filled one
//     keeps its place.
//   - All or none (Config.AllOrNone true), for markets that do not allow
//     partial fills. The incoming order walks the crossing eligible resting
//     orders in priority order and takes every resting order whose remaining
//     quantity fits in what the incoming order still needs, whole; one that
//     does not fit is skipped and keeps its place. The walk is greedy: it
//     does not search for another combination. If the orders taken add up
//     exactly to the incoming order's remaining quantity, all those trades
//     happen, each filling its resting order in full; otherwise nothing
//     trades at all. So in such a market every order is either untouched or
//     completely filled, and the book may stay crossed between eligible
//     participants when no combination fits.
//   - Remainder. What an incoming limit order has left after matching rests
//     in the book at its price, behind the orders already there. What a
//     market order has left is cancelled (immediate or cancel): a market
//     order never rests.
//   - Amend. The new quantity is the new total quantity and must be at least
//     the quantity already filled. Equal to the filled quantity, it closes
//     the order: the order leaves the book as filled. A quantity decrease at
//     the same price keeps the order's place (and never trades). A price
//     change or a quantity increase loses it: the order takes a new sequence
//     number and re-enters as an incoming order, so it may trade at once
//     (with the amended order as the incoming side) before the rest goes to
//     the back of its price level. An amend to the same price and quantity
//     changes nothing.
//   - Cancel removes a resting order whatever its fills so far.
//   - Identifiers. An order ID must be unique among the orders resting in
//     the book; the book forgets an ID once its order has left.
//
// # Bounds and identifiers
//
// The book speaks integers only, so that a command costs it no parsing,
// formatting, interning or allocation. Orders are identified by a non-zero
// uint64 the caller assigns, participants and users by uint32 numbers; the
// caller (the trading engine) interns its own ids at its edge and maps
// fills back. Prices and quantities are Fixed: exact 128-bit integer
// numbers of 10^-19, from 0 to about 3.4·10^19 (the venue's own bound, 18
// integer digits, is far below). FixedOf converts a decimal exactly and
// refuses a negative or larger one rather than round it; Fixed.Decimal
// converts back, with no trailing zeros.
//
// # Use
//
// Add, Amend and Cancel are the commands. AddInto and AmendInto append the
// fills to a caller-owned slice so the hot path does not allocate; Add and
// Amend return a fresh slice. Get, Best, AppendDepth and Orders read the
// book. A Book is not safe for concurrent use.
package matching
