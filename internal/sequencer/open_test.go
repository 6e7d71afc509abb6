package sequencer

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"runtime"
	"testing"
	"time"

	"github.com/quagmt/udecimal"

	"github.com/bondvenue/bondvenue/internal/bondmath"
	"github.com/bondvenue/bondvenue/internal/venue"
)

// randomOffer is a firm offer with every field a coldOffer holds varied:
// decimals of 0–19 places, signs, set and unset times and texts.
func randomOffer(r *rand.Rand, i int) *venue.Offer {
	dec := func() udecimal.Decimal {
		d, err := udecimal.NewFromHiLo(r.IntN(4) == 0, r.Uint64N(1<<20), r.Uint64(), uint8(r.IntN(20)))
		if err != nil {
			panic(err)
		}
		return d
	}
	at := func() time.Time {
		return time.Date(2020+r.IntN(10), time.Month(1+r.IntN(12)), 1+r.IntN(28), r.IntN(24), r.IntN(60), r.IntN(60), r.IntN(1e9), time.UTC)
	}
	pick := func(vs ...string) string { return vs[r.IntN(len(vs))] }
	o := &venue.Offer{ID: fmt.Sprintf("00000000-0000-7000-8000-%012d", i), Type: venue.TypeOffer,
		Direction: pick(venue.Bid, venue.Ask), ParticipantID: pick("p1", "p2", "p3"), AccountID: pick("a1", "a2"),
		UserID: pick("u1", "u2", "u3", "u4"), MarketID: pick("m1", "m2"), InstrumentID: pick("i1", "i2", "i3"),
		SettlementProviderID: pick("", "s1"), Price: dec(), HasPrice: r.IntN(2) == 0, Quantity: dec(), Filled: dec(),
		Status: pick(venue.StatusCreated, venue.StatusClosed), MarketOrder: r.IntN(2) == 0, IsExecutable: r.IntN(2) == 0,
		SettlementDate: mustDate(2027, time.Month(1+r.IntN(12)), 1+r.IntN(28)), Validity: pick(venue.GTC, venue.GTD),
		AccruedInterest: dec(), Priority: r.Uint64(), CreatedAt: at(), UpdatedAt: at()}
	if r.IntN(2) == 0 {
		o.ModifiedAt = at()
	}
	if r.IntN(2) == 0 {
		t := at()
		o.ValidUntil = &t
	}
	if r.IntN(3) == 0 {
		o.Notes = pick("a note", "ünïcode \" quoted")
	}
	if r.IntN(3) == 0 {
		o.ClientOrderID = fmt.Sprintf("clord-%d", i)
	}
	if r.IntN(5) == 0 {
		o.Message = "a message"
	}
	if r.IntN(3) == 0 {
		o.Parties = venue.Parties{ClientID: pick("", "5493001KJTIIGC8Y1R12", "AGGR", "client7"),
			InvestmentDecision: pick("", "pm1"), ExecutionDecision: pick("", "algo.2"), Capacity: pick("", "DEAL", "AOTC")}
	}
	return o
}

func mustDate(y int, m time.Month, d int) bondmath.Date {
	date, err := bondmath.NewDate(y, m, d)
	if err != nil {
		panic(err)
	}
	return date
}

// openCount is the number of open records in s.
func openCount(s *openStore) int {
	n := len(s.ptr) + len(s.cold)
	for id := range s.hot {
		if _, ok := s.cold[id]; !ok {
			n++
		}
	}
	return n
}

// TestOpenStore: a firm offer goes cold at the end of its batch and comes
// back equal field for field; within a batch every get of it is the one
// pointer the commands change; what a coldOffer cannot hold exactly stays
// a pointer; cancelled records are gone and their slots reused.
func TestOpenStore(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 15))
	s := newOpenStore()
	want := map[string]venue.Offer{}
	for i := range 2000 {
		o := randomOffer(r, i)
		want[o.ID] = *o
		s.put(o, true)
	}
	s.flush()
	if len(s.hot) != 0 || len(s.ptr) != 0 || len(s.cold) != 2000 || openCount(s) != 2000 {
		t.Fatalf("after flush: %d hot, %d pointers, %d cold, count %d; want all 2000 cold", len(s.hot), len(s.ptr), len(s.cold), openCount(s))
	}
	for id, w := range want {
		got := s.get(id)
		if got == nil || !reflect.DeepEqual(*got, w) {
			t.Fatalf("offer %s thawed as\n%+v\nwant\n%+v", id, got, w)
		}
		if again := s.get(id); again != got {
			t.Fatalf("offer %s: a second get in the batch gave another pointer", id)
		}
	}
	s.flush()

	// Changes made through the batch's pointer survive the flush.
	id := "00000000-0000-7000-8000-000000000007"
	o := s.get(id)
	o.Filled = o.Filled.Add(udecimal.MustParse("0.5"))
	o.Status, o.Notes = venue.StatusClosed, "changed"
	o.Parties = venue.Parties{ClientID: "PNAL", InvestmentDecision: "pm-9", ExecutionDecision: "algo.9", Capacity: "MTCH"}
	changed := *o
	s.flush()
	if got := s.get(id); !reflect.DeepEqual(*got, changed) {
		t.Errorf("changed offer thawed as %+v, want %+v", *got, changed)
	}
	// Texts dropped are dropped.
	s.get(id).Notes = ""
	s.flush()
	if got := s.get(id); got.Notes != "" || got.Parties != changed.Parties {
		t.Errorf("after clearing the notes: notes %q, parties %+v; want none and %+v", got.Notes, got.Parties, changed.Parties)
	}
	s.get(id).Parties = venue.Parties{}
	s.flush()
	if got := s.get(id); !got.Parties.IsZero() {
		t.Errorf("parties after clearing = %+v", got.Parties)
	}
	s.flush()

	// Deleted: gone, and its slot goes to the next offer.
	slots := s.used
	s.del(id)
	if s.has(id) || s.get(id) != nil || openCount(s) != 1999 {
		t.Errorf("deleted offer still open (count %d)", openCount(s))
	}
	n := randomOffer(r, 99999)
	s.put(n, true)
	s.flush()
	if s.used != slots || !s.has(n.ID) {
		t.Errorf("slab grew from %d to %d slots with one freed", slots, s.used)
	}

	// Not compactable: kept as the pointer put.
	far := time.Date(9999, 12, 31, 0, 0, 0, 0, time.UTC)
	local := time.Date(2027, 1, 1, 10, 0, 0, 0, time.FixedZone("CET", 3600))
	odd := []func(o *venue.Offer){
		func(o *venue.Offer) { o.MatchedOfferID = "rfq" },
		func(o *venue.Offer) { o.Counterparties = []string{"p2"} },
		func(o *venue.Offer) { o.ValidUntil = &far },
		func(o *venue.Offer) { o.CreatedAt = local },
		func(o *venue.Offer) { o.Price = udecimal.MustParse("123456789012345678901234567890123456789.5") },
	}
	for i, change := range odd {
		o := randomOffer(r, 100000+i)
		change(o)
		s.put(o, true)
		s.flush()
		if got := s.get(o.ID); got != o {
			t.Errorf("odd offer %d: got %p, want the pointer put (%p)", i, got, o)
		}
	}
	// And put as not compactable (an RFQ, an OTC offer): a pointer.
	rfq := randomOffer(r, 200000)
	s.put(rfq, false)
	s.flush()
	if s.get(rfq.ID) != rfq {
		t.Error("an offer put as not compactable did not stay a pointer")
	}
}

// TestOpenStoreHeap: cold offers are no heap objects of their own — the
// collector has the slab (no pointers), the id index and the interned
// strings to deal with, not a record per offer.
func TestOpenStoreHeap(t *testing.T) {
	const n = 100000
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	r := rand.New(rand.NewPCG(6, 16))
	offers := make([]*venue.Offer, n)
	for i := range offers {
		offers[i] = randomOffer(r, i)
	}
	s := newOpenStore()
	for _, o := range offers {
		s.put(o, true)
	}
	s.flush()
	offers = nil
	runtime.GC()
	runtime.ReadMemStats(&after)
	// The ids stay (the index's keys) and a third of the offers have a
	// client order id; everything else of the records is in the slab. Kept
	// as pointers they would be three objects each (the record, its id, its
	// valid_until or texts).
	objects := int64(after.HeapObjects) - int64(before.HeapObjects)
	if objects > n*3/2 {
		t.Errorf("%d heap objects for %d cold offers, want about one each (the id) and the texts of a third", objects, n)
	}
	t.Logf("%d cold offers: %d heap objects, %d MB of heap", n, objects, (int64(after.HeapAlloc)-int64(before.HeapAlloc))>>20)
	runtime.KeepAlive(s)
}
