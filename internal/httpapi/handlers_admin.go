package httpapi

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"

	"github.com/bondvenue/bondvenue/internal/trading"
	"github.com/bondvenue/bondvenue/internal/venue"
	"github.com/bondvenue/bondvenue/internal/wire"
)

// participantBody is a participant create body or update entity.
type participantBody struct {
	LEI                           *string `json:"lei"`
	Type                          *string `json:"type"`
	CategoryName                  *string `json:"category_name"`
	Name                          *string `json:"name"`
	Address                       *string `json:"address"`
	PostalCode                    *string `json:"postal_code"`
	City                          *string `json:"city"`
	State                         *string `json:"state"`
	Country                       *string `json:"country"`
	LegalForm                     *string `json:"legal_form"`
	RegistrationNumber            *string `json:"registration_number"`
	TaxNumber                     *string `json:"tax_number"`
	Status                        *string `json:"status"`
	KYCStatus                     *string `json:"kyc_status"`
	CSD                           *string `json:"csd"`
	CSDBIC11                      *string `json:"csd_bic_11"`
	CustodyAccountNumber          *string `json:"custody_account_number"`
	CustodyAccountBeneficiaryBIC8 *string `json:"custody_account_beneficiary_bic_8"`
}

func (b participantBody) input() trading.ParticipantInput {
	return trading.ParticipantInput{LEI: b.LEI, Type: b.Type, CategoryName: b.CategoryName, Name: b.Name,
		Address: b.Address, PostalCode: b.PostalCode, City: b.City, State: b.State, Country: b.Country,
		LegalForm: b.LegalForm, RegistrationNumber: b.RegistrationNumber, TaxNumber: b.TaxNumber, Status: b.Status,
		KYCStatus: b.KYCStatus, CSD: b.CSD, CSDBIC11: b.CSDBIC11, CustodyAccountNumber: b.CustodyAccountNumber,
		CustodyAccountBeneficiaryBIC8: b.CustodyAccountBeneficiaryBIC8}
}

func (s *Server) adminCreateParticipant(w http.ResponseWriter, r *http.Request, p venue.Principal) error {
	var body participantBody
	if err := decode(r, &body); err != nil {
		return err
	}
	part, err := s.use(r).CreateParticipant(r.Context(), p, body.input())
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, wire.ParticipantFullOf(part))
	return nil
}

func (s *Server) adminUpdateParticipant(w http.ResponseWriter, r *http.Request, p venue.Principal) error {
	var body participantBody
	if err := entity(r, &body); err != nil {
		return err
	}
	part, err := s.use(r).UpdateParticipant(r.Context(), p, r.PathValue("participantId"), body.input())
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, wire.ParticipantFullOf(part))
	return nil
}

func (s *Server) adminCreateAccount(w http.ResponseWriter, r *http.Request, p venue.Principal) error {
	var body struct {
		ParticipantID string `json:"participant_id"`
		Number        string `json:"number"`
		Type          string `json:"type"`
	}
	if err := decode(r, &body); err != nil {
		return err
	}
	a, err := s.use(r).CreateAccount(r.Context(), p, trading.AccountInput{ParticipantID: body.ParticipantID, Number: body.Number, Type: body.Type})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, wire.AccountRecordOf(a))
	return nil
}

type userBody struct {
	ParticipantID *string     `json:"participant_id"`
	Email         *string     `json:"email"`
	Role          *venue.Role `json:"role"`
	Status        *string     `json:"status"`
	Locale        *string     `json:"locale"`
}

func (b userBody) input() trading.UserInput {
	return trading.UserInput{ParticipantID: b.ParticipantID, Email: b.Email, Role: b.Role, Status: b.Status, Locale: b.Locale}
}

func (s *Server) adminCreateUser(w http.ResponseWriter, r *http.Request, p venue.Principal) error {
	var body userBody
	if err := decode(r, &body); err != nil {
		return err
	}
	u, err := s.use(r).CreateUser(r.Context(), p, body.input())
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, wire.UserRecordOf(u))
	return nil
}

func (s *Server) adminUpdateUser(w http.ResponseWriter, r *http.Request, p venue.Principal) error {
	var body userBody
	if err := entity(r, &body); err != nil {
		return err
	}
	body.ParticipantID = nil // a user never changes firm
	u, err := s.use(r).UpdateUser(r.Context(), p, r.PathValue("userId"), body.input())
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, wire.UserRecordOf(u))
	return nil
}

func (s *Server) adminIssueCredential(w http.ResponseWriter, r *http.Request, p venue.Principal) error {
	c, err := s.use(r).IssueCredential(r.Context(), p, r.PathValue("userId"))
	if err != nil {
		return err
	}
	out := wire.CredentialOf(c.Credential)
	out.ClientSecret = c.Secret
	w.Header().Set("Cache-Control", "no-store")
	writeJSON(w, http.StatusOK, out)
	return nil
}

func (s *Server) adminListCredentials(w http.ResponseWriter, r *http.Request, p venue.Principal) error {
	page, err := pageParams(r.URL.Query())
	if err != nil {
		return err
	}
	l, err := s.use(r).Credentials(r.Context(), p, r.PathValue("userId"), page)
	if err != nil {
		return err
	}
	writeList(w, r, l.Items, l.Next, wire.CredentialOf)
	return nil
}

func (s *Server) adminSetCounterparty(w http.ResponseWriter, r *http.Request, p venue.Principal) error {
	var body struct {
		ParticipantID  string `json:"participant_id"`
		CounterpartyID string `json:"counterparty_id"`
		Enabled        *bool  `json:"enabled"`
	}
	if err := decode(r, &body); err != nil {
		return err
	}
	rel, err := s.use(r).SetCounterparty(r.Context(), p, body.ParticipantID, body.CounterpartyID, body.Enabled)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, wire.CounterpartyOf(rel))
	return nil
}

func (s *Server) adminSetRiskLimit(w http.ResponseWriter, r *http.Request, p venue.Principal) error {
	var body struct {
		Value amountInput `json:"value"`
	}
	if err := decode(r, &body); err != nil {
		return err
	}
	l, err := s.use(r).SetRiskLimit(r.Context(), p, r.PathValue("participantId"),
		trading.RiskLimitInput{Name: r.PathValue("name"), Value: body.Value.ptr(), Issues: body.Value.issues("value")})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, wire.RiskLimitOf(l))
	return nil
}

func (s *Server) adminCreateProvider(w http.ResponseWriter, r *http.Request, p venue.Principal) error {
	var b struct {
		ParticipantID        string `json:"participant_id"`
		AccountID            string `json:"account_id"`
		Provider             string `json:"provider"`
		Type                 string `json:"type"`
		Enabled              *bool  `json:"enabled"`
		SwiatID              string `json:"swiat_id"`
		D7ID                 string `json:"d7_id"`
		PSET                 string `json:"pset"`
		AgentName            string `json:"agent_name"`
		AgentBIC             string `json:"agent_bic"`
		AgentNumber          string `json:"agent_number"`
		LocalCode            string `json:"localcode"`
		CSDBIC11             string `json:"csd_bic11"`
		CustodyAccountNumber string `json:"custody_account_number"`
		BeneficiaryBIC8      string `json:"beneficiary_bic8"`
		BuyrSellName         string `json:"buyr_sell_name"`
		BuyrSellBIC          string `json:"buyr_sell_bic"`
		Safe                 string `json:"safe"`
	}
	if err := decode(r, &b); err != nil {
		return err
	}
	sp := venue.SettlementProvider{ParticipantID: b.ParticipantID, AccountID: b.AccountID, Provider: b.Provider,
		Type: b.Type, Enabled: b.Enabled == nil || *b.Enabled, SwiatID: b.SwiatID, D7ID: b.D7ID, PSET: b.PSET,
		AgentName: b.AgentName, AgentBIC: b.AgentBIC, AgentNumber: b.AgentNumber, LocalCode: b.LocalCode,
		CSDBIC11: b.CSDBIC11, CustodyAccountNumber: b.CustodyAccountNumber, BeneficiaryBIC8: b.BeneficiaryBIC8,
		BuyrSellName: b.BuyrSellName, BuyrSellBIC: b.BuyrSellBIC, Safe: b.Safe}
	v, err := s.use(r).CreateSettlementProvider(r.Context(), p, sp)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, wire.ProviderOf(v))
	return nil
}

type marketBody struct {
	Name                 *string      `json:"name"`
	Type                 *string      `json:"type"`
	FacilityType         *string      `json:"facility_type"`
	Timezone             *string      `json:"timezone"`
	IsEnabled            *bool        `json:"is_enabled"`
	IsPartialFillAllowed *bool        `json:"is_partial_fill_allowed"`
	SettlementLag        *int         `json:"settlement_lag"`
	SettlementLags       *[]lagBody   `json:"settlement_lags"`
	Calendar             *string      `json:"calendar"`
	PriceCollarPercent   decimalInput `json:"price_collar_percent"`
	MaxPricePercent      decimalInput `json:"max_price_percent"`
	TradingHours         hoursInput   `json:"trading_hours"`
}

// hoursInput is a market body's trading hours: an object, or null for
// around the clock; Set when the body names them.
type hoursInput struct {
	Set    bool
	Hours  *venue.TradingHours
	Issues []venue.FieldIssue
}

func (h *hoursInput) UnmarshalJSON(b []byte) error {
	h.Set = true
	if string(b) == "null" {
		return nil
	}
	var raw map[string]json.RawMessage
	if json.Unmarshal(b, &raw) != nil {
		h.Issues = append(h.Issues, venue.FieldIssue{Field: "trading_hours",
			Issue: `must be an object {"open": "HH:MM", "close": "HH:MM", "pre_open_minutes": N} or null (around the clock)`})
		return nil
	}
	var out venue.TradingHours
	for _, f := range []struct {
		name string
		to   *string
	}{{"open", &out.Open}, {"close", &out.Close}} {
		if json.Unmarshal(raw[f.name], f.to) != nil || *f.to == "" {
			h.Issues = append(h.Issues, venue.FieldIssue{Field: "trading_hours." + f.name, Issue: "is required: a local time HH:MM"})
		}
	}
	if p, ok := raw["pre_open_minutes"]; ok && string(p) != "null" && json.Unmarshal(p, &out.PreOpenMinutes) != nil {
		h.Issues = append(h.Issues, venue.FieldIssue{Field: "trading_hours.pre_open_minutes", Issue: "must be a whole number of minutes"})
	}
	h.Hours = &out
	return nil
}

// lagBody is a settlement lag change as a market body gives it.
type lagBody struct {
	From *string `json:"from"`
	Lag  *int    `json:"lag"`
}

func (b marketBody) input() trading.MarketInput {
	in := trading.MarketInput{Name: b.Name, Type: b.Type, FacilityType: b.FacilityType, Timezone: b.Timezone,
		IsEnabled: b.IsEnabled, IsPartialFillAllowed: b.IsPartialFillAllowed, SettlementLag: b.SettlementLag, Calendar: b.Calendar,
		PriceCollarPercent: b.PriceCollarPercent.ptr(), MaxPricePercent: b.MaxPricePercent.ptr(),
		HoursSet: b.TradingHours.Set, Hours: b.TradingHours.Hours,
		Issues: append(b.PriceCollarPercent.issues("price_collar_percent"), b.MaxPricePercent.issues("max_price_percent")...)}
	in.Issues = append(in.Issues, b.TradingHours.Issues...)
	if b.SettlementLags != nil {
		var f fields
		lags := make([]venue.LagChange, 0, len(*b.SettlementLags))
		for i, l := range *b.SettlementLags {
			d := f.date(fmt.Sprintf("settlement_lags[%d].from", i), l.From, true)
			if l.Lag == nil {
				f.v.Addf(fmt.Sprintf("settlement_lags[%d].lag", i), "is required (business days)")
				continue
			}
			lags = append(lags, venue.LagChange{From: d, Lag: *l.Lag})
		}
		if err := f.v.Err(); err != nil {
			in.Issues = append(in.Issues, err.(*venue.Error).Details...)
		}
		in.SettlementLags = &lags
	}
	return in
}

func (s *Server) adminCreateMarket(w http.ResponseWriter, r *http.Request, p venue.Principal) error {
	var body marketBody
	if err := decode(r, &body); err != nil {
		return err
	}
	m, err := s.use(r).CreateMarket(r.Context(), p, body.input())
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, wire.MarketInPhase(m, s.use(r).Phase(m)))
	return nil
}

func (s *Server) adminUpdateMarket(w http.ResponseWriter, r *http.Request, p venue.Principal) error {
	var body marketBody
	if err := entity(r, &body); err != nil {
		return err
	}
	m, err := s.use(r).UpdateMarket(r.Context(), p, r.PathValue("marketId"), body.input())
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, wire.MarketInPhase(m, s.use(r).Phase(m)))
	return nil
}

// instrumentBody reads an instrument create body or update entity: the
// amounts, flags and listing are typed; every other field is a descriptive
// term merged by name.
type instrumentBody struct {
	MinPiece     amountInput    `json:"min_piece"`
	MinIncrement amountInput    `json:"min_increment"`
	ParAmount    amountInput    `json:"par_amount"`
	Precision    *int           `json:"precision"`
	Enabled      *bool          `json:"enabled"`
	MarketIDs    *[]string      `json:"market_ids"`
	StaticData   map[string]any `json:"static_data"`
}

func readInstrument(raw []byte) (trading.InstrumentInput, error) {
	var b instrumentBody
	if err := decodeBytes(raw, &b); err != nil {
		return trading.InstrumentInput{}, err
	}
	terms := map[string]any{}
	if err := json.Unmarshal(raw, &terms); err != nil {
		return trading.InstrumentInput{}, venue.Invalid("request body must be a JSON object")
	}
	// An amount that is not a decimal is reported with the use case's own
	// issues.
	issues := slices.Concat(b.MinPiece.issues("min_piece"), b.MinIncrement.issues("min_increment"), b.ParAmount.issues("par_amount"))
	return trading.InstrumentInput{Terms: terms, Static: b.StaticData, MinPiece: b.MinPiece.ptr(),
		MinIncrement: b.MinIncrement.ptr(), ParAmount: b.ParAmount.ptr(), Precision: b.Precision, Enabled: b.Enabled,
		MarketIDs: b.MarketIDs, Issues: issues}, nil
}

func (s *Server) adminCreateInstrument(w http.ResponseWriter, r *http.Request, p venue.Principal) error {
	raw, err := readJSON(r)
	if err != nil {
		return err
	}
	in, err := readInstrument(raw)
	if err != nil {
		return err
	}
	d, err := s.use(r).CreateInstrument(r.Context(), p, in)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, wire.InstrumentDetailOf(d))
	return nil
}

func (s *Server) adminUpdateInstrument(w http.ResponseWriter, r *http.Request, p venue.Principal) error {
	var body struct {
		Entity json.RawMessage `json:"entity"`
	}
	if err := decode(r, &body); err != nil {
		return err
	}
	if len(body.Entity) == 0 || string(body.Entity) == "null" {
		return venue.InvalidField("entity", `is required: send {"entity": {…the changed fields…}}`)
	}
	in, err := readInstrument(body.Entity)
	if err != nil {
		return err
	}
	d, err := s.use(r).UpdateInstrument(r.Context(), p, r.PathValue("instrument_id"), in)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, wire.InstrumentDetailOf(d))
	return nil
}

func (s *Server) adminCreateBucket(w http.ResponseWriter, r *http.Request, p venue.Principal) error {
	var body bucketBody
	if err := decode(r, &body); err != nil {
		return err
	}
	in := body.input()
	in.Type, in.ParticipantID = nil, nil
	b, err := s.use(r).CreatePublicBucket(r.Context(), p, in)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusAccepted, wire.BucketOf(b))
	return nil
}

func (s *Server) adminCreateNews(w http.ResponseWriter, r *http.Request, p venue.Principal) error {
	var body trading.NewsInput
	var raw struct {
		Title  string `json:"title"`
		Body   string `json:"body"`
		Source string `json:"source"`
		URL    string `json:"url"`
	}
	if err := decode(r, &raw); err != nil {
		return err
	}
	body = trading.NewsInput{Title: raw.Title, Body: raw.Body, Source: raw.Source, URL: raw.URL}
	n, err := s.use(r).CreateNews(r.Context(), p, body)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, wire.NewsOf(n))
	return nil
}
