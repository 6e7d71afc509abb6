// Package venue holds the domain types of bondvenue: participants, their
// accounts and users, markets, instruments, buckets, settlement providers,
// news and risk limits, with the error kinds and validation rules every
// adapter shares. It has no I/O and no clock: callers pass the time in.
package venue

import (
	"time"

	"github.com/quagmt/udecimal"

	"github.com/bondvenue/bondvenue/internal/bondmath"
)

// Role is what a user may do. Roles are fixed; see docs/guide.md, "Conventions".
type Role string

// The four roles.
const (
	RoleOperator Role = "VENUE_OPERATOR"
	RoleAdmin    Role = "PARTICIPANT_ADMIN"
	RoleTrader   Role = "PARTICIPANT_TRADER"
	RoleViewer   Role = "PARTICIPANT_VIEWER"
)

// ParticipantRoles lists the roles a participant's user may hold.
var ParticipantRoles = []Role{RoleAdmin, RoleTrader, RoleViewer}

// Roles lists every role.
var Roles = []Role{RoleOperator, RoleAdmin, RoleTrader, RoleViewer}

// Valid reports whether r is one of the four roles.
func (r Role) Valid() bool {
	switch r {
	case RoleOperator, RoleAdmin, RoleTrader, RoleViewer:
		return true
	}
	return false
}

// Principal is the authenticated caller: the user a token acts as.
type Principal struct {
	UserID        string
	ParticipantID string // empty for the venue operator
	Role          Role
	ClientID      string
	// Channel is how the caller reached the venue (ChannelREST, ...), set
	// by the adapter that authenticated it; empty for the venue's own
	// callers, which act as ChannelSystem.
	Channel string
}

// The channels a change can come through, as the audit trail records
// them. The web app calls the REST API: its changes are ChannelREST.
const (
	ChannelREST   = "rest"
	ChannelFIX    = "fix"
	ChannelCLI    = "cli"    // bondvenue admin
	ChannelSystem = "system" // the venue itself: demo data, the live demo market
)

// IsOperator reports whether the caller runs the venue.
func (p Principal) IsOperator() bool { return p.Role == RoleOperator }

// Participant is a firm connected to the venue.
type Participant struct {
	ID                            string
	LEI                           string
	Type                          string
	CategoryName                  string
	Name                          string
	Address                       string
	PostalCode                    string
	City                          string
	State                         string
	Country                       string
	LegalForm                     string
	RegistrationNumber            string
	TaxNumber                     string
	Status                        string
	KYCStatus                     string
	CSD                           string
	CSDBIC11                      string
	CustodyAccountNumber          string
	CustodyAccountBeneficiaryBIC8 string
	DefaultSettlementProviderID   string // empty when none
	CreatedAt, UpdatedAt          time.Time
}

// Account is a participant's trading account.
type Account struct {
	ID                          string
	ParticipantID               string
	Number                      string
	Status                      string
	Type                        string
	DefaultSettlementProviderID string
	CreatedAt, UpdatedAt        time.Time
}

// AccountStatuses and AccountTypes list the values of an account's status
// and type.
var (
	AccountStatuses = []string{"active", "closed"}
	AccountTypes    = []string{"agent", "principal", "omnibus"}
)

// UserStatuses lists the values of a user's status.
var UserStatuses = []string{"active", "disabled"}

// User is a person or system acting for a participant (or for the venue,
// when ParticipantID is empty and Role is VENUE_OPERATOR).
type User struct {
	ID                      string
	ParticipantID           string
	Email                   string
	Role                    Role
	IsEmailVerified         bool
	IdentificationStatus    string
	IsLoginTwoFAEnabled     bool
	TermsConditionsSigned   bool
	TermsConditionsSignedAt *time.Time
	LastActive              *time.Time
	Status                  string
	Locale                  string
	CreatedAt, UpdatedAt    time.Time
}

// Credential is a client_id/secret pair that authenticates as a user.
type Credential struct {
	ClientID   string
	UserID     string
	SecretHash string
	CreatedAt  time.Time
	RevokedAt  *time.Time
}

// Token is an issued access token, stored only as its hash.
type Token struct {
	Hash      string
	ClientID  string
	UserID    string
	CreatedAt time.Time
	ExpiresAt time.Time
	RevokedAt *time.Time
}

// Market types of the spec's facility_type field.
const (
	FacilityOTC        = "OTC"
	FacilityContinuous = "continues-matching"
)

// FacilityTypes lists the market types.
var FacilityTypes = []string{FacilityOTC, FacilityContinuous}

// Market is a trading facility: an OTC (RFQ) market or a continuous book.
type Market struct {
	ID                   string
	Name                 string
	Type                 string
	FacilityType         string
	Timezone             string
	IsEnabled            bool
	IsPartialFillAllowed bool
	SettlementLag        int // business days from trade date to settlement
	// SettlementLags change the lag from a date on (EU T+1): the lag on a
	// trade date is that of the latest change from on or before it, else
	// SettlementLag (LagOn). Sorted by From, at most one per date.
	SettlementLags []LagChange
	Calendar       string // settlement calendar, e.g. TARGET2
	// PriceCollarPercent is how far, in percent of the reference price,
	// a price may stray either side of it; MaxPricePercent the highest
	// clean price taken when there is no reference (pre-trade controls).
	PriceCollarPercent udecimal.Decimal
	MaxPricePercent    udecimal.Decimal
	// Hours are the market's trading hours (hours.go); nil, it trades
	// around the clock.
	Hours                *TradingHours
	CreatedAt, UpdatedAt time.Time
}

// LagChange is a market's settlement lag from a trade date on.
type LagChange struct {
	From bondmath.Date
	Lag  int
}

// MaxLagChanges bounds a market's settlement lag changes.
const MaxLagChanges = 20

// LagOn is the settlement lag, in business days, of a trade on date
// trade.
func (m *Market) LagOn(trade bondmath.Date) int {
	lag := m.SettlementLag
	for _, c := range m.SettlementLags {
		if c.From.After(trade) {
			break
		}
		lag = c.Lag
	}
	return lag
}

// The pre-trade controls' defaults for a market (migration 0013 of the
// store sets them for markets that existed before).
var (
	DefaultPriceCollarPercent = udecimal.MustFromInt64(10, 0)
	DefaultMaxPricePercent    = udecimal.MustFromInt64(200, 0)
)

// Instrument is a bond listed on the venue. Terms holds the descriptive
// fields the spec lists as strings; Static holds static_data.
type Instrument struct {
	ID                   string
	Enabled              bool
	Terms                InstrumentTerms
	Static               StaticData
	MinPiece             udecimal.Decimal
	MinIncrement         udecimal.Decimal
	ParAmount            udecimal.Decimal
	Precision            int
	MarketIDs            []string
	CreatedAt, UpdatedAt time.Time
}

// InstrumentTerms are the instrument's descriptive fields, named as the
// spec names them. Withheld values carry the text "Undisclosed".
type InstrumentTerms struct {
	Name                string  `json:"name"`
	Type                string  `json:"type"`
	State               string  `json:"state"`
	Industry            string  `json:"industry"`
	ISIN                string  `json:"isin"`
	MktIss              string  `json:"mkt_iss"`
	CountryRegion       string  `json:"country_region"`
	Rank                string  `json:"rank"`
	Secured             string  `json:"secured"`
	Coupon              string  `json:"coupon"`
	CouponFrequency     string  `json:"coupon_frequency"`
	DayCount            string  `json:"day_count"`
	Maturity            string  `json:"maturity"`
	Repayment           string  `json:"repayment"`
	Currency            string  `json:"currency"`
	Series              string  `json:"series"`
	CouponType          string  `json:"coupon_type"`
	IssuePrice          string  `json:"issue_price"`
	BidLimit            string  `json:"bid_limit"`
	AskLimit            string  `json:"ask_limit"`
	AskQuantity         string  `json:"ask_quantity"`
	Reoffer             string  `json:"reoffer"`
	IssSprd             string  `json:"iss_sprd"`
	BenchmarkRefPx      string  `json:"benchmark_ref_px"`
	BenchmarkRefYield   string  `json:"benchmark_ref_yield"`
	IRSYield            string  `json:"irs_yield"`
	IssSprdVsIRS        string  `json:"iss_sprd_vs_irs"`
	AmtIssue            string  `json:"amt_issue"`
	AmtOutstanding      string  `json:"amt_outstanding"`
	BookRunner          string  `json:"book_runner"`
	Exchange            string  `json:"exchange"`
	Note                string  `json:"note"`
	Issuer              string  `json:"issuer"`
	UnitQuotation       string  `json:"unit_quotation"`
	PricingDate         string  `json:"pricing_date"`
	InterestAccrualDate string  `json:"interest_accrual_date"`
	FirstSettleDate     string  `json:"first_settle_date"`
	FirstCouponDate     string  `json:"first_coupon_date"`
	LEI                 *string `json:"lei"`
}

// StaticData is the instrument's static_data block (retrieve only).
type StaticData struct {
	Ticker                string `json:"ticker"`
	IssType               string `json:"iss_type"`
	CollateralType        string `json:"collateral_type"`
	PayRank               string `json:"pay_rank"`
	DayType               string `json:"day_type"`
	MaturityType          string `json:"maturity_type"`
	SecurityType          string `json:"security_type"`
	FIGI                  string `json:"figi"`
	EstimatedRatings      string `json:"estimated_ratings"`
	IssueAmt              string `json:"issue_amt"`
	PerAmt                string `json:"per_amt"`
	MinPieceIncrement     string `json:"min_piece_increment"`
	RefundingDate         string `json:"refunding_date"`
	TaxRate               string `json:"tax_rate"`
	SettlementDays        string `json:"settlement_days"`
	SettlementCalendar    string `json:"settlement_calendar"`
	IssuerName            string `json:"issuer_name"`
	OriginalParAmt        string `json:"original_par_amt"`
	UnitTraded            bool   `json:"unit_traded"`
	FlatTraded            bool   `json:"flat_traded"`
	CashPriced            bool   `json:"cash_priced"`
	BVALEnabled           bool   `json:"bval_enabled"`
	AllowNegativeCashflow bool   `json:"allow_negative_cashflow"`
}

// Bucket types.
const (
	BucketPrivate = "private"
	BucketPublic  = "public"
)

// BucketTypes lists the bucket types.
var BucketTypes = []string{BucketPrivate, BucketPublic}

// Bucket is a named group of instruments: private to one participant, or
// public (created by the operator, visible to all).
type Bucket struct {
	ID                   string
	Name                 string
	Type                 string
	ParticipantID        string // empty for public buckets
	IsEnabled            bool
	InstrumentIDs        []string
	CreatedAt, UpdatedAt time.Time
}

// SettlementProvider is a participant's settlement agent record.
type SettlementProvider struct {
	ID                   string
	ParticipantID        string
	AccountID            string
	Provider             string
	Type                 string
	Enabled              bool
	SwiatID              string
	D7ID                 string
	PSET                 string
	AgentName            string
	AgentBIC             string
	AgentNumber          string
	LocalCode            string
	CSDBIC11             string
	CustodyAccountNumber string
	BeneficiaryBIC8      string
	BuyrSellName         string
	BuyrSellBIC          string
	Safe                 string
	CreatedAt, UpdatedAt time.Time
}

// Risk limit names (the kinds are the sequencer's LimitKinds).
const (
	LimitMaxOffer        = "MAX_OFFER"
	LimitAllOfferSum     = "ALL_OFFER_SUM"
	LimitAllOfferUserSum = "ALL_OFFER_USER_SUM"
	LimitMaxOfferValue   = "MAX_OFFER_VALUE"
)

// RiskLimit caps a participant's open nominal; see docs/guide.md, "Trading".
type RiskLimit struct {
	ID                   string
	ParticipantID        string
	Name                 string
	Value                udecimal.Decimal
	Used                 udecimal.Decimal // filled in by reads that compute use
	CreatedAt, UpdatedAt time.Time
}

// CounterpartyRelation enables trading between two participants. The venue
// keeps relations symmetric.
type CounterpartyRelation struct {
	ParticipantID        string
	CounterpartyID       string
	Enabled              bool
	CreatedAt, UpdatedAt time.Time
}

// News is an item of venue news.
type News struct {
	ID                   string
	Title                string
	Body                 string
	Source               string
	URL                  string
	PublishedAt          time.Time
	CreatedAt, UpdatedAt time.Time
}

// Page selects a slice of a list, newest first. Cursor is the id of the
// last row of the previous page (ids are UUIDv7, so id order is creation
// order).
type Page struct {
	Limit  int
	Cursor string
	From   *time.Time // createdAt ≥ From
	To     *time.Time // createdAt < To
}

// TimestampLayout is the venue's wire format for instants: ISO 8601 UTC
// with milliseconds.
const TimestampLayout = "2006-01-02T15:04:05.000Z"

// DateLayout is the wire format for dates.
const DateLayout = "2006-01-02"
