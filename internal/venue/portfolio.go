package venue

import (
	"time"

	"github.com/quagmt/udecimal"

	"github.com/bondvenue/bondvenue/internal/bondmath"
)

// MaxPortfolioLines bounds the lines of one portfolio RFQ.
const MaxPortfolioLines = 200

// MaxPortfolioQuotes bounds the quote records one portfolio RFQ keeps
// (replaced quotes and declines included), so a dealer replacing its quote
// without end cannot grow the record without end.
const MaxPortfolioQuotes = 100

// PortfolioRFQ is a list RFQ: one request over many bonds, each line with
// its own direction (from the requester's side), quoted whole by each
// dealer and traded whole with one of them at one settlement date.
type PortfolioRFQ struct {
	ID             string
	MarketID       string
	ParticipantID  string // the requester
	AccountID      string
	UserID         string
	Counterparties []string // the dealers asked
	SettlementDate bondmath.Date
	ValidUntil     time.Time
	// Status is StatusCreated while open, then closed (traded), cancelled,
	// rejected (every dealer declined) or expired.
	Status string
	Notes  string
	// ClientID is the requester's own id of the list (a FIX QuoteReqID),
	// shown to the requester alone; "" when it gave none.
	ClientID string
	// Parties are the requester's identifiers for the order records, which
	// its side of every traded line carries; the requester's alone to see.
	Parties Parties
	Lines   []PortfolioLine
	// Quotes are every quote the dealers gave, live and ended, declines
	// included, in the order they came.
	Quotes    []PortfolioQuote
	CreatedAt time.Time
	UpdatedAt time.Time
}

// Open reports whether the list still takes quotes.
func (r *PortfolioRFQ) Open() bool { return r.Status == StatusCreated }

// Quote is the quote with id, or nil.
func (r *PortfolioRFQ) Quote(id string) *PortfolioQuote {
	for i := range r.Quotes {
		if r.Quotes[i].ID == id {
			return &r.Quotes[i]
		}
	}
	return nil
}

// LiveQuote is dealer's live quote, or nil.
func (r *PortfolioRFQ) LiveQuote(dealer string) *PortfolioQuote {
	for i := range r.Quotes {
		if q := &r.Quotes[i]; q.ParticipantID == dealer && q.Status == StatusCreated {
			return q
		}
	}
	return nil
}

// Declined reports whether dealer declined the list.
func (r *PortfolioRFQ) Declined(dealer string) bool {
	for i := range r.Quotes {
		if q := &r.Quotes[i]; q.ParticipantID == dealer && q.Outcome == OutcomeDeclined {
			return true
		}
	}
	return false
}

// Invited reports whether p is one of the dealers asked.
func (r *PortfolioRFQ) Invited(p string) bool {
	for _, c := range r.Counterparties {
		if c == p {
			return true
		}
	}
	return false
}

// PortfolioLine is one bond of a list: its direction is the requester's.
type PortfolioLine struct {
	LineID       string
	InstrumentID string
	Direction    string
	Quantity     udecimal.Decimal
	// TradeID is the line's trade once the list traded.
	TradeID string
}

// PortfolioQuote is one dealer's price for a whole list: every line
// priced, with the venue's bond maths at the list's settlement date. A
// decline is a quote record with no lines and the outcome declined.
type PortfolioQuote struct {
	ID            string
	ParticipantID string // the dealer
	AccountID     string
	UserID        string
	// ClientID is the dealer's own id of the quote (a FIX QuoteID), shown
	// to the dealer alone.
	ClientID string
	// Parties are the dealer's identifiers for the order records, which
	// its side of every traded line carries; the dealer's alone to see.
	Parties Parties
	Lines   []PortfolioQuoteLine
	// NetProceeds is, for the requester, the settlement amounts it receives
	// (lines it sells) less those it pays (lines it buys).
	NetProceeds udecimal.Decimal
	ValidUntil  *time.Time
	// Status is StatusCreated while live, then closed (done), cancelled
	// (replaced, withdrawn or declined), rejected or expired; Outcome is as
	// a single quote's (Outcome*), empty while live.
	Status  string
	Outcome string
	// CoverNetProceeds (HasCover) is on the done quote: the best other
	// live quote's net proceeds at the accept.
	CoverNetProceeds udecimal.Decimal
	HasCover         bool
	CreatedAt        time.Time
	UpdatedAt        time.Time
}

// PortfolioQuoteLine is a quote's price for one line and what it comes
// to at the list's settlement date.
type PortfolioQuoteLine struct {
	LineID           string
	PricePerUnit     udecimal.Decimal // clean, percent of par
	AccruedInterest  udecimal.Decimal // for the line's quantity
	SettlementAmount udecimal.Decimal // quantity × price / 100, to the cent, plus accrued
}
