package httpapi

import (
	"bytes"
	"encoding/json"
	"net/http"
	"sync"
	"time"

	"github.com/bondvenue/bondvenue/internal/trading"
	"github.com/bondvenue/bondvenue/internal/venue"
	"github.com/bondvenue/bondvenue/internal/wire"
)

// This file answers an offer, quote or RFQ just entered. Its answer is the
// record with its instrument nested (docs/rest-interface.md, "OfferDetail"), and the
// instrument is two thirds of it: the instrument's JSON is rendered once
// per reference-data version and spliced in. The record itself is written
// by its generated encoder (wire.Offer.AppendJSON), not by reflection.

// offerView is how every other answer renders an offer (wire.OfferNestedOf):
// the general path writeOffer falls back to, and must match byte for byte.
func offerView(v trading.OfferView) wire.OfferNested { return wire.OfferNestedOf(v) }

// writeOffer answers v as offerView renders it, byte for byte.
func (s *Server) writeOffer(w http.ResponseWriter, v trading.OfferView) {
	if v.Instrument == nil || v.ReferenceVersion == 0 || v.Market != nil || v.Participant != nil || v.Account != nil ||
		v.User != nil || v.MatchedOffers != nil {
		writeJSON(w, http.StatusOK, offerView(v))
		return
	}
	instrument, err := s.nested.json(*v.Instrument, v.ReferenceVersion)
	if err != nil {
		writeJSON(w, http.StatusOK, offerView(v)) // which answers the error
		return
	}
	bp := offerBuffers.Get().(*[]byte)
	defer putOfferBuffer(bp)
	rec := wire.OfferOf(v.Offer, true)
	b, err := rec.AppendJSON((*bp)[:0])
	if err != nil {
		writeJSON(w, http.StatusOK, offerView(v))
		return
	}
	// The record's object ends with "}"; the instrument is its next field
	// (the other nested objects are absent).
	b = append(b[:len(b)-1], `,"instrument":`...)
	b = append(b, instrument...)
	b = append(b, "}\n"...)
	*bp = b
	writeBody(w, http.StatusOK, b)
}

// offerBuffers keeps the buffers offer answers are written into (2–3 KiB).
var offerBuffers = sync.Pool{New: func() any {
	b := make([]byte, 0, 4096)
	return &b
}}

func putOfferBuffer(bp *[]byte) {
	if cap(*bp) > maxPooledAnswer {
		return
	}
	offerBuffers.Put(bp)
}

// nestedInstruments keeps each instrument's JSON as a nested object
// (wire.InstrumentNestedOf), rendered at one reference-data version. A version
// names one state of the reference data (the store counts every change),
// so the JSON stays right until the version moves; the instrument's
// updatedAt is checked as well.
type nestedInstruments struct {
	mu sync.RWMutex
	m  map[string]nestedInstrument
}

type nestedInstrument struct {
	version   int64
	updatedAt time.Time
	json      []byte
}

// maxNestedInstruments bounds the instruments kept: past it the cache
// starts over.
const maxNestedInstruments = 4096

// json returns in's JSON as wire.InstrumentNestedOf renders it, without the
// encoder's newline. The bytes are shared: never modified.
func (c *nestedInstruments) json(in venue.Instrument, version int64) ([]byte, error) {
	c.mu.RLock()
	e, ok := c.m[in.ID]
	c.mu.RUnlock()
	if ok && e.version == version && e.updatedAt.Equal(in.UpdatedAt) {
		return e.json, nil
	}
	var buf bytes.Buffer
	if err := encodeJSON(&buf, wire.InstrumentNestedOf(in)); err != nil {
		return nil, err
	}
	b := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= maxNestedInstruments {
		c.m = map[string]nestedInstrument{}
	}
	if cur, ok := c.m[in.ID]; !ok || cur.version <= version {
		c.m[in.ID] = nestedInstrument{version: version, updatedAt: in.UpdatedAt, json: b}
	}
	return b, nil
}

// encodeJSON appends v's JSON and a newline to buf, as writeJSON sends it.
func encodeJSON(buf *bytes.Buffer, v any) error {
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}
