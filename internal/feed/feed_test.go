package feed_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/uuid"
	"github.com/quagmt/udecimal"

	"github.com/bondvenue/bondvenue/internal/bondmath"
	"github.com/bondvenue/bondvenue/internal/feed"
	"github.com/bondvenue/bondvenue/internal/store"
	"github.com/bondvenue/bondvenue/internal/testenv"
	"github.com/bondvenue/bondvenue/internal/venue"
	"github.com/bondvenue/bondvenue/internal/wire"
)

// This file tests the committed-event feed through its own API: writers
// append events in their transactions (feed.Append) and hand them over
// after the commit (the store's commit hook, Feed.Committed); readers
// follow Since and its change channel, or read the log (feed.Read).

// startFeed starts a feed of db's log, handed db's commits.
func startFeed(t *testing.T, db *store.DB) *feed.Feed {
	t.Helper()
	f := feed.New(db, slog.New(slog.DiscardHandler))
	db.SetCommitHook(f.Committed)
	if err := f.Start(context.Background()); err != nil {
		t.Fatalf("Start() = %v", err)
	}
	t.Cleanup(f.Stop)
	return f
}

func newID() string { return uuid.Must(uuid.NewV7()).String() }

// at is a fixed time, to the millisecond the log keeps.
var at = time.Date(2026, 11, 20, 14, 48, 0, 0, time.UTC)

// Test records: one of each kind a writer logs, owned by participant p
// and, for a trade, read by q too.
func offerEvent(p, typ string, n int) feed.Event {
	vu := at.Add(time.Hour)
	o := venue.Offer{ID: newID(), Type: typ, Direction: venue.Ask, ParticipantID: p, AccountID: newID(), UserID: newID(),
		MarketID: "m", InstrumentID: "i", Price: udecimal.MustFromInt64(int64(9950+n), 2), HasPrice: true,
		Quantity: udecimal.MustFromInt64(1_000_000, 0), Filled: udecimal.MustFromInt64(250_000, 0), Status: venue.StatusCreated,
		SettlementDate: bondmath.MustDate(2026, 11, 24), Validity: venue.GTD, ValidUntil: &vu, Notes: "note ü",
		AccruedInterest: dec("1234.56"), Priority: uint64(n), CreatedAt: at, UpdatedAt: at, ModifiedAt: at}
	switch typ {
	case venue.TypeRFQ:
		o.Counterparties, o.IsExecutable = []string{"q"}, true
	case venue.TypeQuote:
		o.MatchedOfferID = newID()
	default: // an order with its client's parties
		o.Parties = venue.Parties{ClientID: "5493001KJTIIGC8Y1R12", InvestmentDecision: "pm.1", ExecutionDecision: "algo-2", Capacity: "AOTC"}
	}
	return feed.Event{Type: strings.Replace(typ, "request_for_quote", "rfq", 1) + ".create", Offer: &o, Owner: p}
}

func tradeEvent(p, q string, n int) feed.Event {
	order := func(part, dir string) venue.Order {
		return venue.Order{ID: newID(), OfferID: newID(), Direction: dir, ParticipantID: part, AccountID: newID(), MarketID: "m",
			InstrumentID: "i", Quantity: dec("2000000"), PricePerUnit: dec("99.75"), Filled: dec("1000000"),
			Status: "internally_approved", Type: "limit_order", CreatedAt: at, UpdatedAt: at}
	}
	tr := venue.Trade{ID: newID(), TransactionIdentificationCode: fmt.Sprintf("BV%06d", n), MarketID: "m", InstrumentID: "i",
		AskOrder: order(p, venue.Ask), BidOrder: order(q, venue.Bid), Status: "successful", Quantity: dec("1000000"),
		PricePerUnit: dec("99.75"), AccruedInterest: dec("1234.56"), SettlementAmount: dec("998734.56"), Fee: udecimal.Zero,
		SettlementDate: bondmath.MustDate(2026, 11, 24), ExecutionType: venue.ExecutionContinuous, CreatedAt: at, UpdatedAt: at,
		Publication: venue.Publication{Deferral: "volume", PriceDueAt: at, VolumeDueAt: at.Add(48 * time.Hour), PublishedPriceAt: &at}}
	return feed.Event{Type: feed.EventTradeCreate, Trade: &tr, Owner: p, Audience: []string{q}}
}

func newsEvent(title string) feed.Event {
	return feed.Event{Type: feed.EventNewsCreate, News: &venue.News{ID: newID(), Title: title, Body: "Market commentary.",
		Source: "bondvenue", PublishedAt: at, CreatedAt: at, UpdatedAt: at}}
}

func indicativeEvent(p string) feed.Event {
	vu := at.Add(time.Hour)
	return feed.Event{Type: "indicative_price.create", Owner: p, IndicativePrice: &venue.IndicativePrice{ID: newID(),
		ParticipantID: p, AccountID: newID(), UserID: newID(), InstrumentID: "i", BidPrice: ptrTo(dec("94")), AskPrice: ptrTo(dec("96")),
		BidQuantity: ptrTo(dec("1000000")), SettlementDate: bondmath.MustDate(2026, 11, 24), ValidUntil: &vu, CreatedAt: at, UpdatedAt: at}}
}

func dec(s string) udecimal.Decimal { return udecimal.MustParse(s) }

func ptrTo[T any](v T) *T { return &v }

// write appends evs in one transaction of db.
func write(ctx context.Context, db *store.DB, evs ...feed.Event) error {
	return db.InTx(ctx, func(tx *store.Tx) error {
		for _, ev := range evs {
			if err := feed.Append(ctx, tx, ev); err != nil {
				return err
			}
		}
		return nil
	})
}

// writer w's transactions: an offer and its trade together, an RFQ and
// a quote together, then news and an indicative price apart. Its firms
// are p and q.
func writer(ctx context.Context, db *store.DB, w int) error {
	p, q := fmt.Sprintf("p%d", w%3), fmt.Sprintf("p%d", (w+1)%3)
	for _, evs := range [][]feed.Event{
		{offerEvent(p, venue.TypeOffer, w), tradeEvent(p, q, w)},
		{offerEvent(q, venue.TypeRFQ, w), offerEvent(p, venue.TypeQuote, w)},
		{newsEvent(fmt.Sprintf("Writer %d", w))},
		{indicativeEvent(p)},
	} {
		if err := write(ctx, db, evs...); err != nil {
			return fmt.Errorf("writer %d: %w", w, err)
		}
	}
	return nil
}

// follower reads a feed after a sequence number as a live reader does:
// what Since holds, then whatever the change channel announces.
type follower struct {
	mu     sync.Mutex
	events []feed.Event
	err    error
	target chan int64 // the last sequence number to read up to
	done   chan struct{}
}

// follow starts a follower of f after seq.
func follow(f *feed.Feed, after int64) *follower {
	r := &follower{target: make(chan int64, 1), done: make(chan struct{})}
	go func() {
		defer close(r.done)
		target := int64(-1)
		for {
			evs, changed, ok := f.Since(after)
			if !ok {
				r.err = fmt.Errorf("Since(%d): the feed no longer holds it", after)
				return
			}
			if len(evs) > 0 {
				r.mu.Lock()
				r.events = append(r.events, evs...)
				r.mu.Unlock()
				after = evs[len(evs)-1].Seq
			}
			if target >= 0 && after >= target {
				return
			}
			select {
			case <-changed:
			case target = <-r.target:
			}
		}
	}()
	return r
}

// until waits for the follower to have read every event up to last and
// returns them. The bound only ends a test that failed.
func (r *follower) until(t *testing.T, last int64) []feed.Event {
	t.Helper()
	r.target <- last
	select {
	case <-r.done:
	case <-testenv.Expired(t):
		t.Fatalf("the follower did not reach event %d", last)
	}
	if r.err != nil {
		t.Fatal(r.err)
	}
	return r.events
}

// logged reads every event after seq from the log, with its audience.
func logged(t *testing.T, db *store.DB, after int64) []feed.Event {
	t.Helper()
	var out []feed.Event
	for {
		page, _, err := feed.Read(context.Background(), db, feed.Scope{All: true}, after, feed.Page)
		if err != nil {
			t.Fatalf("Read(%d) = %v", after, err)
		}
		if len(page) == 0 {
			return out
		}
		out = append(out, page...)
		after = page[len(page)-1].Seq
	}
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

// summary is an event as the comparisons see it: its place, type, who
// may read it and its record as the adapters render it.
type summary struct {
	Seq             int64
	Type            string
	Owner           string
	Audience        []string
	Record          string
	OccurredAtIsSet bool
}

func summarize(evs []feed.Event) []summary {
	out := make([]summary, len(evs))
	for i, e := range evs {
		out[i] = summary{Seq: e.Seq, Type: e.Type, Owner: e.Owner, Audience: e.Audience, Record: describe(e), OccurredAtIsSet: !e.OccurredAt.IsZero()}
	}
	return out
}

// describe renders an event's record as the adapters send it.
func describe(e feed.Event) string {
	b, err := json.Marshal(wire.RecordOf(e))
	if err != nil {
		return "unrenderable: " + err.Error()
	}
	return string(b)
}

// TestFeedEveryEventOnce: 64 writers commit at once, their hand-overs
// arriving in any order (the tailer reads from the log what came after a
// gap), while a reader follows the feed from its start and another from
// the middle of what was written: each reads exactly the events of the
// log after its start, once each, in sequence order, with their owners,
// audiences and records.
func TestFeedEveryEventOnce(t *testing.T) {
	testenv.ForEach(t, func(t *testing.T, e store.Engine) {
		ctx := context.Background()
		db := testenv.Open(t, e)
		f := startFeed(t, db)
		start := lastSeq(t, db)
		fromStart := follow(f, start)

		const writers = 64
		var wg sync.WaitGroup
		errs := make(chan error, writers)
		between := make(chan struct{})
		for w := range writers {
			wg.Go(func() {
				if err := writer(ctx, db, w); err != nil {
					errs <- err
				}
				if w == writers/2 {
					close(between)
				}
			})
		}
		<-between // half way through one writer's, and perhaps all
		middle := lastSeq(t, db)
		fromMiddle := follow(f, middle)
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Error(err)
		}

		last := lastSeq(t, db)
		if want := start + writers*6; last != want {
			t.Fatalf("the log ends at %d, want %d: six events a writer", last, want)
		}
		all := logged(t, db, start)
		for i, e := range all {
			if e.Seq != start+int64(i)+1 {
				t.Fatalf("the log has event %d at position %d", e.Seq, i)
			}
		}
		if diff := cmp.Diff(summarize(all), summarize(fromStart.until(t, last))); diff != "" {
			t.Errorf("follower from the start: events differ from the log (-log +feed):\n%s", diff)
		}
		if diff := cmp.Diff(summarize(all[middle-start:]), summarize(fromMiddle.until(t, last))); diff != "" {
			t.Errorf("follower from %d: events differ from the log (-log +feed):\n%s", middle, diff)
		}
	})
}

// TestFeedHoldsFromStart: a feed holds the events committed since it
// started, not those before, which a reader must read from the log; and
// after the newest it holds nothing, its change channel closing at the
// next commit.
func TestFeedHoldsFromStart(t *testing.T) {
	testenv.ForEach(t, func(t *testing.T, e store.Engine) {
		ctx := context.Background()
		db := testenv.Open(t, e)
		for i := range 3 {
			if err := write(ctx, db, newsEvent(fmt.Sprintf("Before %d", i))); err != nil {
				t.Fatal(err)
			}
		}
		f := startFeed(t, db)
		before := lastSeq(t, db)
		if _, _, ok := f.Since(before - 1); ok {
			t.Errorf("Since(%d) holds an event committed before the feed started", before-1)
		}
		evs, changed, ok := f.Since(before)
		if !ok || len(evs) != 0 {
			t.Fatalf("Since(the log's end) = %d events, %v; want none, held", len(evs), ok)
		}
		if err := write(ctx, db, newsEvent("After")); err != nil {
			t.Fatal(err)
		}
		select {
		case <-changed:
		default:
			t.Fatal("the change channel was not closed by a commit handed over")
		}
		evs, _, ok = f.Since(before)
		if !ok || len(evs) != 1 || evs[0].Seq != before+1 || evs[0].News == nil || evs[0].News.Title != "After" {
			t.Errorf("Since(%d) after a commit = %+v, %v; want the news item %d", before, evs, ok, before+1)
		}
	})
}

// TestFeedOtherProcess: on PostgreSQL, events committed by another
// process (here another handle on the database, whose commits are not
// handed to this feed) reach the feed through the log, woken by the
// notification, in order and interleaved with this process's own.
func TestFeedOtherProcess(t *testing.T) {
	ctx := context.Background()
	url := testenv.DatabaseURL(t, store.Postgres)
	here := testenv.OpenConfig(t, store.Config{URL: url})
	there := testenv.OpenConfig(t, store.Config{URL: url})
	f := startFeed(t, here)
	start := lastSeq(t, here)
	r := follow(f, start)

	var wg sync.WaitGroup
	for _, side := range []struct {
		db    *store.DB
		title string
	}{{here, "Here"}, {there, "There"}} {
		wg.Go(func() {
			for i := range 10 {
				if err := write(ctx, side.db, newsEvent(fmt.Sprintf("%s %d", side.title, i))); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	got := r.until(t, start+20)
	if diff := cmp.Diff(summarize(logged(t, here, start)), summarize(got)); diff != "" {
		t.Errorf("events differ from the log (-log +feed):\n%s", diff)
	}
	titles := map[string]int{}
	for _, e := range got {
		origin, _, _ := strings.Cut(e.News.Title, " ")
		titles[origin]++
	}
	if want := map[string]int{"Here": 10, "There": 10}; !cmp.Equal(want, titles) {
		t.Errorf("news received by origin = %v, want %v", titles, want)
	}
}

// TestEventLogReadsRESTFormat: events written before the log had a format
// of its own hold the REST record as it was rendered then. Every such
// event — of each kind the log had then — reads back as the same record.
func TestEventLogReadsRESTFormat(t *testing.T) {
	testenv.ForEach(t, func(t *testing.T, e store.Engine) {
		ctx := context.Background()
		db := testenv.Open(t, e)
		var legacy []store.Event
		var want []string
		for _, ev := range []feed.Event{offerEvent("p0", venue.TypeOffer, 1), offerEvent("p1", venue.TypeRFQ, 2),
			offerEvent("p0", venue.TypeQuote, 3), tradeEvent("p0", "p1", 4), newsEvent("Notice"), indicativeEvent("p1")} {
			data := describe(ev) // what the REST-era writer stored: the record as rendered
			legacy = append(legacy, store.Event{Type: ev.Type, OccurredAt: at, ParticipantID: ev.Owner, Audience: ev.Audience, Data: []byte(data)})
			want = append(want, data)
		}
		if err := db.InTx(ctx, func(tx *store.Tx) error {
			_, err := tx.AppendEvents(ctx, legacy)
			return err
		}); err != nil {
			t.Fatal(err)
		}
		got := logged(t, db, 0)
		if len(got) != len(want) {
			t.Fatalf("read %d events, want %d", len(got), len(want))
		}
		for i := range want {
			if d := describe(got[i]); d != want[i] {
				t.Errorf("event %d (%s) reads back as\n%s\nwant\n%s", got[i].Seq, got[i].Type, d, want[i])
			}
		}
	})
}
