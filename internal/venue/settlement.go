package venue

import (
	"regexp"
	"strings"
)

// SettlementLink is a pair of CSDs, by BIC11, that can settle a trade
// between their participants (an ICSD bridge, a T2S link). The pair is
// kept in order: A < B.
type SettlementLink struct{ A, B string }

// LinkOf returns the link between a and b, in order.
func LinkOf(a, b string) SettlementLink {
	if b < a {
		a, b = b, a
	}
	return SettlementLink{A: a, B: b}
}

// MaxSettlementLinks bounds the venue's link table.
const MaxSettlementLinks = 1000

var bic11 = regexp.MustCompile(`^[A-Z]{6}[A-Z0-9]{2}[A-Z0-9]{3}$`)

// ValidBIC11 reports whether s is an eleven-character BIC.
func ValidBIC11(s string) bool { return bic11.MatchString(s) }

// Settlement answers where a trade would settle and whether two sides can
// settle with each other: a side settles at the CSD of its settlement
// provider (the one its offer names, which defaults to its account's),
// else at its account's default provider's CSD, else at its firm's
// default provider's CSD, else at the CSD its firm's record names. Two sides can trade when either CSD is
// unknown to the venue (it cannot judge, and settlement instructions stay
// bilateral), when both are the same CSD, or when the venue lists a link
// between them (docs/guide.md, "Settlement compatibility").
type Settlement struct {
	providers    map[string]string // provider id → CSD BIC11
	participants map[string]string // participant id → its default CSD
	accounts     map[string]string // account id → its default provider's CSD
	links        map[SettlementLink]bool
}

// SettlementParty is a participant's settlement facts.
type SettlementParty struct {
	ID, DefaultProviderID, CSDBIC11 string
}

// NewSettlement builds the answer from the providers (id → CSD BIC11),
// the participants, the accounts' default providers (account id →
// provider id) and the links.
func NewSettlement(providers map[string]string, parties []SettlementParty, accountDefaults map[string]string, links []SettlementLink) *Settlement {
	s := &Settlement{providers: map[string]string{}, participants: map[string]string{}, accounts: map[string]string{},
		links: map[SettlementLink]bool{}}
	for id, csd := range providers {
		s.providers[id] = strings.ToUpper(strings.TrimSpace(csd))
	}
	for _, p := range parties {
		csd := s.providers[p.DefaultProviderID]
		if csd == "" {
			csd = strings.ToUpper(strings.TrimSpace(p.CSDBIC11))
		}
		s.participants[p.ID] = csd
	}
	for acc, sp := range accountDefaults {
		if csd := s.providers[sp]; csd != "" {
			s.accounts[acc] = csd
		}
	}
	for _, l := range links {
		s.links[LinkOf(l.A, l.B)] = true
	}
	return s
}

// CSD returns the CSD a side settles at: of its offer's provider ("" when
// it names none), its account and its participant; "" when unknown.
func (s *Settlement) CSD(participantID, accountID, providerID string) string {
	if s == nil {
		return ""
	}
	if csd := s.providers[providerID]; csd != "" {
		return csd
	}
	if csd := s.accounts[accountID]; csd != "" {
		return csd
	}
	return s.participants[participantID]
}

// OfferCSD is CSD of an offer's side.
func (s *Settlement) OfferCSD(o *Offer) string {
	return s.CSD(o.ParticipantID, o.AccountID, o.SettlementProviderID)
}

// Compatible reports whether CSDs a and b can settle a trade together.
func (s *Settlement) Compatible(a, b string) bool {
	return a == "" || b == "" || a == b || (s != nil && s.links[LinkOf(a, b)])
}

// IncompatibleCSDs is the conflict of a trade between sides whose CSDs
// cannot settle together.
func IncompatibleCSDs(a, b string) error {
	return Conflict("the two sides cannot settle together: %s and %s are different CSDs with no settlement link between them", a, b)
}
