package venue

import (
	"time"

	"github.com/bondvenue/bondvenue/internal/bondmath"
	"github.com/quagmt/udecimal"
)

// Offer types: one record shape serves firm offers, requests for quote and
// dealers' quotes (docs/rest-interface.md, "Offer").
const (
	TypeOffer = "offer"
	TypeRFQ   = "request_for_quote"
	TypeQuote = "quote"
	// TypePortfolioLine is one side of a traded line of a portfolio RFQ:
	// a closed record the line's trade's order names (its
	// MatchedOfferID is the list's id).
	TypePortfolioLine = "portfolio_line"
)

// Directions. "sell" and "buy" are accepted as input aliases.
const (
	Ask = "ask"
	Bid = "bid"
)

// Offer, RFQ and quote states. Created is open; the others are final.
const (
	StatusCreated   = "created"
	StatusClosed    = "closed"
	StatusCancelled = "cancelled"
	StatusRejected  = "rejected"
	StatusExpired   = "expired"
)

// The outcomes of a quote, set when it ends (null while it is open):
// exactly one per quote. An RFQ's accept decides them for every live quote
// in the batch that trades it.
const (
	OutcomeDone      = "done"      // accepted
	OutcomeCover     = "cover"     // the best other live quote at the accept
	OutcomeTied      = "tied"      // at the done price, not chosen
	OutcomeDoneAway  = "done_away" // another live quote at the accept
	OutcomePassed    = "passed"    // the requester rejected it (or changed the request's terms)
	OutcomeDeclined  = "declined"  // the dealer declined the request: a record with no price
	OutcomeWithdrawn = "withdrawn" // the dealer cancelled or replaced it
	OutcomeExpired   = "expired"   // it or its request expired
	OutcomeCancelled = "cancelled" // the requester cancelled the request
)

// Validities.
const (
	GTC = "gtc"
	GTD = "gtd"
)

// Execution types of trades.
const (
	ExecutionOTC        = "otc"
	ExecutionContinuous = "continuous"
)

// Offer is a firm offer, an RFQ or a quote.
type Offer struct {
	ID                   string
	Type                 string
	Direction            string
	ParticipantID        string
	AccountID            string
	UserID               string
	MarketID             string
	InstrumentID         string
	SettlementProviderID string
	// Price is the clean price per unit in percent of par; HasPrice is false
	// for a market order and for an RFQ without a limit.
	Price           udecimal.Decimal
	HasPrice        bool
	Quantity        udecimal.Decimal
	Filled          udecimal.Decimal
	Status          string
	MatchedOfferID  string // quote: its RFQ; RFQ: the resting offer it was sent for
	Notes           string
	MarketOrder     bool
	IsExecutable    bool
	SettlementDate  bondmath.Date
	Validity        string
	ValidUntil      *time.Time
	AccruedInterest udecimal.Decimal // for Quantity at SettlementDate
	Message         string
	Priority        uint64 // time priority in the book
	// PriorityAt is when the order took its priority: its entry, or the
	// amendment that lost it its place.
	PriorityAt time.Time
	// Counterparties are an RFQ's recipients (participant ids).
	Counterparties []string
	// ClientOrderID is the owner's latest ClOrdID for the order (FIX);
	// empty for one entered over REST. Only its owner's channels show it.
	ClientOrderID string
	// Outcome is a quote's end (an Outcome* constant), empty while open.
	// CoverPrice (HasCover) is on the done quote: the best other live
	// quote's price at the accept, for its dealer and the requester only.
	Outcome    string
	CoverPrice udecimal.Decimal
	HasCover   bool
	// Parties are the identifiers the client gave for the order records.
	Parties    Parties
	CreatedAt  time.Time
	UpdatedAt  time.Time
	ModifiedAt time.Time
}

// Parties are the identifiers a client gives with an order for the
// venue's order records: who the client is, who decided to invest, who
// executed, and in what capacity the member trades. Empty fields take the
// venue's defaults when a record is written.
type Parties struct {
	ClientID           string // an LEI, AGGR, PNAL or a short code
	InvestmentDecision string // a short code or an algorithm's id
	ExecutionDecision  string // a short code or an algorithm's id
	Capacity           string // DEAL, MTCH or AOTC
}

// Open reports whether the offer is still live.
func (o *Offer) Open() bool { return o.Status == StatusCreated }

// Remaining is the unfilled quantity.
func (o *Offer) Remaining() udecimal.Decimal { return o.Quantity.Sub(o.Filled) }

// ExpiresAt is when a gtd record expires (a copy of its valid_until); nil
// for gtc.
func (o *Offer) ExpiresAt() *time.Time {
	if o.Validity != GTD || o.ValidUntil == nil {
		return nil
	}
	t := *o.ValidUntil
	return &t
}

// Trade is one fill between an ask and a bid.
type Trade struct {
	ID                            string
	TransactionIdentificationCode string
	MarketID                      string
	InstrumentID                  string
	AskOrder, BidOrder            Order
	Status                        string
	Quantity                      udecimal.Decimal
	PricePerUnit                  udecimal.Decimal // clean, percent of par
	AccruedInterest               udecimal.Decimal // amount for Quantity
	// SettlementAmount is the cash the buyer pays: Quantity × clean/100 +
	// accrued interest (the spec's trade "price").
	SettlementAmount udecimal.Decimal
	Fee              udecimal.Decimal
	SettlementDate   bondmath.Date
	ExecutionType    string
	// PortfolioRFQID is the portfolio RFQ the trade is a line of ("" for
	// none).
	PortfolioRFQID string
	// Publication is when the public tape shows the trade.
	Publication          Publication
	CreatedAt, UpdatedAt time.Time
}

// Publication is a trade's post-trade transparency: when its price and its
// size are due on the public tape (the deferral band that says so), and
// when the venue published them (nil until then).
type Publication struct {
	Deferral                            string
	PriceDueAt, VolumeDueAt             time.Time
	PublishedPriceAt, PublishedVolumeAt *time.Time
}

// Order is one side of a trade: the offer's part in the fill.
type Order struct {
	ID            string
	OfferID       string
	Direction     string
	ParticipantID string
	AccountID     string
	MarketID      string
	InstrumentID  string
	Quantity      udecimal.Decimal // the offer's quantity
	PricePerUnit  udecimal.Decimal
	Filled        udecimal.Decimal // the offer's filled quantity after this fill
	Status        string
	Type          string
	// ExpiresAt is the offer's deadline (Offer.ExpiresAt). It is not
	// stored with the order: the engine sets it from the offer at the fill,
	// a reader from the offer it loads with the trade.
	ExpiresAt *time.Time
	CreatedAt time.Time
	UpdatedAt time.Time
}

// IndicativePrice is a non-firm two-way price a participant publishes.
type IndicativePrice struct {
	ID                   string
	ParticipantID        string
	AccountID            string
	UserID               string
	InstrumentID         string
	BidPrice, AskPrice   *udecimal.Decimal
	BidQuantity          *udecimal.Decimal
	AskQuantity          *udecimal.Decimal
	BidYield, AskYield   *udecimal.Decimal
	SettlementDate       bondmath.Date
	ValidUntil           *time.Time
	CreatedAt, UpdatedAt time.Time
}
