package transparency

import (
	"testing"
	"time"

	"github.com/quagmt/udecimal"

	"github.com/bondvenue/bondvenue/internal/venue"
)

func bond(industry, amtIssue string) venue.Instrument {
	return venue.Instrument{Terms: venue.InstrumentTerms{Industry: industry, AmtIssue: amtIssue}}
}

// TestDueTimes: every band of the shipped table, to the second, for a
// trade on a winter and a summer afternoon, after the close, and on a
// Friday (end of day then falls on Monday's opening; weeks move past a
// TARGET2 holiday).
func TestDueTimes(t *testing.T) {
	tab := Default()
	bund, btp, nl, corp := bond("Sovereign", "27000000000"), bond("Sovereign", "15000000000"), bond("Sovereign", "14000000000"),
		bond("Industrials", "1000000000")
	at := func(s string) time.Time {
		v, err := time.Parse(time.RFC3339, s)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	hit := map[string]bool{}
	for _, tt := range []struct {
		in            venue.Instrument
		qty, trade    string
		band          string
		price, volume string
	}{
		// The most liquid sovereigns: below 15 m at once.
		{bund, "14999000", "2027-01-13T10:00:00Z", "SL0", "2027-01-13T10:00:00Z", "2027-01-13T10:00:00Z"},
		// 15–50 m: price after 15 minutes, volume at the end of the day (19:00 CET = 18:00 UTC).
		{bund, "15000000", "2027-01-13T10:00:07Z", "SL1", "2027-01-13T10:15:07Z", "2027-01-13T18:00:00Z"},
		{btp, "49999000", "2027-07-14T10:00:00Z", "SL1", "2027-07-14T10:15:00Z", "2027-07-14T17:00:00Z"}, // CEST
		// After the close: the next business day's 09:00 CET.
		{bund, "20000000", "2027-01-13T18:30:00Z", "SL1", "2027-01-13T18:45:00Z", "2027-01-14T08:00:00Z"},
		// A Friday at the close: Monday 09:00.
		{bund, "20000000", "2027-01-15T18:00:00Z", "SL1", "2027-01-15T18:15:00Z", "2027-01-18T08:00:00Z"},
		// 50–100 m: price end of day, volume a week on at 19:00 CET.
		{bund, "50000000", "2027-01-13T10:00:00Z", "SL2", "2027-01-13T18:00:00Z", "2027-01-20T18:00:00Z"},
		// 100 m and more: four weeks both.
		{bund, "100000000", "2027-01-13T10:00:00Z", "SL3", "2027-02-10T18:00:00Z", "2027-02-10T18:00:00Z"},
		// Other sovereigns (below 15 bn issued).
		{nl, "4999000", "2027-01-13T10:00:00Z", "SV0", "2027-01-13T10:00:00Z", "2027-01-13T10:00:00Z"},
		{nl, "5000000", "2027-01-13T10:00:00Z", "SV1", "2027-01-13T10:15:00Z", "2027-01-13T18:00:00Z"},
		// Two weeks from 2027-03-12 is 2027-03-26, Good Friday (TARGET2 closed); the Monday after is
		// Easter Monday: Tuesday 2027-03-30 at 19:00 CEST.
		{nl, "25000000", "2027-03-12T10:00:00Z", "SV2", "2027-03-12T18:00:00Z", "2027-03-30T17:00:00Z"},
		{nl, "50000000", "2027-01-13T10:00:00Z", "SV3", "2027-02-10T18:00:00Z", "2027-02-10T18:00:00Z"},
		// Corporates.
		{corp, "999000", "2027-01-13T10:00:00Z", "OT0", "2027-01-13T10:00:00Z", "2027-01-13T10:00:00Z"},
		{corp, "1000000", "2027-01-13T10:00:00Z", "OT1", "2027-01-13T10:15:00Z", "2027-01-13T18:00:00Z"},
		{corp, "5000000", "2027-01-13T10:00:00Z", "OT2", "2027-01-13T18:00:00Z", "2027-01-27T18:00:00Z"},
		{corp, "15000000", "2027-01-13T10:00:00Z", "OT3", "2027-02-10T18:00:00Z", "2027-02-10T18:00:00Z"},
	} {
		p := tab.Publication(tt.in, udecimal.MustParse(tt.qty), at(tt.trade), venue.CentralEurope)
		hit[p.Deferral] = true
		if p.Deferral != tt.band || !p.PriceDueAt.Equal(at(tt.price)) || !p.VolumeDueAt.Equal(at(tt.volume)) {
			t.Errorf("%s %s at %s: %s price %s volume %s, want %s %s %s", tt.in.Terms.Industry, tt.qty, tt.trade, p.Deferral,
				p.PriceDueAt.Format(time.RFC3339), p.VolumeDueAt.Format(time.RFC3339), tt.band, tt.price, tt.volume)
		}
	}
	for _, b := range tab.Bands {
		if !hit[b.ID] {
			t.Errorf("band %s of the shipped table is not tested", b.ID)
		}
	}
}

// TestParse: a table that cannot work is refused.
func TestParse(t *testing.T) {
	for name, src := range map[string]string{
		"no catch-all class": `{"classes":[{"class":"a","industries":["x"]}],"bands":[{"id":"A","class":"a","from":"0","price":"now","volume":"now"}]}`,
		"no band from 0":     `{"classes":[{"class":"a"}],"bands":[{"id":"A","class":"a","from":"5","price":"now","volume":"now"}]}`,
		"bad delay":          `{"classes":[{"class":"a"}],"bands":[{"id":"A","class":"a","from":"0","price":"soon","volume":"now"}]}`,
		"price after volume": `{"classes":[{"class":"a"}],"bands":[{"id":"A","class":"a","from":"0","price":"eod","volume":"15m"}]}`,
		"unknown class":      `{"classes":[{"class":"a"}],"bands":[{"id":"A","class":"b","from":"0","price":"now","volume":"now"}]}`,
		"unknown field":      `{"classes":[{"class":"a"}],"bands":[{"id":"A","class":"a","from":"0","price":"now","volume":"now"}],"extra":1}`,
	} {
		if _, err := Parse([]byte(src)); err == nil {
			t.Errorf("%s: Parse = nil error", name)
		}
	}
	// Each case is one mistake away from a table that parses.
	if _, err := Parse([]byte(`{"classes":[{"class":"a"}],"bands":[{"id":"A","class":"a","from":"0","price":"now","volume":"now"}]}`)); err != nil {
		t.Errorf("the smallest valid table: Parse = %v", err)
	}
}
