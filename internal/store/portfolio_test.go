package store_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/quagmt/udecimal"

	"github.com/bondvenue/bondvenue/internal/bondmath"
	"github.com/bondvenue/bondvenue/internal/store"
	"github.com/bondvenue/bondvenue/internal/venue"
)

// TestPortfolioRecord: a list as its record column and the event log keep
// it reads back as written, the requester's and a dealer's parties
// included, and a list without any keeps none.
func TestPortfolioRecord(t *testing.T) {
	at := time.Date(2026, 11, 20, 14, 48, 0, 123456789, time.UTC)
	vu := at.Add(time.Hour)
	r := venue.PortfolioRFQ{ID: "l1", MarketID: "m1", ParticipantID: "p1", AccountID: "a1", UserID: "u1",
		Counterparties: []string{"p2"}, SettlementDate: bondmath.MustDate(2030, 1, 15), ValidUntil: vu, Status: venue.StatusCreated,
		ClientID: "REQ-1", Parties: venue.Parties{ClientID: "5493001KJTIIGC8Y1R12", InvestmentDecision: "pm1", Capacity: "AOTC"},
		Lines: []venue.PortfolioLine{{LineID: "1", InstrumentID: "i1", Direction: venue.Bid, Quantity: udecimal.MustParse("100000")}},
		Quotes: []venue.PortfolioQuote{{ID: "q1", ParticipantID: "p2", AccountID: "a2", UserID: "u2",
			Parties: venue.Parties{ExecutionDecision: "algo.7", Capacity: "DEAL"},
			Lines: []venue.PortfolioQuoteLine{{LineID: "1", PricePerUnit: udecimal.MustParse("99.5"),
				AccruedInterest: udecimal.MustParse("12.5"), SettlementAmount: udecimal.MustParse("99512.5")}},
			NetProceeds: udecimal.MustParse("-99512.5"), ValidUntil: &vu, Status: venue.StatusCreated, CreatedAt: at, UpdatedAt: at}},
		CreatedAt: at, UpdatedAt: at}
	bare := r
	bare.Parties, bare.Quotes = venue.Parties{}, nil
	for _, want := range []venue.PortfolioRFQ{r, bare} {
		data, err := store.EncodePortfolio(&want)
		if err != nil {
			t.Fatalf("EncodePortfolio = %v", err)
		}
		got, err := store.DecodePortfolio(data)
		if err != nil {
			t.Fatalf("DecodePortfolio(%s) = %v", data, err)
		}
		if want.Quotes == nil {
			want.Quotes = []venue.PortfolioQuote{}
		}
		if d := cmp.Diff(want, got, cmp.Comparer(func(a, b udecimal.Decimal) bool { return a.Equal(b) }),
			cmp.Comparer(func(a, b bondmath.Date) bool { return a == b })); d != "" {
			t.Errorf("DecodePortfolio(EncodePortfolio(r)) (-want +got):\n%s", d)
		}
	}
}
