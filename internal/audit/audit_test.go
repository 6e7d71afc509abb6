package audit_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/quagmt/udecimal"

	"github.com/bondvenue/bondvenue/internal/audit"
)

func sample() audit.Entry {
	return audit.Entry{Seq: 1, At: time.Date(2026, 3, 2, 9, 15, 0, 123456000, time.UTC), UserID: "u-0001",
		Role: "VENUE_OPERATOR", Channel: "rest", Action: "market.update", EntityType: "market", EntityID: "m-01",
		Before: json.RawMessage(`{"name":"A","price_collar_percent":"10"}`),
		After:  json.RawMessage(`{"name":"A","price_collar_percent":"5"}`), Reason: "calm market"}
}

// TestCanonical pins the canonical form the package documents, byte for
// byte, and its hash as sha256sum computes it from the same text.
func TestCanonical(t *testing.T) {
	e := sample()
	want := "prev=0:\nseq=1:1\nat=27:2026-03-02T09:15:00.123456Z\nuser=6:u-0001\nrole=14:VENUE_OPERATOR\nchannel=4:rest\n" +
		"action=13:market.update\nentity_type=6:market\nentity_id=4:m-01\n" +
		"before=40:{\"name\":\"A\",\"price_collar_percent\":\"10\"}\nafter=39:{\"name\":\"A\",\"price_collar_percent\":\"5\"}\n" +
		"reason=11:calm market\n"
	if got := string(audit.Canonical(e)); got != want {
		t.Errorf("Canonical() (-want +got):\n%s", cmp.Diff(want, got))
	}
	// printf '<the text above>' | sha256sum
	if got, want := audit.Hash(e), "8d5b998dc4e3e5459e400954de8a9d46e9cd6479fef39b0bfab4e93175416277"; got != want {
		t.Errorf("Hash() = %s, want %s", got, want)
	}
	if got, want := string(audit.Head("", 1))+string(audit.Body(e)), want; got != want {
		t.Errorf("Head + Body = %q, want the canonical form", got)
	}
}

// TestCanonicalNoState: a create has no state before, a delete none after;
// both read "null", and lengths count bytes, not characters.
func TestCanonicalNoState(t *testing.T) {
	e := sample()
	e.Seq, e.PrevHash, e.Before, e.Reason = 2, "ab", nil, "ü"
	got := string(audit.Canonical(e))
	for _, line := range []string{"prev=2:ab\n", "seq=1:2\n", "before=4:null\n", "reason=2:ü\n"} {
		if !strings.Contains(got, line) {
			t.Errorf("Canonical() = %q, want the line %q", got, line)
		}
	}
}

// chain builds a valid trail of n entries.
func chain(n int) []audit.Entry {
	out := make([]audit.Entry, n)
	prev := ""
	for i := range out {
		e := sample()
		e.Seq, e.PrevHash = int64(i+1), prev
		e.Hash = audit.Hash(e)
		out[i], prev = e, e.Hash
	}
	return out
}

func TestChain(t *testing.T) {
	changed := chain(5)
	changed[2].After = json.RawMessage(`{"name":"B"}`)
	rehashed := chain(5)
	rehashed[2].Reason = "other"
	rehashed[2].Hash = audit.Hash(rehashed[2]) // its successor's link now breaks
	full := chain(5)
	deleted := append(append([]audit.Entry{}, full[:2]...), full[3:]...)
	for _, tc := range []struct {
		name    string
		entries []audit.Entry
		want    *audit.Break // nil: the chain holds
	}{
		{"intact", chain(5), nil},
		{"empty", nil, nil},
		{"content changed", changed, &audit.Break{Seq: 3, Content: true, Want: 3}},
		{"content changed and rehashed", rehashed, &audit.Break{Seq: 4, Link: true, Want: 4}},
		{"entry deleted", deleted, &audit.Break{Seq: 4, Link: true, Want: 3}},
		{"first deleted", full[1:], &audit.Break{Seq: 2, Link: true, Want: 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var c audit.Chain
			var err error
			for _, e := range tc.entries {
				if err = c.Add(e); err != nil {
					break
				}
			}
			if tc.want == nil {
				if err != nil || c.Len() != int64(len(tc.entries)) {
					t.Fatalf("Add() = %v after %d entries, want a chain of %d", err, c.Len(), len(tc.entries))
				}
				return
			}
			var b *audit.Break
			if !errors.As(err, &b) {
				t.Fatalf("Add() = %v, want a break", err)
			}
			got := audit.Break{Seq: b.Seq, Content: b.Content, Link: b.Link, Want: b.Want}
			if d := cmp.Diff(*tc.want, got); d != "" {
				t.Errorf("break (-want +got):\n%s\n%v", d, err)
			}
		})
	}
}

func TestBreakMessage(t *testing.T) {
	for _, tc := range []struct {
		b    audit.Break
		want string
	}{
		{audit.Break{Seq: 3, Content: true, Want: 3}, "entry 3: its content does not match its hash (it was changed after it was written)"},
		{audit.Break{Seq: 4, Link: true, Want: 3}, "entry 4: its link to the previous entry breaks: entry 3 is missing"},
		{audit.Break{Seq: 6, Link: true, Want: 3}, "entry 6: its link to the previous entry breaks: entries 3 to 5 are missing"},
		{audit.Break{Seq: 4, Link: true, Want: 4, WantPrev: "aa", GotPrev: "bb"},
			`entry 4: its link to the previous entry breaks: it names "bb", the previous entry's hash is "aa"`},
	} {
		if got := tc.b.Error(); got != tc.want {
			t.Errorf("%+v.Error() = %q, want %q", tc.b, got, tc.want)
		}
	}
}

func TestState(t *testing.T) {
	type terms struct {
		ISIN string `json:"isin"`
	}
	type record struct {
		ID                            string
		MarketIDs                     []string
		KYCStatus                     string
		CSDBIC11                      string
		CustodyAccountBeneficiaryBIC8 string
		D7ID                          string
		IsEnabled                     bool
		PriceCollarPercent            udecimal.Decimal
		Terms                         terms
		Note                          string
	}
	got, err := audit.State(record{ID: "x", MarketIDs: []string{"m"}, KYCStatus: "ok", CSDBIC11: "B", D7ID: "d",
		CustodyAccountBeneficiaryBIC8: "C", IsEnabled: true, PriceCollarPercent: udecimal.MustParse("7.50"),
		Terms: terms{ISIN: "XS1"}, Note: "<&>"})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"csdbic11":"B","custody_account_beneficiary_bic8":"C","d7_id":"d","id":"x","is_enabled":true,` +
		`"kyc_status":"ok","market_ids":["m"],"note":"<&>","price_collar_percent":"7.5","terms":{"isin":"XS1"}}`
	if string(got) != want {
		t.Errorf("State() (-want +got):\n%s", cmp.Diff(want, string(got)))
	}
	if s, err := audit.State(nil); s != nil || err != nil {
		t.Errorf("State(nil) = %s, %v, want no state", s, err)
	}
}
