package httpapi_test

import (
	"net/http"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"
)

// TestRFQDeclinedCounterparties: the requester reads which dealers declined
// its RFQ, which stays open for the others; a dealer does not.
func TestRFQDeclinedCounterparties(t *testing.T) {
	fresh(t, func(t *testing.T, v *env) {
		x := newTV(t, v)
		r := x.rfq(t, trader(2), obj{"instrument_id": x.ins[0], "market_id": x.otc, "direction": "bid", "quantity": "1000000",
			"counterparties": []string{v.participant(0), v.participant(1)}})
		path := rfqPath + "/" + id(r)
		if got := x.obj(t, trader(2), "GET", path, nil, http.StatusOK); got["declined_counterparties"] != nil {
			t.Errorf("GET rfq before any decline: declined_counterparties = %v, want absent", got["declined_counterparties"])
		}
		x.send(t, trader(0), "PUT", path+"/reject", nil, http.StatusOK, nil)
		got := x.obj(t, trader(2), "GET", path, nil, http.StatusOK)
		if d := gocmp.Diff([]any{v.participant(0)}, got["declined_counterparties"]); d != "" {
			t.Errorf("GET rfq as requester: declined_counterparties (-want +got):\n%s", d)
		}
		if got["status"] != "created" {
			t.Errorf("GET rfq after one of two declined: status %v, want created", got["status"])
		}
		if dealer := x.obj(t, trader(1), "GET", path, nil, http.StatusOK); dealer["declined_counterparties"] != nil {
			t.Errorf("GET rfq as a dealer: declined_counterparties = %v, want absent", dealer["declined_counterparties"])
		}
	})
}
