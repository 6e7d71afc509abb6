package wire

import (
	"time"

	"github.com/bondvenue/bondvenue/internal/trading"
	"github.com/bondvenue/bondvenue/internal/venue"
)

// This file renders the reference records (participants, accounts, users,
// markets, risk limits, buckets, settlement providers, credentials,
// counterparty relations) in the spec's shapes. Field names, and whether a
// decimal is a JSON number or a string, follow the spec per field
// (docs/guide.md, "Conventions").

// Participant is a participant record with every field the caller may see.
type Participant struct {
	ID                            string  `json:"id"`
	LEI                           string  `json:"lei"`
	Type                          string  `json:"type"`
	CategoryName                  string  `json:"category_name"`
	Name                          string  `json:"name"`
	Address                       string  `json:"address"`
	PostalCode                    string  `json:"postal_code"`
	City                          string  `json:"city"`
	State                         string  `json:"state"`
	Country                       string  `json:"country"`
	LegalForm                     string  `json:"legal_form"`
	RegistrationNumber            string  `json:"registration_number"`
	TaxNumber                     string  `json:"tax_number"`
	Status                        string  `json:"status"`
	KYCStatus                     string  `json:"kyc_status"`
	CSD                           string  `json:"csd"`
	CSDBIC11                      string  `json:"csd_bic_11"`
	CustodyAccountNumber          string  `json:"custody_account_number"`
	CustodyAccountBeneficiaryBIC8 string  `json:"custody_account_beneficiary_bic_8"`
	DefaultSettlementProviderID   *string `json:"default_settlement_provider_id"`
	CreatedAt                     string  `json:"createdAt"`
	UpdatedAt                     string  `json:"updatedAt"`
}

// ParticipantIndex is a participant in the index, with every nested
// collection the spec lists.
type ParticipantIndex struct {
	Participant
	Accounts        []Account           `json:"accounts"`
	Users           []User              `json:"users"`
	Buckets         []Bucket            `json:"buckets"`
	RiskLimits      []RiskLimit         `json:"risk_limits"`
	Markets         []Market            `json:"markets"`
	Counterparties  []ParticipantPublic `json:"counterparties"`
	ServiceAccounts []struct{}          `json:"serviceaccounts"`
}

// ParticipantPublic is the part of a participant another firm may see.
type ParticipantPublic struct {
	ID           string `json:"id"`
	LEI          string `json:"lei"`
	Name         string `json:"name"`
	Type         string `json:"type"`
	CategoryName string `json:"category_name"`
	Country      string `json:"country"`
	Status       string `json:"status"`
}

// ParticipantPublicOf renders p as another firm sees it.
func ParticipantPublicOf(p venue.Participant) ParticipantPublic {
	return ParticipantPublic{ID: p.ID, LEI: p.LEI, Name: p.Name, Type: p.Type, CategoryName: p.CategoryName,
		Country: p.Country, Status: p.Status}
}

// ParticipantFullOf renders p in full, without nested collections.
func ParticipantFullOf(p venue.Participant) Participant {
	return Participant{ID: p.ID, LEI: p.LEI, Type: p.Type, CategoryName: p.CategoryName, Name: p.Name,
		Address: p.Address, PostalCode: p.PostalCode, City: p.City, State: p.State, Country: p.Country,
		LegalForm: p.LegalForm, RegistrationNumber: p.RegistrationNumber, TaxNumber: p.TaxNumber, Status: p.Status,
		KYCStatus: p.KYCStatus, CSD: p.CSD, CSDBIC11: p.CSDBIC11, CustodyAccountNumber: p.CustodyAccountNumber,
		CustodyAccountBeneficiaryBIC8: p.CustodyAccountBeneficiaryBIC8,
		DefaultSettlementProviderID:   Nullable(p.DefaultSettlementProviderID),
		CreatedAt:                     Time(p.CreatedAt), UpdatedAt: Time(p.UpdatedAt)}
}

// ParticipantOf renders a participant as the caller may see it.
func ParticipantOf(v trading.ParticipantView) any {
	if v.PublicOnly {
		return ParticipantPublicOf(v.Participant)
	}
	out := ParticipantFullOf(v.Participant)
	n := v.Nested
	if n == nil {
		return out
	}
	return ParticipantIndex{Participant: out,
		Accounts:        mapSlice(n.Accounts, AccountOf),
		Users:           mapSlice(n.Users, UserOf),
		Buckets:         mapSlice(n.Buckets, BucketOf),
		RiskLimits:      mapSlice(n.RiskLimits, RiskLimitOf),
		Markets:         mapSlice(n.Markets, MarketOf),
		Counterparties:  mapSlice(n.Counterparties, ParticipantPublicOf),
		ServiceAccounts: []struct{}{},
	}
}

// Account is an account record; its participant is set only when the account is the answer itself.
type Account struct {
	ID                          string       `json:"id"`
	Number                      string       `json:"number"`
	Status                      string       `json:"status"`
	Type                        string       `json:"type"`
	Participant                 *Participant `json:"participant"`
	ParticipantID               string       `json:"participant_id"`
	DefaultSettlementProviderID *string      `json:"default_settlement_provider_id"`
	CreatedAt                   string       `json:"createdAt"`
	UpdatedAt                   string       `json:"updatedAt"`
}

// AccountOf renders an account nested in another record: participant is
// null (the spec's "null in nested use").
func AccountOf(a venue.Account) Account {
	return Account{ID: a.ID, Number: a.Number, Status: a.Status, Type: a.Type, ParticipantID: a.ParticipantID,
		DefaultSettlementProviderID: Nullable(a.DefaultSettlementProviderID), CreatedAt: Time(a.CreatedAt), UpdatedAt: Time(a.UpdatedAt)}
}

// AccountRecordOf renders an account that is the answer itself (retrieve,
// list, create), with its participant in full.
func AccountRecordOf(v trading.AccountView) Account {
	out := AccountOf(v.Account)
	p := ParticipantFullOf(v.Participant)
	out.Participant = &p
	return out
}

// User is a user record; accounts and participant are filled only when the user is the answer itself.
type User struct {
	ID                      string       `json:"id"`
	Email                   string       `json:"email"`
	Role                    string       `json:"role"`
	IsEmailVerified         bool         `json:"is_email_verified"`
	IdentificationStatus    string       `json:"identification_status"`
	IsLoginTwoFAEnabled     bool         `json:"is_login_two_fa_enabled"`
	TermsConditionsSigned   bool         `json:"terms_conditions_signed"`
	TermsConditionsSignedAt *string      `json:"terms_conditions_signed_at"`
	LastActive              *string      `json:"last_active"`
	Status                  string       `json:"status"`
	Locale                  string       `json:"locale"`
	ParticipantID           *string      `json:"participant_id"`
	CreatedAt               string       `json:"createdAt"`
	UpdatedAt               string       `json:"updatedAt"`
	Profiles                []struct{}   `json:"profiles"`
	Phones                  []struct{}   `json:"phones"`
	Accounts                []Account    `json:"accounts"`
	Participant             *Participant `json:"participant"`
}

// UserOf renders a user nested in another record: no accounts and a null
// participant.
func UserOf(u venue.User) User {
	return User{ID: u.ID, Email: u.Email, Role: string(u.Role), IsEmailVerified: u.IsEmailVerified,
		IdentificationStatus: u.IdentificationStatus, IsLoginTwoFAEnabled: u.IsLoginTwoFAEnabled,
		TermsConditionsSigned: u.TermsConditionsSigned, TermsConditionsSignedAt: TimePtr(u.TermsConditionsSignedAt),
		LastActive: TimePtr(u.LastActive), Status: u.Status, Locale: u.Locale, ParticipantID: Nullable(u.ParticipantID),
		CreatedAt: Time(u.CreatedAt), UpdatedAt: Time(u.UpdatedAt), Profiles: []struct{}{}, Phones: []struct{}{}, Accounts: []Account{}}
}

// UserRecordOf renders a user that is the answer itself (retrieve, list,
// create, update): with its participant in full and the participant's
// accounts (nested, so without their participant). An operator user has
// neither.
func UserRecordOf(v trading.UserView) User {
	out := UserOf(v.User)
	out.Accounts = mapSlice(v.Accounts, AccountOf)
	if v.Participant != nil {
		p := ParticipantFullOf(*v.Participant)
		out.Participant = &p
	}
	return out
}

// Market is a market record.
type Market struct {
	ID                   string `json:"id"`
	Name                 string `json:"name"`
	Type                 string `json:"type"`
	FacilityType         string `json:"facility_type"`
	Timezone             string `json:"timezone"`
	IsEnabled            bool   `json:"is_enabled"`
	IsPartialFillAllowed bool   `json:"is_partial_fill_allowed"`
	SettlementLag        int    `json:"settlement_lag"`
	// SettlementLags are the lag's changes from a trade date on.
	SettlementLags     []LagChange `json:"settlement_lags"`
	Calendar           string      `json:"calendar"`
	PriceCollarPercent string      `json:"price_collar_percent"`
	MaxPricePercent    string      `json:"max_price_percent"`
	// TradingHours are null for a market that trades around the clock.
	TradingHours *TradingHours `json:"trading_hours"`
	// TradingPhase and NextPhaseChange are the market's phase when it was
	// read, and its next change (none around the clock); only the markets'
	// own answers carry them (MarketInPhase).
	TradingPhase    string       `json:"trading_phase,omitempty"`
	NextPhaseChange *PhaseChange `json:"next_phase_change,omitempty"`
	CreatedAt       string       `json:"createdAt"`
	UpdatedAt       string       `json:"updatedAt"`
}

// PhaseChange is a market's next change of trading phase.
type PhaseChange struct {
	Phase string `json:"phase"`
	At    string `json:"at"`
}

// MarketInPhase renders m in phase state ph.
func MarketInPhase(m venue.Market, ph venue.PhaseState) Market {
	out := MarketOf(m)
	out.TradingPhase = string(ph.Phase)
	if !ph.Next.At.IsZero() {
		out.NextPhaseChange = &PhaseChange{Phase: string(ph.Next.Phase), At: Time(ph.Next.At)}
	}
	return out
}

// TradingHours are a market's daily session in its time zone.
type TradingHours struct {
	Open           string `json:"open"`
	Close          string `json:"close"`
	PreOpenMinutes int    `json:"pre_open_minutes"`
}

// LagChange is a market's settlement lag from a trade date on.
type LagChange struct {
	From string `json:"from"`
	Lag  int    `json:"lag"`
}

// MarketOf renders m.
func MarketOf(m venue.Market) Market {
	lags := make([]LagChange, len(m.SettlementLags))
	for i, l := range m.SettlementLags {
		lags[i] = LagChange{From: l.From.String(), Lag: l.Lag}
	}
	return Market{ID: m.ID, Name: m.Name, Type: m.Type, FacilityType: m.FacilityType, Timezone: m.Timezone,
		IsEnabled: m.IsEnabled, IsPartialFillAllowed: m.IsPartialFillAllowed, SettlementLag: m.SettlementLag,
		SettlementLags: lags, Calendar: m.Calendar, PriceCollarPercent: m.PriceCollarPercent.String(),
		MaxPricePercent: m.MaxPricePercent.String(), TradingHours: hoursOf(m.Hours), CreatedAt: Time(m.CreatedAt), UpdatedAt: Time(m.UpdatedAt)}
}

func hoursOf(h *venue.TradingHours) *TradingHours {
	if h == nil {
		return nil
	}
	return &TradingHours{Open: h.Open, Close: h.Close, PreOpenMinutes: h.PreOpenMinutes}
}

// RiskLimit is a risk limit record; used appears only where the spec shows the limit's use.
type RiskLimit struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Value     Num    `json:"value"`
	Used      *Num   `json:"used,omitempty"`
	CreatedAt string `json:"createdAt"`
	UpdatedAt string `json:"updatedAt"`
}

// RiskLimitOf renders l without its use.
func RiskLimitOf(l venue.RiskLimit) RiskLimit {
	return RiskLimit{ID: l.ID, Name: l.Name, Value: NumOf(l.Value), CreatedAt: Time(l.CreatedAt), UpdatedAt: Time(l.UpdatedAt)}
}

// RiskLimitUseOf renders l with its use.
func RiskLimitUseOf(l venue.RiskLimit) RiskLimit {
	v := RiskLimitOf(l)
	used := NumOf(l.Used)
	v.Used = &used
	return v
}

// BucketHead is a bucket without its instruments (nested in an
// instrument).
type BucketHead struct {
	ID            string  `json:"id"`
	Name          string  `json:"name"`
	Type          string  `json:"type"`
	ParticipantID *string `json:"participant_id"`
	IsEnabled     bool    `json:"is_enabled"`
	CreatedAt     string  `json:"createdAt"`
	UpdatedAt     string  `json:"updatedAt"`
}

// Bucket is a bucket with its full instrument records.
type Bucket struct {
	BucketHead
	Instruments []Instrument `json:"instruments"`
}

// BucketOf renders a bucket with its instruments.
func BucketOf(b trading.BucketView) Bucket {
	return Bucket{BucketHead: BucketHeadOf(b.Bucket), Instruments: mapSlice(b.Instruments, InstrumentOf)}
}

// BucketHeadOf renders a bucket without its instruments.
func BucketHeadOf(b venue.Bucket) BucketHead {
	return BucketHead{ID: b.ID, Name: b.Name, Type: b.Type, ParticipantID: Nullable(b.ParticipantID),
		IsEnabled: b.IsEnabled, CreatedAt: Time(b.CreatedAt), UpdatedAt: Time(b.UpdatedAt)}
}

// Provider is a settlement provider record.
type Provider struct {
	ID                   string  `json:"id"`
	Provider             string  `json:"provider"`
	Status               string  `json:"status"`
	Type                 string  `json:"type"`
	Enabled              bool    `json:"enabled"`
	ParticipantID        string  `json:"participant_id"`
	AccountID            *string `json:"account_id"`
	SwiatID              string  `json:"swiat_id"`
	D7ID                 string  `json:"d7_id"`
	PSET                 string  `json:"pset"`
	AgentName            string  `json:"agent_name"`
	AgentBIC             string  `json:"agent_bic"`
	AgentNumber          string  `json:"agent_number"`
	LocalCode            string  `json:"localcode"`
	CSDBIC11             string  `json:"csd_bic11"`
	CustodyAccountNumber string  `json:"custody_account_number"`
	BeneficiaryBIC8      string  `json:"beneficiary_bic8"`
	BuyrSellName         string  `json:"buyr_sell_name"`
	BuyrSellBIC          string  `json:"buyr_sell_bic"`
	Safe                 string  `json:"safe"`
	CreatedAt            string  `json:"createdAt"`
	UpdatedAt            string  `json:"updatedAt"`
}

// ProviderOf renders a settlement provider with its status for the caller.
func ProviderOf(v trading.ProviderView) Provider {
	s := v.SettlementProvider
	return Provider{ID: s.ID, Provider: s.Provider, Status: v.Status, Type: s.Type, Enabled: s.Enabled,
		ParticipantID: s.ParticipantID, AccountID: Nullable(s.AccountID), SwiatID: s.SwiatID, D7ID: s.D7ID, PSET: s.PSET,
		AgentName: s.AgentName, AgentBIC: s.AgentBIC, AgentNumber: s.AgentNumber, LocalCode: s.LocalCode,
		CSDBIC11: s.CSDBIC11, CustodyAccountNumber: s.CustodyAccountNumber, BeneficiaryBIC8: s.BeneficiaryBIC8,
		BuyrSellName: s.BuyrSellName, BuyrSellBIC: s.BuyrSellBIC, Safe: s.Safe, CreatedAt: Time(s.CreatedAt), UpdatedAt: Time(s.UpdatedAt)}
}

// Credential is an API credential record; the secret appears only in the answer that created it.
type Credential struct {
	ClientID     string  `json:"client_id"`
	ClientSecret string  `json:"client_secret,omitempty"`
	UserID       string  `json:"user_id"`
	CreatedAt    string  `json:"createdAt"`
	RevokedAt    *string `json:"revoked_at"`
}

// CredentialOf renders c without its secret.
func CredentialOf(c venue.Credential) Credential {
	return Credential{ClientID: c.ClientID, UserID: c.UserID, CreatedAt: Time(c.CreatedAt), RevokedAt: TimePtr(c.RevokedAt)}
}

// Counterparty is one firm's relation to a counterparty.
type Counterparty struct {
	ParticipantID  string `json:"participant_id"`
	CounterpartyID string `json:"counterparty_id"`
	Enabled        bool   `json:"enabled"`
	CreatedAt      string `json:"createdAt"`
	UpdatedAt      string `json:"updatedAt"`
}

// CounterpartyOf renders r.
func CounterpartyOf(r venue.CounterpartyRelation) Counterparty {
	return Counterparty{ParticipantID: r.ParticipantID, CounterpartyID: r.CounterpartyID, Enabled: r.Enabled,
		CreatedAt: Time(r.CreatedAt), UpdatedAt: Time(r.UpdatedAt)}
}

// MicroLayout renders an instant to the microsecond, as the execution
// record does (docs/guide.md, "The execution record").
const MicroLayout = "2006-01-02T15:04:05.000000Z"

// Micro formats an instant to the microsecond, UTC.
func Micro(t time.Time) string { return t.UTC().Format(MicroLayout) }

// MicroPtr formats an optional instant to the microsecond; nil and the
// zero instant stay null.
func MicroPtr(t *time.Time) *string {
	if t == nil || t.IsZero() {
		return nil
	}
	s := Micro(*t)
	return &s
}

// MarketMark is the market around an RFQ at one moment.
type MarketMark struct {
	BestBid       *Num   `json:"best_bid"`
	BestAsk       *Num   `json:"best_ask"`
	IndicativeMid *Num   `json:"indicative_mid"`
	At            string `json:"at"`
}

// MarketMarkOf renders m; nil stays null.
func MarketMarkOf(m *trading.MarketMark) *MarketMark {
	if m == nil {
		return nil
	}
	return &MarketMark{BestBid: numPtr(m.BestBid), BestAsk: numPtr(m.BestAsk), IndicativeMid: numPtr(m.IndicativeMid), At: Micro(m.At)}
}

// QuoteRecord is one quote of a dealer in an execution record.
type QuoteRecord struct {
	QuoteID    string  `json:"quote_id"`
	Price      *Num    `json:"price"`
	Yield      *Num    `json:"yield"`
	Status     string  `json:"status"`
	Outcome    *string `json:"outcome"`
	QuotedAt   string  `json:"quoted_at"`
	UpdatedAt  string  `json:"updated_at"`
	EndedAt    *string `json:"ended_at"`
	CoverPrice *Num    `json:"cover_price"`
}

// DealerRecord is one invited dealer in an execution record.
type DealerRecord struct {
	ParticipantID  string        `json:"participant_id"`
	Name           string        `json:"name"`
	InvitedAt      string        `json:"invited_at"`
	RespondedAt    *string       `json:"responded_at"`
	ResponseTimeUS *int64        `json:"response_time_us"`
	Declined       bool          `json:"declined"`
	Outcome        *string       `json:"outcome"`
	Quotes         []QuoteRecord `json:"quotes"`
}

// ExecutionRecord is an RFQ's best-execution record, its instants to the
// microsecond.
type ExecutionRecord struct {
	RFQID          string         `json:"rfq_id"`
	RequesterID    string         `json:"requester_id"`
	InstrumentID   string         `json:"instrument_id"`
	ISIN           string         `json:"isin"`
	Instrument     string         `json:"instrument_name"`
	Currency       string         `json:"currency"`
	Direction      string         `json:"direction"`
	Quantity       Num            `json:"quantity"`
	SettlementDate *string        `json:"settlement_date"`
	Status         string         `json:"status"`
	SentAt         string         `json:"sent_at"`
	AcceptedAt     *string        `json:"accepted_at"`
	MarketAtSent   *MarketMark    `json:"market_at_sent"`
	MarketAtAccept *MarketMark    `json:"market_at_accept"`
	DoneQuoteID    *string        `json:"done_quote_id"`
	DonePrice      *Num           `json:"done_price"`
	CoverPrice     *Num           `json:"cover_price"`
	SavingPrice    *Num           `json:"saving_vs_cover"`
	SavingAmount   *Num           `json:"saving_vs_cover_amount"`
	Dealers        []DealerRecord `json:"dealers"`
}

// ExecutionRecordOf renders r.
func ExecutionRecordOf(r trading.ExecutionRecord) ExecutionRecord {
	out := ExecutionRecord{RFQID: r.RFQ.ID, RequesterID: r.RFQ.ParticipantID, InstrumentID: r.Instrument.ID,
		ISIN: r.Instrument.Terms.ISIN, Instrument: r.Instrument.Terms.Name, Currency: r.Instrument.Terms.Currency,
		Direction: r.RFQ.Direction, Quantity: NumOf(r.RFQ.Quantity), Status: r.RFQ.Status, SentAt: Micro(r.RFQ.CreatedAt),
		MarketAtSent: MarketMarkOf(r.Sent), MarketAtAccept: MarketMarkOf(r.Accepted), CoverPrice: numPtr(r.Cover),
		SavingPrice: numPtr(r.SavingPrice), SavingAmount: numPtr(r.SavingAmount), Dealers: []DealerRecord{}}
	if !r.RFQ.SettlementDate.IsZero() {
		s := r.RFQ.SettlementDate.String()
		out.SettlementDate = &s
	}
	if r.Accepted != nil {
		out.AcceptedAt = MicroPtr(&r.Accepted.At)
	}
	if r.Done != nil {
		out.DoneQuoteID, out.DonePrice = &r.Done.ID, numPtr(&r.Done.Price)
	}
	for _, d := range r.Dealers {
		dj := DealerRecord{ParticipantID: d.ParticipantID, Name: d.Name, InvitedAt: Micro(r.RFQ.CreatedAt),
			RespondedAt: MicroPtr(d.Responded()), Declined: d.Declined, Outcome: Nullable(d.Outcome()), Quotes: []QuoteRecord{}}
		if t := d.Responded(); t != nil {
			us := t.Sub(r.RFQ.CreatedAt).Microseconds()
			dj.ResponseTimeUS = &us
		}
		for _, q := range d.Quotes {
			dj.Quotes = append(dj.Quotes, QuoteRecordOf(q))
		}
		out.Dealers = append(out.Dealers, dj)
	}
	return out
}

// QuoteRecordOf renders one quote of an execution record.
func QuoteRecordOf(q trading.QuoteRecord) QuoteRecord {
	out := QuoteRecord{QuoteID: q.Quote.ID, Yield: numPtr(q.Yield), Status: q.Quote.Status, Outcome: Nullable(q.Quote.Outcome),
		QuotedAt: Micro(q.Quote.CreatedAt), UpdatedAt: Micro(q.Quote.ModifiedAt), EndedAt: MicroPtr(QuoteEnded(q.Quote))}
	if q.Quote.HasPrice {
		out.Price = numPtr(&q.Quote.Price)
	}
	if q.Quote.HasCover {
		out.CoverPrice = numPtr(&q.Quote.CoverPrice)
	}
	return out
}

// QuoteEnded is when a quote record ended: its last change once it has an
// outcome (nil while it has none).
func QuoteEnded(q venue.Offer) *time.Time {
	if q.Outcome == "" {
		return nil
	}
	t := q.UpdatedAt
	return &t
}

func mapSlice[T, U any](in []T, f func(T) U) []U {
	out := make([]U, 0, len(in))
	for _, v := range in {
		out = append(out, f(v))
	}
	return out
}
