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

	"github.com/bondvenue/bondvenue/internal/trading"
	"github.com/bondvenue/bondvenue/internal/venue"
	"github.com/bondvenue/bondvenue/internal/wire"
)

// This file answers the best-execution records of RFQs (docs/guide.md,
// "The execution record"): JSON, or CSV (RFC 4180, one row per quote)
// with Accept: text/csv.

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
	writeJSON(w, http.StatusOK, wire.ExecutionRecordOf(rec))
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
	writeJSON(w, http.StatusOK, mapSlice(recs, wire.ExecutionRecordOf))
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
		return wire.Micro(*t)
	}
	row := make([]string, len(executionCSVHeader))
	for _, r := range recs {
		var sent, acc trading.MarketMark
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
				row = append(row[:0], r.RFQ.ID, wire.Micro(r.RFQ.CreatedAt), r.RFQ.ParticipantID, r.Instrument.Terms.ISIN,
					r.Instrument.Terms.Name, r.Instrument.Terms.Currency, r.RFQ.Direction, r.RFQ.Quantity.String(), settle,
					r.RFQ.Status, d.ParticipantID, d.Name, wire.Micro(r.RFQ.CreatedAt), response)
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
					row = append(row, q.Quote.ID, price, dec(q.Yield), q.Quote.Status, q.Quote.Outcome, wire.Micro(q.Quote.CreatedAt),
						wire.Micro(q.Quote.ModifiedAt), at(wire.QuoteEnded(q.Quote)), cover)
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
