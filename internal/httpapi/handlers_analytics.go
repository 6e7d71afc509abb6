package httpapi

import (
	"net/http"
	"strconv"
	"time"

	"github.com/bondvenue/bondvenue/internal/bondmath"
	"github.com/bondvenue/bondvenue/internal/calculator"
	"github.com/bondvenue/bondvenue/internal/subscribe"
	"github.com/bondvenue/bondvenue/internal/trading"
	"github.com/bondvenue/bondvenue/internal/venue"
	"github.com/bondvenue/bondvenue/internal/wire"
	"github.com/quagmt/udecimal"
)

// termsBody is the bond calculator's request body (docs/guide.md, "The bond calculator").
type termsBody struct {
	DayCount        *string      `json:"day_count"`
	Coupon          decimalInput `json:"coupon"`
	Frequency       *string      `json:"frequency"`
	AccrualStart    *string      `json:"accrual_start"`
	FirstCouponDate *string      `json:"first_coupon_date"`
	Maturity        *string      `json:"maturity"`
	SettlementDate  *string      `json:"settlement_date"`
	Nominal         decimalInput `json:"nominal"`
	EndOfMonth      *bool        `json:"end_of_month"`
	ExCouponDays    *int         `json:"ex_coupon_days"`
	Decimals        *int         `json:"decimals"`
	Yield           decimalInput `json:"yield"`
	CleanPrice      decimalInput `json:"clean_price"`
	// day-count only
	Start    *string `json:"start"`
	End      *string `json:"end"`
	RefStart *string `json:"ref_start"`
	RefEnd   *string `json:"ref_end"`
}

// fields parses the body's inputs, collecting every bad field.
type fields struct{ v venue.Validator }

func (f *fields) date(name string, s *string, required bool) bondmath.Date {
	if s == nil || *s == "" {
		if required {
			f.v.Addf(name, "is required (YYYY-MM-DD)")
		}
		return bondmath.Date{}
	}
	d, err := bondmath.ParseDate(*s)
	if err != nil {
		f.v.Addf(name, "must be a date YYYY-MM-DD")
	}
	return d
}

func (f *fields) dayCount(s *string) bondmath.DayCount {
	if s == nil {
		f.v.Addf("day_count", "is required")
		return 0
	}
	dc, err := bondmath.ParseDayCount(*s)
	if err != nil {
		f.v.Addf("day_count", "unknown day count %q: use 30/360, 30U/360, 30E/360, 30E/360 ISDA, ACT/360, ACT/365F, ACT/ACT ISDA or ACT/ACT ICMA", *s)
	}
	return dc
}

func (f *fields) frequency(s *string, required bool) bondmath.Frequency {
	if s == nil {
		if required {
			f.v.Addf("frequency", "is required")
		}
		return 0
	}
	fr, err := bondmath.ParseFrequency(*s)
	if err != nil {
		f.v.Addf("frequency", "unknown frequency %q: use Annual, Semi-annual, Quarterly or Monthly", *s)
	}
	return fr
}

func (f *fields) decimal(name string, d decimalInput, required bool) udecimal.Decimal {
	d.check(&f.v, name)
	if required && !d.Set && !d.Bad {
		f.v.Addf(name, "is required")
	}
	return d.Value
}

func (f *fields) decimals(n *int) *int {
	if n != nil && (*n < 0 || *n > 18) {
		f.v.Addf("decimals", "must be between 0 and 18")
	}
	return n
}

// bond reads the terms shared by accrued-interest, price and yield.
func (b termsBody) bond(f *fields) calculator.BondInput {
	var in calculator.BondInput
	in.Bond.DayCount = f.dayCount(b.DayCount)
	in.Bond.Coupon = f.decimal("coupon", b.Coupon, true)
	in.Bond.Frequency = f.frequency(b.Frequency, true)
	in.Bond.AccrualStart = f.date("accrual_start", b.AccrualStart, true)
	in.Bond.FirstCoupon = f.date("first_coupon_date", b.FirstCouponDate, false)
	in.Bond.Maturity = f.date("maturity", b.Maturity, true)
	in.Settlement = f.date("settlement_date", b.SettlementDate, true)
	in.Nominal = f.decimal("nominal", b.Nominal, false)
	if b.Nominal.Set && !in.Nominal.IsPos() {
		f.v.Addf("nominal", "must be greater than 0")
	}
	if b.EndOfMonth != nil {
		in.Bond.EndOfMonth = *b.EndOfMonth
	}
	if b.ExCouponDays != nil {
		if *b.ExCouponDays < 0 {
			f.v.Addf("ex_coupon_days", "must not be negative")
		}
		in.Bond.ExCouponDays = *b.ExCouponDays
	}
	in.Decimals = f.decimals(b.Decimals)
	return in
}

func (s *Server) dayCount(w http.ResponseWriter, r *http.Request, p venue.Principal) error {
	var b termsBody
	if err := decode(r, &b); err != nil {
		return err
	}
	var f fields
	in := calculator.DayCountInput{DayCount: f.dayCount(b.DayCount), Start: f.date("start", b.Start, true),
		End: f.date("end", b.End, true), Maturity: f.date("maturity", b.Maturity, false),
		Frequency: f.frequency(b.Frequency, false), RefStart: f.date("ref_start", b.RefStart, false),
		RefEnd: f.date("ref_end", b.RefEnd, false), Decimals: f.decimals(b.Decimals)}
	if err := f.v.Err(); err != nil {
		return err
	}
	res, err := calculator.DayCount(in)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"days": res.Days, "year_fraction": str(res.YearFraction)})
	return nil
}

func (s *Server) accruedInterest(w http.ResponseWriter, r *http.Request, p venue.Principal) error {
	var b termsBody
	if err := decode(r, &b); err != nil {
		return err
	}
	var f fields
	in := b.bond(&f)
	if err := f.v.Err(); err != nil {
		return err
	}
	res, err := calculator.AccruedInterest(in)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"accrued_days": res.AccruedDays, "year_fraction": str(res.YearFraction),
		"previous_coupon_date": res.PreviousCoupon.String(), "next_coupon_date": res.NextCoupon.String(),
		"accrued_interest_per_100": str(res.PerHundred), "accrued_interest": str(res.Amount)})
	return nil
}

func (s *Server) price(w http.ResponseWriter, r *http.Request, p venue.Principal) error {
	var b termsBody
	if err := decode(r, &b); err != nil {
		return err
	}
	var f fields
	in := b.bond(&f)
	y := f.decimal("yield", b.Yield, true)
	if err := f.v.Err(); err != nil {
		return err
	}
	res, err := calculator.Price(in, y)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"clean_price": str(res.Clean), "dirty_price": str(res.Dirty),
		"accrued_interest_per_100": str(res.AccruedPer100)})
	return nil
}

func (s *Server) yield(w http.ResponseWriter, r *http.Request, p venue.Principal) error {
	var b termsBody
	if err := decode(r, &b); err != nil {
		return err
	}
	var f fields
	in := b.bond(&f)
	clean := f.decimal("clean_price", b.CleanPrice, true)
	if err := f.v.Err(); err != nil {
		return err
	}
	res, err := calculator.Yield(in, clean)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"yield": str(res.Yield), "dirty_price": str(res.Dirty),
		"accrued_interest_per_100": str(res.AccruedPer100)})
	return nil
}

func (s *Server) settlementDate(w http.ResponseWriter, r *http.Request, p venue.Principal) error {
	q := r.URL.Query()
	var f fields
	trade := f.date("trade_date", strPtr(q.Get("trade_date")), true)
	lag := 2
	if v := q.Get("lag"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 || n > 30 {
			f.v.Addf("lag", "must be an integer between 0 and 30")
		}
		lag = n
	}
	if err := f.v.Err(); err != nil {
		return err
	}
	cal, d, err := calculator.SettlementDate(r.PathValue("calendar"), trade, lag)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"calendar": cal, "trade_date": trade.String(), "lag": lag, "settlement_date": d.String()})
	return nil
}

// marketSettlementDate answers GET /markets/{marketId}/settlement-date:
// the settlement date of a trade on trade_date (default the market's
// business date now, in its time zone) with the market's lag in force on
// that date.
func (s *Server) marketSettlementDate(w http.ResponseWriter, r *http.Request, p venue.Principal) error {
	q := r.URL.Query()
	var f fields
	var trade *bondmath.Date
	if v := q.Get("trade_date"); v != "" {
		d := f.date("trade_date", &v, true)
		trade = &d
	}
	if err := f.v.Err(); err != nil {
		return err
	}
	day, d, lag, err := s.use(r).MarketSettlementDate(r.Context(), p, r.PathValue("marketId"), trade)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"market_id": r.PathValue("marketId"), "trade_date": day.String(), "lag": lag,
		"settlement_date": d.String()})
	return nil
}

func (s *Server) holidays(w http.ResponseWriter, r *http.Request, p venue.Principal) error {
	year, err := strconv.Atoi(r.URL.Query().Get("year"))
	if err != nil {
		return venue.InvalidField("year", "is required: an integer year such as 2027")
	}
	cal, hs, err := calculator.Holidays(r.PathValue("calendar"), year)
	if err != nil {
		return err
	}
	out := make([]map[string]string, 0, len(hs))
	for _, h := range hs {
		out = append(out, map[string]string{"date": h.Date.String(), "name": h.Name})
	}
	writeJSON(w, http.StatusOK, map[string]any{"calendar": cal, "year": year, "holidays": out})
	return nil
}

func (s *Server) instrumentAnalytics(w http.ResponseWriter, r *http.Request, p venue.Principal) error {
	q := r.URL.Query()
	var f fields
	var in trading.InstrumentAnalyticsInput
	if v := q.Get("settlement_date"); v != "" {
		d := f.date("settlement_date", &v, true)
		in.Settlement = &d
	}
	for name, dst := range map[string]**udecimal.Decimal{"price": &in.Price, "nominal": &in.Nominal} {
		if v := q.Get(name); v != "" {
			d, err := bondmath.ParseDecimal(v)
			if err != nil {
				f.v.Addf(name, "must be a decimal number")
			}
			*dst = &d
		}
	}
	if err := f.v.Err(); err != nil {
		return err
	}
	a, err := s.use(r).InstrumentAnalytics(r.Context(), p, r.PathValue("instrument_id"), in)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"instrument_id": a.InstrumentID, "isin": a.ISIN,
		"settlement_date": a.Settlement.String(), "nominal": str(a.Nominal), "accrued_days": a.Accrued.AccruedDays,
		"year_fraction": str(a.Accrued.YearFraction), "previous_coupon_date": a.Accrued.PreviousCoupon.String(),
		"next_coupon_date": a.Accrued.NextCoupon.String(), "accrued_interest_per_100": str(a.Accrued.PerHundred),
		"accrued_interest": str(a.Accrued.Amount), "clean_price": decPtr(a.Clean), "dirty_price": decPtr(a.Dirty),
		"yield": decPtr(a.Yield)})
	return nil
}

func strPtr(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func decPtr(d *udecimal.Decimal) *string {
	if d == nil {
		return nil
	}
	s := d.String()
	return &s
}

func (s *Server) instrumentOHLC(w http.ResponseWriter, r *http.Request, p venue.Principal) error {
	q := r.URL.Query()
	var f fields
	in := subscribe.OHLCQuery{Interval: q.Get("interval"), MarketID: q.Get("market_id")}
	for name, dst := range map[string]**time.Time{"from": &in.From, "to": &in.To} {
		if v := q.Get(name); v != "" {
			*dst = f.instant(name, &v)
		}
	}
	if err := f.v.Err(); err != nil {
		return err
	}
	bars, err := s.live.OHLC(r.Context(), p, r.PathValue("instrument_id"), in)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, mapSlice(bars, wire.BarOf))
	return nil
}

func (s *Server) tape(w http.ResponseWriter, r *http.Request, p venue.Principal) error {
	q := r.URL.Query()
	f := trading.TapeFilter{InstrumentID: q.Get("instrument_id"), Limit: 100}
	var v venue.Validator
	if l := q.Get("limit"); l != "" {
		n, err := strconv.Atoi(l)
		v.Check(err == nil, "limit", "must be an integer between 1 and 1000")
		f.Limit = n
	}
	for _, b := range []struct {
		name string
		at   *time.Time
	}{{"from", &f.From}, {"to", &f.To}} {
		if t := q.Get(b.name); t != "" {
			at, err := time.Parse(time.RFC3339Nano, t)
			v.Check(err == nil, b.name, "must be a timestamp (RFC 3339, e.g. 2027-01-13T10:00:00Z)")
			*b.at = at
		}
	}
	if err := v.Err(); err != nil {
		return err
	}
	entries, err := s.use(r).Tape(r.Context(), p, f)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, mapSlice(entries, wire.TapeEntryOf))
	return nil
}

// lastTrades answers each book's latest trade (GET /last-trades).
func (s *Server) lastTrades(w http.ResponseWriter, r *http.Request, p venue.Principal) error {
	ts, err := s.use(r).LastTrades(r.Context(), p, r.URL.Query().Get("market_id"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, mapSlice(ts, wire.LastTradeOf))
	return nil
}
