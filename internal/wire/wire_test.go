package wire

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/bondvenue/bondvenue/internal/bondmath"
	"github.com/bondvenue/bondvenue/internal/venue"
	"github.com/quagmt/udecimal"
)

// TestNum: a decimal is written as its exact digits, unquoted, whatever its
// sign, scale or size, and reads back as the same decimal.
func TestNum(t *testing.T) {
	for _, s := range []string{"0", "1", "-1", "100000", "82.48", "-0.000001", "99.1250",
		"123456789012345678901234567890.123456789", "0.10", "1000000000000000000"} {
		d := udecimal.MustParse(s)
		got, err := json.Marshal(struct {
			N  Num  `json:"n"`
			NP *Num `json:"np"`
		}{NumOf(d), new(NumOf(d))})
		if err != nil {
			t.Fatalf("Marshal(%s) = %v", s, err)
		}
		if want := `{"n":` + d.String() + `,"np":` + d.String() + `}`; string(got) != want {
			t.Errorf("Marshal(%s) = %s, want %s", s, got, want)
		}
		var back struct{ N Num }
		if err := json.Unmarshal([]byte(`{"N":`+string(NumOf(d))+`}`), &back); err != nil {
			t.Fatalf("Unmarshal(%s) = %v", s, err)
		}
		if r, err := udecimal.Parse(back.N.String()); err != nil || !r.Equal(d) {
			t.Errorf("%s read back as %s (%v)", s, back.N, err)
		}
	}
}

// BenchmarkOfferJSON is what the sequencer pays for an offer's event and
// the REST adapter for its answer: rendering and encoding one offer, by
// encoding/json and by the generated encoder.
//
//	go test -run '^$' -bench 'OfferJSON' -count 5 ./internal/wire/
func BenchmarkOfferJSON(b *testing.B) {
	now := time.Date(2026, 11, 21, 12, 39, 29, 66e6, time.UTC)
	o := venue.Offer{ID: "01a1fe1e-6c29-7b80-9502-92aa0d4249fb", Type: venue.TypeOffer, Direction: venue.Bid,
		ParticipantID: "01a1fe1e-5c6d-7db1-9030-31994c1b0522", AccountID: "01a1fe1e-5c6e-75db-80e9-45a731a848c3",
		UserID: "01a1fe1e-5c6e-7e62-8662-28e75128202e", MarketID: "01a1fe1e-5c51-76b4-bf7a-9aebfa1dc3fc",
		InstrumentID: "01a1fe1e-5c5a-7550-ace5-bb9d65113acf", SettlementProviderID: "01a1fe1e-5c73-7a62-a456-8a78cebd483d",
		Price: udecimal.MustParse("82.48"), HasPrice: true, Quantity: udecimal.MustParse("100000"), Status: venue.StatusCreated,
		SettlementDate: bondmath.MustDate(2026, 11, 24), Validity: venue.GTC, AccruedInterest: udecimal.MustParse("2939.58"),
		CreatedAt: now, UpdatedAt: now, ModifiedAt: now}
	b.Run("encoding-json", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := json.Marshal(OfferOf(o, false)); err != nil {
				b.Fatal(err)
			}
		}
	})
	// The generated encoder, into a buffer kept between offers as the
	// adapters keep theirs.
	b.Run("AppendJSON", func(b *testing.B) {
		b.ReportAllocs()
		buf := make([]byte, 0, 4096)
		for b.Loop() {
			rec := OfferOf(o, false)
			var err error
			if buf, err = rec.AppendJSON(buf[:0]); err != nil {
				b.Fatal(err)
			}
		}
	})
}
