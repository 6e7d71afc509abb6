package httpapi

import (
	"bufio"
	"encoding/csv"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/quagmt/udecimal"

	"github.com/bondvenue/bondvenue/internal/store"
	"github.com/bondvenue/bondvenue/internal/trading"
	"github.com/bondvenue/bondvenue/internal/venue"
	"github.com/bondvenue/bondvenue/internal/wire"
)

// This file answers the best-execution records of RFQs (docs/guide.md,
// "The execution record"): JSON, or CSV (RFC 4180, one row per quote)
// with Accept: text/csv.

// microLayout renders an instant to the microsecond.
const microLayout = "2006-01-02T15:04:05.000000Z"

func micro(t time.Time) string { return t.UTC().Format(microLayout) }

func microPtr(t *time.Time) *string {
	if t == nil || t.IsZero() {
		return nil
	}
	s := micro(*t)
	return &s
}

func numPtr(d *udecimal.Decimal) *wire.Num {
	if d == nil {
		return nil
	}
	n := wire.NumOf(*d)
	return &n
}

type marketMarkJSON struct {
	BestBid       *wire.Num `json:"best_bid"`
	BestAsk       *wire.Num `json:"best_ask"`
	IndicativeMid *wire.Num `json:"indicative_mid"`
	At            string    `json:"at"`
}

func markJSON(m *store.RFQMark) *marketMarkJSON {
	if m == nil {
		return nil
	}
	return &marketMarkJSON{BestBid: numPtr(m.BestBid), BestAsk: numPtr(m.BestAsk), IndicativeMid: numPtr(m.IndicativeMid), At: micro(m.At)}
}

type quoteRecordJSON struct {
	QuoteID    string    `json:"quote_id"`
	Price      *wire.Num `json:"price"`
	Yield      *wire.Num `json:"yield"`
	Status     string    `json:"status"`
	Outcome    *string   `json:"outcome"`
	QuotedAt   string    `json:"quoted_at"`
	UpdatedAt  string    `json:"updated_at"`
	EndedAt    *string   `json:"ended_at"`
	CoverPrice *wire.Num `json:"cover_price"`
}

type dealerRecordJSON struct {
	ParticipantID  string            `json:"participant_id"`
	Name           string            `json:"name"`
	InvitedAt      string            `json:"invited_at"`
	RespondedAt    *string           `json:"responded_at"`
	ResponseTimeUS *int64            `json:"response_time_us"`
	Declined       bool              `json:"declined"`
	Outcome        *string           `json:"outcome"`
	Quotes         []quoteRecordJSON `json:"quotes"`
}

type executionRecordJSON struct {
	RFQID          string             `json:"rfq_id"`
	RequesterID    string             `json:"requester_id"`
	InstrumentID   string             `json:"instrument_id"`
	ISIN           string             `json:"isin"`
	Instrument     string             `json:"instrument_name"`
	Currency       string             `json:"currency"`
	Direction      string             `json:"direction"`
	Quantity       wire.Num           `json:"quantity"`
	SettlementDate *string            `json:"settlement_date"`
	Status         string             `json:"status"`
	SentAt         string             `json:"sent_at"`
	AcceptedAt     *string            `json:"accepted_at"`
	MarketAtSent   *marketMarkJSON    `json:"market_at_sent"`
	MarketAtAccept *marketMarkJSON    `json:"market_at_accept"`
	DoneQuoteID    *string            `json:"done_quote_id"`
	DonePrice      *wire.Num          `json:"done_price"`
	CoverPrice     *wire.Num          `json:"cover_price"`
	SavingPrice    *wire.Num          `json:"saving_vs_cover"`
	SavingAmount   *wire.Num          `json:"saving_vs_cover_amount"`
	Dealers        []dealerRecordJSON `json:"dealers"`
}

// ended is when a quote record ended: its last change once it has an
// outcome.
func ended(q venue.Offer) *time.Time {
	if q.Outcome == "" {
		return nil
	}
	t := q.UpdatedAt
	return &t
}

func executionJSON(r trading.ExecutionRecord) executionRecordJSON {
	out := executionRecordJSON{RFQID: r.RFQ.ID, RequesterID: r.RFQ.ParticipantID, InstrumentID: r.Instrument.ID,
		ISIN: r.Instrument.Terms.ISIN, Instrument: r.Instrument.Terms.Name, Currency: r.Instrument.Terms.Currency,
		Direction: r.RFQ.Direction, Quantity: wire.NumOf(r.RFQ.Quantity), Status: r.RFQ.Status, SentAt: micro(r.RFQ.CreatedAt),
		MarketAtSent: markJSON(r.Sent), MarketAtAccept: markJSON(r.Accepted), CoverPrice: numPtr(r.Cover),
		SavingPrice: numPtr(r.SavingPrice), SavingAmount: numPtr(r.SavingAmount), Dealers: []dealerRecordJSON{}}
	if !r.RFQ.SettlementDate.IsZero() {
		s := r.RFQ.SettlementDate.String()
		out.SettlementDate = &s
	}
	if r.Accepted != nil {
		out.AcceptedAt = microPtr(&r.Accepted.At)
	}
	if r.Done != nil {
		out.DoneQuoteID, out.DonePrice = &r.Done.ID, numPtr(&r.Done.Price)
	}
	for _, d := range r.Dealers {
		dj := dealerRecordJSON{ParticipantID: d.ParticipantID, Name: d.Name, InvitedAt: micro(r.RFQ.CreatedAt),
			RespondedAt: microPtr(d.Responded()), Declined: d.Declined, Outcome: wire.Nullable(d.Outcome()), Quotes: []quoteRecordJSON{}}
		if t := d.Responded(); t != nil {
			us := t.Sub(r.RFQ.CreatedAt).Microseconds()
			dj.ResponseTimeUS = &us
		}
		for _, q := range d.Quotes {
			dj.Quotes = append(dj.Quotes, quoteJSON(q))
		}
		out.Dealers = append(out.Dealers, dj)
	}
	return out
}

func quoteJSON(q trading.QuoteRecord) quoteRecordJSON {
	out := quoteRecordJSON{QuoteID: q.Quote.ID, Yield: numPtr(q.Yield), Status: q.Quote.Status, Outcome: wire.Nullable(q.Quote.Outcome),
		QuotedAt: micro(q.Quote.CreatedAt), UpdatedAt: micro(q.Quote.ModifiedAt), EndedAt: microPtr(ended(q.Quote))}
	if q.Quote.HasPrice {
		out.Price = numPtr(&q.Quote.Price)
	}
	if q.Quote.HasCover {
		out.CoverPrice = numPtr(&q.Quote.CoverPrice)
	}
	return out
}

// wantsCSV reports whether the request's Accept names text/csv.
func wantsCSV(r *http.Request) bool {
	for _, part := range strings.Split(r.Header.Get("Accept"), ",") {
		if mt, _, err := mime.ParseMediaType(strings.TrimSpace(part)); err == nil && mt == "text/csv" {
			return true
		}
	}
	return false
}

func (s *Server) executionRecord(w http.ResponseWriter, r *http.Request, p venue.Principal) error {
	rec, err := s.use(r).ExecutionRecord(r.Context(), p, r.PathValue("rfqId"))
	if err != nil {
		return err
	}
	if wantsCSV(r) {
		return writeExecutionCSV(w, []trading.ExecutionRecord{rec})
	}
	writeJSON(w, http.StatusOK, executionJSON(rec))
	return nil
}

func (s *Server) executionRecords(w http.ResponseWriter, r *http.Request, p venue.Principal) error {
	q := r.URL.Query()
	now := s.now().UTC()
	from := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.UTC)
	var to time.Time
	var v venue.Validator
	if x := q.Get("from"); x != "" {
		t, err := parseInstant(x)
		v.Check(err == nil, "from", "must be a date (YYYY-MM-DD) or a timestamp")
		from = t
	}
	to = from.Add(24 * time.Hour)
	if x := q.Get("to"); x != "" {
		t, err := parseInstant(x)
		v.Check(err == nil, "to", "must be a date (YYYY-MM-DD) or a timestamp")
		to = t
	}
	if err := v.Err(); err != nil {
		return err
	}
	recs, err := s.use(r).ExecutionRecords(r.Context(), p, from, to)
	if err != nil {
		return err
	}
	if wantsCSV(r) {
		return writeExecutionCSV(w, recs)
	}
	writeJSON(w, http.StatusOK, mapSlice(recs, executionJSON))
	return nil
}

// executionCSVHeader names the columns of the CSV export: one row per
// quote record, and one with empty quote fields for a dealer that did not
// answer.
var executionCSVHeader = []string{"rfq_id", "sent_at", "requester_id", "isin", "instrument_name", "currency", "direction",
	"quantity", "settlement_date", "rfq_status", "dealer_id", "dealer_name", "invited_at", "response_time_us", "quote_id",
	"price", "yield", "quote_status", "outcome", "quoted_at", "updated_at", "ended_at", "cover_price",
	"best_bid_at_sent", "best_ask_at_sent", "indicative_mid_at_sent", "accepted_at", "best_bid_at_accept",
	"best_ask_at_accept", "indicative_mid_at_accept", "saving_vs_cover", "saving_vs_cover_amount"}

func writeExecutionCSV(w http.ResponseWriter, recs []trading.ExecutionRecord) error {
	w.Header().Set("Content-Type", "text/csv; charset=utf-8")
	w.Header().Set("Content-Disposition", `attachment; filename="execution-records.csv"`)
	w.WriteHeader(http.StatusOK)
	bw := bufio.NewWriterSize(w, 64<<10)
	cw := csv.NewWriter(bw)
	cw.UseCRLF = true // RFC 4180
	if err := cw.Write(executionCSVHeader); err != nil {
		return nil // the client went away: nothing more to say to it
	}
	dec := func(d *udecimal.Decimal) string {
		if d == nil {
			return ""
		}
		return d.String()
	}
	at := func(t *time.Time) string {
		if t == nil || t.IsZero() {
			return ""
		}
		return micro(*t)
	}
	row := make([]string, len(executionCSVHeader))
	for _, r := range recs {
		var sent, acc store.RFQMark
		if r.Sent != nil {
			sent = *r.Sent
		}
		var accAt *time.Time
		if r.Accepted != nil {
			acc, accAt = *r.Accepted, &r.Accepted.At
		}
		settle := ""
		if !r.RFQ.SettlementDate.IsZero() {
			settle = r.RFQ.SettlementDate.String()
		}
		for _, d := range r.Dealers {
			response := ""
			if t := d.Responded(); t != nil {
				response = strconv.FormatInt(t.Sub(r.RFQ.CreatedAt).Microseconds(), 10)
			}
			quotes := d.Quotes
			if len(quotes) == 0 {
				quotes = []trading.QuoteRecord{{}}
			}
			for _, q := range quotes {
				row = append(row[:0], r.RFQ.ID, micro(r.RFQ.CreatedAt), r.RFQ.ParticipantID, r.Instrument.Terms.ISIN,
					r.Instrument.Terms.Name, r.Instrument.Terms.Currency, r.RFQ.Direction, r.RFQ.Quantity.String(), settle,
					r.RFQ.Status, d.ParticipantID, d.Name, micro(r.RFQ.CreatedAt), response)
				if q.Quote.ID == "" {
					row = append(row, "", "", "", "", "", "", "", "", "")
				} else {
					price, cover := "", ""
					if q.Quote.HasPrice {
						price = q.Quote.Price.String()
					}
					if q.Quote.HasCover {
						cover = q.Quote.CoverPrice.String()
					}
					row = append(row, q.Quote.ID, price, dec(q.Yield), q.Quote.Status, q.Quote.Outcome, micro(q.Quote.CreatedAt),
						micro(q.Quote.ModifiedAt), at(ended(q.Quote)), cover)
				}
				row = append(row, dec(sent.BestBid), dec(sent.BestAsk), dec(sent.IndicativeMid), at(accAt), dec(acc.BestBid),
					dec(acc.BestAsk), dec(acc.IndicativeMid), dec(r.SavingPrice), dec(r.SavingAmount))
				if err := cw.Write(row); err != nil {
					return nil
				}
			}
		}
	}
	cw.Flush()
	_ = bw.Flush()
	return nil
}
