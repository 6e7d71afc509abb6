package feed

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestLogDepthCompact checks that a ladder survives the log's compact form
// (and the object form of the first builds), and that the compact form is
// what is written.
func TestLogDepthCompact(t *testing.T) {
	want := logDepth{InstrumentID: "ins", MarketID: "mkt", From: 3,
		Bid: []logBest{
			{OfferID: "o1", ParticipantID: "p1", Limit: "99.875", Quantity: "1000000"},
			{OfferID: "o2", ParticipantID: "p2", Limit: "99.5", Quantity: "250000"},
			{OfferID: "o3", ParticipantID: "p1", Limit: "99", Quantity: "100000", MarketOrder: true},
		},
		Ask: []logBest{{OfferID: "o4", ParticipantID: "p2", Limit: "100.25", Quantity: "500000"}},
	}
	b, err := json.Marshal(&want)
	if err != nil {
		t.Fatalf("Marshal() = %v", err)
	}
	const compact = `{"instrument_id":"ins","market_id":"mkt","from":3,"parties":["p1","p2"],` +
		`"bid":[["o1",0,99.875,1000000],["o2",1,99.5,250000],["o3",0,99,100000,1]],"ask":[["o4",1,100.25,500000]]}`
	if string(b) != compact {
		t.Errorf("Marshal() = %s, want %s", b, compact)
	}
	var got logDepth
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatalf("Unmarshal(%s) = %v", b, err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}

	empty := logDepth{InstrumentID: "ins", MarketID: "mkt"}
	b, err = json.Marshal(&empty)
	if err != nil {
		t.Fatalf("Marshal(empty) = %v", err)
	}
	var gotEmpty logDepth
	if err := json.Unmarshal(b, &gotEmpty); err != nil || len(gotEmpty.Bid) != 0 || len(gotEmpty.Ask) != 0 || gotEmpty.MarketID != "mkt" {
		t.Errorf("Unmarshal(%s) = %+v, %v; want an empty ladder of mkt", b, gotEmpty, err)
	}

	objects := `{"instrument_id":"ins","market_id":"mkt","from":0,"bid":[{"offer_id":"o1","participant_id":"p1",` +
		`"limit":99.875,"quantity":1000000,"is_market_order":false}],"ask":[]}`
	var old logDepth
	if err := json.Unmarshal([]byte(objects), &old); err != nil {
		t.Fatalf("Unmarshal(object form) = %v", err)
	}
	if diff := cmp.Diff(want.Bid[:1], old.Bid); diff != "" {
		t.Errorf("object form (-want +got):\n%s", diff)
	}

	for _, bad := range []string{
		`{"parties":["p1"],"bid":[["o1",1,99,1]],"ask":[]}`, // no such party
		`{"parties":["p1"],"bid":[["o1",0,99]],"ask":[]}`,   // a field short
	} {
		var d logDepth
		if err := json.Unmarshal([]byte(bad), &d); err == nil || !strings.Contains(err.Error(), "ladder") {
			t.Errorf("Unmarshal(%s) = %v, want a ladder error", bad, err)
		}
	}
}
