package venue

import (
	"fmt"
	"reflect"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/bondvenue/bondvenue/internal/bondmath"
	"github.com/quagmt/udecimal"
)

// This file holds the rules a record's fields must meet, whichever
// channel enters it: markets, instruments, participants and users, and an
// offer's price, quantity, settlement date and validity.

// MaxPriceBound is the highest max_price_percent a market may take.
var MaxPriceBound = udecimal.MustFromInt64(10000, 0)

// Undisclosed is the text of a withheld instrument field.
const Undisclosed = "Undisclosed"

// hundred is 100: percent of par, of the reference price.
var hundred = udecimal.MustFromInt64(100, 0)

// ValidateMarket checks a market's fields.
func ValidateMarket(m *Market) error {
	var v Validator
	v.Check(strings.TrimSpace(m.Name) != "" && utf8.RuneCountInString(m.Name) <= 100, "name", "is required (at most 100 characters)")
	v.CheckLength("type", m.Type, MaxName)
	v.Check(m.FacilityType == FacilityOTC || m.FacilityType == FacilityContinuous, "facility_type",
		"must be OTC or continues-matching")
	_, err := time.LoadLocation(m.Timezone)
	v.Check(m.Timezone != "" && err == nil, "timezone", "must be an IANA time zone such as UTC")
	v.Check(m.SettlementLag >= 0 && m.SettlementLag <= 30, "settlement_lag", "must be between 0 and 30 business days")
	v.Check(len(m.SettlementLags) <= MaxLagChanges, "settlement_lags", fmt.Sprintf("must hold at most %d changes", MaxLagChanges))
	for i, l := range m.SettlementLags {
		v.Check(l.Lag >= 0 && l.Lag <= 30, fmt.Sprintf("settlement_lags[%d].lag", i), "must be between 0 and 30 business days")
		v.Check(i == 0 || m.SettlementLags[i-1].From.Before(l.From), fmt.Sprintf("settlement_lags[%d].from", i),
			"must be after the change before it: one change per date, in date order")
	}
	v.Check(strings.EqualFold(m.Calendar, "TARGET2"), "calendar", "must be TARGET2")
	v.Check(m.PriceCollarPercent.IsPos() && m.PriceCollarPercent.LessThanOrEqual(hundred), "price_collar_percent",
		"must be above 0 and at most 100 (percent of the reference price)")
	v.Check(m.MaxPricePercent.IsPos() && m.MaxPricePercent.LessThanOrEqual(MaxPriceBound), "max_price_percent",
		"must be above 0 and at most "+MaxPriceBound.String()+" (percent of par)")
	if m.Hours != nil {
		checkHours(&v, m.Hours)
	}
	return v.Err()
}

// ValidateInstrument checks an instrument's fields. A field too long, then
// one that is not a date, keeps that one issue.
func ValidateInstrument(i *Instrument) error {
	var v Validator
	checkText(&v, "", i.Terms)
	checkText(&v, "static_data.", i.Static)
	if err := v.MergeUnreported(checkDates(i)); err != nil {
		return err
	}
	if err := v.MergeUnreported(instrumentRules(i)); err != nil {
		return err
	}
	return v.Err()
}

// checkText records an issue on each text field of fields (InstrumentTerms
// or StaticData) longer than a name, or for the note longer than free text;
// prefix names the block.
func checkText(v *Validator, prefix string, fields any) {
	rv := reflect.ValueOf(fields)
	for k := range rv.NumField() {
		name, _, _ := strings.Cut(rv.Type().Field(k).Tag.Get("json"), ",")
		var s string
		switch x := rv.Field(k).Interface().(type) {
		case string:
			s = x
		case *string:
			if x == nil {
				continue
			}
			s = *x
		default:
			continue
		}
		limit := MaxName
		if name == "note" {
			limit = MaxText
		}
		v.CheckLength(prefix+name, s, limit)
	}
}

// checkDates names each date field of i that is neither a date, nor empty
// (not given), nor Undisclosed (withheld), and writes the dates as
// YYYY-MM-DD.
func checkDates(i *Instrument) error {
	var v Validator
	t := &i.Terms
	for _, f := range []struct {
		name  string
		value *string
	}{{"maturity", &t.Maturity}, {"interest_accrual_date", &t.InterestAccrualDate},
		{"first_coupon_date", &t.FirstCouponDate}, {"pricing_date", &t.PricingDate},
		{"first_settle_date", &t.FirstSettleDate}, {"static_data.refunding_date", &i.Static.RefundingDate}} {
		if *f.value == "" || *f.value == Undisclosed {
			continue
		}
		d, err := bondmath.ParseDate(*f.value)
		if err != nil {
			v.Addf(f.name, "must be a date YYYY-MM-DD (or %s)", Undisclosed)
			continue
		}
		*f.value = d.String()
	}
	return v.Err()
}

// instrumentRules checks the identifiers, the terms a fixed-coupon bond is
// priced with, the amounts and the listing.
func instrumentRules(i *Instrument) error {
	var v Validator
	t := &i.Terms
	v.Check(ValidISIN(t.ISIN), "isin", "must be a 12-character ISIN with a valid check digit")
	v.Check(strings.TrimSpace(t.Name) != "", "name", "is required")
	v.Check(ValidCurrency(t.Currency), "currency", "must be an ISO 4217 code such as EUR")
	if t.Type == "Fixed" {
		// A fixed-coupon bond must be priceable: its terms go through the
		// bond calculator's own validation.
		if _, err := BondOf(*i); err != nil {
			if err := v.Merge(err); err != nil {
				return err
			}
		}
	}
	CheckAmount(&v, "min_piece", i.MinPiece)
	CheckAmount(&v, "min_increment", i.MinIncrement)
	CheckAmount(&v, "par_amount", i.ParAmount)
	v.Check(i.Precision >= 0 && i.Precision <= 8, "precision", "must be between 0 and 8 decimal places")
	if i.MinIncrement.IsPos() && i.MinPiece.IsPos() {
		_, rem, err := i.MinPiece.QuoRem(i.MinIncrement)
		v.Check(err == nil && rem.IsZero(), "min_piece", "must be a multiple of min_increment")
	}
	for k, id := range i.MarketIDs {
		v.Check(ValidID(id), fmt.Sprintf("market_ids[%d]", k), "must be a market id")
	}
	return v.Err()
}

func ValidateParticipant(p *Participant) error {
	var v Validator
	v.Check(strings.TrimSpace(p.Name) != "", "name", "is required")
	v.Check(ValidLEI(p.LEI), "lei", "must be a 20-character ISO 17442 LEI with valid check digits")
	v.Check(ValidCountry(p.Country), "country", "must be an ISO 3166 two-letter code")
	v.Check(p.Status == "active" || p.Status == "suspended", "status", "must be active or suspended")
	v.Check(p.Type == "legal_entity", "type", "must be legal_entity")
	v.Check(p.CategoryName == "professional" || p.CategoryName == "wholesale", "category_name", "must be professional or wholesale")
	v.Check(p.KYCStatus == "pending" || p.KYCStatus == "successful" || p.KYCStatus == "failed", "kyc_status",
		"must be pending, successful or failed")
	for _, f := range []struct{ name, value string }{{"name", p.Name}, {"address", p.Address}, {"postal_code", p.PostalCode},
		{"city", p.City}, {"state", p.State}, {"legal_form", p.LegalForm}, {"registration_number", p.RegistrationNumber},
		{"tax_number", p.TaxNumber}, {"csd", p.CSD}, {"csd_bic_11", p.CSDBIC11}, {"custody_account_number", p.CustodyAccountNumber},
		{"custody_account_beneficiary_bic_8", p.CustodyAccountBeneficiaryBIC8}} {
		v.CheckLength(f.name, f.value, MaxName)
	}
	return v.Err()
}

func ValidateUser(u *User) error {
	var v Validator
	v.Check(ValidEmail(u.Email), "email", "must be an e-mail address")
	v.Check(u.Role.Valid(), "role", "must be VENUE_OPERATOR, PARTICIPANT_ADMIN, PARTICIPANT_TRADER or PARTICIPANT_VIEWER")
	if u.Role == RoleOperator {
		v.Check(u.ParticipantID == "", "participant_id", "must be empty for a VENUE_OPERATOR")
	} else if u.Role.Valid() {
		v.Check(ValidID(u.ParticipantID), "participant_id", "is required for a participant role")
	}
	v.Check(u.Status == "active" || u.Status == "disabled", "status", "must be active or disabled")
	v.Check(len(u.Locale) >= 2 && len(u.Locale) <= 10, "locale", "must be a language tag such as en")
	return v.Err()
}

// This file holds the rules every offer, quote and RFQ follows, on create
// and on amend alike, and that indicative prices share: direction, price,
// quantity and settlement date.

func Direction(s string) (string, bool) {
	switch strings.ToLower(s) {
	case "ask", "sell":
		return Ask, true
	case "bid", "buy":
		return Bid, true
	}
	return "", false
}

// CheckPrecision records an issue on field when price has more significant
// decimal places than an instrument's precision allows. Trailing zeros are
// not significant: "99.5000" fits a precision of 1.
func CheckPrecision(v *Validator, field string, price udecimal.Decimal, precision int) {
	if precision < 0 || !price.Trunc(uint8(precision)).Equal(price) {
		v.Addf(field, "has more than the instrument's %d decimal places", precision)
	}
}

// CheckAmount records the issue of an amount (a nominal or a price) of
// any channel outside the venue's bounds (AmountIssue) or not
// positive, and reports whether it is usable.
func CheckAmount(v *Validator, field string, d udecimal.Decimal) bool {
	if issue := AmountIssue(d); issue != "" {
		v.Addf(field, "%s", issue)
		return false
	}
	if !d.IsPos() {
		v.Addf(field, "must be greater than 0")
		return false
	}
	return true
}

// CheckPrice records the issues of a clean price on instrument in: the
// rules of every offer, RFQ, quote and indicative price, on create and on
// amend.
func CheckPrice(v *Validator, field string, price udecimal.Decimal, in Instrument) {
	if CheckAmount(v, field, price) {
		CheckPrecision(v, field, price, in.Precision)
	}
}

// CheckQuantity records the issues of a nominal quantity on instrument
// in: at least min_piece, a multiple of min_increment.
func CheckQuantity(v *Validator, field string, q udecimal.Decimal, in Instrument) {
	if !CheckAmount(v, field, q) {
		return
	}
	v.Check(q.GreaterThanOrEqual(in.MinPiece), field, "must be at least min_piece "+in.MinPiece.String())
	_, rem, err := q.QuoRem(in.MinIncrement)
	v.Check(err == nil && rem.IsZero(), field, "must be a multiple of min_increment "+in.MinIncrement.String())
}

// CheckSettlement records the issues of settle as the settlement date of a
// record traded today on an instrument with terms bond: a TARGET2 business
// day, not before today, before maturity. bondErr says the terms are
// unusable, which the caller reports on instrument_id.
func CheckSettlement(v *Validator, settle, today bondmath.Date, bond bondmath.Bond, bondErr error) {
	v.Check(bondmath.TARGET2.IsBusinessDay(settle), "settlement_date", "must be a TARGET2 business day")
	v.Check(!settle.Before(today), "settlement_date", "must not be before the trade date "+today.String())
	if bondErr == nil {
		v.Check(settle.Before(bond.Maturity), "settlement_date", "must be before the instrument's maturity "+bond.Maturity.String())
	}
}

// CheckValidity records the issues of a validity and its deadline, and
// returns the validity in its canonical case: gtc, or gtd with a
// valid_until in the future.
func CheckValidity(v *Validator, validity string, until *time.Time, now time.Time) string {
	validity = strings.ToLower(validity)
	v.Check(validity == GTC || validity == GTD, "validity", "must be gtc or gtd")
	if validity == GTD {
		v.Check(until != nil && until.After(now), "valid_until", "is required with gtd and must be in the future")
	}
	return validity
}
