package feed

import (
	"slices"
	"strings"
	"time"

	"github.com/quagmt/udecimal"

	"github.com/bondvenue/bondvenue/internal/venue"
)

// Event types beyond the offer.*, rfq.*, quote.* and indicative_price.*
// families (create, update, delete).
const (
	EventTradeCreate = "trade.create"
	// EventOrderCreate is one order of a trade, for its own firm only. It
	// is not an entry of the log of its own: the feed derives it from the
	// trade.create, whose sequence number it carries and which it follows.
	EventOrderCreate = "order.create"
	// EventPriceChange is a change of an instrument's best bid or ask on
	// one market, or a trade on it (PriceChange). Like order.create it is
	// derived: it follows the last event of the batch that changed the
	// book, under that event's sequence number, for every reader.
	EventPriceChange = "instrument.price_change"
	// EventDepth is the top levels of an instrument's book on one market
	// after a batch changed one of them (Depth), derived like a price
	// change, each reader's view cut to the levels it asked for.
	EventDepth      = "instrument.depth"
	EventNewsCreate = "news.create"
	// The pre-trade controls' events (Control): a firm's kill switch
	// turned on or off, an instrument halted or resumed on a market, a
	// market's price collar settings changed.
	EventKillSwitch   = "participant.kill_switch"
	EventHalt         = "instrument.halt"
	EventMarketUpdate = "market.update"
	// EventPhase is a market's change of trading phase (Control: MarketID,
	// Phase and the next change), for every reader.
	EventPhase = "market.phase"
	// EventAllocationCreate is one side's allocation of a trade to its
	// firm's accounts, for that firm only.
	EventAllocationCreate = "allocation.create"
	// EventTapePublish is a trade on the public tape: its price, and its
	// size once due (venue.TapeEntry). Every reader reads it.
	EventTapePublish = "tape.publish"
)

// Control is the record of a pre-trade control's event. A kill switch
// names ParticipantID with Enabled and the records it Cancelled; a halt
// names MarketID and InstrumentID with Halted and Reason; a market's
// collar settings name MarketID with PriceCollarPercent and
// MaxPricePercent.
type Control struct {
	ParticipantID      string
	MarketID           string
	InstrumentID       string
	Enabled            bool
	Cancelled          int
	Halted             bool
	Reason             string
	PriceCollarPercent *udecimal.Decimal
	MaxPricePercent    *udecimal.Decimal
	// Phase is a market.phase's new phase; NextPhase and NextPhaseAt its
	// next change ("" and zero: none).
	Phase, NextPhase string
	NextPhaseAt      time.Time
	UpdatedAt        time.Time
}

// Event is one committed change of the venue's event log, its record typed.
// As Events and Subscribe hand it out it is already what the reader may
// see (redacted, docs/guide.md, "Who sees what"); adapters only render it. Exactly one of the
// record fields is set, by Type.
type Event struct {
	Seq        int64
	Type       string
	OccurredAt time.Time

	Offer           *venue.Offer           // offer.*, rfq.*, quote.*
	Trade           *venue.Trade           // trade.create: its orders name no account
	Order           *venue.Order           // order.create: the reader's own order, with its account
	IndicativePrice *venue.IndicativePrice // indicative_price.*
	News            *venue.News            // news.create
	PriceChange     *PriceChange           // instrument.price_change
	Depth           *Depth                 // instrument.depth
	Control         *Control               // participant.kill_switch, instrument.halt, market.update
	Portfolio       *venue.PortfolioRFQ    // portfolio_rfq.*: the list with every quote (redacted per reader)
	Allocation      *venue.AllocationSet   // allocation.create
	Tape            *venue.TapeEntry       // tape.publish

	// Owner is the participant whose change it is ("" for a public
	// event); Audience are further participants who may read it. Readers
	// use them to decide who sees the event; adapters never render them.
	Owner    string
	Audience []string
	// Moved is the book's top after this event's batch, when the event is
	// the batch's last on a book whose top moved; Ladder is the book's
	// ladder then, when its top levels changed. The sequencer sets them;
	// a reader derives instrument.price_change and instrument.depth from
	// them.
	Moved  *PriceChange
	Ladder *Depth
}

// PriceChange is an instrument's best bid and ask on one market after a
// change, with the market's last trade. Bid and Ask are instrument_limits
// entries (nil for an empty side) as the reader sees them.
type PriceChange struct {
	InstrumentID, MarketID  string
	Bid, Ask                *LimitEntry
	LastPrice, LastQuantity *udecimal.Decimal
	// Trades are the trades on the book in the batch, in order (none when
	// only its best prices moved): what OHLC bars fold in.
	Trades []Print
}

// Print is a trade as market data: clean price and nominal.
type Print struct{ Price, Quantity udecimal.Decimal }

// InstrumentID is the instrument the event's record concerns ("" for news).
func (e *Event) InstrumentID() string {
	switch {
	case e.Offer != nil:
		return e.Offer.InstrumentID
	case e.Trade != nil:
		return e.Trade.InstrumentID
	case e.Order != nil:
		return e.Order.InstrumentID
	case e.IndicativePrice != nil:
		return e.IndicativePrice.InstrumentID
	case e.PriceChange != nil:
		return e.PriceChange.InstrumentID
	case e.Depth != nil:
		return e.Depth.InstrumentID
	case e.Control != nil:
		return e.Control.InstrumentID
	case e.Allocation != nil:
		return e.Allocation.InstrumentID
	case e.Tape != nil:
		return e.Tape.InstrumentID
	}
	return ""
}

// MarketID is the market the event's record concerns ("" for news and
// indicative prices, which belong to no market).
func (e *Event) MarketID() string {
	switch {
	case e.Offer != nil:
		return e.Offer.MarketID
	case e.Trade != nil:
		return e.Trade.MarketID
	case e.Order != nil:
		return e.Order.MarketID
	case e.PriceChange != nil:
		return e.PriceChange.MarketID
	case e.Depth != nil:
		return e.Depth.MarketID
	case e.Control != nil:
		return e.Control.MarketID
	case e.Portfolio != nil:
		return e.Portfolio.MarketID
	case e.Allocation != nil:
		return e.Allocation.MarketID
	case e.Tape != nil:
		return e.Tape.MarketID
	}
	return ""
}

// MaxStreamDepth is the most levels per side an instrument.depth event
// holds, and the most a subscriber may ask for (EventFilter.Depth).
const MaxStreamDepth = 50

// Depth is the top of both sides of an instrument's book on one market
// after a batch changed it: up to MaxStreamDepth instrument_limits entries
// per side, best first (as the reader sees them, once redacted).
type Depth struct {
	InstrumentID, MarketID string
	Bid, Ask               []LimitEntry
	// From is the first level (from 0, on either side) the batch changed:
	// a reader of the top n levels has news only when From < n.
	From int
}

// Top returns d cut to n levels per side (d itself when it has no more).
func (d *Depth) Top(n int) *Depth {
	if len(d.Bid) <= n && len(d.Ask) <= n {
		return d
	}
	out := *d
	out.Bid, out.Ask = d.Bid[:min(n, len(d.Bid))], d.Ask[:min(n, len(d.Ask))]
	return &out
}

// LimitEntry is one resting offer in instrument_limits.
type LimitEntry struct {
	Limit, Quantity udecimal.Decimal
	// MarketID names the entry's market (an instrument view may span
	// markets).
	MarketID              string
	ParticipantID         string
	ParticipantName       string
	ParticipantLEI        string
	OfferID               string
	IsCounterpartyEnabled bool
	IsExecutable          bool
	IsMarketOrder         bool
	IsOffer               bool
	// CSD is where the offer settles ("" when unknown): whether a reader
	// can trade with it depends on it (IsCounterpartyEnabled). Not shown.
	CSD string
}

// DefaultDepth is the number of book entries per side shown by default.
const DefaultDepth = 10

// EventFilter selects events of a subscription, and sizes its buffer. Zero
// fields select all.
type EventFilter struct {
	// Types are event types ("trade.create") or families ending in a dot
	// ("offer.").
	Types []string
	// InstrumentIDs keep events about these instruments (and those about
	// none, such as news).
	InstrumentIDs []string
	// MarketID keeps events on this market (and those on none).
	MarketID string
	// Depth is the levels per side of instrument.depth, 1 to
	// MaxStreamDepth (0: DefaultDepth).
	Depth int
	// Buffer is the subscription's buffer in events (0: the default of
	// the service that subscribes).
	Buffer int
}

// Levels is the depth of instrument.depth the filter asks for.
func (f *EventFilter) Levels() int {
	if f.Depth <= 0 {
		return DefaultDepth
	}
	return min(f.Depth, MaxStreamDepth)
}

// Match reports whether the filter selects e.
func (f *EventFilter) Match(e *Event) bool {
	if len(f.Types) > 0 && !slices.ContainsFunc(f.Types, func(t string) bool {
		return t == e.Type || (strings.HasSuffix(t, ".") && strings.HasPrefix(e.Type, t))
	}) {
		return false
	}
	if id := e.InstrumentID(); len(f.InstrumentIDs) > 0 && id != "" && !slices.Contains(f.InstrumentIDs, id) {
		return false
	}
	if id := e.MarketID(); f.MarketID != "" && id != "" && id != f.MarketID {
		return false
	}
	return true
}
