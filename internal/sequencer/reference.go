package sequencer

import (
	"github.com/bondvenue/bondvenue/internal/bondmath"
	"github.com/bondvenue/bondvenue/internal/venue"
)

// This file holds the reference data the sequencer publishes for the
// request path, and what that path may ask of it.

// Reference is the sequencer's reference data, published for the request
// path: CreateOffer validates the instrument and market an offer names
// against it instead of reading them from the database on every request.
// It is replaced, never changed, whenever the state reloads reference data
// (at start, after a rebuild and after every operator change).
type Reference struct {
	markets     map[string]venue.Market
	instruments map[string]venue.Instrument // with their market ids
	bonds       map[string]bondmath.Bond
	version     int64 // the database's reference version
}

// Instrument is a listed instrument.
func (r *Reference) Instrument(id string) (venue.Instrument, bool) {
	in, ok := r.instruments[id]
	return in, ok
}

// Market is a market.
func (r *Reference) Market(id string) (venue.Market, bool) {
	m, ok := r.markets[id]
	return m, ok
}

// Bond is a listed instrument's terms, parsed (none when they do not
// parse).
func (r *Reference) Bond(instrumentID string) (bondmath.Bond, bool) {
	b, ok := r.bonds[instrumentID]
	return b, ok
}

// Version is the database's reference version the data is of.
func (r *Reference) Version() int64 { return r.version }
