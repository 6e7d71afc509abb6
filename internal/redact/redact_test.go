package redact_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/quagmt/udecimal"

	"github.com/bondvenue/bondvenue/internal/bondmath"
	"github.com/bondvenue/bondvenue/internal/feed"
	"github.com/bondvenue/bondvenue/internal/redact"
	"github.com/bondvenue/bondvenue/internal/venue"
)

// decimals compares exact decimals and dates by value.
var decimals = cmp.Options{cmp.Comparer(func(a, b udecimal.Decimal) bool { return a.Equal(b) }),
	cmp.Comparer(func(a, b bondmath.Date) bool { return a == b })}

var (
	operator  = venue.Principal{UserID: "op", Role: venue.RoleOperator}
	ownTrader = venue.Principal{UserID: "u1", ParticipantID: "firm-a", Role: venue.RoleTrader}
	other     = venue.Principal{UserID: "u2", ParticipantID: "firm-b", Role: venue.RoleTrader}
)

func TestOffer(t *testing.T) {
	o := venue.Offer{ID: "o1", ParticipantID: "firm-a", AccountID: "acc", UserID: "u1", SettlementProviderID: "sp",
		ClientOrderID: "cl-1", Counterparties: []string{"firm-b"}, Parties: venue.Parties{ClientID: "PNAL", Capacity: "AOTC"}}
	hidden := o
	hidden.AccountID, hidden.UserID, hidden.SettlementProviderID, hidden.ClientOrderID, hidden.Counterparties = "", "", "", "", nil
	hidden.Parties = venue.Parties{}
	tests := []struct {
		name string
		p    venue.Principal
		want venue.Offer
	}{
		{"its own firm sees everything", ownTrader, o},
		{"the operator sees everything", operator, o},
		{"another firm sees the participant only", other, hidden},
		{"a principal of no firm sees the participant only", venue.Principal{Role: venue.RoleViewer}, hidden},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, redact.Offer(tt.p, o), decimals); diff != "" {
				t.Errorf("Offer() (-want +got):\n%s", diff)
			}
		})
	}
}

func TestPortfolio(t *testing.T) {
	r := venue.PortfolioRFQ{ID: "l1", ParticipantID: "firm-a", AccountID: "acc", UserID: "u1", ClientID: "c",
		Counterparties: []string{"firm-b", "firm-c"}, Parties: venue.Parties{ClientID: "AGGR", Capacity: "AOTC"},
		Lines: []venue.PortfolioLine{{TradeID: "t1"}},
		Quotes: []venue.PortfolioQuote{
			{ID: "q1", ParticipantID: "firm-b", AccountID: "acc-b", UserID: "ub", ClientID: "cb", Outcome: venue.OutcomeDone,
				Parties: venue.Parties{ExecutionDecision: "algo-b"}},
			{ID: "q2", ParticipantID: "firm-c", AccountID: "acc-c", UserID: "uc", ClientID: "cc"},
		}}
	requester := r
	requester.Quotes = []venue.PortfolioQuote{{ID: "q1", ParticipantID: "firm-b", Outcome: venue.OutcomeDone}, {ID: "q2", ParticipantID: "firm-c"}}
	winner := r
	winner.AccountID, winner.UserID, winner.ClientID, winner.Counterparties, winner.Parties = "", "", "", nil, venue.Parties{}
	winner.Quotes = r.Quotes[:1]
	loser := winner
	loser.Quotes = r.Quotes[1:]
	loser.Lines = []venue.PortfolioLine{{}}
	tests := []struct {
		name string
		p    venue.Principal
		want venue.PortfolioRFQ
	}{
		{"the operator sees everything", operator, r},
		{"the requester sees every quote without the dealers' accounts", ownTrader, requester},
		{"the dealer that was done sees its quote and the trades", other, winner},
		{"another dealer sees its quote, not the trades", venue.Principal{ParticipantID: "firm-c", Role: venue.RoleTrader}, loser},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, redact.Portfolio(tt.p, r), decimals); diff != "" {
				t.Errorf("Portfolio() (-want +got):\n%s", diff)
			}
		})
	}
	if r.Quotes[0].AccountID != "acc-b" {
		t.Error("Portfolio() changed the record it was given")
	}
}

func TestAudience(t *testing.T) {
	ip := venue.IndicativePrice{ID: "i1", ParticipantID: "firm-a", AccountID: "acc", UserID: "u1"}
	tests := []struct {
		name string
		a    redact.Audience
		want venue.IndicativePrice
	}{
		{"its own firm", redact.Audience{P: ownTrader}, ip},
		{"the operator", redact.Audience{P: operator}, ip},
		{"a counterparty sees the participant", redact.Audience{P: other, Counterparties: map[string]bool{"firm-a": true}},
			venue.IndicativePrice{ID: "i1", ParticipantID: "firm-a"}},
		{"another firm sees neither", redact.Audience{P: other}, venue.IndicativePrice{ID: "i1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, tt.a.IndicativePrice(ip), decimals); diff != "" {
				t.Errorf("IndicativePrice() (-want +got):\n%s", diff)
			}
		})
	}
}

func TestViewerEntry(t *testing.T) {
	links := venue.NewSettlement(nil, nil, nil, []venue.SettlementLink{venue.LinkOf("CSDAAAAAXXX", "CSDBBBBBXXX")})
	names := func(id string) (string, string) { return "name of " + id, "lei of " + id }
	entry := &feed.LimitEntry{ParticipantID: "firm-a", CSD: "CSDAAAAAXXX", OfferID: "o1"}
	named := func(enabled bool) *feed.LimitEntry {
		e := *entry
		e.ParticipantName, e.ParticipantLEI, e.IsCounterpartyEnabled = "name of firm-a", "lei of firm-a", enabled
		return &e
	}
	anonymous := &feed.LimitEntry{CSD: "CSDAAAAAXXX", OfferID: "o1"}
	tests := []struct {
		name string
		v    redact.Viewer
		want *feed.LimitEntry
	}{
		{"a counterparty at a linked CSD can trade with it", redact.Viewer{P: other, Counterparties: map[string]bool{"firm-a": true},
			Settlement: links, CSD: "CSDBBBBBXXX", Names: names}, named(true)},
		{"a counterparty at an unlinked CSD sees it anonymous", redact.Viewer{P: other, Counterparties: map[string]bool{"firm-a": true},
			Settlement: links, CSD: "CSDCCCCCXXX", Names: names}, anonymous},
		{"another firm sees it anonymous", redact.Viewer{P: other, Settlement: links, Names: names}, anonymous},
		{"its own firm sees its name", redact.Viewer{P: ownTrader, Names: names}, named(false)},
		{"the operator sees its name", redact.Viewer{P: operator, Names: names}, named(false)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, tt.v.Entry(entry), decimals); diff != "" {
				t.Errorf("Entry() (-want +got):\n%s", diff)
			}
		})
	}
	if (&redact.Viewer{P: other}).Entry(nil) != nil {
		t.Error("Entry(nil) is not nil")
	}
}

func TestViewerSees(t *testing.T) {
	tests := []struct {
		name string
		p    venue.Principal
		e    feed.Event
		want bool
	}{
		{"a public event", other, feed.Event{}, true},
		{"its own firm's", ownTrader, feed.Event{Owner: "firm-a"}, true},
		{"another firm's", other, feed.Event{Owner: "firm-a"}, false},
		{"another firm's that names it", other, feed.Event{Owner: "firm-a", Audience: []string{"firm-b"}}, true},
		{"the operator sees every firm's", operator, feed.Event{Owner: "firm-a"}, true},
		{"no firm reads a firm's event", venue.Principal{Role: venue.RoleViewer}, feed.Event{Owner: "firm-a", Audience: []string{""}}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := redact.Viewer{P: tt.p}
			if got := v.Sees(&tt.e); got != tt.want {
				t.Errorf("Sees(%+v) = %v, want %v", tt.e, got, tt.want)
			}
		})
	}
}

func TestViewerEventCopies(t *testing.T) {
	o := &venue.Offer{ID: "o1", ParticipantID: "firm-a", AccountID: "acc"}
	e := feed.Event{Offer: o}
	got := (&redact.Viewer{P: other}).Event(e)
	if got.Offer.AccountID != "" || o.AccountID != "acc" {
		t.Errorf("Event() = account %q, shared record's %q; want the copy blanked, the shared record kept", got.Offer.AccountID, o.AccountID)
	}
	tr := &venue.Trade{ID: "t1", AskOrder: venue.Order{AccountID: "a"}, BidOrder: venue.Order{AccountID: "b"}}
	got = (&redact.Viewer{P: ownTrader}).Event(feed.Event{Trade: tr})
	if got.Trade.AskOrder.AccountID != "" || got.Trade.BidOrder.AccountID != "" || tr.AskOrder.AccountID != "a" {
		t.Errorf("Event(trade) = %+v, want neither order's account, the shared trade kept", got.Trade)
	}
}
