package wire

import (
	"time"

	"github.com/bondvenue/bondvenue/internal/feed"
	"github.com/bondvenue/bondvenue/internal/subscribe"
	"github.com/bondvenue/bondvenue/internal/trading"
	"github.com/bondvenue/bondvenue/internal/venue"
)

// LimitEntry is one resting offer of instrument_limits.
type LimitEntry struct {
	Limit                 Num     `json:"limit"`
	Quantity              Num     `json:"quantity"`
	MarketID              string  `json:"market_id,omitempty"`
	ParticipantID         *string `json:"participant_id"`
	ParticipantName       *string `json:"participant_name"`
	ParticipantLEI        *string `json:"participant_lei"`
	OfferID               *string `json:"offer_id"`
	IsCounterpartyEnabled bool    `json:"is_counterparty_enabled"`
	IsExecutable          bool    `json:"is_executable"`
	IsMarketOrder         bool    `json:"is_market_order"`
	IsOffer               bool    `json:"is_offer"`
}

// LimitEntryOf renders e.
func LimitEntryOf(e feed.LimitEntry) LimitEntry {
	return LimitEntry{Limit: NumOf(e.Limit), Quantity: NumOf(e.Quantity), MarketID: e.MarketID, ParticipantID: Nullable(e.ParticipantID),
		ParticipantName: Nullable(e.ParticipantName), ParticipantLEI: Nullable(e.ParticipantLEI),
		OfferID: Nullable(e.OfferID), IsCounterpartyEnabled: e.IsCounterpartyEnabled, IsExecutable: e.IsExecutable,
		IsMarketOrder: e.IsMarketOrder, IsOffer: e.IsOffer}
}

// PriceChange is the instrument.price_change record (docs/guide.md, "Live streams").
type PriceChange struct {
	InstrumentID string      `json:"instrument_id"`
	MarketID     string      `json:"market_id"`
	Bid          *LimitEntry `json:"bid"`
	Ask          *LimitEntry `json:"ask"`
	LastPrice    *Num        `json:"last_price"`
	LastQuantity *Num        `json:"last_quantity"`
	Trades       []Print     `json:"trades"`
	OccurredAt   string      `json:"occurred_at"`
}

// Print is one trade of a price change as market data (extension): clean
// price and nominal, no parties.
type Print struct {
	Price    Num `json:"price"`
	Quantity Num `json:"quantity"`
}

// PriceChangeOf renders the record of a price_change event.
func PriceChangeOf(e feed.Event) PriceChange {
	pc := e.PriceChange
	entry := func(le *feed.LimitEntry) *LimitEntry {
		if le == nil {
			return nil
		}
		out := LimitEntryOf(*le)
		return &out
	}
	prints := make([]Print, 0, len(pc.Trades))
	for _, t := range pc.Trades {
		prints = append(prints, Print{Price: NumOf(t.Price), Quantity: NumOf(t.Quantity)})
	}
	return PriceChange{InstrumentID: pc.InstrumentID, MarketID: pc.MarketID, Bid: entry(pc.Bid), Ask: entry(pc.Ask),
		LastPrice: numPtr(pc.LastPrice), LastQuantity: numPtr(pc.LastQuantity), Trades: prints, OccurredAt: Time(e.OccurredAt)}
}

// Depth is the instrument.depth record (docs/design.md §8): the top
// levels of each side of an instrument's book on one market, as
// instrument_limits shows them to the reader.
type Depth struct {
	InstrumentID string       `json:"instrument_id"`
	MarketID     string       `json:"market_id"`
	Bid          []LimitEntry `json:"bid"`
	Ask          []LimitEntry `json:"ask"`
	OccurredAt   string       `json:"occurred_at"`
}

// DepthOf renders the record of an instrument.depth event.
func DepthOf(e feed.Event) Depth {
	side := func(les []feed.LimitEntry) []LimitEntry {
		out := make([]LimitEntry, len(les))
		for i, le := range les {
			out[i] = LimitEntryOf(le)
		}
		return out
	}
	return Depth{InstrumentID: e.Depth.InstrumentID, MarketID: e.Depth.MarketID, Bid: side(e.Depth.Bid), Ask: side(e.Depth.Ask),
		OccurredAt: Time(e.OccurredAt)}
}

// Event is an event of the log as GET /events answers it.
type Event struct {
	Seq        int64  `json:"seq"`
	Type       string `json:"type"`
	OccurredAt string `json:"occurred_at"`
	Data       any    `json:"data"`
}

// EventOf renders e with its record.
func EventOf(e feed.Event) Event {
	return Event{Seq: e.Seq, Type: e.Type, OccurredAt: Time(e.OccurredAt), Data: RecordOf(e)}
}

// RecordOf renders the record of e, flat (objects nested by id): an
// offer, RFQ or quote, a trade with its two orders, an order, an
// indicative price, a news item, a price change or a book's depth.
func RecordOf(e feed.Event) any {
	switch {
	case e.Offer != nil:
		return OfferOf(*e.Offer, true)
	case e.Trade != nil:
		return TradeRecordOf(*e.Trade)
	case e.Order != nil:
		return OrderOf(*e.Order)
	case e.IndicativePrice != nil:
		return IndicativePriceOf(*e.IndicativePrice)
	case e.News != nil:
		return NewsOf(*e.News)
	case e.PriceChange != nil:
		return PriceChangeOf(e)
	case e.Depth != nil:
		return DepthOf(e)
	case e.Control != nil:
		return ControlOf(e)
	case e.Portfolio != nil:
		return PortfolioRFQOf(*e.Portfolio)
	case e.Allocation != nil:
		return AllocationOf(*e.Allocation)
	case e.Tape != nil:
		return TapeEntryOf(*e.Tape)
	}
	return struct{}{}
}

// KillSwitch is a firm's kill switch (participant.kill_switch and the
// answer of the kill-switch endpoints).
type KillSwitch struct {
	ParticipantID string `json:"participant_id"`
	Enabled       bool   `json:"enabled"`
	Cancelled     int    `json:"cancelled"`
	// UpdatedAt is null for a switch never set.
	UpdatedAt *string `json:"updatedAt"`
}

// TimeOrNil is Time, or nil for the zero time.
func TimeOrNil(t time.Time) *string {
	if t.IsZero() {
		return nil
	}
	s := Time(t)
	return &s
}

// Halt is an instrument's halt on a market (instrument.halt and the
// answer of the halt endpoint).
type Halt struct {
	MarketID     string `json:"market_id"`
	InstrumentID string `json:"instrument_id"`
	Halted       bool   `json:"halted"`
	Reason       string `json:"reason"`
	UpdatedAt    string `json:"updatedAt"`
}

// MarketPhase is a market's change of trading phase (market.phase): the
// phase it entered and its next change (null: none).
type MarketPhase struct {
	MarketID        string       `json:"market_id"`
	TradingPhase    string       `json:"trading_phase"`
	NextPhaseChange *PhaseChange `json:"next_phase_change"`
	UpdatedAt       string       `json:"updatedAt"`
}

// MarketPhaseOf renders market m's phase ph as of at.
func MarketPhaseOf(marketID string, ph venue.PhaseState, at time.Time) MarketPhase {
	out := MarketPhase{MarketID: marketID, TradingPhase: string(ph.Phase), UpdatedAt: Time(at)}
	if !ph.Next.At.IsZero() {
		out.NextPhaseChange = &PhaseChange{Phase: string(ph.Next.Phase), At: Time(ph.Next.At)}
	}
	return out
}

// MarketControls is a market's price collar settings (market.update).
type MarketControls struct {
	MarketID           string `json:"market_id"`
	PriceCollarPercent string `json:"price_collar_percent"`
	MaxPricePercent    string `json:"max_price_percent"`
	UpdatedAt          string `json:"updatedAt"`
}

// ControlOf renders the record of a pre-trade control's event.
func ControlOf(e feed.Event) any {
	c := e.Control
	switch e.Type {
	case feed.EventKillSwitch:
		return KillSwitch{ParticipantID: c.ParticipantID, Enabled: c.Enabled, Cancelled: c.Cancelled, UpdatedAt: TimeOrNil(c.UpdatedAt)}
	case feed.EventHalt:
		return Halt{MarketID: c.MarketID, InstrumentID: c.InstrumentID, Halted: c.Halted, Reason: c.Reason, UpdatedAt: Time(c.UpdatedAt)}
	case feed.EventPhase:
		return MarketPhaseOf(c.MarketID, venue.PhaseState{Phase: venue.Phase(c.Phase),
			Next: venue.PhaseChange{Phase: venue.Phase(c.NextPhase), At: c.NextPhaseAt}}, c.UpdatedAt)
	}
	m := MarketControls{MarketID: c.MarketID, UpdatedAt: Time(c.UpdatedAt)}
	if c.PriceCollarPercent != nil {
		m.PriceCollarPercent = c.PriceCollarPercent.String()
	}
	if c.MaxPricePercent != nil {
		m.MaxPricePercent = c.MaxPricePercent.String()
	}
	return m
}

// Bar is an OHLC bar (docs/guide.md: ohlc.update in "Live streams", GET
// /instruments/{id}/ohlc).
type Bar struct {
	InstrumentID string `json:"instrument_id"`
	MarketID     string `json:"market_id"`
	Interval     string `json:"interval"`
	OpenTime     string `json:"open_time"`
	Open         Num    `json:"open"`
	High         Num    `json:"high"`
	Low          Num    `json:"low"`
	Close        Num    `json:"close"`
	Volume       Num    `json:"volume"`
	Trades       int    `json:"trades"`
}

// BarOf renders b.
func BarOf(b subscribe.Bar) Bar {
	return Bar{InstrumentID: b.InstrumentID, MarketID: b.MarketID, Interval: b.Interval, OpenTime: Time(b.OpenTime),
		Open: NumOf(b.Open), High: NumOf(b.High), Low: NumOf(b.Low), Close: NumOf(b.Close), Volume: NumOf(b.Volume),
		Trades: b.Trades}
}

// Collar is GET /instruments/{id}/price-collar: the band a price must fall
// in on a market now, and what it rests on.
type Collar struct {
	InstrumentID       string  `json:"instrument_id"`
	MarketID           string  `json:"market_id"`
	ReferencePrice     *Num    `json:"reference_price"`
	ReferenceSource    *string `json:"reference_source"`
	PriceCollarPercent string  `json:"price_collar_percent"`
	MaxPricePercent    string  `json:"max_price_percent"`
	Low                *Num    `json:"low"`
	High               Num     `json:"high"`
	Halted             bool    `json:"halted"`
	HaltReason         *string `json:"halt_reason"`
	At                 string  `json:"at"`
}

// CollarOf renders c.
func CollarOf(c trading.CollarView) Collar {
	out := Collar{InstrumentID: c.InstrumentID, MarketID: c.MarketID, PriceCollarPercent: c.Percent.String(),
		MaxPricePercent: c.MaxPricePercent.String(), High: NumOf(c.High), Halted: c.Halted, At: Time(c.At)}
	if c.HasReference {
		ref, low := NumOf(c.Reference), NumOf(c.Low)
		out.ReferencePrice, out.ReferenceSource, out.Low = &ref, &c.Source, &low
	}
	if c.Halted {
		out.HaltReason = &c.HaltReason
	}
	return out
}

// KillSwitchOf renders a firm's kill switch as its answer shows it.
func KillSwitchOf(k venue.KillSwitchResult) KillSwitch {
	return KillSwitch{ParticipantID: k.ParticipantID, Enabled: k.Enabled, Cancelled: k.Cancelled, UpdatedAt: TimeOrNil(k.UpdatedAt)}
}

// Allocation is one side's split of a trade to its firm's accounts (the
// answer of the allocation endpoints and the allocation.create record).
type Allocation struct {
	TradeID       string           `json:"trade_id"`
	ParticipantID string           `json:"participant_id"`
	Direction     string           `json:"direction"`
	Late          bool             `json:"late"`
	CreatedAt     string           `json:"createdAt"`
	Allocations   []AllocationPart `json:"allocations"`
}

// AllocationPart is one account's part; price is its settlement amount,
// as a trade's price is.
type AllocationPart struct {
	ID              string `json:"id"`
	AccountID       string `json:"account_id"`
	Quantity        Num    `json:"quantity"`
	AccruedInterest Num    `json:"accrued_interest"`
	Price           Num    `json:"price"`
	Late            bool   `json:"late"`
}

// AllocationOf renders a.
func AllocationOf(a venue.AllocationSet) Allocation {
	out := Allocation{TradeID: a.TradeID, ParticipantID: a.ParticipantID, Direction: a.Direction, Late: a.Late,
		CreatedAt: Time(a.CreatedAt), Allocations: make([]AllocationPart, len(a.Allocations))}
	for i, p := range a.Allocations {
		out.Allocations[i] = AllocationPart{ID: p.ID, AccountID: p.AccountID, Quantity: NumOf(p.Quantity),
			AccruedInterest: NumOf(p.AccruedInterest), Price: NumOf(p.SettlementAmount), Late: a.Late}
	}
	return out
}

// TapeEntry is a trade on the public tape (GET /api/v1/tape and the
// tape.publish record): no party; price and quantity null until due.
type TapeEntry struct {
	TradeID       string      `json:"trade_id"`
	InstrumentID  string      `json:"instrument_id"`
	ISIN          string      `json:"isin"`
	MarketID      string      `json:"market_id"`
	MIC           string      `json:"mic"`
	TVTIC         string      `json:"tvtic"`
	Price         *Num        `json:"price"`
	Quantity      *Num        `json:"quantity"`
	ExecutionType string      `json:"execution_type"`
	OccurredAt    string      `json:"occurred_at"`
	Flags         []string    `json:"flags"`
	Publication   Publication `json:"publication"`
}

// Publication is a trade's post-trade transparency.
type Publication struct {
	Deferral          string  `json:"deferral"`
	PriceDueAt        string  `json:"price_due_at"`
	VolumeDueAt       string  `json:"volume_due_at"`
	PublishedPriceAt  *string `json:"published_price_at"`
	PublishedVolumeAt *string `json:"published_volume_at"`
}

// PublicationOf renders p.
func PublicationOf(p venue.Publication) Publication {
	return Publication{Deferral: p.Deferral, PriceDueAt: Time(p.PriceDueAt), VolumeDueAt: Time(p.VolumeDueAt),
		PublishedPriceAt: TimePtr(p.PublishedPriceAt), PublishedVolumeAt: TimePtr(p.PublishedVolumeAt)}
}

// TapeEntryOf renders e.
func TapeEntryOf(e venue.TapeEntry) TapeEntry {
	out := TapeEntry{TradeID: e.TradeID, InstrumentID: e.InstrumentID, ISIN: e.ISIN, MarketID: e.MarketID, MIC: e.MIC, TVTIC: e.TVTIC,
		ExecutionType: e.ExecutionType, OccurredAt: Time(e.TradedAt), Flags: e.Flags, Publication: PublicationOf(e.Publication)}
	if out.Flags == nil {
		out.Flags = []string{}
	}
	if e.Price != nil {
		n := NumOf(*e.Price)
		out.Price = &n
	}
	if e.Quantity != nil {
		n := NumOf(*e.Quantity)
		out.Quantity = &n
	}
	return out
}

// LastTrade is a book's latest trade (GET /last-trades), in the field
// names of instrument.price_change.
type LastTrade struct {
	InstrumentID string `json:"instrument_id"`
	MarketID     string `json:"market_id"`
	LastPrice    Num    `json:"last_price"`
	LastQuantity Num    `json:"last_quantity"`
	OccurredAt   string `json:"occurred_at"`
}

// LastTradeOf renders a book's latest trade.
func LastTradeOf(t venue.Trade) LastTrade {
	return LastTrade{InstrumentID: t.InstrumentID, MarketID: t.MarketID, LastPrice: NumOf(t.PricePerUnit),
		LastQuantity: NumOf(t.Quantity), OccurredAt: Time(t.CreatedAt)}
}
