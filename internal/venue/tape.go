package venue

import (
	"time"

	"github.com/quagmt/udecimal"
)

// TapeEntry is a trade as the public tape shows it: no party; its price
// and size only once due (Publication), each nil until then.
type TapeEntry struct {
	TradeID       string
	InstrumentID  string
	ISIN          string
	MarketID      string
	MIC           string
	TVTIC         string
	ExecutionType string
	TradedAt      time.Time
	Price         *udecimal.Decimal // clean, percent of par
	Quantity      *udecimal.Decimal
	// Flags are the publication's flags: LMTF while the size is withheld
	// (limited details), FULF once full details follow a deferral; none
	// for a trade published whole at once.
	Flags       []string
	Publication Publication
}

// Tape flags.
const (
	FlagLimitedDetails = "LMTF"
	FlagFullDetails    = "FULF"
)

// TapeEntryOf is trade t on the public tape at now: false while its price
// is not yet due.
func TapeEntryOf(t Trade, isin, mic string, now time.Time) (TapeEntry, bool) {
	p := t.Publication
	if p.PriceDueAt.IsZero() {
		p = Publication{PriceDueAt: t.CreatedAt, VolumeDueAt: t.CreatedAt}
	}
	if now.Before(p.PriceDueAt) {
		return TapeEntry{}, false
	}
	e := TapeEntry{TradeID: t.ID, InstrumentID: t.InstrumentID, ISIN: isin, MarketID: t.MarketID, MIC: mic,
		TVTIC: t.TransactionIdentificationCode, ExecutionType: t.ExecutionType, TradedAt: t.CreatedAt, Publication: p, Flags: []string{}}
	price := t.PricePerUnit
	e.Price = &price
	switch {
	case now.Before(p.VolumeDueAt):
		e.Flags = append(e.Flags, FlagLimitedDetails)
	default:
		q := t.Quantity
		e.Quantity = &q
		if p.VolumeDueAt.After(t.CreatedAt) {
			e.Flags = append(e.Flags, FlagFullDetails)
		}
	}
	return e, true
}
