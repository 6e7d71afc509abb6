// Package redact is the venue's rule of who sees what of a record
// (docs/guide.md, "Who sees what"): the use cases' answers and the live
// streams both hand records out through it, so a record reads the same
// over REST, the streams and FIX.
package redact

import (
	"slices"

	"github.com/bondvenue/bondvenue/internal/feed"
	"github.com/bondvenue/bondvenue/internal/venue"
)

// owned reports whether a record of participant owner is p's own.
func owned(p venue.Principal, owner string) bool {
	return p.IsOperator() || (owner != "" && owner == p.ParticipantID)
}

// Offer returns an offer, RFQ or quote as p may see it: another firm's
// record (an RFQ p was invited to, a quote on p's RFQ) shows its
// participant id but not its account, user, settlement provider and
// parties (its client and decision makers), and an RFQ's recipients are
// its requester's to see.
func Offer(p venue.Principal, o venue.Offer) venue.Offer {
	if !owned(p, o.ParticipantID) {
		o.AccountID, o.UserID, o.SettlementProviderID, o.ClientOrderID = "", "", "", ""
		o.Counterparties, o.Parties = nil, venue.Parties{}
	}
	return o
}

// Portfolio is r as p may see it: the requester and the operator see
// every quote (the requester without the dealers' accounts, users and
// parties); a dealer only its own quotes, and the lines' trades only when
// its quote was done; the dealers asked and the requester's parties show
// only to the requester and the operator.
func Portfolio(p venue.Principal, r venue.PortfolioRFQ) venue.PortfolioRFQ {
	if p.IsOperator() {
		return r
	}
	if r.ParticipantID == p.ParticipantID {
		qs := make([]venue.PortfolioQuote, len(r.Quotes))
		for i, q := range r.Quotes {
			q.AccountID, q.UserID, q.ClientID, q.Parties = "", "", "", venue.Parties{}
			qs[i] = q
		}
		r.Quotes = qs
		return r
	}
	r.AccountID, r.UserID, r.Counterparties, r.ClientID, r.Parties = "", "", nil, "", venue.Parties{}
	own := make([]venue.PortfolioQuote, 0, 2)
	done := false
	for _, q := range r.Quotes {
		if q.ParticipantID == p.ParticipantID {
			own = append(own, q)
			done = done || q.Outcome == venue.OutcomeDone
		}
	}
	r.Quotes = own
	if !done {
		lines := make([]venue.PortfolioLine, len(r.Lines))
		for i, l := range r.Lines {
			l.TradeID = ""
			lines[i] = l
		}
		r.Lines = lines
	}
	return r
}

// Audience says how much of an indicative price's owner a caller sees: its
// own firm and the venue operator everything; the owner's counterparties
// the participant id but not its account and user; any other participant
// neither.
type Audience struct {
	P venue.Principal
	// Counterparties are the caller's enabled counterparties.
	Counterparties map[string]bool
}

// Sees reports whether the caller may see the owner's participant id, and
// the owner's account and user.
func (a Audience) Sees(owner string) (participant, private bool) {
	if a.P.IsOperator() || owner == a.P.ParticipantID {
		return true, true
	}
	return a.Counterparties[owner], false
}

// IndicativePrice is ip as the caller may see it.
func (a Audience) IndicativePrice(ip venue.IndicativePrice) venue.IndicativePrice {
	participant, private := a.Sees(ip.ParticipantID)
	if !private {
		ip.AccountID, ip.UserID = "", ""
	}
	if !participant {
		ip.ParticipantID = ""
	}
	return ip
}

// Viewer is what redacting an event needs to know of one reader.
type Viewer struct {
	P venue.Principal
	// Counterparties are the reader's enabled counterparties.
	Counterparties map[string]bool
	// Settlement says which CSDs settle together; CSD is the reader's
	// firm's (docs/guide.md, "Settlement compatibility").
	Settlement *venue.Settlement
	CSD        string
	// Names gives participants' public names and LEIs, for book entries.
	Names func(id string) (name, lei string)
}

// Scope is the participant whose events the reader may read, "" for all.
func (v *Viewer) Scope() feed.Scope {
	if v.P.IsOperator() {
		return feed.Scope{}
	}
	return feed.Scope{Participant: v.P.ParticipantID}
}

// Sees reports whether the reader may read e at all.
func (v *Viewer) Sees(e *feed.Event) bool {
	if v.P.IsOperator() || e.Owner == "" || e.Owner == v.P.ParticipantID {
		return true
	}
	return v.P.ParticipantID != "" && slices.Contains(e.Audience, v.P.ParticipantID)
}

// Event returns e, an event the reader may read (Sees), as the reader may
// see it. The record is copied before anything is blanked: events are
// shared between readers.
func (v *Viewer) Event(e feed.Event) feed.Event {
	switch {
	case e.Offer != nil:
		o := Offer(v.P, *e.Offer)
		e.Offer = &o
	case e.Trade != nil:
		// Both firms read the one event (always so): neither order's
		// account shows; each firm reads its own in its order.create.
		t := *e.Trade
		t.AskOrder.AccountID, t.BidOrder.AccountID = "", ""
		e.Trade = &t
	case e.IndicativePrice != nil:
		ip := Audience{P: v.P, Counterparties: v.Counterparties}.IndicativePrice(*e.IndicativePrice)
		e.IndicativePrice = &ip
	case e.PriceChange != nil:
		pc := *e.PriceChange
		pc.Bid, pc.Ask = v.Entry(pc.Bid), v.Entry(pc.Ask)
		e.PriceChange = &pc
	case e.Depth != nil:
		d := *e.Depth
		d.Bid, d.Ask = v.Entries(d.Bid), v.Entries(d.Ask)
		e.Depth = &d
	case e.Portfolio != nil:
		pr := Portfolio(v.P, *e.Portfolio)
		e.Portfolio = &pr
	}
	return e
}

// Entry is a best bid or ask as the reader sees it, as instrument_limits
// shows it: whether the reader can trade with it, and another firm that is
// not its counterparty anonymous.
func (v *Viewer) Entry(le *feed.LimitEntry) *feed.LimitEntry {
	if le == nil {
		return nil
	}
	out := *le
	out.IsCounterpartyEnabled = v.Counterparties[le.ParticipantID] && v.Settlement.Compatible(v.CSD, le.CSD)
	if !v.P.IsOperator() && le.ParticipantID != v.P.ParticipantID && !out.IsCounterpartyEnabled {
		out.ParticipantID = ""
		return &out
	}
	if v.Names != nil {
		out.ParticipantName, out.ParticipantLEI = v.Names(le.ParticipantID)
	}
	return &out
}

// Entries are book entries as the reader sees them (Entry).
func (v *Viewer) Entries(les []feed.LimitEntry) []feed.LimitEntry {
	out := make([]feed.LimitEntry, len(les))
	for i := range les {
		out[i] = *v.Entry(&les[i])
	}
	return out
}
