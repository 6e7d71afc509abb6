package records

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/quagmt/udecimal"
)

// This file holds a record's encodings: its values in the order of Fields
// (the stored form is their JSON array, written without reflection on the
// sequencer's path), and the export formats, CSV and NDJSON.

// Values are r's fields as text, in the order of Fields.
func (r *Record) Values() []string {
	v := make([]string, 0, len(Fields))
	until := ""
	if r.ValidUntil != nil {
		until = r.ValidUntil.UTC().Format(TimeLayout)
	}
	seq := ""
	if r.Seq > 0 {
		seq = strconv.FormatInt(r.Seq, 10)
	}
	fill := r.Fill()
	v = append(v, r.SubmittingEntity, r.ClientID, r.InvestmentDecision, r.ExecutionDecision,
		r.Capacity, stamp(r.EventTime), r.Validity, until,
		stamp(r.PriorityTime), dec(r.PrioritySize, !r.PriorityTime.IsZero()), seq, r.SegmentMIC,
		r.OrderBook, r.ISIN, r.ReceivedOn, r.OrderID,
		r.Event, r.OrderType, r.Classification, dec(r.LimitPrice, r.HasLimit),
		dec(r.TransactionPrice, fill), r.PriceCurrency, PriceNotation, r.Side,
		r.Status, QuantityNotation, r.QuantityCurrency, dec(r.InitialQuantity, true),
		dec(r.RemainingQuantity, true), dec(r.DisplayedQuantity, true), dec(r.TradedQuantity, fill), r.Liquidity,
		r.TransactionID, r.TradingPhase,
		r.ParticipantID, r.UserID, r.MarketID, r.InstrumentID, r.Reason, strconv.FormatBool(r.Live))
	return v
}

func stamp(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(TimeLayout)
}

func dec(d udecimal.Decimal, has bool) string {
	if !has {
		return ""
	}
	return d.String()
}

// field indexes of Values that decoding reads back.
const (
	iSeq = 10
)

// AppendJSON appends r's values as a JSON array of strings, the form the
// store keeps: the same values as Values, written without building them
// (the sequencer writes one for every order event).
func (r *Record) AppendJSON(buf []byte) []byte {
	w := jsonFields{buf: append(buf, '[')}
	fill := r.Fill()
	w.str(r.SubmittingEntity)
	w.str(r.ClientID)
	w.str(r.InvestmentDecision)
	w.str(r.ExecutionDecision)
	w.str(r.Capacity)
	w.time(r.EventTime)
	w.str(r.Validity)
	if r.ValidUntil != nil {
		w.time(*r.ValidUntil)
	} else {
		w.str("")
	}
	w.time(r.PriorityTime)
	w.dec(r.PrioritySize, !r.PriorityTime.IsZero())
	if r.Seq > 0 {
		w.raw(strconv.AppendInt(w.open(), r.Seq, 10))
	} else {
		w.str("")
	}
	w.str(r.SegmentMIC)
	w.str(r.OrderBook)
	w.str(r.ISIN)
	w.str(r.ReceivedOn)
	w.str(r.OrderID)
	w.str(r.Event)
	w.str(r.OrderType)
	w.str(r.Classification)
	w.dec(r.LimitPrice, r.HasLimit)
	w.dec(r.TransactionPrice, fill)
	w.str(r.PriceCurrency)
	w.str(PriceNotation)
	w.str(r.Side)
	w.str(r.Status)
	w.str(QuantityNotation)
	w.str(r.QuantityCurrency)
	w.dec(r.InitialQuantity, true)
	w.dec(r.RemainingQuantity, true)
	w.dec(r.DisplayedQuantity, true)
	w.dec(r.TradedQuantity, fill)
	w.str(r.Liquidity)
	w.str(r.TransactionID)
	w.str(r.TradingPhase)
	w.str(r.ParticipantID)
	w.str(r.UserID)
	w.str(r.MarketID)
	w.str(r.InstrumentID)
	w.str(r.Reason)
	w.raw(strconv.AppendBool(w.open(), r.Live))
	return append(w.buf, ']')
}

// jsonFields writes the elements of a JSON array of strings.
type jsonFields struct {
	buf []byte
	n   int
}

// open starts the next element's string and returns the buffer to
// append its text to (text that needs no escaping); raw closes it.
func (w *jsonFields) open() []byte {
	if w.n > 0 {
		w.buf = append(w.buf, ',')
	}
	w.n++
	return append(w.buf, '"')
}

func (w *jsonFields) raw(b []byte) { w.buf = append(b, '"') }

func (w *jsonFields) str(s string) {
	if w.n > 0 {
		w.buf = append(w.buf, ',')
	}
	w.n++
	w.buf = appendString(w.buf, s)
}

func (w *jsonFields) time(t time.Time) {
	if t.IsZero() {
		w.str("")
		return
	}
	w.raw(t.UTC().AppendFormat(w.open(), TimeLayout))
}

func (w *jsonFields) dec(d udecimal.Decimal, has bool) {
	if !has {
		w.str("")
		return
	}
	w.raw(append(w.open(), d.String()...))
}

// appendString appends s as a JSON string.
func appendString(buf []byte, s string) []byte {
	buf = append(buf, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c < utf8.RuneSelf {
			buf = append(buf, c)
			i++
			continue
		}
		if c < utf8.RuneSelf {
			switch c {
			case '"', '\\':
				buf = append(buf, '\\', c)
			case '\n':
				buf = append(buf, '\\', 'n')
			case '\r':
				buf = append(buf, '\\', 'r')
			case '\t':
				buf = append(buf, '\\', 't')
			default:
				buf = fmt.Appendf(buf, `\u%04x`, c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			buf = append(buf, `\ufffd`...)
		} else {
			buf = append(buf, s[i:i+size]...)
		}
		i += size
	}
	return append(buf, '"')
}

// Stored is a record as the store reads it back: its sequence number and
// its values.
type Stored struct {
	Seq    int64
	Values []string
}

// Decode reads the stored form of a record numbered seq.
func Decode(seq int64, data []byte) (Stored, error) {
	var v []string
	if err := json.Unmarshal(data, &v); err != nil {
		return Stored{}, fmt.Errorf("order record %d: %w", seq, err)
	}
	if len(v) != len(Fields) {
		return Stored{}, fmt.Errorf("order record %d: %d fields, want %d", seq, len(v), len(Fields))
	}
	v[iSeq] = strconv.FormatInt(seq, 10)
	return Stored{Seq: seq, Values: v}, nil
}

// SetKeys puts back the fields the store keeps in columns of their own.
func (s Stored) SetKeys(participant, market, instrument, order string) {
	s.Values[iParticipant], s.Values[iMarket], s.Values[iInstrument], s.Values[iOrderID] = participant, market, instrument, order
	s.Values[iOrderBook] = market
}

// Value is the stored record's field named name ("" when there is none).
func (s Stored) Value(name string) string {
	for i, f := range Fields {
		if f.Name == name {
			return s.Values[i]
		}
	}
	return ""
}

// Writer writes records for export in one format.
type Writer interface {
	Write(Stored) error
	Flush() error
}

// Formats are the export formats by media type.
const (
	CSV    = "text/csv"
	NDJSON = "application/x-ndjson"
)

// NewWriter returns a writer of format (CSV or NDJSON) on w. CSV starts
// with a header row of the fields' numbers and names.
func NewWriter(w io.Writer, format string) (Writer, error) {
	switch format {
	case CSV:
		c := &csvWriter{w: csv.NewWriter(w)}
		c.w.UseCRLF = true // RFC 4180
		header := make([]string, len(Fields))
		for i, f := range Fields {
			header[i] = f.Name
			if f.Number > 0 {
				header[i] = strconv.Itoa(f.Number) + " " + f.Name
			}
		}
		return c, c.w.Write(header)
	case NDJSON:
		return &ndjsonWriter{w: w}, nil
	}
	return nil, fmt.Errorf("unknown order record format %q", format)
}

type csvWriter struct{ w *csv.Writer }

func (c *csvWriter) Write(s Stored) error { return c.w.Write(s.Values) }
func (c *csvWriter) Flush() error {
	c.w.Flush()
	return c.w.Error()
}

type ndjsonWriter struct {
	w   io.Writer
	buf []byte
}

// Write writes one JSON object per line, its keys the fields' names.
func (n *ndjsonWriter) Write(s Stored) error {
	b := append(n.buf[:0], '{')
	for i, f := range Fields {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, f.Name)
		b = append(b, ':')
		switch {
		case f.Name == "sequence_number":
			b = append(b, s.Values[i]...)
		case f.Name == "live":
			b = append(b, s.Values[i]...)
		case s.Values[i] == "":
			b = append(b, "null"...)
		default:
			b = appendString(b, s.Values[i])
		}
	}
	b = append(b, '}', '\n')
	n.buf = b
	_, err := n.w.Write(b)
	return err
}

func (n *ndjsonWriter) Flush() error { return nil }
