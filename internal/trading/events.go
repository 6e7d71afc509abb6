package trading

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/bondvenue/bondvenue/internal/store"
	"github.com/bondvenue/bondvenue/internal/venue"
	"github.com/quagmt/udecimal"
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
	UpdatedAt          time.Time
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

	// owner is the participant whose change it is ("" for a public event);
	// audience are further participants who may read it.
	owner    string
	audience []string
	// moved is the book's top after this event's batch, when the event is
	// the batch's last on a book whose top moved (engine_prices.go).
	moved *PriceChange
	// depth is the book's ladder after this event's batch, when the event
	// is the batch's last on a book whose top levels changed
	// (engine_depth.go).
	depth *Depth
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
	}
	return ""
}

// logEvent is an event as a writer appends it to the log: rendered into
// the log's format, with the typed record kept for the feed.
func logEvent(ev Event) store.Event {
	data, err := encodeRecord(&ev)
	if err != nil {
		// Every record type encodes; a failure is a bug, and an event
		// without data is refused by the decoder rather than passed on.
		data = []byte(`{}`)
	}
	return store.Event{Type: ev.Type, OccurredAt: ev.OccurredAt, ParticipantID: ev.owner, Audience: ev.audience,
		Data: data, Record: &ev}
}

// appendEvent records a change in the caller's transaction. owner scopes
// who may read it; empty means every authenticated caller.
func appendEvent(ctx context.Context, tx *store.Tx, ev Event) error {
	if ev.OccurredAt.IsZero() {
		ev.OccurredAt = tx.Now()
	}
	_, err := tx.AppendEvents(ctx, []store.Event{logEvent(ev)})
	return err
}

// eventOf turns a stored event into a typed one: the record the writer
// handed over when there is one, else decoded from the log.
func eventOf(se store.Event) (Event, error) {
	if ev, ok := se.Record.(*Event); ok {
		out := *ev
		out.Seq, out.OccurredAt = se.Seq, se.OccurredAt
		return out, nil
	}
	ev := Event{Seq: se.Seq, Type: se.Type, OccurredAt: se.OccurredAt, owner: se.ParticipantID, audience: se.Audience}
	if err := decodeRecord(&ev, se.Data); err != nil {
		return ev, fmt.Errorf("decode event %d (%s): %w", se.Seq, se.Type, err)
	}
	return ev, nil
}

// Events returns up to limit events after seq that the caller may see, in
// sequence order, each as the caller may see it: GET /events. It is the
// feed's catch-up read (Subscribe).
func (s *Service) Events(ctx context.Context, p venue.Principal, after int64, limit int) ([]Event, error) {
	if after < 0 {
		return nil, venue.InvalidField("after", "must not be negative")
	}
	r, err := s.newReader(ctx, p)
	if err != nil {
		return nil, fmt.Errorf("list events: %w", err)
	}
	evs, _, err := s.readLog(ctx, r, after, limit)
	if err != nil {
		return nil, fmt.Errorf("list events: %w", err)
	}
	for i := range evs {
		evs[i] = r.redact(evs[i]) // the read kept the reader's events only
	}
	return evs, nil
}

// readLog reads up to limit events after seq that r may see from the log,
// typed, and reports the last sequence number
// the read covered: every event up to it was either returned or is not the
// reader's (fewer than limit events came back, so the read reached the end
// of the log as of its snapshot).
func (s *Service) readLog(ctx context.Context, r *reader, after int64, limit int) ([]Event, int64, error) {
	var out []Event
	covered := after
	err := s.db.View(ctx, func(tx *store.Tx) error {
		out, covered = out[:0], after // View may run fn again
		last, err := tx.LastEventSeq(ctx)
		if err != nil {
			return err
		}
		var evs []store.Event
		if r == nil {
			evs, err = tx.EventsWithAudience(ctx, after, limit)
		} else {
			evs, err = tx.Events(ctx, store.EventQuery{After: after, Participant: r.scope(), Limit: limit})
		}
		if err != nil {
			return err
		}
		for _, se := range evs {
			ev, err := eventOf(se)
			if err != nil {
				return err
			}
			out = append(out, ev)
		}
		// last was read before the events: every event up to it had
		// committed, so the read saw it (PostgreSQL's read committed takes
		// a snapshot per statement; the events read may go beyond last).
		covered = max(last, after)
		if len(evs) > 0 {
			covered = max(covered, evs[len(evs)-1].Seq)
		}
		if len(evs) == limit {
			covered = evs[len(evs)-1].Seq
		}
		return nil
	})
	return out, covered, err
}

// reader is what redaction needs to know of one reader.
type reader struct {
	p venue.Principal
	// cps are the reader's enabled counterparties.
	cps map[string]bool
	// names are participants' public names and LEIs, for book entries.
	names func(id string) (name, lei string)
}

func (s *Service) newReader(ctx context.Context, p venue.Principal) (*reader, error) {
	r := &reader{p: p, names: s.participantName}
	return r, s.refreshReader(ctx, r)
}

// refreshReader reloads the reader's counterparties (remembered for
// lookupTTL across readers of one firm).
func (s *Service) refreshReader(ctx context.Context, r *reader) error {
	if r.p.IsOperator() || r.p.ParticipantID == "" {
		r.cps = map[string]bool{}
		return nil
	}
	now := s.now()
	if cps, ok := recall(s.lookups, s.lookups.cps, r.p.ParticipantID, now); ok {
		r.cps = cps
		return nil
	}
	cps := map[string]bool{}
	err := s.db.View(ctx, func(tx *store.Tx) error {
		ids, err := tx.Counterparties(ctx, r.p.ParticipantID)
		clear(cps)
		for _, id := range ids {
			cps[id] = true
		}
		return err
	})
	if err != nil {
		return err
	}
	remember(s.lookups, s.lookups.cps, r.p.ParticipantID, cps, now.Add(lookupTTL))
	r.cps = cps
	return nil
}

// scope is the participant whose events the reader may read, "" for all.
func (r *reader) scope() string {
	if r.p.IsOperator() {
		return ""
	}
	return r.p.ParticipantID
}

// sees reports whether the reader may read e at all.
func (r *reader) sees(e *Event) bool {
	if r.p.IsOperator() || e.owner == "" || e.owner == r.p.ParticipantID {
		return true
	}
	return r.p.ParticipantID != "" && slices.Contains(e.audience, r.p.ParticipantID)
}

// redact returns e, an event the reader may read (sees), as the reader may
// see it. The record is copied before anything is blanked: events are
// shared between readers.
func (r *reader) redact(e Event) Event {
	switch {
	case e.Offer != nil:
		o := offerFor(r.p, *e.Offer)
		e.Offer = &o
	case e.Trade != nil:
		// Both firms read the one event (always so): neither order's
		// account shows; each firm reads its own in its order.create.
		t := *e.Trade
		t.AskOrder.AccountID, t.BidOrder.AccountID = "", ""
		e.Trade = &t
	case e.IndicativePrice != nil:
		ip := audience{p: r.p, cps: r.cps}.redact(*e.IndicativePrice)
		e.IndicativePrice = &ip
	case e.PriceChange != nil:
		pc := *e.PriceChange
		pc.Bid, pc.Ask = r.entry(pc.Bid), r.entry(pc.Ask)
		e.PriceChange = &pc
	case e.Depth != nil:
		d := *e.Depth
		d.Bid, d.Ask = r.entries(d.Bid), r.entries(d.Ask)
		e.Depth = &d
	}
	return e
}

// entry is a best bid or ask as the reader sees it, as instrument_limits
// shows it: whether the reader can trade with it, and another firm that is
// not its counterparty anonymous.
func (r *reader) entry(le *LimitEntry) *LimitEntry {
	if le == nil {
		return nil
	}
	out := *le
	out.IsCounterpartyEnabled = r.cps[le.ParticipantID]
	if !r.p.IsOperator() && le.ParticipantID != r.p.ParticipantID && !out.IsCounterpartyEnabled {
		out.ParticipantID = ""
		return &out
	}
	out.ParticipantName, out.ParticipantLEI = r.names(le.ParticipantID)
	return &out
}

// entries are book entries as the reader sees them (entry).
func (r *reader) entries(les []LimitEntry) []LimitEntry {
	out := make([]LimitEntry, len(les))
	for i := range les {
		out[i] = *r.entry(&les[i])
	}
	return out
}

// withDerived appends to dst the events the reader receives of log event
// e: e itself if the reader may read it and the filter selects it; for a
// trade.create the order.create of each order of the reader's own firm (all
// for the operator); then the book's price change and depth the event
// carries (the depth when it changed within the levels the filter asks
// for). The derived events have e's sequence number. It returns dst.
func (r *reader) withDerived(dst []Event, e *Event, filter *EventFilter) []Event {
	seen := r.sees(e)
	if seen && filter.match(e) {
		dst = append(dst, r.redact(*e))
	}
	if seen && e.Trade != nil {
		for _, o := range []venue.Order{e.Trade.AskOrder, e.Trade.BidOrder} {
			d := Event{Seq: e.Seq, Type: EventOrderCreate, OccurredAt: e.OccurredAt, Order: &o, owner: o.ParticipantID}
			if r.sees(&d) && filter.match(&d) {
				dst = append(dst, d)
			}
		}
	}
	if e.moved != nil { // public, whoever's offer moved it
		d := Event{Seq: e.Seq, Type: EventPriceChange, OccurredAt: e.OccurredAt, PriceChange: e.moved}
		if filter.match(&d) {
			dst = append(dst, r.redact(d))
		}
	}
	if n := filter.depth(); e.depth != nil && e.depth.From < n { // public too
		d := Event{Seq: e.Seq, Type: EventDepth, OccurredAt: e.OccurredAt, Depth: e.depth.top(n)}
		if filter.match(&d) {
			dst = append(dst, r.redact(d))
		}
	}
	return dst
}

// offerFor returns an offer, RFQ or quote as p may see it (docs/guide.md, "Who sees what"):
// another firm's record (an RFQ p was invited to, a quote on p's RFQ)
// shows its participant id but not its account, user and settlement
// provider, and an RFQ's recipients are its requester's to see. Every use
// case and the feed hand records out through it.
func offerFor(p venue.Principal, o venue.Offer) venue.Offer {
	if !owned(p, o.ParticipantID) {
		o.AccountID, o.UserID, o.SettlementProviderID, o.ClientOrderID = "", "", "", ""
		o.Counterparties = nil
	}
	return o
}

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
	// Buffer is the subscription's buffer in events (0: Config.FeedBuffer).
	Buffer int
}

func (f *EventFilter) depth() int {
	if f.Depth <= 0 {
		return DefaultDepth
	}
	return min(f.Depth, MaxStreamDepth)
}

func (f *EventFilter) match(e *Event) bool {
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

// participantName returns a participant's name and LEI, remembered for
// lookupTTL (a renamed firm shows its new name within it). A participant
// that cannot be read shows neither.
func (s *Service) participantName(id string) (name, lei string) {
	now := s.now()
	if v, ok := recall(s.lookups, s.lookups.names, id, now); ok {
		return v[0], v[1]
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var p venue.Participant
	err := s.db.View(ctx, func(tx *store.Tx) error {
		var err error
		p, err = tx.Participant(ctx, id)
		return err
	})
	if err != nil {
		s.log.Warn("participant of a book entry not read", "participant", id, "err", err.Error())
		return "", ""
	}
	remember(s.lookups, s.lookups.names, id, [2]string{p.Name, p.LEI}, now.Add(lookupTTL))
	return p.Name, p.LEI
}
