package sequencer

import (
	"fmt"

	"github.com/quagmt/udecimal"

	"github.com/bondvenue/bondvenue/internal/venue"
)

// This file holds the sequencer's risk check: the open quantity each firm
// and user has, measured against the kinds of limit of risk.go.

// addUse changes the open quantity counted against a participant's and a
// user's limits.
func (st *State) addUse(o *venue.Offer, d udecimal.Decimal) {
	st.used[o.ParticipantID] = st.used[o.ParticipantID].Add(d)
	st.usedUser[o.UserID] = st.usedUser[o.UserID].Add(d)
}

// Use is the open quantity a limit of kind k counts now for a participant
// and one of its users (0 for a per-offer cap, where nothing accumulates).
func (st *State) Use(k LimitKind, participant, user string) udecimal.Decimal {
	switch k.Scope {
	case PerParticipant:
		return st.used[participant]
	case PerUser:
		return st.usedUser[user]
	}
	return udecimal.Zero
}

// checkRisk answers a limit error if adding `more` open quantity for o's
// participant and user (with o's own open quantity becoming `total`, at
// price) would breach a limit of any kind, checked in the table's order.
func (st *State) checkRisk(o *venue.Offer, price, total, more udecimal.Decimal) error {
	lim := st.limits[o.ParticipantID]
	for _, k := range LimitKinds {
		v, ok := lim[k.Name]
		if !ok {
			continue // no such limit configured: not enforced
		}
		if k.Scope == PerOfferValue {
			if err := st.checkValue(o, price, total); err != nil {
				return err
			}
			continue
		}
		used := st.Use(k, o.ParticipantID, o.UserID)
		want := used.Add(more)
		if k.Scope == PerOffer {
			want = total
		} else if !more.IsPos() {
			continue // less open quantity never breaches a sum
		}
		if want.GreaterThan(v) {
			return &venue.Error{Kind: venue.KindLimit, Message: fmt.Sprintf(
				"risk limit %s breached: limit %s, in use %s, this request needs %s", k.Name, v, used, want.Sub(used)),
				Details: []venue.FieldIssue{{Field: "quantity", Issue: fmt.Sprintf("%s limit %s, in use %s", k.Name, v, used)}}}
		}
	}
	return nil
}

// checkValue refuses a record whose value, quantity × clean price / 100 in
// the instrument's currency, is above its participant's MAX_OFFER_VALUE.
// A record without a price (a market order, an RFQ without a limit) has no
// value to check.
func (st *State) checkValue(o *venue.Offer, price, quantity udecimal.Decimal) error {
	v, ok := st.limits[o.ParticipantID][venue.LimitMaxOfferValue]
	if !ok || !o.HasPrice || o.MarketOrder {
		return nil
	}
	value, err := quantity.Mul(price).Div(hundred)
	if err != nil || value.LessThanOrEqual(v) {
		return nil
	}
	return &venue.Error{Kind: venue.KindLimit, Message: fmt.Sprintf(
		"risk limit %s breached: limit %s, this request's value is %s (quantity %s × price %s / 100)",
		venue.LimitMaxOfferValue, v, value, quantity, price),
		Details: []venue.FieldIssue{{Field: "quantity", Issue: fmt.Sprintf("%s limit %s, value %s", venue.LimitMaxOfferValue, v, value)}}}
}
