package fix_test

import (
	"context"
	"strings"
	"testing"

	"github.com/bondvenue/bondvenue/internal/demo"
	"github.com/bondvenue/bondvenue/internal/store"
	"github.com/bondvenue/bondvenue/internal/trading"
	"github.com/bondvenue/bondvenue/internal/venue"
)

// TestSettlementCompatibility: a FIX dealer's quote to a requester whose
// CSD cannot settle with the dealer's is refused, the QuoteStatusReport
// naming both CSDs; with the link back the same quote stands.
func TestSettlementCompatibility(t *testing.T) {
	d := startDriver(t)
	for _, e := range []store.Engine{store.SQLite, store.Postgres} {
		t.Run(string(e), func(t *testing.T) {
			v := newVenue(t, e)
			otc, in := v.otcBook(t)
			ctx := context.Background()
			_, p1 := v.trader(t, 1)
			s := v.logon(t, d, "csd-"+string(e), "CSD0-"+string(e), 0, true)
			account := v.creds.Participants[0].AccountIDs[0]

			// Firm 0 settles at Clearstream Banking AG, firm 1 at Euroclear France: unlinked.
			var links [][]string
			for _, l := range demo.SettlementLinks {
				if !(l[0] == "DAKVDEFFXXX" && l[1] == "SICVFRPPXXX") && !(l[1] == "DAKVDEFFXXX" && l[0] == "SICVFRPPXXX") {
					links = append(links, l)
				}
			}
			if _, err := v.svc.SetSettlementLinks(ctx, trading.System, links); err != nil {
				t.Fatal(err)
			}
			rfq, err := v.svc.CreateRFQ(ctx, p1, trading.OfferInput{InstrumentID: in.ID, MarketID: otc,
				AccountID: v.creds.Participants[1].AccountIDs[0], Direction: venue.Bid,
				Quantity: &in.MinPiece, Counterparties: []string{v.creds.Participants[0].ID}})
			if err != nil {
				t.Fatalf("REST RFQ: %v", err)
			}
			s.msg(t, "R", func(l fixLine) bool { return l.field(131) == rfq.ID })
			s.send(t, "S", 117, "QC-1", 131, rfq.ID, 1, account, 133, "100.5", 60, fixNow())
			ai := s.msg(t, "AI", func(l fixLine) bool { return l.field(117) == "QC-1" })
			if ai.field(297) != "5" || !strings.Contains(ai.field(58), "DAKVDEFFXXX") || !strings.Contains(ai.field(58), "SICVFRPPXXX") {
				t.Errorf("a quote between unlinked CSDs: %s", ai.Raw)
			}

			if _, err := v.svc.SetSettlementLinks(ctx, trading.System, demo.SettlementLinks); err != nil {
				t.Fatal(err)
			}
			s.send(t, "S", 117, "QC-2", 131, rfq.ID, 1, account, 133, "100.5", 60, fixNow())
			waitFor(t, func() bool {
				got, err := v.svc.RFQ(ctx, p1, rfq.ID)
				return err == nil && len(got.MatchedOffers) == 1
			})
		})
	}
}
