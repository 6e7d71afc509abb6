package venue

// This file holds the rules of an order's parties (Parties): the
// identifiers a client gives, on every order-entry channel, for the
// venue's order records (docs/guide.md, "Identifying the client and the
// decision makers").

// Trading capacities of an order's member (RTS 24 field 7).
const (
	CapacityDEAL = "DEAL" // dealing on own account
	CapacityMTCH = "MTCH" // matched principal
	CapacityAOTC = "AOTC" // any other capacity (agency)
)

// The client ids reserved for what is not one client (RTS 24 field 3).
const (
	ClientAggregated = "AGGR" // an aggregated order of several clients
	ClientPending    = "PNAL" // allocations pending
)

// MaxPartyID is the longest short code, algorithm id or client id.
const MaxPartyID = 50

// PartyFields names the four fields of Parties as a channel spells them,
// so that an issue names the field its client sent.
type PartyFields struct {
	ClientID, InvestmentDecision, ExecutionDecision, Capacity string
}

// RESTPartyFields are the names of the JSON bodies.
var RESTPartyFields = PartyFields{ClientID: "client_id_code", InvestmentDecision: "investment_decision_id",
	ExecutionDecision: "execution_decision_id", Capacity: "trading_capacity"}

// Validate checks p, naming the JSON body fields (RESTPartyFields): every
// field is optional, and one given must be well formed.
func (p Parties) Validate() error { return p.ValidateAs(RESTPartyFields) }

// ValidateAs is Validate naming the fields as names does.
func (p Parties) ValidateAs(names PartyFields) error {
	var v Validator
	p.Check(&v, names)
	return v.Err()
}

// Check records on v an issue for each field of p that is given and not
// well formed: the client id an LEI with valid check digits, AGGR, PNAL or
// a short code (1 to 50 letters and digits; one that looks like an LEI
// must be one); a decision maker a short code or an algorithm's id (1 to 50
// letters, digits, '.', '_' or '-'); the capacity DEAL, MTCH or AOTC.
func (p Parties) Check(v *Validator, names PartyFields) {
	if p.ClientID != "" {
		switch {
		case looksLikeLEI(p.ClientID):
			v.Check(ValidLEI(p.ClientID), names.ClientID, "looks like an LEI but its check digits are wrong (ISO 17442)")
		case p.ClientID == ClientAggregated || p.ClientID == ClientPending:
		default:
			v.Check(validCode(p.ClientID, false), names.ClientID,
				"must be an LEI, AGGR, PNAL or a short code of 1 to 50 letters and digits")
		}
	}
	if p.InvestmentDecision != "" {
		v.Check(validCode(p.InvestmentDecision, true), names.InvestmentDecision,
			"must be a short code or an algorithm's id: 1 to 50 letters, digits, '.', '_' or '-'")
	}
	if p.ExecutionDecision != "" {
		v.Check(validCode(p.ExecutionDecision, true), names.ExecutionDecision,
			"must be a short code or an algorithm's id: 1 to 50 letters, digits, '.', '_' or '-'")
	}
	if p.Capacity != "" {
		v.Check(p.Capacity == CapacityDEAL || p.Capacity == CapacityMTCH || p.Capacity == CapacityAOTC, names.Capacity,
			"must be DEAL, MTCH or AOTC")
	}
}

// Defaults returns p as an order record shows it, entered by user userID:
// a capacity not given is DEAL (dealing on own account); an execution
// decision not given is the entering user's id; the client id and the
// investment decision stay as given (empty when not: on own account there
// is no client). The defaults are applied when a record is written; the
// order keeps what its client gave.
func (p Parties) Defaults(userID string) Parties {
	if p.Capacity == "" {
		p.Capacity = CapacityDEAL
	}
	if p.ExecutionDecision == "" {
		p.ExecutionDecision = userID
	}
	return p
}

// IsZero reports whether no field of p is given.
func (p Parties) IsZero() bool { return p == Parties{} }

// looksLikeLEI reports whether s has an LEI's form: 18 capital letters or
// digits and two digits.
func looksLikeLEI(s string) bool {
	if len(s) != 20 || !isDigit(s[18]) || !isDigit(s[19]) {
		return false
	}
	for i := range 18 {
		if !isDigit(s[i]) && !isUpperAlpha(s[i]) {
			return false
		}
	}
	return true
}

// validCode reports whether s is 1 to MaxPartyID letters and digits, and,
// with punct, '.', '_' and '-'.
func validCode(s string, punct bool) bool {
	if s == "" || len(s) > MaxPartyID {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		ok := isDigit(c) || isUpperAlpha(c) || (c >= 'a' && c <= 'z') || (punct && (c == '.' || c == '_' || c == '-'))
		if !ok {
			return false
		}
	}
	return true
}
