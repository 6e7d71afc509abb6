package httpapi

import (
	"bufio"
	"mime"
	"net/http"
	"strings"
	"time"

	"github.com/bondvenue/bondvenue/internal/orderrecords"
	"github.com/bondvenue/bondvenue/internal/records"
	"github.com/bondvenue/bondvenue/internal/venue"
	"github.com/bondvenue/bondvenue/internal/wire"
)

// The venue's memory for its operator: a day's order records exported,
// and a book replayed at a past instant from them.

// exportFormat is the media type the client accepts, CSV unless it asks
// for NDJSON only; ok is false when it accepts neither.
func exportFormat(r *http.Request) (string, bool) {
	accept := r.Header.Get("Accept")
	if accept == "" {
		return records.CSV, true
	}
	for _, part := range strings.Split(accept, ",") {
		mt, _, err := mime.ParseMediaType(strings.TrimSpace(part))
		if err != nil {
			continue
		}
		switch mt {
		case records.CSV, "*/*", "text/*":
			return records.CSV, true
		case records.NDJSON:
			return records.NDJSON, true
		}
	}
	return "", false
}

func (s *Server) exportOrderRecords(w http.ResponseWriter, r *http.Request, p venue.Principal) error {
	q := r.URL.Query()
	query := orderrecords.ExportQuery{Date: q.Get("date"), ParticipantID: q.Get("participant_id"), InstrumentID: q.Get("instrument_id")}
	if err := s.records.Check(r.Context(), p, query); err != nil {
		return err
	}
	format, ok := exportFormat(r)
	if !ok {
		return &venue.Error{Kind: venue.KindNotAcceptable, Message: "the order records are served as text/csv or application/x-ndjson"}
	}
	w.Header().Set("Content-Type", format)
	if format == records.CSV {
		w.Header().Set("Content-Type", "text/csv; charset=utf-8; header=present")
	}
	w.Header().Set("Content-Disposition", `attachment; filename="order-records-`+query.Date+ext(format)+`"`)
	w.WriteHeader(http.StatusOK)
	// The export streams: records go out in 64 KiB chunks as they are read,
	// a page at a time, and never gather in memory.
	bw := bufio.NewWriterSize(w, 64<<10)
	out, err := records.NewWriter(bw, format)
	if err != nil {
		panic(http.ErrAbortHandler)
	}
	if _, err := s.records.Export(r.Context(), p, query, out); err != nil {
		// The status is sent: the client sees the stream cut short.
		s.log.Error("order record export failed", "err", err.Error(), "request_id", requestID(r.Context()))
		panic(http.ErrAbortHandler)
	}
	if err := bw.Flush(); err != nil {
		panic(http.ErrAbortHandler) // the client went away
	}
	return nil
}

func ext(format string) string {
	if format == records.NDJSON {
		return ".ndjson"
	}
	return ".csv"
}

func (s *Server) replayBook(w http.ResponseWriter, r *http.Request, p venue.Principal) error {
	var at time.Time
	if v := r.URL.Query().Get("at"); v != "" {
		t, err := time.Parse(time.RFC3339Nano, v)
		if err != nil {
			return venue.InvalidField("at", "must be an ISO 8601 time with its zone, e.g. 2026-12-07T10:31:07.123456Z")
		}
		at = t
	}
	b, err := s.records.Replay(r.Context(), p, r.PathValue("marketId"), r.PathValue("instrument_id"), at)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, wire.ReplayedBookOf(b))
	return nil
}
