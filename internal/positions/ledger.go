package positions

import (
	"github.com/quagmt/udecimal"
)

// hundred turns a clean price (percent of par) into a fraction of the
// nominal.
var hundred = udecimal.MustFromInt64(100, 0)

// Ledger is one position's arithmetic by average cost: a buy while flat or
// long (a sell while flat or short) adds to the open position at its
// price, moving the average; a fill against the open position closes
// part of it at the average and realises the difference; a fill larger
// than the open position closes all of it and opens the rest on the
// other side at the fill's price.
//
// The ledger keeps the open position's cost (Σ nominal × clean/100 of its
// open part) rather than its average price, so that every step is a sum
// or a product, exact; the one division is the share of the cost a
// partial close takes, and a close that flattens takes the whole cost,
// so a position that returns to flat has realised exactly what was sold
// less what was bought. Prices are clean: accrued interest is neither a
// cost nor a gain here.
type Ledger struct {
	net      udecimal.Decimal // nominal held: + long, − short
	cost     udecimal.Decimal // cost of the open position, signed as net
	realised udecimal.Decimal
	bought   udecimal.Decimal
	sold     udecimal.Decimal
	fills    int
}

// Buy adds a purchase of nominal at clean price.
func (l *Ledger) Buy(nominal, price udecimal.Decimal) { l.fill(nominal, price) }

// Sell adds a sale of nominal at clean price.
func (l *Ledger) Sell(nominal, price udecimal.Decimal) { l.fill(nominal.Neg(), price) }

// fill applies a signed nominal (+ bought, − sold) at a clean price.
func (l *Ledger) fill(q, price udecimal.Decimal) {
	l.fills++
	if q.IsNeg() {
		l.sold = l.sold.Add(q.Neg())
	} else {
		l.bought = l.bought.Add(q)
	}
	value := amount(q, price) // signed as q
	if l.net.IsZero() || l.net.Sign() == q.Sign() {
		l.net, l.cost = l.net.Add(q), l.cost.Add(value)
		return
	}
	open := l.net.Abs()
	if q.Abs().LessThan(open) {
		// A partial close: it takes its share of the cost.
		share := l.cost.Mul(q.Neg()).MustDiv(l.net) // signed as net
		// Closing a long sells (proceeds −value); closing a short buys.
		l.realised = l.realised.Add(value.Neg().Sub(share))
		l.net, l.cost = l.net.Add(q), l.cost.Sub(share)
		return
	}
	// The fill closes the whole position at its price and opens the rest.
	closing := l.net.Neg() // signed as q
	closeValue := amount(closing, price)
	l.realised = l.realised.Add(closeValue.Neg().Sub(l.cost))
	rest := q.Sub(closing)
	l.net, l.cost = rest, amount(rest, price)
}

// amount is nominal × clean/100, signed as nominal.
func amount(nominal, price udecimal.Decimal) udecimal.Decimal {
	return nominal.Mul(price).MustDiv(hundred)
}

// Net is the nominal held: bought − sold (negative: short).
func (l *Ledger) Net() udecimal.Decimal { return l.net }

// Bought and Sold are the nominal bought and sold in all.
func (l *Ledger) Bought() udecimal.Decimal { return l.bought }

// Sold is the nominal sold in all.
func (l *Ledger) Sold() udecimal.Decimal { return l.sold }

// Fills is how many fills the ledger holds.
func (l *Ledger) Fills() int { return l.fills }

// Realised is the P&L the closes made, in the bond's currency.
func (l *Ledger) Realised() udecimal.Decimal { return l.realised }

// Average is the open position's average clean price; ok is false when
// the position is flat.
func (l *Ledger) Average() (udecimal.Decimal, bool) {
	if l.net.IsZero() {
		return udecimal.Zero, false
	}
	return l.cost.Mul(hundred).MustDiv(l.net), true
}

// Unrealised is the open position's P&L at a mark (a clean price): what
// it would realise if closed there.
func (l *Ledger) Unrealised(mark udecimal.Decimal) udecimal.Decimal {
	return amount(l.net, mark).Sub(l.cost)
}
