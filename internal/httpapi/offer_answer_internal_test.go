package httpapi

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/bondvenue/bondvenue/internal/bondmath"
	"github.com/bondvenue/bondvenue/internal/trading"
	"github.com/bondvenue/bondvenue/internal/venue"
	"github.com/quagmt/udecimal"
)

// TestWriteOffer: an offer answer with its instrument spliced in is the
// answer writeJSON gives offerView, byte for byte and header for header,
// whatever the offer and the instrument hold; a changed instrument under
// a new reference version is rendered anew.
func TestWriteOffer(t *testing.T) {
	at := time.Date(2026, 3, 2, 9, 30, 0, 123e6, time.UTC)
	lei := "5299 \"LEI\""
	in := venue.Instrument{ID: "5f9c1b2e-3d4a-4b5c-8d6e-7f8091a2b3c4", Enabled: true, Precision: 3,
		Terms: venue.InstrumentTerms{Name: "Bund <2031> & \"co\"", ISIN: "DE0001102580", Coupon: "0.0", Note: "line\u2028sep\ttab\x01 \xff",
			Issuer: "Bundesrepublik Deutschland", Currency: "EUR", LEI: &lei},
		Static:   venue.StaticData{Ticker: "DBR"},
		MinPiece: udecimal.MustParse("1000"), MinIncrement: udecimal.MustParse("0.01"), ParAmount: udecimal.MustParse("100.000"),
		MarketIDs: []string{"m1", "m2"}, CreatedAt: at, UpdatedAt: at}
	later := in
	later.Terms.Note = "Callable"
	offers := []venue.Offer{
		{ID: "o1", Type: venue.TypeOffer, Direction: venue.Bid, Price: udecimal.MustParse("99.125"), HasPrice: true,
			Quantity: udecimal.MustParse("1000000"), Status: venue.StatusCreated, Validity: venue.GTC, Notes: "core \"book\"",
			SettlementDate: bondmath.DateOf(at), CreatedAt: at, UpdatedAt: at, ModifiedAt: at},
		{ID: "o2", Type: venue.TypeRFQ, Direction: venue.Ask, Quantity: udecimal.MustParse("0.5"), Filled: udecimal.MustParse("0.25"),
			Status: venue.StatusClosed, Validity: venue.GTD, ValidUntil: &at, Counterparties: []string{"p1", "p2"},
			MatchedOfferID: "o1", SettlementProviderID: "sp", Message: "why\n", AccruedInterest: udecimal.MustParse("12.3456"),
			CreatedAt: at, UpdatedAt: at, ModifiedAt: at},
		{ID: "o3", Type: venue.TypeQuote, Direction: venue.Ask, MarketOrder: true, IsExecutable: true, Status: venue.StatusRejected,
			Quantity: udecimal.MustParse("-7.000001"), Counterparties: []string{}, CreatedAt: at, UpdatedAt: at, ModifiedAt: at},
	}
	var s Server
	for _, step := range []struct {
		in      venue.Instrument
		version int64
	}{{in, 7}, {in, 7}, {later, 8}, {later, 8}, {in, 0}} {
		for _, o := range offers {
			v := trading.OfferView{Offer: o, Instrument: &step.in, ReferenceVersion: step.version}
			got, want := httptest.NewRecorder(), httptest.NewRecorder()
			s.writeOffer(got, v)
			writeJSON(want, 200, offerView(v))
			if got.Code != want.Code || !bytes.Equal(got.Body.Bytes(), want.Body.Bytes()) {
				t.Fatalf("writeOffer(%s, version %d) =\n%d %s\nwant\n%d %s", o.ID, step.version, got.Code, got.Body, want.Code, want.Body)
			}
			for _, h := range []string{"Content-Type", "Content-Length"} {
				if got.Header().Get(h) != want.Header().Get(h) {
					t.Errorf("writeOffer(%s): %s = %q, want %q", o.ID, h, got.Header().Get(h), want.Header().Get(h))
				}
			}
		}
	}
}

// discard is a ResponseWriter that keeps nothing.
type discard struct{ h http.Header }

func (d *discard) Header() http.Header         { return d.h }
func (d *discard) Write(b []byte) (int, error) { return len(b), nil }
func (d *discard) WriteHeader(int)             {}

// BenchmarkOfferAnswer measures the answer of an offer just entered: the
// view and its encoding, as createOffer writes it.
//
//	go test -run '^$' -bench OfferAnswer ./internal/httpapi/
func BenchmarkOfferAnswer(b *testing.B) {
	at := time.Date(2026, 3, 2, 9, 30, 0, 123e6, time.UTC)
	in := venue.Instrument{ID: "5f9c1b2e-3d4a-4b5c-8d6e-7f8091a2b3c4", Enabled: true, Precision: 3,
		Terms: venue.InstrumentTerms{Name: "Bund 0% 2031", ISIN: "DE0001102580", Coupon: "0.0", CouponFrequency: "1",
			DayCount: "ACT/ACT", Maturity: "2031-02-15", Issuer: "Bundesrepublik Deutschland", Currency: "EUR", Note: "Fixed rate"},
		MinPiece: udecimal.MustParse("1000"), MinIncrement: udecimal.MustParse("0.01"), ParAmount: udecimal.MustParse("100"),
		MarketIDs: []string{"m1"}, CreatedAt: at, UpdatedAt: at}
	o := venue.Offer{ID: "0b8e4a0c-7d1e-4a57-9e55-6a0f0f6f4a11", Type: venue.TypeOffer, Direction: venue.Bid,
		Price: udecimal.MustParse("85.07"), HasPrice: true, Quantity: udecimal.MustParse("100000"), Status: venue.StatusCreated,
		Validity: venue.GTC, ParticipantID: "c1d2e3f4-a5b6-4c7d-8e9f-0a1b2c3d4e5f", AccountID: "c1d2e3f4-a5b6-4c7d-8e9f-0a1b2c3d4e50",
		UserID: "c1d2e3f4-a5b6-4c7d-8e9f-0a1b2c3d4e51", MarketID: "c1d2e3f4-a5b6-4c7d-8e9f-0a1b2c3d4e52", InstrumentID: in.ID,
		SettlementProviderID: "c1d2e3f4-a5b6-4c7d-8e9f-0a1b2c3d4e53", SettlementDate: bondmath.DateOf(at),
		CreatedAt: at, UpdatedAt: at, ModifiedAt: at}
	v := trading.OfferView{Offer: o, Instrument: &in, ReferenceVersion: 7}
	w := &discard{h: http.Header{}}
	b.Run("reflection", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			writeJSON(w, 200, offerView(v))
		}
	})
	b.Run("writeOffer", func(b *testing.B) {
		var s Server
		b.ReportAllocs()
		for b.Loop() {
			s.writeOffer(w, v)
		}
	})
}
