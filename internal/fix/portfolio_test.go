package fix_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/quagmt/udecimal"

	"github.com/bondvenue/bondvenue/internal/store"
	"github.com/bondvenue/bondvenue/internal/testenv"
	"github.com/bondvenue/bondvenue/internal/trading"
	"github.com/bondvenue/bondvenue/internal/venue"
)

// TestPortfolioRFQ runs a portfolio (list) RFQ both ways between FIX and
// REST, with the independent FIX engine as the client: a REST requester's
// list reaches a FIX dealer as one QuoteRequest with 66 ListID and an entry
// per line, the dealer quotes it whole with a MassQuote (acknowledged with
// MassQuoteAcknowledgement), and the accept reports every line's fill to the
// dealer; a FIX requester sends a list with 66 and 146 = N, receives the
// REST dealer's quote as a MassQuote, accepts it with QuoteResponse AJ and
// gets every line's fill under its AJ's ClOrdID.
func TestPortfolioRFQ(t *testing.T) {
	d := startDriver(t)
	for _, e := range []store.Engine{store.SQLite, store.Postgres} {
		t.Run(string(e), func(t *testing.T) {
			v := newVenue(t, e)
			market, in := v.otcBook(t)
			ctx := context.Background()
			_, p0 := v.trader(t, 0)
			_, p1 := v.trader(t, 1)
			fix0 := v.logon(t, d, "list0-"+string(e), "LIST0-"+string(e), 0, true)
			fix1 := v.logon(t, d, "list1-"+string(e), "LIST1-"+string(e), 1, true)
			qty := in.MinPiece

			// REST requester → FIX dealer: buy, sell, buy.
			r, err := v.svc.CreatePortfolioRFQ(ctx, p0, trading.PortfolioInput{MarketID: market, Counterparties: []string{p1.ParticipantID},
				Lines: []trading.PortfolioLineInput{{InstrumentID: in.ID, Direction: venue.Bid, Quantity: &qty},
					{InstrumentID: in.ID, Direction: venue.Ask, Quantity: &qty}, {InstrumentID: in.ID, Direction: venue.Bid, Quantity: &qty}}})
			if err != nil {
				t.Fatalf("REST list: %v", err)
			}
			req := fix1.msg(t, "R", func(l fixLine) bool { return l.field(66) == r.ID })
			if req.field(131) != r.ID || req.field(146) != "3" || len(req.fields(48)) != 3 ||
				strings.Join(req.fields(54), ",") != "1,2,1" || req.field(36010) != v.creds.Participants[0].LEI {
				t.Errorf("the list's QuoteRequest to the FIX dealer: %s", req.Raw)
			}
			fix1.send(t, "i", 117, "MQ-1", 131, r.ID, 296, 1, 302, r.ID, 304, 3, 295, 3,
				299, "1", 133, "100.125", 299, "2", 132, "99.5", 299, "3", 133, "100.25")
			ack := fix1.msg(t, "b", func(l fixLine) bool { return l.field(117) == "MQ-1" })
			if ack.field(297) != "0" {
				t.Fatalf("MassQuoteAcknowledgement: %s", ack.Raw)
			}
			// A MassQuote missing a line is refused, naming why.
			fix1.send(t, "i", 117, "MQ-BAD", 131, r.ID, 296, 1, 302, r.ID, 304, 1, 295, 1, 299, "1", 133, "100.125")
			bad := fix1.msg(t, "b", func(l fixLine) bool { return l.field(117) == "MQ-BAD" })
			if bad.field(297) != "5" || !strings.Contains(bad.field(58), "has no price") {
				t.Errorf("MassQuote missing a line: %s", bad.Raw)
			}
			view, err := v.svc.PortfolioRFQ(ctx, p0, r.ID)
			if err != nil || len(view.Quotes) != 1 {
				t.Fatalf("the REST requester reads %d quotes, %v", len(view.Quotes), err)
			}
			q := view.Quotes[0]
			if !q.Lines[1].PricePerUnit.Equal(udecimal.MustParse("99.5")) || q.ClientID != "" {
				t.Errorf("the FIX dealer's quote over REST: %+v", q)
			}
			acc, err := v.svc.AcceptPortfolioQuote(ctx, p0, r.ID, q.ID, venue.Parties{})
			if err != nil || len(acc.Trades) != 3 {
				t.Fatalf("REST accept: %d trades, %v", len(acc.Trades), err)
			}
			for i, tr := range acc.Trades {
				f := fix1.msg(t, "8", func(l fixLine) bool { return l.field(150) == "F" && l.field(880) == tr.TransactionIdentificationCode })
				want := []string{"2", "1", "2"}[i] // the dealer's side of each line
				if f.field(66) != r.ID || f.field(54) != want || f.field(31) != tr.PricePerUnit.String() {
					t.Errorf("the FIX dealer's fill of line %d: %s", i+1, f.Raw)
				}
			}
			done := fix1.msg(t, "AI", func(l fixLine) bool { return l.field(117) == "MQ-1" && l.field(297) == "0" })
			if done.field(58) != "done" {
				t.Errorf("the FIX dealer's quote status: %s", done.Raw)
			}

			// FIX requester → REST dealer, named by LEI.
			fix0.send(t, "R", 131, "L-REQ-1", 66, "L-1", 146, 2,
				55, "[N/A]", 48, in.Terms.ISIN, 22, 4, 54, 1, 38, qty,
				55, "[N/A]", 48, in.Terms.ISIN, 22, 4, 54, 2, 38, qty,
				1301, market, 36011, v.creds.Participants[1].LEI)
			var list trading.PortfolioView
			waitFor(t, func() bool {
				l, err := v.svc.PortfolioRFQs(ctx, p1, venue.StatusCreated, venue.Page{Limit: 10})
				if err == nil && len(l.Items) == 1 {
					list.PortfolioRFQ = l.Items[0]
					return true
				}
				return false
			})
			if len(list.Lines) != 2 || list.Lines[1].Direction != venue.Ask || list.ClientID != "" {
				t.Errorf("the FIX requester's list as the REST dealer reads it: %+v", list.PortfolioRFQ)
			}
			a, b := udecimal.MustParse("100.5"), udecimal.MustParse("99.75")
			quoted, err := v.svc.QuotePortfolio(ctx, p1, list.ID, trading.PortfolioQuoteInput{Lines: []trading.PortfolioQuoteLineInput{
				{LineID: "1", Price: &a}, {LineID: "2", Price: &b}}})
			if err != nil {
				t.Fatalf("REST quote: %v", err)
			}
			qid := quoted.Quotes[0].ID
			mq := fix0.msg(t, "i", func(l fixLine) bool { return l.field(117) == qid })
			if mq.field(131) != "L-REQ-1" || mq.field(302) != list.ID || strings.Join(mq.fields(299), ",") != "1,2" ||
				mq.field(133) != "100.5" || mq.field(132) != "99.75" {
				t.Errorf("the MassQuote to the FIX requester: %s", mq.Raw)
			}
			fix0.send(t, "AJ", 693, "LRESP-1", 11, "LHIT-1", 117, qid, 131, "L-REQ-1", 694, 1, 60, fixNow())
			for range 2 {
				f := fix0.msg(t, "8", func(l fixLine) bool { return l.field(150) == "F" && l.field(66) == list.ID })
				if f.field(11) != "LHIT-1" {
					t.Errorf("the FIX requester's fill carries 11 = %q, want its AJ's LHIT-1: %s", f.field(11), f.Raw)
				}
			}
			trades, err := v.svc.Trades(ctx, p1, trading.TradeFilter{}, venue.Page{Limit: 100})
			if err != nil {
				t.Fatal(err)
			}
			n := 0
			for _, tr := range trades.Items {
				if tr.PortfolioRFQID == list.ID {
					n++
				}
			}
			if n != 2 {
				t.Errorf("the REST dealer's trades of the list: %d, want 2", n)
			}
		})
	}
}

// waitFor polls cond until it holds.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	testenv.Wait(t, "the condition", cond)
}

// TestPortfolioFiveDealers: a 100-line two-sided list to five dealers,
// one of them quoting over FIX with a 100-entry MassQuote and four over
// REST (two of them firms onboarded for the test), trades all 100 lines
// with the best quote in one accept; the trades' settlement amounts add
// up to its net proceeds to the cent, and the FIX dealer, which lost, is
// told its outcome.
func TestPortfolioFiveDealers(t *testing.T) {
	d := startDriver(t)
	for _, e := range []store.Engine{store.SQLite, store.Postgres} {
		t.Run(string(e), func(t *testing.T) {
			v := newVenue(t, e)
			market, _ := v.otcBook(t)
			ctx := context.Background()
			_, p0 := v.trader(t, 0)
			on := true
			dealers := []venue.Principal{}
			for i := 1; i <= 3; i++ {
				_, p := v.trader(t, i)
				dealers = append(dealers, p)
			}
			for n := range 2 { // two more firms, onboarded as an operator would
				name, lei := fmt.Sprintf("List Dealer %d", n), fmt.Sprintf("529900LIST%08d", n)
				lei += venue.LEICheckDigits(lei)
				country, role, email := "DE", venue.RoleTrader, fmt.Sprintf("list%d@example.com", n)
				p, err := v.svc.CreateParticipant(ctx, trading.System, trading.ParticipantInput{Name: &name, LEI: &lei, Country: &country})
				if err != nil {
					t.Fatal(err)
				}
				if _, err := v.svc.CreateAccount(ctx, trading.System, trading.AccountInput{ParticipantID: p.ID, Number: "LIST-" + fmt.Sprint(n)}); err != nil {
					t.Fatal(err)
				}
				u, err := v.svc.CreateUser(ctx, trading.System, trading.UserInput{ParticipantID: &p.ID, Email: &email, Role: &role})
				if err != nil {
					t.Fatal(err)
				}
				limit := udecimal.MustParse("1000000000") // a new firm starts with limits of 0
				for _, name := range trading.RiskLimitNames() {
					if _, err := v.svc.SetRiskLimit(ctx, trading.System, p.ID, trading.RiskLimitInput{Name: name, Value: &limit}); err != nil {
						t.Fatal(err)
					}
				}
				dealers = append(dealers, venue.Principal{UserID: u.ID, ParticipantID: p.ID, Role: venue.RoleTrader})
			}
			var ids []string
			for _, dl := range dealers {
				if _, err := v.svc.SetCounterparty(ctx, trading.System, p0.ParticipantID, dl.ParticipantID, &on); err != nil {
					t.Fatal(err)
				}
				ids = append(ids, dl.ParticipantID)
			}
			fixDealer := v.logon(t, d, "five1-"+string(e), "FIVE1-"+string(e), 1, true)

			ins, err := v.svc.Instruments(ctx, trading.System, trading.InstrumentFilter{MarketID: market}, venue.Page{})
			if err != nil {
				t.Fatal(err)
			}
			const n = 100
			in := trading.PortfolioInput{MarketID: market, Counterparties: ids}
			for i := range n {
				x := ins.Items[i%len(ins.Items)]
				dir := venue.Bid
				if i%3 == 1 {
					dir = venue.Ask
				}
				qty := x.MinPiece
				in.Lines = append(in.Lines, trading.PortfolioLineInput{InstrumentID: x.ID, Direction: dir, Quantity: &qty})
			}
			r, err := v.svc.CreatePortfolioRFQ(ctx, p0, in)
			if err != nil {
				t.Fatalf("list: %v", err)
			}
			// Dealer k (1 the FIX one, 2 to 5 over REST) prices line i at
			// 100.(10-k) where the requester buys and 99.(90+k) where it
			// sells: the higher k, the better for the requester.
			price := func(k, i int) string {
				if in.Lines[i].Direction == venue.Bid {
					return fmt.Sprintf("100.%02d", 10-k)
				}
				return fmt.Sprintf("99.%02d", 90+k)
			}
			req := fixDealer.msg(t, "R", func(l fixLine) bool { return l.field(66) == r.ID })
			if req.field(146) != fmt.Sprint(n) {
				t.Fatalf("the FIX dealer's QuoteRequest has 146 = %s, want %d", req.field(146), n)
			}
			fields := []any{117, "FIVE-MQ", 131, r.ID, 296, 1, 302, r.ID, 304, n, 295, n}
			for i := range n {
				px := 133
				if in.Lines[i].Direction == venue.Ask {
					px = 132
				}
				fields = append(fields, 299, fmt.Sprint(i+1), px, price(1, i))
			}
			fixDealer.send(t, "i", fields...)
			if ack := fixDealer.msg(t, "b", func(l fixLine) bool { return l.field(117) == "FIVE-MQ" }); ack.field(297) != "0" {
				t.Fatalf("MassQuoteAcknowledgement: %s", ack.Raw)
			}
			for k, dl := range dealers[1:] {
				q := trading.PortfolioQuoteInput{}
				for i := range n {
					p := udecimal.MustParse(price(k+2, i))
					q.Lines = append(q.Lines, trading.PortfolioQuoteLineInput{LineID: fmt.Sprint(i + 1), Price: &p})
				}
				if _, err := v.svc.QuotePortfolio(ctx, dl, r.ID, q); err != nil {
					t.Fatalf("REST dealer %d: %v", k+2, err)
				}
			}
			view, err := v.svc.PortfolioRFQ(ctx, p0, r.ID)
			if err != nil || len(view.Quotes) != 5 {
				t.Fatalf("the requester reads %d quotes, %v", len(view.Quotes), err)
			}
			best := view.Quotes[0]
			for _, q := range view.Quotes[1:] {
				if q.NetProceeds.GreaterThan(best.NetProceeds) {
					best = q
				}
			}
			if best.ParticipantID != dealers[4].ParticipantID {
				t.Errorf("the best quote is %s's, want the last dealer's", best.ParticipantID)
			}
			acc, err := v.svc.AcceptPortfolioQuote(ctx, p0, r.ID, best.ID, venue.Parties{})
			if err != nil || len(acc.Trades) != n {
				t.Fatalf("accept: %d trades, %v", len(acc.Trades), err)
			}
			sum := udecimal.Zero
			for i, tr := range acc.Trades {
				if tr.PortfolioRFQID != r.ID || tr.InstrumentID != in.Lines[i].InstrumentID || !tr.Quantity.Equal(*in.Lines[i].Quantity) {
					t.Errorf("trade %d: %+v", i, tr)
				}
				if in.Lines[i].Direction == venue.Ask {
					sum = sum.Add(tr.SettlementAmount)
				} else {
					sum = sum.Sub(tr.SettlementAmount)
				}
			}
			if !sum.Equal(best.NetProceeds) {
				t.Errorf("the trades' settlement amounts, signed, sum to %s; the quote's net proceeds are %s", sum, best.NetProceeds)
			}
			lost := fixDealer.msg(t, "AI", func(l fixLine) bool { return l.field(117) == "FIVE-MQ" && l.field(297) == "5" })
			if lost.field(58) != "done_away" {
				t.Errorf("the FIX dealer's outcome: %s", lost.Raw)
			}
			if aj := fixDealer.msg(t, "AJ", func(l fixLine) bool { return l.field(117) == "FIVE-MQ" }); aj.field(694) != "5" || aj.field(131) != r.ID {
				t.Errorf("the losing FIX dealer's QuoteResponse: %s", aj.Raw)
			}
		})
	}
}
