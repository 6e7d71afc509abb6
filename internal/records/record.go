// Package records holds the venue's order records: one record for every
// event in the life of an order (an offer, a quote, a request for quote, a
// portfolio list, an accept), in the fields and codes a regulator asks a
// trading venue for (docs/guide.md, "Records and the audit trail"). The
// sequencer writes them in the commit of the event they record; this
// package names the fields, encodes a record for the log and for export,
// and rebuilds a book at any instant from the records alone (replay.go).
package records

import (
	"time"

	"github.com/quagmt/udecimal"
)

// Event codes (field 21).
const (
	New                 = "NEWO"
	ReplacedByMember    = "REME"
	ReplacedByVenue     = "REMA"
	ReplacedByStaff     = "REMH"
	ChangedByMember     = "CHME"
	ChangedByOperator   = "CHMO"
	CancelledByMember   = "CAME"
	CancelledByOperator = "CAMO"
	Rejected            = "REMO"
	Expired             = "EXPI"
	PartiallyFilled     = "PARF"
	Filled              = "FILL"
)

// Order statuses (field 33): a firm offer or an accept is active or
// inactive; a dealer's quote is firm; a request for quote and a portfolio
// list are indications of interest.
const (
	StatusActive     = "ACTI"
	StatusInactive   = "INAC"
	StatusFirm       = "FIRM"
	StatusIndication = "INDI"
)

// Validity periods (field 10).
const (
	GoodTillCancelled = "GTCV"
	GoodTillTime      = "GTTV"
	ImmediateOrCancel = "IOCV"
	FillOrKill        = "FOKV"
)

// Trading capacities (field 7).
const (
	Dealing = "DEAL"
	Matched = "MTCH"
	Agency  = "AOTC"
)

// Venue order types (field 22).
const (
	TypeLimit     = "LIMIT"
	TypeMarket    = "MARKET"
	TypeQuote     = "QUOTE"
	TypeRFQ       = "RFQ"
	TypeList      = "LIST"
	TypeListQuote = "LIST_QUOTE"
	TypeAccept    = "ACCEPT"
)

// Trading phases (field 49).
const (
	PhaseContinuous = "CONTINUOUS"
	PhaseRFQ        = "RFQ"
	PhaseHalted     = "HALTED"
	// Outside a market's trading hours (docs/guide.md, "Market hours"):
	// only refusals and cancels are recorded then.
	PhasePreOpen = "PRE_OPEN"
	PhaseClosed  = "CLOSED"
)

// Record is one order event. The numbered fields are those of the order
// record a venue keeps for its regulator, with their numbers; the others
// are the venue's own keys for finding and replaying records.
type Record struct {
	Seq                int64            // 15 sequence number, venue-wide, gap-free
	SubmittingEntity   string           // 1 the member's LEI
	ClientID           string           // 3
	InvestmentDecision string           // 4
	ExecutionDecision  string           // 5
	Capacity           string           // 7
	EventTime          time.Time        // 9 UTC, to the microsecond
	Validity           string           // 10
	ValidUntil         *time.Time       // 12
	PriorityTime       time.Time        // 13
	PrioritySize       udecimal.Decimal // 14
	SegmentMIC         string           // 16
	OrderBook          string           // 17 the market's id
	ISIN               string           // 18
	ReceivedOn         string           // 19 YYYY-MM-DD
	OrderID            string           // 20
	Event              string           // 21
	OrderType          string           // 22
	Classification     string           // 23 always LMTO: the venue has no stop orders
	LimitPrice         udecimal.Decimal // 24, when HasLimit
	HasLimit           bool
	TransactionPrice   udecimal.Decimal // 28, on a fill
	PriceCurrency      string           // 29
	Side               string           // 32 BUYI or SELL
	Status             string           // 33
	QuantityCurrency   string           // 35
	InitialQuantity    udecimal.Decimal // 36
	RemainingQuantity  udecimal.Decimal // 37
	DisplayedQuantity  udecimal.Decimal // 38
	TradedQuantity     udecimal.Decimal // 39, on a fill
	Liquidity          string           // 44 PASV or AGRE, on a fill
	TransactionID      string           // 48 the trade's TVTIC, on a fill
	TradingPhase       string           // 49

	// The venue's own fields.
	ParticipantID string
	UserID        string
	MarketID      string
	InstrumentID  string
	Reason        string // why the venue refused (REMO) or the operator acted
	// Live reports whether the order can still trade after the event; a
	// live firm offer on a continuous market rests in the book.
	Live bool
	// Resting reports whether the order rests in a continuous book (a firm
	// offer there), for replay.
	Resting bool
}

// Fill reports whether the record is an execution.
func (r *Record) Fill() bool { return r.Event == Filled || r.Event == PartiallyFilled }

// TimeLayout is the records' time format: UTC to the microsecond.
const TimeLayout = "2006-01-02T15:04:05.000000Z"

// Field is one exported field: its number (0 for the venue's own) and
// name.
type Field struct {
	Number int
	Name   string
}

// Fields are the exported fields in export order: the numbered fields in
// the order of their numbers, then the venue's own.
var Fields = []Field{
	{1, "submitting_entity_id"}, {3, "client_id"}, {4, "investment_decision_within_firm"}, {5, "execution_within_firm"},
	{7, "trading_capacity"}, {9, "event_time"}, {10, "validity_period"}, {12, "validity_date_time"},
	{13, "priority_time"}, {14, "priority_size"}, {15, "sequence_number"}, {16, "segment_mic"},
	{17, "order_book_code"}, {18, "instrument_id"}, {19, "date_of_receipt"}, {20, "order_id"},
	{21, "event"}, {22, "order_type"}, {23, "order_type_classification"}, {24, "limit_price"},
	{28, "transaction_price"}, {29, "price_currency"}, {31, "price_notation"}, {32, "buy_sell"},
	{33, "order_status"}, {34, "quantity_notation"}, {35, "quantity_currency"}, {36, "initial_quantity"},
	{37, "remaining_quantity"}, {38, "displayed_quantity"}, {39, "traded_quantity"}, {44, "passive_aggressive"},
	{48, "transaction_id"}, {49, "trading_phase"},
	{0, "participant_id"}, {0, "user_id"}, {0, "market_id"}, {0, "instrument"}, {0, "reason"}, {0, "live"},
}

// PriceNotation and QuantityNotation are the same for every record: bond
// prices are in percent of par, quantities are nominal amounts.
const (
	PriceNotation    = "PERC"
	QuantityNotation = "NOML"
	LimitOrder       = "LMTO"
)
