package sequencer

import (
	"fmt"
	"time"

	"github.com/quagmt/udecimal"

	"github.com/bondvenue/bondvenue/internal/venue"
)

// This file holds the sequencer's pre-trade controls (docs/pretrade-controls.md):
// the price collar around a reference price, each firm's kill switch and
// each instrument's halt on a market. They run where the books are, so a
// price is checked against the reference as it is when the command
// applies, never against one another command is about to change. The
// commands that set them are in controls_commands.go.

// Reference price sources, as a refusal and GET …/price-collar name them.
const (
	SourceLastTrade  = "last trade today"
	SourceBookMid    = "mid of the best bid and ask"
	SourceIndicative = "mid of the newest valid indicative prices"
)

var two = udecimal.MustFromInt64(2, 0)

// Collar is the price band a market takes for an instrument now: around
// Reference (from Source) ± Percent, or, with no reference (HasReference
// false), above zero up to High.
type Collar struct {
	MarketID, InstrumentID string
	HasReference           bool
	Reference              udecimal.Decimal
	Source                 string
	Percent                udecimal.Decimal
	Low, High              udecimal.Decimal
	MaxPricePercent        udecimal.Decimal
}

// referencePrice is the first of: the instrument's last trade today on
// any market, the mid of the best bid and ask on the market, the mid of
// the newest valid indicative price with both sides.
func (st *State) referencePrice(marketID, instrumentID string) (udecimal.Decimal, string, bool) {
	if t, ok := st.lastPrints[instrumentID]; ok && t.at.UTC().Format(time.DateOnly) == st.now.UTC().Format(time.DateOnly) {
		return t.price, SourceLastTrade, true
	}
	k := bookKey{marketID, instrumentID}
	if bid, ask := st.best(k, venue.Bid), st.best(k, venue.Ask); bid != nil && ask != nil {
		return mid(bid.Limit, ask.Limit), SourceBookMid, true
	}
	if newest := st.newestIndicative(instrumentID); newest != nil {
		return mid(*newest.bid, *newest.ask), SourceIndicative, true
	}
	return udecimal.Zero, "", false
}

// newestIndicative is the newest valid indicative price of an instrument
// with both sides, or nil.
func (st *State) newestIndicative(instrumentID string) *indicativeQuote {
	var newest *indicativeQuote
	for _, q := range st.indicative[instrumentID] {
		if q.bid == nil || q.ask == nil || (q.validUntil != nil && !q.validUntil.After(st.now)) {
			continue
		}
		if newest == nil || q.updated.After(newest.updated) {
			newest = q
		}
	}
	return newest
}

func mid(a, b udecimal.Decimal) udecimal.Decimal {
	m, err := a.Add(b).Div(two)
	if err != nil {
		return a
	}
	return m
}

// Collar is the band of a market for an instrument now.
func (st *State) Collar(marketID, instrumentID string) Collar {
	m := st.markets[marketID]
	c := Collar{MarketID: marketID, InstrumentID: instrumentID, Percent: m.PriceCollarPercent, MaxPricePercent: m.MaxPricePercent}
	if c.Percent.IsZero() {
		c.Percent = venue.DefaultPriceCollarPercent
	}
	if c.MaxPricePercent.IsZero() {
		c.MaxPricePercent = venue.DefaultMaxPricePercent
	}
	ref, src, ok := st.referencePrice(marketID, instrumentID)
	if !ok {
		c.High = c.MaxPricePercent
		return c
	}
	c.HasReference, c.Reference, c.Source = true, ref, src
	band := ref.Mul(c.Percent)
	band, _ = band.Div(hundred)
	c.Low, c.High = ref.Sub(band), ref.Add(band)
	return c
}

// checkCollar refuses a price outside the collar of o's market and
// instrument, naming the collar, the reference price and its source.
func (st *State) checkCollar(o *venue.Offer, price udecimal.Decimal) error {
	c := st.Collar(o.MarketID, o.InstrumentID)
	if !c.HasReference {
		if price.IsPos() && price.LessThanOrEqual(c.High) {
			return nil
		}
		msg := fmt.Sprintf("price %s is outside the price collar: with no reference price the market takes above 0 up to max_price_percent %s",
			price, c.High)
		return venue.Invalid(msg, venue.FieldIssue{Field: "price_per_unit", Issue: "must be above 0 and at most " + c.High.String()})
	}
	if price.GreaterThanOrEqual(c.Low) && price.LessThanOrEqual(c.High) {
		return nil
	}
	msg := fmt.Sprintf("price %s is outside the price collar of ±%s%% around the reference price %s (%s): from %s to %s",
		price, c.Percent, c.Reference, c.Source, c.Low, c.High)
	return venue.Invalid(msg, venue.FieldIssue{Field: "price_per_unit", Issue: "must be from " + c.Low.String() + " to " + c.High.String()})
}

// errKilled refuses new trading of a firm whose kill switch is on.
var errKilled = venue.Forbidden("trading is suspended for this participant: kill switch")

// checkTrading refuses new trading interest of a participant whose kill
// switch is on.
func (st *State) checkTrading(participantID string) error {
	if st.killed[participantID].Enabled {
		return errKilled
	}
	return nil
}

// checkHalt refuses trading on an instrument halted on a market.
func (st *State) checkHalt(marketID, instrumentID string) error {
	if h, ok := st.halts[bookKey{marketID, instrumentID}]; ok && h.Halted {
		return venue.Conflict("instrument %s is halted on market %s: %s", instrumentID, marketID, h.Reason)
	}
	return nil
}

// checkNew runs the controls of new trading interest: the firm's kill
// switch, the instrument's halt, the price collar.
func (st *State) checkNew(o *venue.Offer) error {
	if err := st.checkTrading(o.ParticipantID); err != nil {
		return err
	}
	if err := st.checkOpen(o.MarketID, o.InstrumentID); err != nil {
		return err
	}
	if o.HasPrice && !o.MarketOrder {
		return st.checkCollar(o, o.Price)
	}
	return nil
}

// NoteIndicative records an indicative price (gone: withdrawn).
func (st *State) NoteIndicative(ip venue.IndicativePrice, gone bool) {
	m := st.indicative[ip.InstrumentID]
	if gone {
		delete(m, ip.ID)
		return
	}
	if m == nil {
		m = map[string]*indicativeQuote{}
		st.indicative[ip.InstrumentID] = m
	}
	m[ip.ID] = &indicativeQuote{bid: ip.BidPrice, ask: ip.AskPrice, updated: ip.UpdatedAt, validUntil: ip.ValidUntil}
}
