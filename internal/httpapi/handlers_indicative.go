package httpapi

import (
	"encoding/json"
	"net/http"
	"strconv"

	"github.com/bondvenue/bondvenue/internal/trading"
	"github.com/bondvenue/bondvenue/internal/venue"
	"github.com/bondvenue/bondvenue/internal/wire"
	"github.com/quagmt/udecimal"
)

// indicativeBody is the create body of an indicative price. Server-owned
// fields (id, bid_yield, ask_yield, createdAt, updatedAt) are read and
// ignored.
type indicativeBody struct {
	ParticipantID  string      `json:"participant_id"`
	AccountID      string      `json:"account_id"`
	UserID         string      `json:"user_id"`
	InstrumentID   string      `json:"instrument_id"`
	BidPrice       amountInput `json:"bid_price"`
	AskPrice       amountInput `json:"ask_price"`
	BidQuantity    amountInput `json:"bid_quantity"`
	AskQuantity    amountInput `json:"ask_quantity"`
	SettlementDate *string     `json:"settlement_date"`
	ValidUntil     *string     `json:"valid_until"`
}

func (b indicativeBody) input() (trading.IndicativeInput, error) {
	var f fields
	in := trading.IndicativeInput{ParticipantID: b.ParticipantID, AccountID: b.AccountID, UserID: b.UserID,
		InstrumentID: b.InstrumentID}
	for _, d := range []struct {
		name string
		in   amountInput
		dst  **udecimal.Decimal
	}{{"bid_price", b.BidPrice, &in.BidPrice}, {"ask_price", b.AskPrice, &in.AskPrice},
		{"bid_quantity", b.BidQuantity, &in.BidQuantity}, {"ask_quantity", b.AskQuantity, &in.AskQuantity}} {
		f.decimal(d.name, d.in.decimalInput, false)
		*d.dst = d.in.ptr()
	}
	if b.SettlementDate != nil && *b.SettlementDate != "" {
		d := f.date("settlement_date", b.SettlementDate, true)
		in.SettlementDate = &d
	}
	in.ValidUntil = f.instant("valid_until", b.ValidUntil)
	return in, f.v.Err()
}

// clearableDecimal is an amount of an update entity where null clears the
// field and absence leaves it alone.
type clearableDecimal struct {
	present bool
	amountInput
}

func (c *clearableDecimal) UnmarshalJSON(b []byte) error {
	c.present = true
	return c.amountInput.UnmarshalJSON(b)
}

func (c clearableDecimal) change() trading.Clearable[udecimal.Decimal] {
	return trading.Clearable[udecimal.Decimal]{Set: c.present && !c.Bad, Value: c.ptr()}
}

// clearableString is a string of an update entity where null or "" clears
// the field and absence leaves it alone.
type clearableString struct {
	present bool
	value   string
}

func (c *clearableString) UnmarshalJSON(b []byte) error {
	c.present = true
	if string(b) == "null" {
		return nil
	}
	if err := json.Unmarshal(b, &c.value); err != nil {
		c.value = string(b) // not a string: reported as not a timestamp
	}
	return nil
}

// indicativeChangeBody is the update entity of an indicative price. Fields
// not named here (instrument_id, account_id, yields, …) are ignored, so a
// client may send the whole record back.
type indicativeChangeBody struct {
	BidPrice       clearableDecimal `json:"bid_price"`
	AskPrice       clearableDecimal `json:"ask_price"`
	BidQuantity    clearableDecimal `json:"bid_quantity"`
	AskQuantity    clearableDecimal `json:"ask_quantity"`
	SettlementDate *string          `json:"settlement_date"`
	ValidUntil     clearableString  `json:"valid_until"`
}

func (b indicativeChangeBody) input() (trading.IndicativeChange, error) {
	var f fields
	var ch trading.IndicativeChange
	for _, d := range []struct {
		name string
		in   clearableDecimal
		dst  *trading.Clearable[udecimal.Decimal]
	}{{"bid_price", b.BidPrice, &ch.BidPrice}, {"ask_price", b.AskPrice, &ch.AskPrice},
		{"bid_quantity", b.BidQuantity, &ch.BidQuantity}, {"ask_quantity", b.AskQuantity, &ch.AskQuantity}} {
		f.decimal(d.name, d.in.decimalInput, false)
		*d.dst = d.in.change()
	}
	if b.SettlementDate != nil {
		d := f.date("settlement_date", b.SettlementDate, true)
		ch.SettlementDate = &d
	}
	if b.ValidUntil.present {
		ch.ValidUntil.Set = true
		ch.ValidUntil.Value = f.instant("valid_until", &b.ValidUntil.value)
	}
	if !ch.BidPrice.Set && !ch.AskPrice.Set && !ch.BidQuantity.Set && !ch.AskQuantity.Set &&
		ch.SettlementDate == nil && !ch.ValidUntil.Set && f.v.Err() == nil {
		f.v.Addf("entity", "names nothing to change (bid_price, ask_price, bid_quantity, ask_quantity, settlement_date, valid_until)")
	}
	return ch, f.v.Err()
}

func (s *Server) listIndicativePrices(w http.ResponseWriter, r *http.Request, p venue.Principal) error {
	q := r.URL.Query()
	var v venue.Validator
	page, err := pageParams(q)
	if err := v.Merge(err); err != nil {
		return err
	}
	f := trading.IndicativeFilter{InstrumentID: q.Get("instrument_id")}
	if s := q.Get("include_expired"); s != "" {
		b, err := strconv.ParseBool(s)
		v.Check(err == nil, "include_expired", "must be true or false")
		f.IncludeExpired = b
	}
	if err := v.Err(); err != nil {
		return err
	}
	l, err := s.use(r).IndicativePrices(r.Context(), p, f, page)
	if err != nil {
		return err
	}
	writeList(w, r, l.Items, l.Next, wire.IndicativePriceOf)
	return nil
}

func (s *Server) createIndicativePrice(w http.ResponseWriter, r *http.Request, p venue.Principal) error {
	var body indicativeBody
	if err := decode(r, &body); err != nil {
		return err
	}
	in, err := body.input()
	if err != nil {
		return err
	}
	ip, err := s.use(r).CreateIndicativePrice(r.Context(), p, in)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, wire.IndicativePriceOf(ip))
	return nil
}

func (s *Server) updateIndicativePrice(w http.ResponseWriter, r *http.Request, p venue.Principal) error {
	var body indicativeChangeBody
	if err := entity(r, &body); err != nil {
		return err
	}
	ch, err := body.input()
	if err != nil {
		return err
	}
	ip, err := s.use(r).UpdateIndicativePrice(r.Context(), p, r.PathValue("indicativePriceId"), ch)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, wire.IndicativePriceOf(ip))
	return nil
}
