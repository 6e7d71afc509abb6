package subscribe_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/bondvenue/bondvenue/internal/auth"
	"github.com/bondvenue/bondvenue/internal/feed"
	"github.com/bondvenue/bondvenue/internal/store"
	"github.com/bondvenue/bondvenue/internal/subscribe"
	"github.com/bondvenue/bondvenue/internal/testenv"
	"github.com/bondvenue/bondvenue/internal/trading"
	"github.com/bondvenue/bondvenue/internal/venue"
	"github.com/bondvenue/bondvenue/internal/wire"
)

// These tests are of the live subscriptions (Subscribe: replay, fan-out,
// redaction per reader, slow consumers), which read the committed-event
// feed; the feed's own tests are in internal/feed.

// feedWriters runs n writers at once against v, each writing a mix of every
// kind of change: firm offers that trade, then (once between is closed; nil:
// at once) a whole RFQ (request, quote, accept), a news item and an
// indicative price. It returns once all are done.
func feedWriters(t *testing.T, v *testenv.DemoVenue, otc string, n int, between <-chan struct{}) {
	t.Helper()
	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for w := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs <- feedWriter(ctx, v, otc, w, between)
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
}

func feedWriter(ctx context.Context, v *testenv.DemoVenue, otc string, w int, between <-chan struct{}) error {
	a, b := w%3, (w+1)%3 // mutual counterparties
	buyer, seller := principalOf(v, a, venue.RoleTrader), principalOf(v, b, venue.RoleTrader)
	price := dec(strconv.Itoa(95 + w%5))
	if _, err := v.Svc.CreateOffer(ctx, seller, trading.OfferInput{InstrumentID: v.Instrument, MarketID: v.Partial,
		Direction: venue.Ask, Price: &price, Quantity: ptrTo(dec("2000"))}); err != nil {
		return fmt.Errorf("writer %d: ask: %w", w, err)
	}
	if _, err := v.Svc.CreateOffer(ctx, buyer, trading.OfferInput{InstrumentID: v.Instrument, MarketID: v.Partial,
		Direction: venue.Bid, Price: &price, Quantity: ptrTo(dec("1000"))}); err != nil {
		return fmt.Errorf("writer %d: bid: %w", w, err)
	}
	if between != nil {
		<-between
	}
	rfq, err := v.Svc.CreateRFQ(ctx, buyer, trading.OfferInput{InstrumentID: v.Instrument, MarketID: otc,
		Direction: venue.Bid, Quantity: ptrTo(dec("1000")), Counterparties: []string{v.Creds.Participants[b].ID}})
	if err != nil {
		return fmt.Errorf("writer %d: rfq: %w", w, err)
	}
	q, err := v.Svc.CreateOffer(ctx, seller, trading.OfferInput{InstrumentID: v.Instrument, MarketID: otc,
		Direction: venue.Ask, Price: &price, Quantity: ptrTo(dec("1000")), MatchedOfferID: rfq.ID})
	if err != nil {
		return fmt.Errorf("writer %d: quote: %w", w, err)
	}
	if _, err := v.Svc.AcceptQuote(ctx, buyer, q.ID, venue.Parties{}); err != nil {
		return fmt.Errorf("writer %d: accept: %w", w, err)
	}
	if _, err := v.Svc.CreateNews(ctx, trading.System, trading.NewsInput{Title: fmt.Sprintf("Writer %d", w),
		Body: "Market commentary.", Source: "bondvenue"}); err != nil {
		return fmt.Errorf("writer %d: news: %w", w, err)
	}
	if _, err := v.Svc.CreateIndicativePrice(ctx, seller, trading.IndicativeInput{InstrumentID: v.Instrument,
		AccountID: v.Creds.Participants[b].AccountIDs[0], BidPrice: ptrTo(dec("94")), AskPrice: ptrTo(dec("96"))}); err != nil {
		return fmt.Errorf("writer %d: indicative price: %w", w, err)
	}
	return nil
}

// principalOf is principal without a test to fail (writers run in
// goroutines).
func principalOf(v *testenv.DemoVenue, i int, role venue.Role) venue.Principal {
	p := v.Creds.Participants[i]
	for _, u := range p.Users {
		if u.Role == string(role) {
			return venue.Principal{UserID: u.UserID, ParticipantID: p.ID, Role: role}
		}
	}
	panic(fmt.Sprintf("demo participant %d has no %s", i, role))
}

// lastSeq is the log's last sequence number.
func lastSeq(t *testing.T, db *store.DB) int64 {
	t.Helper()
	var last int64
	if err := db.View(context.Background(), func(tx *store.Tx) error {
		var err error
		last, err = tx.LastEventSeq(context.Background())
		return err
	}); err != nil {
		t.Fatal(err)
	}
	return last
}

// follow reads sub in a goroutine of its own, as a client keeping up.
func follow(sub *subscribe.Subscription) *received {
	r := &received{}
	go r.read(sub)
	return r
}

// await waits until r has received the last of want, then, once nothing
// more arrives, compares everything it received with want (the log's
// events, as Events answers them) and with the orders of the trades
// among them (the feed's order.create, svc.Trade's orders for p).
func await(t *testing.T, name string, r *received, svc *trading.Service, p venue.Principal, want []feed.Event) {
	t.Helper()
	if len(want) == 0 {
		t.Fatalf("%s: no events to wait for", name)
	}
	waitFor(t, func() bool { return r.last() >= want[len(want)-1].Seq })
	time.Sleep(100 * time.Millisecond) // an event beyond the log's would arrive meanwhile
	got := r.all()
	var logged []feed.Event
	for i, e := range got {
		if e.Type == feed.EventOrderCreate || e.Type == feed.EventPriceChange || e.Type == feed.EventDepth {
			continue
		}
		logged = append(logged, e)
		if e.Type != feed.EventTradeCreate {
			continue
		}
		// The trade's orders of p's firm follow it, under its sequence
		// number, each as the trade shows p its own order.
		tv, err := svc.Trade(context.Background(), p, e.Trade.ID)
		if err != nil {
			t.Fatalf("%s: Trade(%s) = %v", name, e.Trade.ID, err)
		}
		var wantOrders []string
		for _, o := range []venue.Order{tv.AskOrder, tv.BidOrder} {
			if p.IsOperator() || o.ParticipantID == p.ParticipantID {
				wantOrders = append(wantOrders, orderJSON(o))
			}
		}
		var gotOrders []string
		for _, d := range got[i+1:] {
			if d.Type != feed.EventOrderCreate || d.Seq != e.Seq {
				break
			}
			gotOrders = append(gotOrders, orderJSON(*d.Order))
		}
		if !slices.Equal(gotOrders, wantOrders) {
			t.Fatalf("%s: orders after trade.create %d:\n got %v\nwant %v", name, e.Seq, gotOrders, wantOrders)
		}
	}
	sameEvents(t, name, logged, want)
}

// priceChanges lists the book tops a subscriber received: every reader
// receives the same ones (a public event, whoever's offer moved the book),
// at most one per book and batch, in sequence order; a reader that sees
// every event (seesAll) receives each after the event it derives from.
func priceChanges(t *testing.T, name string, evs []feed.Event, seesAll bool) []string {
	t.Helper()
	var out []string
	seen := map[string]bool{}
	for i, e := range evs {
		if e.Type != feed.EventPriceChange {
			continue
		}
		pc := e.PriceChange
		top := func(le *feed.LimitEntry) string {
			if le == nil {
				return "-"
			}
			return le.OfferID + "@" + le.Limit.String() + "x" + le.Quantity.String()
		}
		k := fmt.Sprintf("%d %s %s", e.Seq, pc.InstrumentID, pc.MarketID)
		if seen[k] || (i > 0 && evs[i-1].Seq > e.Seq) || (seesAll && (i == 0 || evs[i-1].Seq != e.Seq)) {
			t.Errorf("%s: price change %s twice, out of order, or not after the event it derives from", name, k)
		}
		seen[k] = true
		out = append(out, fmt.Sprintf("%s bid %s ask %s last %v", k, top(pc.Bid), top(pc.Ask), deref(pc.LastPrice)))
	}
	return out
}

func deref[T any](p *T) any {
	if p == nil {
		return nil
	}
	return *p
}

// orderJSON renders an order as the adapters do.
func orderJSON(o venue.Order) string {
	b, _ := json.Marshal(wire.OrderOf(o))
	return string(b)
}

// sameEvents compares what a subscriber received with what Events answers:
// the same events, in order, each the same record.
func sameEvents(t *testing.T, name string, got, want []feed.Event) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d events, want %d", name, len(got), len(want))
	}
	for i := range want {
		if got[i].Seq != want[i].Seq || got[i].Type != want[i].Type {
			t.Fatalf("%s: event %d is %d %s, want %d %s", name, i, got[i].Seq, got[i].Type, want[i].Seq, want[i].Type)
		}
		if !sameRecord(got[i], want[i]) {
			t.Fatalf("%s: event %d %s differs from Events:\n got %s\nwant %s", name, want[i].Seq, want[i].Type,
				describe(got[i]), describe(want[i]))
		}
	}
}

// TestFeedEveryEventOnce subscribes from the start of the log while 64
// writers change everything that makes events, and another subscriber
// from the middle while writes go on: each receives exactly the events
// Events answers its reader, once each, in sequence order, each redacted
// the same. Several readers of different firms run at once, and two of
// one firm (an audience the fan-out renders for once), as the operator
// and the subscriber from the middle are.
func TestFeedEveryEventOnce(t *testing.T) {
	for _, e := range testenv.Engines {
		t.Run(string(e), func(t *testing.T) {
			v := testenv.NewDemoVenue(t, e)
			ctx := t.Context()
			readers := map[string]venue.Principal{"operator": trading.System, "p0-viewer": v.Principal(t, 0, venue.RoleViewer),
				"p1-trader": v.Principal(t, 1, venue.RoleTrader), "p1-viewer": v.Principal(t, 1, venue.RoleViewer),
				"p3-viewer": v.Principal(t, 3, venue.RoleViewer)}
			subs := map[string]*received{}
			for name, p := range readers {
				sub, err := v.Core.Live.Subscribe(ctx, p, 0, feed.EventFilter{})
				if err != nil {
					t.Fatalf("Subscribe(%s) = %v", name, err)
				}
				t.Cleanup(sub.Close)
				subs[name] = follow(sub)
			}
			// 64 writers at once; once they have all traded, a subscriber
			// from the middle of the log, and then the writers go on.
			otc, start := v.OTC(t), lastSeq(t, v.DB)
			between, written := make(chan struct{}), make(chan struct{})
			go func() {
				defer close(written)
				feedWriters(t, v, otc, 64, between)
			}()
			waitFor(t, func() bool { return lastSeq(t, v.DB) >= start+64*2 }) // two offers each, at least
			middle := (start + lastSeq(t, v.DB)) / 2
			mid, err := v.Core.Live.Subscribe(ctx, trading.System, middle, feed.EventFilter{})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(mid.Close)
			fromMiddle := follow(mid)
			close(between)
			<-written

			all := v.RestEvents(t, trading.System, 0)
			for i, e := range all {
				if e.Seq != int64(i+1) {
					t.Fatalf("the log has event %d at position %d", e.Seq, i)
				}
			}
			for name, p := range readers {
				await(t, name, subs[name], v.Svc, p, v.RestEvents(t, p, 0))
			}
			await(t, "from the middle", fromMiddle, v.Svc, trading.System, all[middle:])
			// The same book tops reach every reader, and from the middle
			// the tail of them.
			tops := priceChanges(t, "operator", subs["operator"].all(), true)
			if len(tops) == 0 {
				t.Fatal("no price changes")
			}
			for name := range readers {
				if got := priceChanges(t, name, subs[name].all(), name == "operator"); !slices.Equal(got, tops) {
					t.Errorf("%s: %d price changes differ from the operator's %d", name, len(got), len(tops))
				}
			}
			fromMid := priceChanges(t, "from the middle", fromMiddle.all(), true)
			if len(fromMid) == 0 || !slices.Equal(fromMid, tops[len(tops)-len(fromMid):]) {
				t.Errorf("from the middle: %d price changes, not the tail of the operator's %d", len(fromMid), len(tops))
			}
		})
	}
}

// TestFeedSlowConsumer cuts a subscriber that does not read off once its
// buffer is full, while another keeps up with every event and the writers
// never wait for either.
func TestFeedSlowConsumer(t *testing.T) {
	for _, e := range testenv.Engines {
		t.Run(string(e), func(t *testing.T) {
			db := testenv.Open(t, e)
			h := auth.FastHasher
			v := testenv.NewDemoVenueWith(t, db, testenv.Config{Trading: trading.Config{Hasher: &h}, FeedBuffer: 4096})
			ctx := t.Context()
			start := lastSeq(t, db)
			slow, err := v.Core.Live.Subscribe(ctx, trading.System, start, feed.EventFilter{Buffer: 16})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(slow.Close)
			fast, err := v.Core.Live.Subscribe(ctx, trading.System, start, feed.EventFilter{})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(fast.Close)
			fastGot := follow(fast)

			feedWriters(t, v, v.OTC(t), 16, nil) // far more than 16 events: returns only if nobody waits for the slow one

			select {
			case _, ok := <-drain(slow.C):
				if ok {
					t.Fatal("the slow subscription still runs")
				}
			case <-testenv.Expired(t):
				t.Fatal("the slow subscription was not cut off")
			}
			if !errors.Is(slow.Err(), subscribe.ErrSlowConsumer) {
				t.Errorf("slow subscription ended with %v, want ErrSlowConsumer", slow.Err())
			}
			want := v.RestEvents(t, trading.System, start)
			waitFor(t, func() bool { return fastGot.last() >= want[len(want)-1].Seq })
			fast.Close()
			if !errors.Is(fast.Err(), context.Canceled) {
				t.Errorf("fast subscription ended with %v, want context.Canceled after Close", fast.Err())
			}
			await(t, "the subscriber that kept up", fastGot, v.Svc, trading.System, want)
		})
	}
}

// drain returns a channel closed once c is closed, after discarding what
// c still holds (the buffered events of a subscription that was cut off).
func drain(c <-chan feed.Event) <-chan feed.Event {
	out := make(chan feed.Event)
	go func() {
		for range c {
		}
		close(out)
	}()
	return out
}

// received collects what a subscription yields, read by another goroutine.
type received struct {
	mu     sync.Mutex
	events []feed.Event
}

func (r *received) read(sub *subscribe.Subscription) {
	for e := range sub.C {
		r.mu.Lock()
		r.events = append(r.events, e)
		r.mu.Unlock()
	}
}

// last is the sequence number of the last event received (0 if none).
func (r *received) last() int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.events) == 0 {
		return 0
	}
	return r.events[len(r.events)-1].Seq
}

func (r *received) all() []feed.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.events)
}

// waitFor polls cond for up to a minute.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	testenv.Wait(t, "the subscriber's events", cond)
}

// TestFeedResyncRequired refuses to resume after a sequence number the log
// does not have.
func TestFeedResyncRequired(t *testing.T) {
	for _, e := range testenv.Engines {
		t.Run(string(e), func(t *testing.T) {
			v := testenv.NewDemoVenue(t, e)
			_, err := v.Core.Live.Subscribe(t.Context(), trading.System, lastSeq(t, v.DB)+1, feed.EventFilter{})
			if !errors.Is(err, subscribe.ErrResyncRequired) {
				t.Errorf("Subscribe(after the log's end) = %v, want ErrResyncRequired", err)
			}
			if _, err := v.Core.Live.Subscribe(t.Context(), trading.System, -1, feed.EventFilter{}); !errors.Is(err, venue.ErrInvalid) {
				t.Errorf("Subscribe(-1) = %v, want an invalid-input error", err)
			}
		})
	}
}

// sameRecord compares the records of two events as clients read them.
func sameRecord(a, b feed.Event) bool { return describe(a) == describe(b) }

// describe renders an event's record as the adapters send it.
func describe(e feed.Event) string {
	b, err := json.Marshal(wire.RecordOf(e))
	if err != nil {
		return "unrenderable: " + err.Error()
	}
	return string(b)
}

// TestFeedCloseWhileReplaying: a subscriber that reads nothing while its
// subscription replays the log (at its pace, so the replay waits for it)
// can still close the subscription.
func TestFeedCloseWhileReplaying(t *testing.T) {
	v := testenv.NewDemoVenue(t, store.SQLite)
	for i := range 4 * minBuffer { // in the log only: nobody follows the feed yet
		if _, err := v.Svc.CreateNews(t.Context(), trading.System, trading.NewsInput{
			Title: "Notice " + strconv.Itoa(i), Body: "Text.", Source: "bondvenue"}); err != nil {
			t.Fatal(err)
		}
	}
	sub, err := v.Core.Live.Subscribe(t.Context(), trading.System, 0, feed.EventFilter{Buffer: minBuffer})
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { return len(sub.C) == cap(sub.C) }) // the replay waits for room
	closed := make(chan struct{})
	go func() {
		sub.Close()
		close(closed)
	}()
	select {
	case <-closed:
	case <-testenv.Expired(t):
		t.Fatal("Close did not return while the replay waited for the reader")
	}
	if !errors.Is(sub.Err(), context.Canceled) {
		t.Errorf("closed subscription ended with %v, want context.Canceled", sub.Err())
	}
}

// minBuffer is the smallest subscription buffer (trading.minFeedBuffer).
const minBuffer = 8
