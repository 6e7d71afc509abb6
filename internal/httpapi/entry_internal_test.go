package httpapi

import (
	"net/http"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestOrderEntryRoutes: the routes whose gateway-to-gateway latency sets
// the clock's tolerance are the ones by which a firm enters, amends,
// cancels, accepts or declines an order, a quote, an RFQ or a list — and
// no read.
func TestOrderEntryRoutes(t *testing.T) {
	s := &Server{mux: http.NewServeMux(), entries: map[string]bool{}}
	s.routes()
	var got []string
	for p := range s.entries {
		got = append(got, p)
	}
	slices.Sort(got)
	want := []string{
		"DELETE /api/v1/participant/offers/{offerId}",
		"DELETE /api/v1/participant/portfolio-rfq/{portfolioId}",
		"DELETE /api/v1/participant/rfq/{rfqId}",
		"POST /api/v1/participant/offers",
		"POST /api/v1/participant/portfolio-rfq",
		"POST /api/v1/participant/portfolio-rfq/{portfolioId}/quotes",
		"POST /api/v1/participant/rfq",
		"PUT /api/v1/participant/offers/{offerId}",
		"PUT /api/v1/participant/offers/{offerId}/accept",
		"PUT /api/v1/participant/portfolio-rfq/{portfolioId}/quotes/{quoteId}/accept",
		"PUT /api/v1/participant/portfolio-rfq/{portfolioId}/quotes/{quoteId}/reject",
		"PUT /api/v1/participant/portfolio-rfq/{portfolioId}/reject",
		"PUT /api/v1/participant/rfq/{rfqId}",
		"PUT /api/v1/participant/rfq/{rfqId}/reject",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("order-entry routes (-want +got):\n%s", diff)
	}
}
