package fix

import (
	"fmt"

	"github.com/quickfixgo/quickfix"

	"github.com/bondvenue/bondvenue/internal/venue"
)

// An order's parties over FIX (docs/fix-rules-of-engagement.md, "Parties
// and OrderCapacity"): the client's identifiers for the venue's order
// records, in the Parties group (453) of an order, a quote request's entry,
// a quote and a quote response, and OrderCapacity (528) beside it. Each is
// optional, as on REST.
//
//	452 PartyRole  447 PartyIDSource  448 PartyID
//	3 client id    N                  an LEI
//	               P                  a short code; the reserved ones are
//	                                  0 own account (no client), 1 PNAL, 2 AGGR
//	122 investment decision within the firm: a short code or an algorithm's id
//	12  executing trader (execution within the firm): likewise
//
//	528 OrderCapacity  P principal → DEAL, R riskless principal → MTCH, A agency → AOTC
//
// Other roles (17, a dealer asked on a QuoteRequest) are read elsewhere or
// not at all.

const (
	tagOrderCapacity quickfix.Tag = 528

	roleClientID           = "3"
	roleExecutingTrader    = "12"
	roleInvestmentDecision = "122"
)

// fixPartyFields name the parties' fields in a FIX client's words.
var fixPartyFields = venue.PartyFields{ClientID: "448 PartyID (452=3)", InvestmentDecision: "448 PartyID (452=122)",
	ExecutionDecision: "448 PartyID (452=12)", Capacity: "528 OrderCapacity"}

// shortCodes are the reserved client short codes (447=P with 452=3).
var shortCodes = map[string]string{"0": "", "1": venue.ClientPending, "2": venue.ClientAggregated}

// capacities map 528 OrderCapacity to the trading capacity.
var capacities = map[string]string{"P": venue.CapacityDEAL, "R": venue.CapacityMTCH, "A": venue.CapacityAOTC}

// fieldReader is a message body or a group entry.
type fieldReader interface {
	Has(quickfix.Tag) bool
	GetString(quickfix.Tag) (string, quickfix.MessageRejectError)
	GetGroup(quickfix.FieldGroupReader) quickfix.MessageRejectError
}

// partiesGroup is the NoPartyIDs group as the gateway reads it.
func partiesGroup() *quickfix.RepeatingGroup {
	return quickfix.NewRepeatingGroup(tagNoPartyIDs, quickfix.GroupTemplate{
		quickfix.GroupElement(tagPartyID), quickfix.GroupElement(tagPartyIDSource), quickfix.GroupElement(tagPartyRole)})
}

// readParties reads the parties of partiesFrom's Parties group and of
// capacityFrom's 528 (either may be nil), checks them, and reports whether
// any was given (an amendment restates them only then).
func readParties(partiesFrom, capacityFrom fieldReader) (venue.Parties, bool, error) {
	var p venue.Parties
	var v venue.Validator
	given := false
	if partiesFrom != nil && partiesFrom.Has(tagNoPartyIDs) {
		g := partiesGroup()
		if partiesFrom.GetGroup(g) != nil {
			return p, true, venue.InvalidField("453 NoPartyIDs", "must be entries of 448 PartyID, 447 PartyIDSource, 452 PartyRole")
		}
		seen := map[string]bool{}
		for i := 0; i < g.Len(); i++ {
			role, _ := g.Get(i).GetString(tagPartyRole)
			if role != roleClientID && role != roleInvestmentDecision && role != roleExecutingTrader {
				continue
			}
			v.Check(!seen[role], "452 PartyRole", fmt.Sprintf("names %s more than once", role))
			seen[role], given = true, true
			readParty(g.Get(i), role, &p, &v)
		}
	}
	if capacityFrom != nil {
		if c, err := capacityFrom.GetString(tagOrderCapacity); err == nil {
			given = true
			var ok bool
			p.Capacity, ok = capacities[c]
			v.Check(ok, fixPartyFields.Capacity, "must be P (principal: DEAL), R (riskless principal: MTCH) or A (agency: AOTC)")
		}
	}
	if err := v.Err(); err != nil {
		return p, given, err
	}
	return p, given, p.ValidateAs(fixPartyFields)
}

// readParty reads one entry of role into p.
func readParty(e *quickfix.Group, role string, p *venue.Parties, v *venue.Validator) {
	id, _ := e.GetString(tagPartyID)
	src, _ := e.GetString(tagPartyIDSource)
	v.Check(id != "", "448 PartyID", "is required in each 453 entry")
	switch role {
	case roleClientID:
		switch src {
		case "N":
			v.Check(venue.ValidLEI(id), fixPartyFields.ClientID, "must be an LEI with valid check digits (ISO 17442) with 447=N")
			p.ClientID = id
		case "P":
			if code, reserved := shortCodes[id]; reserved {
				p.ClientID = code
			} else {
				p.ClientID = id
			}
		default:
			v.Addf("447 PartyIDSource", "must be N (LEI) or P (short code) with 452=3")
		}
	case roleInvestmentDecision:
		p.InvestmentDecision = id
	case roleExecutingTrader:
		p.ExecutionDecision = id
	}
}
