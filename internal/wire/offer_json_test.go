package wire

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/bondvenue/bondvenue/internal/bondmath"
	"github.com/bondvenue/bondvenue/internal/venue"
	"github.com/quagmt/udecimal"
)

// marshal is how the adapters encode a record: encoding/json without HTML
// escaping, without the encoder's newline.
func marshal(t *testing.T, v any) ([]byte, error) {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	err := enc.Encode(v)
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), err
}

// TestOfferAppendJSON: the generated encoder writes the bytes
// encoding/json writes, for offers of every type, direction, status and
// validity, nullable fields set and unset, decimals of many scales and
// strings that need escaping.
func TestOfferAppendJSON(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 2026))
	for i := range 5000 {
		o := randomOffer(rng)
		rec := OfferOf(o, rng.IntN(2) == 0)
		want, err := marshal(t, rec)
		if err != nil {
			t.Fatal(err)
		}
		got, err := rec.AppendJSON([]byte("prefix"))
		if err != nil {
			t.Fatalf("offer %d: AppendJSON: %v", i, err)
		}
		if !bytes.Equal(got[len("prefix"):], want) {
			t.Fatalf("offer %d: AppendJSON =\n%s\nwant\n%s", i, got[len("prefix"):], want)
		}
	}
}

// TestOfferAppendJSONNums: a Num is written as encoding/json writes a
// json.Number: "" as 0, and one that is not a number fails both.
func TestOfferAppendJSONNums(t *testing.T) {
	for _, n := range []Num{"", "0", "-0", "1e5", "1.5E-3", "-12.50", "01", "1.", ".5", "+1", "1e", "abc", "- 1"} {
		rec := OfferOf(venue.Offer{}, false)
		rec.Quantity, rec.FilledQuantity = n, n
		rec.Price = &n
		want, wantErr := marshal(t, rec)
		got, err := rec.AppendJSON(nil)
		if (err != nil) != (wantErr != nil) {
			t.Errorf("Num %q: AppendJSON error %v, encoding/json's %v", n, err, wantErr)
			continue
		}
		if err == nil && !bytes.Equal(got, want) {
			t.Errorf("Num %q: AppendJSON =\n%s\nwant\n%s", n, got, want)
		}
	}
}

// texts are strings an offer's text fields may hold: plain, empty, and
// every kind encoding/json escapes or replaces.
var texts = []string{"", "core book", `say "hi"`, `back\slash`, "tab\there", "nl\ncr\r", "\b\f\x00\x01\x1f\x7f",
	"<html>&amp;</html>", "ünïcödé €", "emoji 🦀", "line\u2028para\u2029", "bad \xff\xfe utf8", "cut \xe2\x82", "\xed\xa0\x80 surrogate",
	strings.Repeat("long ", 100), "/slash/", "'single'"}

var statuses = []string{venue.StatusCreated, venue.StatusClosed, venue.StatusCancelled, venue.StatusRejected, venue.StatusExpired}

// randomDecimal returns a decimal of a random scale (0–19 places) and
// size, at times negative or zero.
func randomDecimal(rng *rand.Rand) udecimal.Decimal {
	if rng.IntN(10) == 0 {
		return udecimal.Zero
	}
	digits := rng.Uint64N(1_000_000_000_000_000_000)
	if rng.IntN(3) == 0 {
		digits = rng.Uint64N(10_000)
	}
	d, err := udecimal.NewFromUint64(digits, uint8(rng.IntN(20)))
	if err != nil {
		panic(err)
	}
	if rng.IntN(8) == 0 {
		d = d.Neg()
	}
	return d
}

func pick[T any](rng *rand.Rand, xs []T) T { return xs[rng.IntN(len(xs))] }

func randomOffer(rng *rand.Rand) venue.Offer {
	text := func() string { return pick(rng, texts) }
	maybe := func(s string) string {
		if rng.IntN(2) == 0 {
			return ""
		}
		return s
	}
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(rng.Int64N(int64(400 * 24 * time.Hour))))
	o := venue.Offer{ID: text(), Type: pick(rng, []string{venue.TypeOffer, venue.TypeRFQ, venue.TypeQuote}),
		Direction: pick(rng, []string{venue.Ask, venue.Bid}), ParticipantID: text(), AccountID: text(), UserID: text(),
		MarketID: text(), InstrumentID: text(), SettlementProviderID: maybe(text()), Quantity: randomDecimal(rng),
		Filled: randomDecimal(rng), Status: pick(rng, statuses), MatchedOfferID: maybe(text()), Notes: text(),
		MarketOrder: rng.IntN(2) == 0, IsExecutable: rng.IntN(2) == 0, Validity: pick(rng, []string{venue.GTC, venue.GTD, ""}),
		AccruedInterest: randomDecimal(rng), Message: maybe(text()), CreatedAt: at, UpdatedAt: at.Add(time.Millisecond),
		ModifiedAt: at.Add(time.Duration(rng.IntN(1e9)))}
	if rng.IntN(2) == 0 {
		o.Price, o.HasPrice = randomDecimal(rng), true
	}
	if rng.IntN(2) == 0 {
		o.SettlementDate = bondmath.DateOf(at.AddDate(0, 0, rng.IntN(30)))
	}
	if rng.IntN(2) == 0 {
		vu := at.Add(time.Duration(rng.Int64N(int64(time.Hour * 24 * 30))))
		o.ValidUntil = &vu
	}
	switch rng.IntN(3) {
	case 0:
	case 1:
		o.Counterparties = []string{}
	default:
		for range rng.IntN(4) + 1 {
			o.Counterparties = append(o.Counterparties, text())
		}
	}
	return o
}
