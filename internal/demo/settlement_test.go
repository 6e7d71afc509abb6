package demo

import (
	"testing"

	"github.com/bondvenue/bondvenue/internal/venue"
)

// TestSettlementMatrix: the compatibility of every two demo CSDs. The two
// ICSDs settle with each other over the bridge, the T2S CSDs with each
// other, and no ICSD with a T2S CSD; every CSD with itself; a CSD the
// venue does not know with any.
func TestSettlementMatrix(t *testing.T) {
	var links []venue.SettlementLink
	for _, l := range SettlementLinks {
		links = append(links, venue.LinkOf(l[0], l[1]))
	}
	s := venue.NewSettlement(nil, nil, nil, links)
	icsd := map[string]bool{euroclearBank: true, clearstreamLux: true}
	csds := []string{euroclearBank, clearstreamLux, clearstreamDE, euroclearFR, euroclearNL, oekb, monteTitoli}
	for _, a := range csds {
		for _, b := range csds {
			if got, want := s.Compatible(a, b), icsd[a] == icsd[b]; got != want {
				t.Errorf("Compatible(%s, %s) = %v, want %v", a, b, got, want)
			}
		}
		if !s.Compatible(a, "") || !s.Compatible("", a) {
			t.Errorf("%s with an unknown CSD: not compatible, want compatible", a)
		}
	}
	distinct := map[venue.SettlementLink]bool{}
	for _, l := range links {
		distinct[l] = true
	}
	if len(distinct) != len(SettlementLinks) {
		t.Errorf("%d distinct links, want the demo's %d, each listed once", len(distinct), len(SettlementLinks))
	}
	// Each demo firm settles at its own CSD, and every two of them can
	// trade (the simulated dealers too).
	for _, f := range append(append([]firm{}, demoFirms...), simulatedFirms...) {
		for _, g := range demoFirms {
			if !s.Compatible(f.csdBIC, g.csdBIC) {
				t.Errorf("demo firms %s (%s) and %s (%s) cannot settle together", f.code, f.csdBIC, g.code, g.csdBIC)
			}
		}
	}
}

// TestSettlementCSD: a side settles at its offer's provider's CSD, else its
// account's default provider's, else its firm's default provider's, else
// the CSD its firm's record names.
func TestSettlementCSD(t *testing.T) {
	s := venue.NewSettlement(map[string]string{"sp-a": euroclearBank, "sp-b": "dakvdeffxxx", "sp-c": euroclearFR},
		[]venue.SettlementParty{{ID: "p1", DefaultProviderID: "sp-c"}, {ID: "p2", CSDBIC11: oekb}, {ID: "p3"}},
		map[string]string{"acc-1": "sp-b"}, nil)
	for _, tt := range []struct{ participant, account, provider, want string }{
		{"p1", "acc-1", "sp-a", euroclearBank},
		{"p1", "acc-1", "", clearstreamDE},
		{"p1", "acc-9", "", euroclearFR},
		{"p1", "", "sp-missing", euroclearFR},
		{"p2", "", "", oekb},
		{"p3", "", "", ""},
	} {
		if got := s.CSD(tt.participant, tt.account, tt.provider); got != tt.want {
			t.Errorf("CSD(%s, %s, %s) = %q, want %q", tt.participant, tt.account, tt.provider, got, tt.want)
		}
	}
}
