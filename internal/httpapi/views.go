package httpapi

import (
	"github.com/bondvenue/bondvenue/internal/trading"
	"github.com/bondvenue/bondvenue/internal/venue"
	"github.com/bondvenue/bondvenue/internal/wire"
	"github.com/quagmt/udecimal"
)

// This file turns domain values into the spec's wire shapes. Field names,
// and whether a decimal is a JSON number or a string, follow the spec per
// field (docs/guide.md, "Conventions").

// num writes an exact decimal as a JSON number.
type num = wire.Num

// str writes an exact decimal as a JSON string.
func str(d udecimal.Decimal) string { return d.String() }

// The wire package's formats, shared with the event log.
var (
	numOf    = wire.NumOf    // an exact decimal as a num
	ts       = wire.Time     // an instant as ISO 8601 UTC with milliseconds
	tsPtr    = wire.TimePtr  // an optional instant; nil stays null
	nullable = wire.Nullable // "" as null
)

type participantJSON struct {
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

// participantIndexJSON is a participant in the index, with every nested
// collection the spec lists.
type participantIndexJSON struct {
	participantJSON
	Accounts        []accountJSON           `json:"accounts"`
	Users           []userJSON              `json:"users"`
	Buckets         []bucketJSON            `json:"buckets"`
	RiskLimits      []riskLimitJSON         `json:"risk_limits"`
	Markets         []marketJSON            `json:"markets"`
	Counterparties  []participantPublicJSON `json:"counterparties"`
	ServiceAccounts []struct{}              `json:"serviceaccounts"`
}

type participantPublicJSON struct {
	ID           string `json:"id"`
	LEI          string `json:"lei"`
	Name         string `json:"name"`
	Type         string `json:"type"`
	CategoryName string `json:"category_name"`
	Country      string `json:"country"`
	Status       string `json:"status"`
}

func participantPublic(p venue.Participant) participantPublicJSON {
	return participantPublicJSON{ID: p.ID, LEI: p.LEI, Name: p.Name, Type: p.Type, CategoryName: p.CategoryName,
		Country: p.Country, Status: p.Status}
}

func participantFull(p venue.Participant) participantJSON {
	return participantJSON{ID: p.ID, LEI: p.LEI, Type: p.Type, CategoryName: p.CategoryName, Name: p.Name,
		Address: p.Address, PostalCode: p.PostalCode, City: p.City, State: p.State, Country: p.Country,
		LegalForm: p.LegalForm, RegistrationNumber: p.RegistrationNumber, TaxNumber: p.TaxNumber, Status: p.Status,
		KYCStatus: p.KYCStatus, CSD: p.CSD, CSDBIC11: p.CSDBIC11, CustodyAccountNumber: p.CustodyAccountNumber,
		CustodyAccountBeneficiaryBIC8: p.CustodyAccountBeneficiaryBIC8,
		DefaultSettlementProviderID:   nullable(p.DefaultSettlementProviderID),
		CreatedAt:                     ts(p.CreatedAt), UpdatedAt: ts(p.UpdatedAt)}
}

// participantView renders a participant as the caller may see it.
func participantView(v trading.ParticipantView) any {
	if v.PublicOnly {
		return participantPublic(v.Participant)
	}
	out := participantFull(v.Participant)
	n := v.Nested
	if n == nil {
		return out
	}
	return participantIndexJSON{participantJSON: out,
		Accounts:        mapSlice(n.Accounts, accountView),
		Users:           mapSlice(n.Users, userView),
		Buckets:         mapSlice(n.Buckets, bucketView),
		RiskLimits:      mapSlice(n.RiskLimits, riskLimitView),
		Markets:         mapSlice(n.Markets, marketView),
		Counterparties:  mapSlice(n.Counterparties, participantPublic),
		ServiceAccounts: []struct{}{},
	}
}

type accountJSON struct {
	ID                          string           `json:"id"`
	Number                      string           `json:"number"`
	Status                      string           `json:"status"`
	Type                        string           `json:"type"`
	Participant                 *participantJSON `json:"participant"`
	ParticipantID               string           `json:"participant_id"`
	DefaultSettlementProviderID *string          `json:"default_settlement_provider_id"`
	CreatedAt                   string           `json:"createdAt"`
	UpdatedAt                   string           `json:"updatedAt"`
}

// accountView renders an account nested in another record: participant is
// null (the spec's "null in nested use").
func accountView(a venue.Account) accountJSON {
	return accountJSON{ID: a.ID, Number: a.Number, Status: a.Status, Type: a.Type, ParticipantID: a.ParticipantID,
		DefaultSettlementProviderID: nullable(a.DefaultSettlementProviderID), CreatedAt: ts(a.CreatedAt), UpdatedAt: ts(a.UpdatedAt)}
}

// accountRecord renders an account that is the answer itself (retrieve,
// list, create), with its participant in full.
func accountRecord(v trading.AccountView) accountJSON {
	out := accountView(v.Account)
	p := participantFull(v.Participant)
	out.Participant = &p
	return out
}

type userJSON struct {
	ID                      string           `json:"id"`
	Email                   string           `json:"email"`
	Role                    string           `json:"role"`
	IsEmailVerified         bool             `json:"is_email_verified"`
	IdentificationStatus    string           `json:"identification_status"`
	IsLoginTwoFAEnabled     bool             `json:"is_login_two_fa_enabled"`
	TermsConditionsSigned   bool             `json:"terms_conditions_signed"`
	TermsConditionsSignedAt *string          `json:"terms_conditions_signed_at"`
	LastActive              *string          `json:"last_active"`
	Status                  string           `json:"status"`
	Locale                  string           `json:"locale"`
	ParticipantID           *string          `json:"participant_id"`
	CreatedAt               string           `json:"createdAt"`
	UpdatedAt               string           `json:"updatedAt"`
	Profiles                []struct{}       `json:"profiles"`
	Phones                  []struct{}       `json:"phones"`
	Accounts                []accountJSON    `json:"accounts"`
	Participant             *participantJSON `json:"participant"`
}

// userView renders a user nested in another record: no accounts and a null
// participant.
func userView(u venue.User) userJSON {
	return userJSON{ID: u.ID, Email: u.Email, Role: string(u.Role), IsEmailVerified: u.IsEmailVerified,
		IdentificationStatus: u.IdentificationStatus, IsLoginTwoFAEnabled: u.IsLoginTwoFAEnabled,
		TermsConditionsSigned: u.TermsConditionsSigned, TermsConditionsSignedAt: tsPtr(u.TermsConditionsSignedAt),
		LastActive: tsPtr(u.LastActive), Status: u.Status, Locale: u.Locale, ParticipantID: nullable(u.ParticipantID),
		CreatedAt: ts(u.CreatedAt), UpdatedAt: ts(u.UpdatedAt), Profiles: []struct{}{}, Phones: []struct{}{}, Accounts: []accountJSON{}}
}

// userRecord renders a user that is the answer itself (retrieve, list,
// create, update): with its participant in full and the participant's
// accounts (nested, so without their participant). An operator user has
// neither.
func userRecord(v trading.UserView) userJSON {
	out := userView(v.User)
	out.Accounts = mapSlice(v.Accounts, accountView)
	if v.Participant != nil {
		p := participantFull(*v.Participant)
		out.Participant = &p
	}
	return out
}

type marketJSON struct {
	ID                   string `json:"id"`
	Name                 string `json:"name"`
	Type                 string `json:"type"`
	FacilityType         string `json:"facility_type"`
	Timezone             string `json:"timezone"`
	IsEnabled            bool   `json:"is_enabled"`
	IsPartialFillAllowed bool   `json:"is_partial_fill_allowed"`
	SettlementLag        int    `json:"settlement_lag"`
	Calendar             string `json:"calendar"`
	PriceCollarPercent   string `json:"price_collar_percent"`
	MaxPricePercent      string `json:"max_price_percent"`
	CreatedAt            string `json:"createdAt"`
	UpdatedAt            string `json:"updatedAt"`
}

func marketView(m venue.Market) marketJSON {
	return marketJSON{ID: m.ID, Name: m.Name, Type: m.Type, FacilityType: m.FacilityType, Timezone: m.Timezone,
		IsEnabled: m.IsEnabled, IsPartialFillAllowed: m.IsPartialFillAllowed, SettlementLag: m.SettlementLag,
		Calendar: m.Calendar, PriceCollarPercent: m.PriceCollarPercent.String(), MaxPricePercent: m.MaxPricePercent.String(),
		CreatedAt: ts(m.CreatedAt), UpdatedAt: ts(m.UpdatedAt)}
}

type riskLimitJSON struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Value     num    `json:"value"`
	Used      *num   `json:"used,omitempty"`
	CreatedAt string `json:"createdAt"`
	UpdatedAt string `json:"updatedAt"`
}

func riskLimitView(l venue.RiskLimit) riskLimitJSON {
	return riskLimitJSON{ID: l.ID, Name: l.Name, Value: numOf(l.Value), CreatedAt: ts(l.CreatedAt), UpdatedAt: ts(l.UpdatedAt)}
}

func riskLimitUseView(l venue.RiskLimit) riskLimitJSON {
	v := riskLimitView(l)
	used := numOf(l.Used)
	v.Used = &used
	return v
}

// bucketHeadJSON is a bucket without its instruments (nested in an
// instrument).
type bucketHeadJSON struct {
	ID            string  `json:"id"`
	Name          string  `json:"name"`
	Type          string  `json:"type"`
	ParticipantID *string `json:"participant_id"`
	IsEnabled     bool    `json:"is_enabled"`
	CreatedAt     string  `json:"createdAt"`
	UpdatedAt     string  `json:"updatedAt"`
}

// bucketJSON is a bucket with its full instrument records.
type bucketJSON struct {
	bucketHeadJSON
	Instruments []instrumentJSON `json:"instruments"`
}

func bucketView(b trading.BucketView) bucketJSON {
	return bucketJSON{bucketHeadJSON: bucketHead(b.Bucket), Instruments: mapSlice(b.Instruments, instrumentListView)}
}

func bucketHead(b venue.Bucket) bucketHeadJSON {
	return bucketHeadJSON{ID: b.ID, Name: b.Name, Type: b.Type, ParticipantID: nullable(b.ParticipantID),
		IsEnabled: b.IsEnabled, CreatedAt: ts(b.CreatedAt), UpdatedAt: ts(b.UpdatedAt)}
}

type providerJSON struct {
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

func providerView(v trading.ProviderView) providerJSON {
	s := v.SettlementProvider
	return providerJSON{ID: s.ID, Provider: s.Provider, Status: v.Status, Type: s.Type, Enabled: s.Enabled,
		ParticipantID: s.ParticipantID, AccountID: nullable(s.AccountID), SwiatID: s.SwiatID, D7ID: s.D7ID, PSET: s.PSET,
		AgentName: s.AgentName, AgentBIC: s.AgentBIC, AgentNumber: s.AgentNumber, LocalCode: s.LocalCode,
		CSDBIC11: s.CSDBIC11, CustodyAccountNumber: s.CustodyAccountNumber, BeneficiaryBIC8: s.BeneficiaryBIC8,
		BuyrSellName: s.BuyrSellName, BuyrSellBIC: s.BuyrSellBIC, Safe: s.Safe, CreatedAt: ts(s.CreatedAt), UpdatedAt: ts(s.UpdatedAt)}
}

// newsView renders a news item (the same record the event log carries).
func newsView(n venue.News) wire.News { return wire.NewsOf(n) }

type credentialJSON struct {
	ClientID     string  `json:"client_id"`
	ClientSecret string  `json:"client_secret,omitempty"`
	UserID       string  `json:"user_id"`
	CreatedAt    string  `json:"createdAt"`
	RevokedAt    *string `json:"revoked_at"`
}

func credentialView(c venue.Credential) credentialJSON {
	return credentialJSON{ClientID: c.ClientID, UserID: c.UserID, CreatedAt: ts(c.CreatedAt), RevokedAt: tsPtr(c.RevokedAt)}
}

type counterpartyJSON struct {
	ParticipantID  string `json:"participant_id"`
	CounterpartyID string `json:"counterparty_id"`
	Enabled        bool   `json:"enabled"`
	CreatedAt      string `json:"createdAt"`
	UpdatedAt      string `json:"updatedAt"`
}

func counterpartyView(r venue.CounterpartyRelation) counterpartyJSON {
	return counterpartyJSON{ParticipantID: r.ParticipantID, CounterpartyID: r.CounterpartyID, Enabled: r.Enabled,
		CreatedAt: ts(r.CreatedAt), UpdatedAt: ts(r.UpdatedAt)}
}

func mapSlice[T, U any](in []T, f func(T) U) []U {
	out := make([]U, 0, len(in))
	for _, v := range in {
		out = append(out, f(v))
	}
	return out
}
