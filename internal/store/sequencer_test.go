package store_test

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"net/url"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/bondvenue/bondvenue/internal/bondmath"
	"github.com/bondvenue/bondvenue/internal/store"
	"github.com/bondvenue/bondvenue/internal/testenv"
	"github.com/bondvenue/bondvenue/internal/venue"
)

// batchVenue is the reference data a sequencer batch writes against: an
// owner firm whose trader writes every offer, and a dealer firm to which
// the owner's events are addressed as well.
type batchVenue struct {
	db         *store.DB
	owner      venue.Participant
	dealer     venue.Participant
	account    venue.Account
	user       venue.User
	market     venue.Market
	instrument venue.Instrument
}

func newBatchVenue(t testing.TB, db *store.DB) *batchVenue {
	t.Helper()
	v := &batchVenue{db: db, owner: newParticipant(t, at(0)), dealer: newParticipant(t, at(0)), market: newMarket(t, at(0))}
	v.account = newAccount(t, v.owner.ID, at(0))
	v.user = newUser(t, v.owner.ID, venue.RoleTrader, at(0))
	v.instrument = newInstrument(t, at(0), v.market.ID)
	write(t, db, func(ctx context.Context, tx *store.Tx) error {
		return errors.Join(tx.CreateParticipant(ctx, &v.owner), tx.CreateParticipant(ctx, &v.dealer),
			tx.CreateAccount(ctx, &v.account), tx.CreateUser(ctx, &v.user), tx.CreateMarket(ctx, &v.market),
			tx.CreateInstrument(ctx, &v.instrument))
	})
	return v
}

// acquire takes the sequencer lease and returns its epoch.
func (v *batchVenue) acquire(t testing.TB) int64 {
	t.Helper()
	ctx := t.Context()
	var epoch int64
	err := v.db.SequencerTx(ctx, func(tx *store.Tx) error {
		var err error
		epoch, err = tx.AcquireLease(ctx, "sequencer test")
		return err
	})
	if err != nil {
		t.Fatalf("AcquireLease() = %v", err)
	}
	return epoch
}

func (v *batchVenue) offer(t testing.TB, typ, direction string, priority int) *venue.Offer {
	return &venue.Offer{ID: newID(t), Type: typ, Direction: direction, ParticipantID: v.owner.ID, AccountID: v.account.ID,
		UserID: v.user.ID, MarketID: v.market.ID, InstrumentID: v.instrument.ID, Price: dec("99.125"), HasPrice: true,
		Quantity: dec("100000"), Filled: dec("0"), Status: venue.StatusCreated, SettlementDate: bondmath.MustDate(2030, 1, 15),
		Validity: venue.GTC, AccruedInterest: dec("0"), Priority: uint64(priority), CreatedAt: at(1), UpdatedAt: at(1), ModifiedAt: at(1)}
}

// batch returns what a sequencer batch labelled label writes: an RFQ sent
// to the dealer, an ask and a bid that traded 40 000 with each other, and
// an event per record, owned by the owner and addressed to the dealer too.
func (v *batchVenue) batch(t *testing.T, label string, priority int) store.BatchWrite {
	rfq := v.offer(t, venue.TypeRFQ, venue.Bid, priority)
	ask, bid := v.offer(t, venue.TypeOffer, venue.Ask, priority+1), v.offer(t, venue.TypeOffer, venue.Bid, priority+2)
	ask.Filled, bid.Filled = dec("40000"), dec("40000")
	// The parties a client gave come back as given: all of them, some, or
	// none (bid).
	ask.Parties = venue.Parties{ClientID: "5493001KJTIIGC8Y1R12", InvestmentDecision: "pm.7", ExecutionDecision: "algo-3", Capacity: "AOTC"}
	rfq.Parties = venue.Parties{ClientID: "PNAL", Capacity: "MTCH"}
	order := func(o *venue.Offer) venue.Order {
		return venue.Order{ID: newID(t), OfferID: o.ID, Direction: o.Direction, ParticipantID: o.ParticipantID,
			AccountID: o.AccountID, MarketID: o.MarketID, InstrumentID: o.InstrumentID, Quantity: o.Quantity,
			PricePerUnit: dec("99.125"), Filled: o.Filled, Status: venue.StatusCreated, Type: "limit", CreatedAt: at(2), UpdatedAt: at(2)}
	}
	trade := venue.Trade{ID: newID(t), TransactionIdentificationCode: "TIC" + randomHex(t), MarketID: v.market.ID,
		InstrumentID: v.instrument.ID, AskOrder: order(ask), BidOrder: order(bid), Status: "pending", Quantity: dec("40000"),
		PricePerUnit: dec("99.125"), AccruedInterest: dec("312.33"), SettlementAmount: dec("39962.33"), Fee: dec("0"),
		SettlementDate: bondmath.MustDate(2030, 1, 15), ExecutionType: "continuous", CreatedAt: at(2), UpdatedAt: at(2),
		// Its price published, its size due later.
		Publication: venue.Publication{Deferral: "SL1", PriceDueAt: at(2), VolumeDueAt: at(2).Add(8 * time.Hour), PublishedPriceAt: ptrTime(at(2))}}
	w := store.BatchWrite{Offers: []*venue.Offer{rfq, ask, bid},
		Recipients: []store.RecipientWrite{{RFQID: rfq.ID, Recipient: store.Recipient{ParticipantID: v.dealer.ID}}},
		Trades:     []venue.Trade{trade}}
	for _, id := range []string{rfq.ID, ask.ID, bid.ID, trade.ID} {
		w.Events = append(w.Events, store.Event{Type: "offer.update", OccurredAt: at(3), ParticipantID: v.owner.ID,
			Audience: []string{v.dealer.ID}, Data: fmt.Appendf(nil, `{"batch":%q,"id":%q}`, label, id)})
	}
	return w
}

// checkWritten fails unless everything w writes is in the database, as
// written.
func (v *batchVenue) checkWritten(t *testing.T, w store.BatchWrite) {
	t.Helper()
	opts := append([]cmp.Option{cmp.Comparer(func(a, b bondmath.Date) bool { return a == b })}, cmpOpts...)
	for _, want := range w.Offers {
		got := read(t, v.db, func(ctx context.Context, tx *store.Tx) (venue.Offer, error) { return tx.Offer(ctx, want.ID) })
		want := *want
		if want.Type == venue.TypeRFQ {
			for _, r := range w.Recipients {
				want.Counterparties = append(want.Counterparties, r.ParticipantID)
			}
		}
		if d := cmp.Diff(want, got, opts...); d != "" {
			t.Errorf("offer %s (-want +got):\n%s", want.ID, d)
		}
	}
	for _, want := range w.Trades {
		got := read(t, v.db, func(ctx context.Context, tx *store.Tx) (venue.Trade, error) { return tx.Trade(ctx, want.ID) })
		if d := cmp.Diff(want, got, opts...); d != "" {
			t.Errorf("trade %s (-want +got):\n%s", want.ID, d)
		}
		for _, o := range []venue.Order{want.AskOrder, want.BidOrder} {
			listed := list(t, v.db, func(ctx context.Context, tx *store.Tx) ([]venue.Trade, string, error) {
				return tx.Trades(ctx, store.TradeFilter{OfferID: o.OfferID, Party: o.ParticipantID}, store.Page{Limit: 10})
			})
			if d := cmp.Diff([]venue.Trade{want}, listed, opts...); d != "" {
				t.Errorf("Trades(offer %s) (-want +got):\n%s", o.OfferID, d)
			}
		}
	}
	var ids []string
	byID := map[string]venue.Offer{}
	for _, o := range w.Offers {
		ids = append(ids, o.ID)
		byID[o.ID] = *o // an RFQ without its recipients, as in lists
	}
	got := read(t, v.db, func(ctx context.Context, tx *store.Tx) (map[string]venue.Offer, error) {
		return tx.OffersByID(ctx, ids)
	})
	if d := cmp.Diff(byID, got, opts...); d != "" {
		t.Errorf("OffersByID (-want +got):\n%s", d)
	}
}

// checkNotWritten fails if anything of w is in the database.
func (v *batchVenue) checkNotWritten(t *testing.T, w store.BatchWrite) {
	t.Helper()
	for _, o := range w.Offers {
		err := readErr(t, v.db, func(ctx context.Context, tx *store.Tx) error { _, err := tx.Offer(ctx, o.ID); return err })
		if !errors.Is(err, venue.ErrNotFound) {
			t.Errorf("Offer(%s) of a batch that failed = %v, want not found", o.ID, err)
		}
	}
	for _, r := range w.Recipients {
		got := read(t, v.db, func(ctx context.Context, tx *store.Tx) ([]store.Recipient, error) { return tx.Recipients(ctx, r.RFQID) })
		if len(got) != 0 {
			t.Errorf("Recipients(%s) of a batch that failed = %v, want none", r.RFQID, got)
		}
	}
	for _, tr := range w.Trades {
		err := readErr(t, v.db, func(ctx context.Context, tx *store.Tx) error { _, err := tx.Trade(ctx, tr.ID); return err })
		if !errors.Is(err, venue.ErrNotFound) {
			t.Errorf("Trade(%s) of a batch that failed = %v, want not found", tr.ID, err)
		}
	}
}

// TestSequencerBatch: batches written while other transactions append
// events come back with their events numbered in order, without gaps, and
// everything they wrote is stored; a batch with a write that fails, or
// whose epoch lost the lease, writes nothing.
func TestSequencerBatch(t *testing.T) {
	testenv.ForEach(t, func(t *testing.T, e store.Engine) {
		t.Parallel()
		db := testenv.Open(t, e)
		v := newBatchVenue(t, db)
		epoch := v.acquire(t)

		t.Run("numbered after concurrent appends", func(t *testing.T) {
			const batches, appenders, appends = 12, 4, 12
			ctx := t.Context()
			start := lastSeq(t, db)
			// Events appended through InTx by other transactions: the
			// owner's too, but not addressed to the dealer.
			var wg sync.WaitGroup
			defer wg.Wait() // before the test ends, even when it fails
			var appended atomic.Int64
			for g := range appenders {
				wg.Go(func() {
					for i := range appends {
						err := db.InTx(ctx, func(tx *store.Tx) error {
							_, err := tx.AppendEvents(ctx, []store.Event{{Type: "news.create", ParticipantID: v.owner.ID,
								Data: fmt.Appendf(nil, `{"g":%d,"i":%d}`, g, i)}})
							return err
						})
						if err != nil {
							t.Errorf("InTx(AppendEvents) = %v", err)
							return
						}
						appended.Add(1)
					}
				})
			}
			writes := make([]store.BatchWrite, batches)
			returned := map[int64]store.Event{}
			var last int64
			for i := range writes {
				w := v.batch(t, fmt.Sprint(i), 10*i+1)
				writes[i] = w
				events, err := db.SequencerBatch(ctx, epoch, w)
				if err != nil {
					t.Fatalf("SequencerBatch(batch %d) = %v", i, err)
				}
				if len(events) != len(w.Events) {
					t.Fatalf("SequencerBatch(batch %d) returned %d events, want %d", i, len(events), len(w.Events))
				}
				if events[0].Seq <= last {
					t.Errorf("SequencerBatch(batch %d) numbered from %d, want after the previous batch's %d", i, events[0].Seq, last)
				}
				last = events[len(events)-1].Seq
				for j, ev := range events {
					if w.Events[j].Seq != 0 {
						t.Errorf("SequencerBatch(batch %d) numbered the caller's event %d", i, j)
					}
					want := w.Events[j]
					want.Seq = events[0].Seq + int64(j)
					if d := diff(want, ev); d != "" {
						t.Errorf("SequencerBatch(batch %d) event %d, want the batch's events in order, numbered one after another (-want +got):\n%s", i, j, d)
					}
					returned[ev.Seq] = ev
				}
			}
			wg.Wait()
			for _, w := range writes {
				v.checkWritten(t, w)
			}

			// The log holds every event once, without gaps, the batches'
			// as they were returned.
			n := int(appended.Load()) + batches*len(writes[0].Events)
			all := read(t, db, func(ctx context.Context, tx *store.Tx) ([]store.Event, error) {
				return tx.Events(ctx, store.EventQuery{After: start, Limit: 2 * n})
			})
			if len(all) != n {
				t.Fatalf("Events(after %d) = %d events, want %d", start, len(all), n)
			}
			for k, ev := range all {
				if want := start + int64(k) + 1; ev.Seq != want {
					t.Fatalf("Events(after %d)[%d].Seq = %d, want %d (gap-free)", start, k, ev.Seq, want)
				}
				if want, ok := returned[ev.Seq]; ok {
					want.Audience = nil // Events does not read it back
					if d := diff(want, ev); d != "" {
						t.Errorf("event %d differs from what SequencerBatch returned (-want +got):\n%s", ev.Seq, d)
					}
				}
			}
			// The dealer reads exactly the batches' events: their audience
			// rows carry their numbers.
			seen := read(t, db, func(ctx context.Context, tx *store.Tx) ([]store.Event, error) {
				return tx.Events(ctx, store.EventQuery{After: start, Participant: v.dealer.ID, Limit: 2 * n})
			})
			if len(seen) != len(returned) {
				t.Errorf("the dealer reads %d events, want the batches' %d", len(seen), len(returned))
			}
			for _, ev := range seen {
				if _, ok := returned[ev.Seq]; !ok {
					t.Errorf("the dealer reads event %d (%s), which is not addressed to it", ev.Seq, ev.Data)
				}
			}
		})

		t.Run("a failed write rolls back the batch", func(t *testing.T) {
			ctx := t.Context()
			start := lastSeq(t, db)
			w := v.batch(t, "refused", 1001)
			// The trade names a firm that does not exist: its insert
			// fails after the offers and the recipient were written.
			w.Trades[0].AskOrder.ParticipantID = newID(t)
			_, err := db.SequencerBatch(ctx, epoch, w)
			if !errors.Is(err, venue.ErrNotFound) {
				t.Fatalf("SequencerBatch(a trade of a missing firm) = %v, want the referenced record not found", err)
			}
			if _, _, ok := driverError(err); !ok {
				t.Errorf("SequencerBatch() = %v, want the driver's error kept in the chain", err)
			}
			v.checkNotWritten(t, w)
			if last := lastSeq(t, db); last != start {
				t.Errorf("the log ends at %d after a failed batch, want %d: nothing appended", last, start)
			}

			// The next batch commits and numbers its events right after.
			ok := v.batch(t, "after the failure", 1011)
			events, err := db.SequencerBatch(ctx, epoch, ok)
			if err != nil {
				t.Fatalf("SequencerBatch() after a failed batch = %v", err)
			}
			if events[0].Seq != start+1 {
				t.Errorf("the batch after a failed one starts at %d, want %d", events[0].Seq, start+1)
			}
			v.checkWritten(t, ok)
		})

		t.Run("a lost lease writes nothing", func(t *testing.T) {
			ctx := t.Context()
			start := lastSeq(t, db)
			newer := v.acquire(t)
			w := v.batch(t, "fenced off", 2001)
			_, err := db.SequencerBatch(ctx, epoch, w)
			if !errors.Is(err, store.ErrLeaseLost) || venue.KindOf(err) != venue.KindNotReady {
				t.Fatalf("SequencerBatch(epoch %d) after epoch %d took the lease = %v, want the lease-lost error", epoch, newer, err)
			}
			v.checkNotWritten(t, w)
			if last := lastSeq(t, db); last != start {
				t.Errorf("the log ends at %d after a fenced-off batch, want %d", last, start)
			}
			if _, err := db.SequencerBatch(ctx, newer, w); err != nil {
				t.Fatalf("SequencerBatch(epoch %d) of the new holder = %v", newer, err)
			}
			v.checkWritten(t, w)
		})
	})
}

// TestSequencerBatchRoundTrips counts how often SequencerBatch waits for
// PostgreSQL: once per batch when its statements are prepared already,
// and once more to prepare them the first time.
func TestSequencerBatchRoundTrips(t *testing.T) {
	u, err := url.Parse(testenv.DatabaseURL(t, store.Postgres))
	if err != nil {
		t.Fatal(err)
	}
	proxy := newWaitCounter(t, u.Host)
	u.Host = proxy.addr
	q := u.Query()
	q.Set("sslmode", "disable") // the counter reads the protocol in the clear
	u.RawQuery = q.Encode()
	db := testenv.OpenConfig(t, store.Config{URL: u.String()})
	v := newBatchVenue(t, db)
	epoch := v.acquire(t)

	for i, tt := range []struct {
		name string
		want int64
	}{
		{"the first batch", 2},
		{"a batch of the same shape", 1},
		{"another one", 1},
	} {
		w := v.batch(t, fmt.Sprint(i), 10*i+1)
		before := proxy.waits.Load()
		if _, err := db.SequencerBatch(t.Context(), epoch, w); err != nil {
			t.Fatalf("SequencerBatch(%s) = %v", tt.name, err)
		}
		if got := proxy.waits.Load() - before; got != tt.want {
			t.Errorf("SequencerBatch(%s) waited for the server %d times, want %d", tt.name, got, tt.want)
		}
		v.checkWritten(t, w)
	}
}

// waitCounter is a TCP proxy in front of PostgreSQL that counts the round
// trips of its clients: every message after which a client waits for the
// server (Sync, which ends an extended-protocol pipeline, and Query). It
// leaves out pgx's ping, the empty query with which database/sql checks a
// connection that has been idle for a second before handing it out again:
// a quiet venue's cost, not the batch's. It counts a message before
// passing it on, so a client that has its answer has been counted.
type waitCounter struct {
	addr  string
	waits atomic.Int64
}

func newWaitCounter(t *testing.T, target string) *waitCounter {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &waitCounter{addr: ln.Addr().String()}
	var mu sync.Mutex
	var conns []net.Conn
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	go func() {
		for {
			client, err := ln.Accept()
			if err != nil {
				return
			}
			server, err := net.Dial("tcp", target)
			if err != nil {
				client.Close()
				continue
			}
			mu.Lock()
			conns = append(conns, client, server)
			mu.Unlock()
			go func() {
				buf := make([]byte, 32<<10)
				for {
					n, err := server.Read(buf)
					if n > 0 {
						if _, err := client.Write(buf[:n]); err != nil {
							return
						}
					}
					if err != nil {
						client.Close()
						return
					}
				}
			}()
			go p.relay(client, server)
		}
	}()
	return p
}

// ping is the text of pgx's ping query.
const ping = "-- ping\x00"

// relay passes what client sends on to server, counting its waits.
func (p *waitCounter) relay(client, server net.Conn) {
	defer server.Close()
	started := false // past the untyped startup messages
	var head []byte  // the header of the next message, as far as read
	var typ byte     // the current message's type, 0 before started
	var query []byte // the text of a Query, as far as read
	left := 0        // the bytes left of the current message's body
	done := func() {
		if typ == 'S' || (typ == 'Q' && string(query) != ping) {
			p.waits.Add(1)
		}
		query = query[:0]
	}
	buf := make([]byte, 32<<10)
	for {
		n, err := client.Read(buf)
		for b := buf[:n]; len(b) > 0; {
			if left > 0 {
				k := min(left, len(b))
				if typ == 'Q' {
					query = append(query, b[:k]...)
				}
				left, b = left-k, b[k:]
				if left == 0 {
					done()
				}
				continue
			}
			size := 5 // type and length
			if !started {
				size = 8 // length and protocol code
			}
			k := min(size-len(head), len(b))
			head, b = append(head, b[:k]...), b[k:]
			if len(head) < size {
				break
			}
			if started {
				typ, left = head[0], int(binary.BigEndian.Uint32(head[1:]))-4
			} else {
				left = int(binary.BigEndian.Uint32(head[:4])) - 8
				started = binary.BigEndian.Uint32(head[4:]) == 3<<16 // a StartupMessage, not an encryption request
			}
			head = head[:0]
			if left == 0 {
				done()
			}
		}
		if n > 0 {
			if _, err := server.Write(buf[:n]); err != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

func ptrTime(t time.Time) *time.Time { return &t }
