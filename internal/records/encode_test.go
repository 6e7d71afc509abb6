package records

import (
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/quagmt/udecimal"
)

// TestAppendJSON: the stored form is the JSON array of Values, escapes
// included, and decodes back to them.
func TestAppendJSON(t *testing.T) {
	until := time.Date(2026, 12, 8, 17, 0, 0, 0, time.UTC)
	for _, r := range []Record{
		{},
		{Seq: 42, SubmittingEntity: "529900T8BM49AURSDO55", ClientID: "AGGR", EventTime: time.Date(2026, 12, 7, 10, 31, 7, 123456000, time.UTC),
			ValidUntil: &until, PriorityTime: time.Date(2026, 12, 7, 10, 0, 0, 1000, time.UTC), PrioritySize: udecimal.MustParse("5000"),
			Event: Filled, LimitPrice: udecimal.MustParse("99.125"), HasLimit: true, TransactionPrice: udecimal.MustParse("99.1"),
			TradedQuantity: udecimal.MustParse("1000"), Reason: "a \"quoted\" reason,\nwith a line break, a tab\t and é", Live: true},
	} {
		got := r.AppendJSON(nil)
		want, err := json.Marshal(r.Values())
		if err != nil {
			t.Fatal(err)
		}
		var back []string
		if err := json.Unmarshal(got, &back); err != nil {
			t.Fatalf("AppendJSON wrote %s: %v", got, err)
		}
		var wantBack []string
		_ = json.Unmarshal(want, &wantBack)
		if !slices.Equal(back, wantBack) {
			t.Errorf("AppendJSON decodes to\n%q\nValues are\n%q", back, wantBack)
		}
	}
}
