package httpapi

import (
	"bytes"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
)

// offerBodies are create bodies as clients send them, and bodies that are
// wrong in every way decodeBytes words: the seed corpus of FuzzOfferBody.
var offerBodies = []string{
	`{"account_id":"0b8e4a0c-7d1e-4a57-9e55-6a0f0f6f4a11","instrument_id":"5f9c1b2e-3d4a-4b5c-8d6e-7f8091a2b3c4","market_id":"c1d2e3f4-a5b6-4c7d-8e9f-0a1b2c3d4e5f","direction":"bid","price_per_unit":"85.07","quantity":"100000"}`,
	`{"participant_id":"p","user_id":"u","account_id":"a","instrument_id":"i","market_id":"m","direction":"ask","price_per_unit":"110.5","quantity":"100000"}`,
	"{\n  \"instrument_id\": \"i\", \"market_id\": \"m\", \"direction\": \"bid\",\n  \"price_per_unit\": 99.5, \"quantity\": 1000000,\n  \"validity\": \"gtc\", \"notes\": \"core book\", \"id\": \"x\", \"status\": \"closed\",\n  \"filled_quantity\": 5, \"accrued_interest\": \"1\", \"createdAt\": \"2020-01-01\", \"unknown\": true\n}\n",
	`{"instrument_id":"i","market_id":"m","direction":"bid","price":{"limit_price":99.5,"__typename":"LimitOrderPrice"},"quantity":"1e5"}`,
	`{"price_per_unit":{"limit_price":"99.5"},"quantity":-1,"market_order":true,"is_executable":false}`,
	`{"settlement_date":"2026-03-04","valid_until":"2026-03-04 12:00:00","validity":"gtd","matched_offer_id":"r"}`,
	`{"settlement_date":null,"valid_until":null,"counterparties":["a","b"],"notes":null,"market_order":null}`,
	`{"counterparties":[],"price":null,"quantity":null,"price_per_unit":null}`,
	`{"counterparties":null}`, `{}`, ` {} `, `{"a":{"b":[1,2,{"c":null}],"d":-0.5e+10},"e":[],"f":{}}`,
	`{"notes":"ünïcödé €","direction":"sell"}`, `{"notes":"\u0000"}`, `{"notes":"a\nb"}`, `{"Notes":"upper"}`,
	`{"NOTES":"x","notes":"y"}`, `{"notes":"x","notes":"y"}`, `{"price":"1","price":"x"}`, `{"price_per_unit":"x","price_per_unit":1}`,
	`{"direction":5}`, `{"direction":5,"quantity":"x","market_order":"true","counterparties":"a"}`, `{"counterparties":[1]}`,
	`{"counterparties":[null]}`, `{"settlement_date":5}`, `{"quantity":[1]}`, `{"quantity":{"a":1}}`, `{"quantity":true}`,
	`{"quantity":"  5 "}`, `{"quantity":01}`, `{"quantity":1.}`, `{"quantity":.5}`, `{"quantity":-}`, `{"quantity":1e}`,
	`{"price_per_unit":{"limit_price":{}}}`, `{"price_per_unit":{}}`, `{"price_per_unit":[]}`,
	``, ` `, `null`, `[]`, `"x"`, `5`, `{`, `}`, `{"a"}`, `{"a":}`, `{"a":1,}`, `{,}`, `{"a":1}}`, `{"a":1} x`, `{"a":1}{"b":2}`,
	`{"a":tru}`, `{"a":nul}`, `{"a":"\x01"}`, "{\"notes\":\"\xff\"}", "{\"\xff\":1}", "\xef\xbb\xbf{}", `{"a":1}` + "\n\n",
	`{"participant_\u0069d":"p"}`, `{"ſettlement_date":"2026-01-01"}`, "{\"\u212aey\":1}", `{"a":[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]}`,
	`{"a":"` + strings.Repeat("x", 5000) + `"}`, `{"notes":"` + strings.Repeat("é", 2000) + `"}`,
	`{"market_order":true,"is_executable":true,"market_order":false}`, `{"is_executable":1}`,
}

// FuzzOfferBody: on every input, the purpose-built decoder either leaves
// the body to decodeBytes, untouched, or reads what decodeBytes reads
// from a body decodeBytes accepts.
//
//	go test -run '^$' -fuzz FuzzOfferBody -fuzztime 60s ./internal/httpapi/
func FuzzOfferBody(f *testing.F) {
	for _, s := range offerBodies {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var fast offerBody
		ok := parseOfferBody(b, &fast)
		if !ok {
			if !reflect.DeepEqual(fast, offerBody{}) {
				t.Fatalf("parseOfferBody(%q) refused the body but changed it: %+v", b, fast)
			}
			return
		}
		var want offerBody
		if err := decodeBytes(b, &want); err != nil {
			t.Fatalf("parseOfferBody(%q) took a body decodeBytes refuses: %v", b, err)
		}
		if !reflect.DeepEqual(fast, want) {
			t.Fatalf("parseOfferBody(%q) = %+v, decodeBytes reads %+v", b, fast, want)
		}
	})
}

// TestOfferBodyFastPath: the bodies clients send take the purpose-built
// decoder; bodies with escapes, odd types or repeated fields do not.
func TestOfferBodyFastPath(t *testing.T) {
	for i, want := range map[int]bool{0: true, 1: true, 2: true, 3: true, 4: true, 5: true, 6: true, 7: true, 13: false,
		15: false, 17: false, 20: false} {
		var body offerBody
		if got := parseOfferBody([]byte(offerBodies[i]), &body); got != want {
			t.Errorf("parseOfferBody(%s) = %v, want %v", offerBodies[i], got, want)
		}
	}
}

// TestDecodeOffer: through the request path, decodeOffer answers every
// seed body as decode does: the same body or the same error.
func TestDecodeOffer(t *testing.T) {
	for _, s := range offerBodies {
		r1 := httptest.NewRequest("POST", "/api/v1/participant/offers", bytes.NewReader([]byte(s)))
		r2 := httptest.NewRequest("POST", "/api/v1/participant/offers", bytes.NewReader([]byte(s)))
		var got, want offerBody
		gotErr, wantErr := decodeOffer(r1, &got), decode(r2, &want)
		if !reflect.DeepEqual(gotErr, wantErr) || !reflect.DeepEqual(got, want) {
			t.Errorf("decodeOffer(%q) = %+v, %v; decode: %+v, %v", s, got, gotErr, want, wantErr)
		}
	}
	big := `{"notes":"` + strings.Repeat("x", maxBody) + `"}`
	var got, want offerBody
	gotErr := decodeOffer(httptest.NewRequest("POST", "/", strings.NewReader(big)), &got)
	wantErr := decode(httptest.NewRequest("POST", "/", strings.NewReader(big)), &want)
	if gotErr == nil || !reflect.DeepEqual(gotErr, wantErr) {
		t.Errorf("decodeOffer of a body past the limit = %v, decode: %v", gotErr, wantErr)
	}
}

// BenchmarkOfferBody measures reading bvload's offer body: by
// encoding/json (decodeBytes) and by the purpose-built decoder.
//
//	go test -run '^$' -bench OfferBody ./internal/httpapi/
func BenchmarkOfferBody(b *testing.B) {
	body := []byte(offerBodies[0])
	b.Run("encoding-json", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var v offerBody
			if err := decodeBytes(body, &v); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("parseOfferBody", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var v offerBody
			if !parseOfferBody(body, &v) {
				b.Fatal("refused")
			}
		}
	})
}
