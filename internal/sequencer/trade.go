package sequencer

import (
	"strings"

	"github.com/quagmt/udecimal"

	"github.com/bondvenue/bondvenue/internal/bondmath"
	"github.com/bondvenue/bondvenue/internal/feed"
	"github.com/bondvenue/bondvenue/internal/venue"
)

// This file holds the making of a trade between an ask and a bid: its
// accrued interest and settlement amount, its two orders, its event, its
// publication on the public tape and its mark on the book's prices.

// centDigits is the precision of cash amounts: accrued interest and
// settlement amounts are rounded half away from zero to the currency's
// minor unit (the venue lists EUR bonds: cents), as settlement
// instructions carry them. Prices and per-100 figures are never rounded.
const centDigits = 2

// accrued is the accrued interest amount of quantity nominal of an
// instrument settling on settle, in cents (zero when the instrument has no
// priceable terms).
func (st *State) accrued(instrumentID string, settle bondmath.Date, quantity udecimal.Decimal) udecimal.Decimal {
	b, ok := st.bonds[instrumentID]
	if !ok {
		return udecimal.Zero
	}
	r, err := bondmath.Accrued(b, settle)
	if err != nil {
		return udecimal.Zero
	}
	return bondmath.AccruedAmount(r.PerHundred, quantity).RoundHAZ(centDigits)
}

// trade records a fill between an ask and a bid at a clean price.
func (st *State) trade(b *Batch, ask, bid *venue.Offer, qty, price udecimal.Decimal, settle bondmath.Date, exec string) venue.Trade {
	return st.tradeIn(b, ask, bid, qty, price, settle, exec, "")
}

// tradeIn is trade for a line of the portfolio RFQ portfolioID ("" for
// none).
func (st *State) tradeIn(b *Batch, ask, bid *venue.Offer, qty, price udecimal.Decimal, settle bondmath.Date, exec, portfolioID string) venue.Trade {
	acc := st.accrued(ask.InstrumentID, settle, qty)
	t := venue.Trade{ID: newID(), MarketID: ask.MarketID, InstrumentID: ask.InstrumentID, Status: "successful",
		Quantity: qty, PricePerUnit: price, AccruedInterest: acc,
		SettlementAmount: bondmath.SettlementAmount(qty, price, udecimal.Zero).RoundHAZ(centDigits).Add(acc), Fee: udecimal.Zero,
		SettlementDate: settle, ExecutionType: exec, PortfolioRFQID: portfolioID, CreatedAt: st.now, UpdatedAt: st.now}
	t.TransactionIdentificationCode = "BV" + strings.ToUpper(strings.ReplaceAll(t.ID, "-", ""))
	order := func(o *venue.Offer) venue.Order {
		return venue.Order{ID: newID(), OfferID: o.ID, Direction: o.Direction, ParticipantID: o.ParticipantID,
			AccountID: o.AccountID, MarketID: o.MarketID, InstrumentID: o.InstrumentID, Quantity: o.Quantity,
			PricePerUnit: price, Filled: o.Filled, Status: "internally_approved", Type: "limit_order",
			ExpiresAt: o.ExpiresAt(), CreatedAt: st.now, UpdatedAt: st.now}
	}
	t.AskOrder, t.BidOrder = order(ask), order(bid)
	st.publish(&t)
	b.trades = append(b.trades, t)
	st.recordTrade(b, ask, bid, &t)
	st.lastPrints[t.InstrumentID] = printAt{price: price, at: st.now}
	rec := t
	b.event(feed.Event{Type: feed.EventTradeCreate, Trade: &rec, Owner: ask.ParticipantID, Audience: []string{bid.ParticipantID}})
	st.tapeNew(b, t)
	b.traded(t)
	return t
}
