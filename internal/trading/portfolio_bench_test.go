package trading_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/quagmt/udecimal"

	"github.com/bondvenue/bondvenue/internal/feed"
	"github.com/bondvenue/bondvenue/internal/testenv"
	"github.com/bondvenue/bondvenue/internal/trading"
	"github.com/bondvenue/bondvenue/internal/venue"
)

// portfolioLines is the size of the benchmark's list.
const portfolioLines = 100

// BenchmarkPortfolioAccept measures, per op, the time from the accept of
// a 100-line two-sided portfolio quote to the 100th trade.create its
// requester's subscription receives, and beside it, in the same run, the
// baseline: the same 100 trades as 100 single RFQ quotes accepted at once
// from 100 goroutines, timed to their 100th trade.create. p50-ms and
// p99-ms are the portfolio's; x-vs-baseline is the baseline's median over
// the portfolio's.
//
//	go test -run '^$' -bench PortfolioAccept -benchtime 30x ./internal/trading/
func BenchmarkPortfolioAccept(b *testing.B) {
	for _, e := range testenv.Engines {
		b.Run(string(e), func(b *testing.B) {
			v := newBenchVenue(b, e)
			ctx := context.Background()
			req, dealer := v.traders[0], v.traders[len(v.traders)-1]
			for _, t := range v.traders {
				if t.p.ParticipantID != req.p.ParticipantID {
					dealer = t
					break
				}
			}
			otc := ""
			ms, err := v.svc.Markets(ctx, trading.System, trading.MarketFilter{}, venue.Page{})
			if err != nil {
				b.Fatal(err)
			}
			for _, m := range ms.Items {
				if m.FacilityType == venue.FacilityOTC {
					otc = m.ID
				}
			}
			ins, err := v.svc.Instruments(ctx, trading.System, trading.InstrumentFilter{}, venue.Page{})
			if err != nil {
				b.Fatal(err)
			}
			sub, err := v.core.Live.Subscribe(ctx, req.p, 0, feed.EventFilter{Types: []string{feed.EventTradeCreate}, Buffer: 1 << 14})
			if err != nil {
				b.Fatal(err)
			}
			defer sub.Close()
			waitTrades := func(n int) {
				for range n {
					select {
					case <-sub.C:
					case <-time.After(30 * time.Second):
						b.Fatal("trade events did not arrive within 30s")
					}
				}
			}
			line := func(i int) (string, string, udecimal.Decimal) {
				in := ins.Items[i%len(ins.Items)]
				dir := venue.Bid
				if i%2 == 1 {
					dir = venue.Ask
				}
				return in.ID, dir, in.MinPiece
			}
			price := func(i int) *udecimal.Decimal {
				p := udecimal.MustParse(fmt.Sprintf("100.%02d", i%50))
				return &p
			}
			var list, single []time.Duration
			for i := 0; i < b.N; i++ {
				// The list.
				in := trading.PortfolioInput{MarketID: otc, Counterparties: []string{dealer.p.ParticipantID}}
				for j := range portfolioLines {
					id, dir, qty := line(j)
					in.Lines = append(in.Lines, trading.PortfolioLineInput{InstrumentID: id, Direction: dir, Quantity: &qty})
				}
				r, err := v.svc.CreatePortfolioRFQ(ctx, req.p, in)
				if err != nil {
					b.Fatal(err)
				}
				qin := trading.PortfolioQuoteInput{}
				for j := range portfolioLines {
					qin.Lines = append(qin.Lines, trading.PortfolioQuoteLineInput{LineID: fmt.Sprint(j + 1), Price: price(j)})
				}
				q, err := v.svc.QuotePortfolio(ctx, dealer.p, r.ID, qin)
				if err != nil {
					b.Fatal(err)
				}
				start := time.Now()
				if _, err := v.svc.AcceptPortfolioQuote(ctx, req.p, r.ID, q.Quotes[0].ID, venue.Parties{}); err != nil {
					b.Fatal(err)
				}
				waitTrades(portfolioLines)
				list = append(list, time.Since(start))

				// The baseline: the same trades as single RFQs.
				quotes := make([]string, portfolioLines)
				for j := range portfolioLines {
					id, dir, qty := line(j)
					rfq, err := v.svc.CreateRFQ(ctx, req.p, trading.OfferInput{InstrumentID: id, MarketID: otc, Direction: dir,
						Quantity: &qty, Counterparties: []string{dealer.p.ParticipantID}})
					if err != nil {
						b.Fatal(err)
					}
					other := venue.Ask
					if dir == venue.Ask {
						other = venue.Bid
					}
					quote, err := v.svc.CreateOffer(ctx, dealer.p, trading.OfferInput{InstrumentID: id, MarketID: otc, Direction: other,
						Price: price(j), Quantity: &qty, MatchedOfferID: rfq.ID})
					if err != nil {
						b.Fatal(err)
					}
					quotes[j] = quote.ID
				}
				start = time.Now()
				var wg sync.WaitGroup
				for _, id := range quotes {
					wg.Go(func() {
						if _, err := v.svc.AcceptQuote(ctx, req.p, id, venue.Parties{}); err != nil {
							b.Error(err)
						}
					})
				}
				wg.Wait()
				waitTrades(portfolioLines)
				single = append(single, time.Since(start))
			}
			b.StopTimer()
			slices.Sort(list)
			slices.Sort(single)
			pct := func(d []time.Duration, p int) float64 {
				return float64(d[min(len(d)-1, len(d)*p/100)].Microseconds()) / 1000
			}
			b.ReportMetric(pct(list, 50), "p50-ms")
			b.ReportMetric(pct(list, 99), "p99-ms")
			b.ReportMetric(pct(single, 50), "baseline-p50-ms")
			b.ReportMetric(pct(single, 50)/pct(list, 50), "x-vs-baseline")
		})
	}
}
