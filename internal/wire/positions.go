package wire

import (
	"github.com/bondvenue/bondvenue/internal/positions"
)

// Position is a firm's position in an instrument and account. Amounts are
// strings written from exact decimals: nominals as held, the average
// price to 6 decimal places, P&L to the cent, in the bond's currency.
type Position struct {
	ParticipantID string  `json:"participant_id"`
	InstrumentID  string  `json:"instrument_id"`
	ISIN          string  `json:"isin"`
	Name          string  `json:"name"`
	AccountID     string  `json:"account_id"`
	Currency      string  `json:"currency"`
	NetNominal    string  `json:"net_nominal"`
	Bought        string  `json:"bought_nominal"`
	Sold          string  `json:"sold_nominal"`
	Fills         int     `json:"fills"`
	AveragePrice  *string `json:"average_price"`
	RealisedPnL   string  `json:"realised_pnl"`
	UnrealisedPnL string  `json:"unrealised_pnl"`
	MarkPrice     *string `json:"mark_price"`
	MarkSource    *string `json:"mark_source"`
	MarkMarketID  *string `json:"mark_market_id"`
	MarkAt        *string `json:"mark_at"`
}

// PositionOf renders p.
func PositionOf(p positions.Position) Position {
	l := &p.Ledger
	out := Position{ParticipantID: p.ParticipantID, InstrumentID: p.InstrumentID, ISIN: p.ISIN, Name: p.Name,
		AccountID: p.AccountID, Currency: p.Currency, NetNominal: l.Net().String(), Bought: l.Bought().String(),
		Sold: l.Sold().String(), Fills: l.Fills(), RealisedPnL: l.Realised().RoundHAZ(2).StringFixed(2),
		UnrealisedPnL: p.Unrealised().RoundHAZ(2).StringFixed(2)}
	if avg, open := l.Average(); open {
		s := avg.RoundHAZ(6).String()
		out.AveragePrice = &s
	}
	if m := p.Mark; m != nil {
		price, source, market, at := m.Price.String(), m.Source, m.MarketID, Time(m.At)
		out.MarkPrice, out.MarkSource, out.MarkMarketID, out.MarkAt = &price, &source, &market, &at
	}
	return out
}
