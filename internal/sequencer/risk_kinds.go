package sequencer

import "github.com/bondvenue/bondvenue/internal/venue"

// LimitScope is whose open quantity a kind of limit measures.
type LimitScope int

const (
	PerOffer       LimitScope = iota // one offer's or quote's own quantity
	PerParticipant                   // the firm's open offers and quotes together
	PerUser                          // the open offers and quotes one user entered
	PerOfferValue                    // one record's value: quantity × clean price / 100
)

// LimitKind is one kind of risk limit (values in nominal). The sequencer's
// check, the use GET /participant/risk-limits shows, the setter's
// validation and the limits a new participant starts with all read this
// table: a new kind is one row.
type LimitKind struct {
	Name  string
	Scope LimitScope
}

// LimitKinds are the kinds of risk limit every participant carries.
var LimitKinds = []LimitKind{
	{venue.LimitMaxOffer, PerOffer},
	{venue.LimitAllOfferSum, PerParticipant},
	{venue.LimitAllOfferUserSum, PerUser},
	{venue.LimitMaxOfferValue, PerOfferValue},
}

// LimitKindOf is the kind of limit named name.
func LimitKindOf(name string) (LimitKind, bool) {
	for _, k := range LimitKinds {
		if k.Name == name {
			return k, true
		}
	}
	return LimitKind{}, false
}
