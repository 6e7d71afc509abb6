package httpapi_test

import (
	"net/http"
	"testing"
)

// TestAmendToFilled: an amendment's quantity is the new total and may equal
// the filled quantity (docs/guide.md, "Trading"): the offer closes as
// filled, leaves the book and frees its risk use; below filled is a 400.
func TestAmendToFilled(t *testing.T) {
	fresh(t, func(t *testing.T, v *env) {
		x := newTV(t, v)
		ins := x.ins[0]
		ask := x.create(t, trader(0), offer(ins, x.book, "ask", "101", "1000000"))
		x.create(t, trader(1), offer(ins, x.book, "bid", "101", "400000"))
		x.state(t, trader(0), id(ask), "created", "1000000", "400000")

		x.refused(t, trader(0), "PUT", offersPath+"/"+id(ask), entity("quantity", "300000"), http.StatusBadRequest, "quantity")

		got := x.obj(t, trader(0), "PUT", offersPath+"/"+id(ask), entity("quantity", "400000"), http.StatusOK)
		wantState(t, got, "closed", "400000", "400000")
		if a, _ := x.depth(t, trader(1), ins, 0); len(a) != 0 {
			t.Errorf("book asks after the amendment = %v, want none", a)
		}
		var used float64
		for _, l := range x.list(t, trader(0), "/api/v1/participant/risk-limits") {
			if l["name"] == "ALL_OFFER_SUM" {
				used, _ = l["used"].(float64)
			}
		}
		if used != 0 {
			t.Errorf("ALL_OFFER_SUM used = %v, want 0 once the offer closed", used)
		}
		x.refused(t, trader(0), "PUT", offersPath+"/"+id(ask), entity("quantity", "500000"), http.StatusConflict)
	})
}
