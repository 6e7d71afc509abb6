package demo

import (
	"fmt"

	"github.com/bondvenue/bondvenue/internal/bondmath"
	"github.com/bondvenue/bondvenue/internal/trading"
	"github.com/bondvenue/bondvenue/internal/venue"
	"github.com/quagmt/udecimal"
)

// euT1 is the EU's move to T+1 (Regulation (EU) 2025/2075): trades from
// 2027-10-11 on settle one TARGET2 business day after the trade, two
// before (the markets' settlement_lag).
var euT1 = []venue.LagChange{{From: bondmath.MustDate(2027, 10, 11), Lag: 1}}

// demoZone is the demo markets' time zone: their business day, for the
// trade date, the default settlement date and the post-trade deadlines.
const demoZone = "Europe/Berlin"

var demoMarkets = []trading.MarketInput{
	{Name: ptr("bondvenue RFQ"), Type: ptr("secondary"), FacilityType: ptr(venue.FacilityOTC), IsPartialFillAllowed: ptr(true),
		Timezone: ptr(demoZone), SettlementLags: ptr(euT1)},
	{Name: ptr("bondvenue Continuous"), Type: ptr("secondary"), FacilityType: ptr(venue.FacilityContinuous), IsPartialFillAllowed: ptr(true),
		Timezone: ptr(demoZone), SettlementLags: ptr(euT1)},
	{Name: ptr("bondvenue Continuous All-or-None"), Type: ptr("secondary"), FacilityType: ptr(venue.FacilityContinuous),
		IsPartialFillAllowed: ptr(false), SettlementLags: ptr(euT1), Timezone: ptr(demoZone)},
}

// hoursMarket is the demo's market with trading hours: a continuous book
// open 08:00 to 17:30 Frankfurt time on TARGET2 business days, after a
// quarter of an hour of pre-open. The first hoursListed demo bonds are
// listed on it too.
var hoursMarket = trading.MarketInput{Name: ptr("bondvenue Day Session"), Type: ptr("secondary"),
	FacilityType: ptr(venue.FacilityContinuous), IsPartialFillAllowed: ptr(true), SettlementLags: ptr(euT1),
	Timezone: ptr("Europe/Berlin"), HoursSet: true, Hours: &venue.TradingHours{Open: "08:00", Close: "17:30", PreOpenMinutes: 15}}

const hoursListed = 4

type firm struct {
	name, code, domain, bic, leiPrefix           string
	country, city, postal, address, legal, regNo string
	category                                     string
	// csd is where the firm settles: its CSD's name and BIC11, and the
	// safe's short name.
	csd, csdBIC, safe string
}

// The demo's CSDs: the two ICSDs and the T2S CSDs of the demo firms and
// their neighbours.
const (
	euroclearBank  = "MGTCBEBEXXX" // Euroclear Bank (ICSD)
	clearstreamLux = "CEDELULLXXX" // Clearstream Banking S.A. (ICSD)
	clearstreamDE  = "DAKVDEFFXXX" // Clearstream Banking AG (T2S)
	euroclearFR    = "SICVFRPPXXX" // Euroclear France (T2S)
	euroclearNL    = "NECINL2AXXX" // Euroclear Nederland (T2S)
	oekb           = "OCSDATWWXXX" // OeKB CSD (T2S)
	monteTitoli    = "MOTIITMMXXX" // Euronext Securities Milan (T2S)
)

// SettlementLinks are the demo venue's settlement links: the ICSD bridge
// between Euroclear Bank and Clearstream Banking S.A., and links among
// the T2S CSDs. An ICSD and a T2S CSD have no link here: their
// participants cannot trade with each other.
var SettlementLinks = func() [][]string {
	out := [][]string{{euroclearBank, clearstreamLux}}
	t2s := []string{clearstreamDE, euroclearFR, euroclearNL, oekb, monteTitoli}
	for i := range t2s {
		for _, b := range t2s[i+1:] {
			out = append(out, []string{t2s[i], b})
		}
	}
	return out
}()

// lei is the firm's LEI: its prefix with the check digits.
func (f firm) lei() string { return f.leiPrefix + venue.LEICheckDigits(f.leiPrefix) }

func (f firm) input() trading.ParticipantInput {
	lei := f.lei()
	return trading.ParticipantInput{
		LEI: &lei, Name: ptr(f.name), CategoryName: ptr(f.category), Country: ptr(f.country), City: ptr(f.city),
		PostalCode: ptr(f.postal), Address: ptr(f.address), State: ptr(""), LegalForm: ptr(f.legal),
		RegistrationNumber: ptr(f.regNo), TaxNumber: ptr(f.country + "8" + f.regNo[len(f.regNo)-8:]),
		CSD: ptr(f.csd), CSDBIC11: ptr(f.csdBIC),
		CustodyAccountNumber: ptr(f.code + "-7100"), CustodyAccountBeneficiaryBIC8: ptr(f.bic[:8]),
	}
}

// The first three firms are mutual counterparties; the fourth has none.
var demoFirms = []firm{
	{name: "Hanseatic Capital Markets AG", code: "HCM", domain: "hanseatic-cm.example", bic: "HCMKDEHHXXX",
		leiPrefix: "529900HCMK7Q2L4T3N", country: "DE", city: "Hamburg", postal: "20457", address: "Am Sandtorkai 41",
		legal: "AG", regNo: "HRB 158234", category: "professional",
		csd: "Clearstream Banking AG", csdBIC: clearstreamDE, safe: "CBF"},
	{name: "Banque Lumière S.A.", code: "BLU", domain: "banque-lumiere.example", bic: "BLUMFRPPXXX",
		leiPrefix: "969500BLUM3RE8P2K7", country: "FR", city: "Paris", postal: "75008", address: "12 rue de la Boétie",
		legal: "SA", regNo: "RCS 552 120 222", category: "professional",
		csd: "Euroclear France", csdBIC: euroclearFR, safe: "EF"},
	{name: "Amstel Securities N.V.", code: "AMS", domain: "amstel-securities.example", bic: "AMSTNL2AXXX",
		leiPrefix: "724500AMST9L3SEC0N", country: "NL", city: "Amsterdam", postal: "1017 CE", address: "Herengracht 450",
		legal: "NV", regNo: "KvK 33206911", category: "wholesale",
		csd: "Euroclear Nederland", csdBIC: euroclearNL, safe: "ENL"},
	{name: "Danube Asset Management GmbH", code: "DAM", domain: "danube-am.example", bic: "DANUATWWXXX",
		leiPrefix: "529900DANU8BE4AM6G", country: "AT", city: "Vienna", postal: "1010", address: "Kärntner Ring 5",
		legal: "GmbH", regNo: "FN 412733 d", category: "professional",
		csd: "OeKB CSD", csdBIC: oekb, safe: "OEKB"},
}

type bond struct {
	isin                                     string // 11 characters; the check digit is computed
	name, issuer, ticker, coupon, freq, dc   string
	maturity, accrual, firstCoupon, industry string
	country, secured, rank                   string
	minPiece, amtIssue                       string
}

func (b bond) input() trading.InstrumentInput {
	isin := withCheckDigit(b.isin)
	mp := udecimal.MustParse(b.minPiece)
	inc := udecimal.MustParse("1000")
	par := udecimal.MustParse("1000")
	if mp.GreaterThan(udecimal.MustParse("1000")) {
		par = mp
	}
	terms := map[string]any{
		"name": b.name, "isin": isin, "issuer": b.issuer, "coupon": b.coupon, "coupon_frequency": b.freq,
		"day_count": b.dc, "maturity": b.maturity, "interest_accrual_date": b.accrual, "first_coupon_date": b.firstCoupon,
		"first_settle_date": b.accrual, "pricing_date": b.accrual, "currency": "EUR", "industry": b.industry,
		"country_region": b.country, "rank": b.rank, "secured": b.secured, "coupon_type": "Fixed",
		"repayment": "Bullet", "series": "Undisclosed", "mkt_iss": "Euro-zone", "issue_price": "Undisclosed",
		"bid_limit": "Undisclosed", "ask_limit": "Undisclosed", "ask_quantity": "Undisclosed", "reoffer": "Undisclosed",
		"iss_sprd": "Undisclosed", "benchmark_ref_px": "Undisclosed", "benchmark_ref_yield": "Undisclosed",
		"irs_yield": "Undisclosed", "iss_sprd_vs_irs": "Undisclosed", "amt_issue": b.amtIssue,
		"amt_outstanding": b.amtIssue, "book_runner": "Undisclosed", "exchange": "Frankfurt", "note": "",
		"unit_quotation": "percent",
	}
	dayType := "ACT/ACT"
	if b.dc == "30E/360" {
		dayType = "30E/360"
	}
	static := map[string]any{
		"ticker": b.ticker, "iss_type": "Bond", "collateral_type": b.rank + " Unsecured", "pay_rank": b.rank,
		"day_type": dayType, "maturity_type": "AT MATURITY", "security_type": "EURO-ZONE", "figi": "Undisclosed",
		"estimated_ratings": "Undisclosed", "issue_amt": b.amtIssue, "per_amt": b.minPiece,
		"min_piece_increment": b.minPiece + "/1000", "refunding_date": "", "tax_rate": "0",
		"settlement_days": "2", "settlement_calendar": "TARGET2", "issuer_name": b.issuer,
		"original_par_amt": par.String(), "unit_traded": false, "flat_traded": false, "cash_priced": false,
		"bval_enabled": true, "allow_negative_cashflow": false,
	}
	return trading.InstrumentInput{Terms: terms, Static: static, MinPiece: &mp, MinIncrement: &inc, ParAmount: &par}
}

// withCheckDigit completes an 11-character ISIN body with its check digit.
func withCheckDigit(body string) string {
	for d := '0'; d <= '9'; d++ {
		if s := body + string(d); venue.ValidISIN(s) {
			return s
		}
	}
	panic(fmt.Sprintf("demo: no ISIN check digit for %q", body))
}

// sovereignCount is how many of demoBonds (from the start) are sovereign or
// supranational issues; they make up the public bucket.
const sovereignCount = 8

var demoBonds = []bond{
	{isin: "DE000BU2Z00", name: "DBR 2.30 15/02/2033", issuer: "Bundesrepublik Deutschland", ticker: "DBR", coupon: "2.3",
		freq: "Annual", dc: "ACT/ACT ICMA", maturity: "2033-02-15", accrual: "2023-01-13", firstCoupon: "2024-02-15",
		industry: "Sovereign", country: "DE", secured: "No", rank: "Senior", minPiece: "1000", amtIssue: "27000000000"},
	{isin: "FR001400L83", name: "FRTR 3.00 25/11/2034", issuer: "République Française", ticker: "FRTR", coupon: "3",
		freq: "Annual", dc: "ACT/ACT ICMA", maturity: "2034-11-25", accrual: "2023-11-25", firstCoupon: "2024-11-25",
		industry: "Sovereign", country: "FR", secured: "No", rank: "Senior", minPiece: "1000", amtIssue: "38000000000"},
	{isin: "IT000542435", name: "BTPS 4.00 30/04/2035", issuer: "Repubblica Italiana", ticker: "BTPS", coupon: "4",
		freq: "Semi-annual", dc: "ACT/ACT ICMA", maturity: "2035-04-30", accrual: "2024-10-30", firstCoupon: "2025-04-30",
		industry: "Sovereign", country: "IT", secured: "No", rank: "Senior", minPiece: "1000", amtIssue: "18000000000"},
	{isin: "IT000545438", name: "BTPS 3.85 01/02/2035", issuer: "Repubblica Italiana", ticker: "BTPS", coupon: "3.85",
		freq: "Semi-annual", dc: "ACT/ACT ICMA", maturity: "2035-02-01", accrual: "2025-01-14", firstCoupon: "2025-08-01",
		industry: "Sovereign", country: "IT", secured: "No", rank: "Senior", minPiece: "1000", amtIssue: "15000000000"},
	{isin: "ES0000012M8", name: "SPGB 3.15 30/04/2033", issuer: "Reino de España", ticker: "SPGB", coupon: "3.15",
		freq: "Annual", dc: "ACT/ACT ICMA", maturity: "2033-04-30", accrual: "2023-04-30", firstCoupon: "2024-04-30",
		industry: "Sovereign", country: "ES", secured: "No", rank: "Senior", minPiece: "1000", amtIssue: "21000000000"},
	{isin: "AT0000A324S", name: "RAGB 2.90 20/02/2033", issuer: "Republik Österreich", ticker: "RAGB", coupon: "2.9",
		freq: "Annual", dc: "ACT/ACT ICMA", maturity: "2033-02-20", accrual: "2023-02-20", firstCoupon: "2024-02-20",
		industry: "Sovereign", country: "AT", secured: "No", rank: "Senior", minPiece: "1000", amtIssue: "9000000000"},
	{isin: "NL001500153", name: "NETHER 2.50 15/07/2033", issuer: "Koninkrijk der Nederlanden", ticker: "NETHER", coupon: "2.5",
		freq: "Annual", dc: "ACT/ACT ICMA", maturity: "2033-07-15", accrual: "2023-07-15", firstCoupon: "2024-07-15",
		industry: "Sovereign", country: "NL", secured: "No", rank: "Senior", minPiece: "1000", amtIssue: "14000000000"},
	{isin: "EU000A3K4EL", name: "EU 3.375 04/10/2038", issuer: "European Union", ticker: "EU", coupon: "3.375",
		freq: "Annual", dc: "ACT/ACT ICMA", maturity: "2038-10-04", accrual: "2023-10-04", firstCoupon: "2024-10-04",
		industry: "Supranational", country: "EU", secured: "No", rank: "Senior", minPiece: "1000", amtIssue: "7000000000"},
	{isin: "XS246532171", name: "SIEGR 3.375 24/08/2031", issuer: "Siemens Financieringsmaatschappij N.V.", ticker: "SIEGR",
		coupon: "3.375", freq: "Annual", dc: "ACT/ACT ICMA", maturity: "2031-08-24", accrual: "2023-08-24", firstCoupon: "2024-08-24",
		industry: "Industrials", country: "NL", secured: "No", rank: "Senior", minPiece: "100000", amtIssue: "1000000000"},
	{isin: "XS011204351", name: "DT 7.50 24/01/2033", issuer: "Deutsche Telekom International Finance B.V.", ticker: "DT",
		coupon: "7.5", freq: "Annual", dc: "30E/360", maturity: "2033-01-24", accrual: "2003-01-24", firstCoupon: "2004-01-24",
		industry: "Telecommunications", country: "NL", secured: "No", rank: "Senior", minPiece: "1000", amtIssue: "750000000"},
	{isin: "DE000A2GSCY", name: "BASGR 1.50 22/05/2030", issuer: "BASF SE", ticker: "BASGR", coupon: "1.5",
		freq: "Annual", dc: "30E/360", maturity: "2030-05-22", accrual: "2018-05-22", firstCoupon: "2019-05-22",
		industry: "Chemicals", country: "DE", secured: "No", rank: "Senior", minPiece: "1000", amtIssue: "500000000"},
	{isin: "XS224658912", name: "ALVGR 4.25 15/03/2031", issuer: "Allianz Finance II B.V.", ticker: "ALVGR", coupon: "4.25",
		freq: "Annual", dc: "30E/360", maturity: "2031-03-15", accrual: "2021-03-15", firstCoupon: "2022-03-15",
		industry: "Insurance", country: "NL", secured: "No", rank: "Senior", minPiece: "100000", amtIssue: "1250000000"},
}

var demoNews = []trading.NewsInput{
	{Title: "ECB holds deposit facility rate", Source: "bondvenue market desk",
		Body: "The Governing Council left the deposit facility rate unchanged. Bund yields edged lower across the curve; the 10-year benchmark traded 3 bp tighter by the close."},
	{Title: "New listing: EU 3.375% 2038 available for RFQ and continuous trading", Source: "bondvenue operations",
		Body: "The European Union's 3.375% notes due 4 October 2038 are now listed on every bondvenue market. Minimum piece EUR 1,000, increment EUR 1,000, settlement T+2 on the TARGET2 calendar."},
	{Title: "TARGET2 holiday schedule for the coming year", Source: "bondvenue operations",
		Body: "Settlement dates skip TARGET2 closing days: New Year's Day, Good Friday, Easter Monday, 1 May, Christmas Day and 26 December. Trades dated before a closing day settle on the next business day after the lag."},
}
