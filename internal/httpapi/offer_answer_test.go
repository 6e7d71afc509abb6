package httpapi_test

import (
	"testing"

	"github.com/bondvenue/bondvenue/internal/venue"
)

// TestOfferAnswerFollowsInstrumentChanges: the instrument an offer answer
// nests is rendered once per reference-data version and kept; an
// operator's change of the instrument shows in the next answer.
func TestOfferAnswerFollowsInstrumentChanges(t *testing.T) {
	fresh(t, func(t *testing.T, v *env) {
		iid := v.instruments(t)[0]
		var book string
		for _, m := range v.markets(t) {
			if m.FacilityType != venue.FacilityOTC && m.IsPartialFillAllowed {
				book = m.ID
			}
		}
		offer := func(price string) map[string]any {
			t.Helper()
			o := v.run(t, call{as: trader(0), method: "POST", path: "/api/v1/participant/offers", body: map[string]any{
				"instrument_id": iid, "market_id": book, "direction": "bid", "price_per_unit": price, "quantity": 1000000},
				want: 200}).object(t)
			in, ok := o["instrument"].(map[string]any)
			if !ok {
				t.Fatalf("offer answer nests no instrument: %v", o)
			}
			return in
		}
		before := offer("90")
		if again := offer("90.5"); again["note"] != before["note"] {
			t.Fatalf("second answer's note = %v, want %v", again["note"], before["note"])
		}
		for _, note := range []string{"Callable from 2031", "Callable from 2032 \"and\" <puttable>"} {
			v.run(t, call{as: operator, method: "PUT", path: "/api/v1/admin/instruments/" + iid,
				body: map[string]any{"entity": map[string]any{"note": note}}, want: 200})
			got := offer("91")
			if got["note"] != note {
				t.Errorf("after the change, the answer's note = %v, want %q", got["note"], note)
			}
			listed := v.get(t, viewer(0), "/api/v1/instruments/"+iid, 200).object(t)
			if got["updatedAt"] != listed["updatedAt"] {
				t.Errorf("answer's instrument updatedAt = %v, the instrument's = %v", got["updatedAt"], listed["updatedAt"])
			}
		}
	})
}
