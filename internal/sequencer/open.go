package sequencer

import (
	"time"

	"github.com/quagmt/udecimal"

	"github.com/bondvenue/bondvenue/internal/bondmath"
	"github.com/bondvenue/bondvenue/internal/venue"
)

// openStore holds the sequencer's open records by id. A venue.Offer is 504
// bytes of which a quarter of the words are pointers (strings, decimals'
// big-integer fallback, times' locations), and with hundreds of thousands
// of offers resting the collector spent about a second of CPU a cycle
// marking them (docs/decisions.md, "Garbage collector: back at Go's default"). So a
// firm offer that rests in a continuous book — nearly every open record of
// a busy venue — is kept between batches as a coldOffer, a fixed-size
// record with no pointers in a slab, its strings interned to numbers; the
// collector does not look inside the slab. Everything else (RFQs, quotes,
// offers on OTC markets, which other indexes point to, and any record a
// coldOffer cannot hold exactly) stays a *venue.Offer.
//
// Within a batch a record is a *venue.Offer like any other: get
// materializes a cold one into the hot map, and every get of it in the
// batch returns that same pointer, which the commands change in place.
// flush, at the end of the batch, writes the hot records back to the slab
// and lets the pointers go: nothing may keep a record's pointer across
// batches (the batch's own copies, events and answers are copies).
type openStore struct {
	ptr  map[string]*venue.Offer // held as pointers for good
	hot  map[string]*venue.Offer // compactable, materialized or added in this batch
	cold map[string]uint32       // id → slab index
	// slab holds the records in chunks of coldChunk, so that growing it
	// never copies (or faults in) the whole of it at once: a slice grown
	// by append copied 150 MB in one go at 750 000 offers, a stall of
	// the sequencer and, with the page faults, of the process.
	slab [][]coldOffer
	used uint32 // slab indexes handed out so far
	free []uint32
	// texts are the free texts and parties of the cold records that have any.
	texts map[uint32]coldTexts
	// strs numbers the ids of participants, accounts, users, markets,
	// instruments and providers, and the enums.
	strs interner
}

// coldChunk is the number of records in a chunk of the slab.
const coldChunk = 4096

// at returns slab record i.
func (s *openStore) at(i uint32) *coldOffer { return &s.slab[i/coldChunk][i%coldChunk] }

// coldOffer is a venue.Offer without pointers. Interned strings are
// numbers of openStore.strs; decimals their exact 128-bit coefficient
// and scale; times Unix nanoseconds in UTC.
type coldOffer struct {
	typ, direction, status, validity                                uint32
	participant, account, user, market, instrument, provider        uint32
	price, quantity, filled, accrued                                coldDecimal
	settlement                                                      bondmath.Date
	validUntil, createdAt, updatedAt, modifiedAt, priorityAt        int64
	priority                                                        uint64
	hasPrice, marketOrder, isExecutable, hasValidUntil, zeroCreated bool
	zeroUpdated, zeroModified, zeroPriorityAt, hasTexts             bool
}

type coldDecimal struct {
	hi, lo uint64
	prec   uint8
	neg    bool
}

// coldTexts are a cold record's free texts and its parties (client and
// decision makers' ids, which a busy venue's offers mostly carry alike but
// which are the client's own text).
type coldTexts struct {
	notes, message, clientOrderID string
	parties                       venue.Parties
}

func newOpenStore() *openStore {
	return &openStore{ptr: map[string]*venue.Offer{}, hot: map[string]*venue.Offer{}, cold: map[string]uint32{},
		texts: map[uint32]coldTexts{}}
}

// get returns the open record id, or nil.
func (s *openStore) get(id string) *venue.Offer {
	if o, ok := s.ptr[id]; ok {
		return o
	}
	if o, ok := s.hot[id]; ok {
		return o
	}
	i, ok := s.cold[id]
	if !ok {
		return nil
	}
	o := s.thaw(id, i)
	s.hot[id] = o
	return o
}

// idsOf lists the ids of participant's open records, without
// materializing the cold ones.
func (s *openStore) idsOf(participant string) []string {
	var out []string
	for id, o := range s.ptr {
		if o.ParticipantID == participant {
			out = append(out, id)
		}
	}
	for id, o := range s.hot {
		if o.ParticipantID == participant {
			out = append(out, id)
		}
	}
	n, known := s.strs.nums[participant]
	if !known {
		return out
	}
	for id, i := range s.cold {
		if _, hot := s.hot[id]; !hot && s.at(i).participant == n {
			out = append(out, id)
		}
	}
	return out
}

// has reports whether id is open, without materializing it.
func (s *openStore) has(id string) bool {
	if _, ok := s.ptr[id]; ok {
		return true
	}
	if _, ok := s.hot[id]; ok {
		return true
	}
	_, ok := s.cold[id]
	return ok
}

// put makes o an open record; compact says it may be kept cold between
// batches (a firm offer in a continuous book, which nothing else points
// to).
func (s *openStore) put(o *venue.Offer, compact bool) {
	if compact {
		delete(s.ptr, o.ID)
		s.hot[o.ID] = o
		return
	}
	s.drop(o.ID)
	delete(s.hot, o.ID)
	s.ptr[o.ID] = o
}

// del takes id out of the open records.
func (s *openStore) del(id string) {
	delete(s.ptr, id)
	delete(s.hot, id)
	s.drop(id)
}

// drop frees id's slab record, if it has one.
func (s *openStore) drop(id string) {
	i, ok := s.cold[id]
	if !ok {
		return
	}
	delete(s.cold, id)
	delete(s.texts, i)
	*s.at(i) = coldOffer{}
	s.free = append(s.free, i)
}

// flush writes the batch's hot records back to the slab (one a coldOffer
// cannot hold exactly is kept as a pointer instead) and forgets their
// pointers.
func (s *openStore) flush() {
	for id, o := range s.hot {
		c, texts, ok := s.freeze(o)
		if !ok {
			s.drop(id)
			s.ptr[id] = o
			continue
		}
		i, ok := s.cold[id]
		if !ok {
			if n := len(s.free); n > 0 {
				i, s.free = s.free[n-1], s.free[:n-1]
			} else {
				if s.used%coldChunk == 0 {
					s.slab = append(s.slab, make([]coldOffer, coldChunk))
				}
				i = s.used
				s.used++
			}
			s.cold[id] = i
		}
		*s.at(i) = c
		if c.hasTexts {
			s.texts[i] = texts
		} else {
			delete(s.texts, i)
		}
	}
	clear(s.hot)
}

// intern returns v's number.
func (s *openStore) intern(v string) uint32 { return s.strs.number(v) }

// freeze returns o as a coldOffer, or ok false when one cannot hold it
// exactly (an offer with a matched record or recipients, a decimal beyond
// 128 bits, a time not in UTC).
func (s *openStore) freeze(o *venue.Offer) (c coldOffer, texts coldTexts, ok bool) {
	if o.MatchedOfferID != "" || o.Counterparties != nil {
		return c, texts, false
	}
	var okP, okQ, okF, okA bool
	c.price, okP = freezeDecimal(o.Price)
	c.quantity, okQ = freezeDecimal(o.Quantity)
	c.filled, okF = freezeDecimal(o.Filled)
	c.accrued, okA = freezeDecimal(o.AccruedInterest)
	if !okP || !okQ || !okF || !okA {
		return c, texts, false
	}
	var okV, okC, okU, okM bool
	if o.ValidUntil != nil {
		c.hasValidUntil = true
		var zero bool
		c.validUntil, zero, okV = freezeTime(*o.ValidUntil)
		okV = okV && !zero
	} else {
		okV = true
	}
	c.createdAt, c.zeroCreated, okC = freezeTime(o.CreatedAt)
	c.updatedAt, c.zeroUpdated, okU = freezeTime(o.UpdatedAt)
	c.modifiedAt, c.zeroModified, okM = freezeTime(o.ModifiedAt)
	var okPA bool
	c.priorityAt, c.zeroPriorityAt, okPA = freezeTime(o.PriorityAt)
	if !okV || !okC || !okU || !okM || !okPA {
		return c, texts, false
	}
	c.typ, c.direction, c.status, c.validity = s.intern(o.Type), s.intern(o.Direction), s.intern(o.Status), s.intern(o.Validity)
	c.participant, c.account, c.user = s.intern(o.ParticipantID), s.intern(o.AccountID), s.intern(o.UserID)
	c.market, c.instrument, c.provider = s.intern(o.MarketID), s.intern(o.InstrumentID), s.intern(o.SettlementProviderID)
	c.settlement, c.priority = o.SettlementDate, o.Priority
	c.hasPrice, c.marketOrder, c.isExecutable = o.HasPrice, o.MarketOrder, o.IsExecutable
	if o.Notes != "" || o.Message != "" || o.ClientOrderID != "" || !o.Parties.IsZero() {
		c.hasTexts, texts = true, coldTexts{notes: o.Notes, message: o.Message, clientOrderID: o.ClientOrderID, parties: o.Parties}
	}
	return c, texts, true
}

// thaw materializes slab record i, of offer id.
func (s *openStore) thaw(id string, i uint32) *venue.Offer {
	c := s.at(i)
	o := &venue.Offer{ID: id, Type: s.strs.name(c.typ), Direction: s.strs.name(c.direction), Status: s.strs.name(c.status),
		Validity: s.strs.name(c.validity), ParticipantID: s.strs.name(c.participant), AccountID: s.strs.name(c.account), UserID: s.strs.name(c.user),
		MarketID: s.strs.name(c.market), InstrumentID: s.strs.name(c.instrument), SettlementProviderID: s.strs.name(c.provider),
		Price: thawDecimal(c.price), HasPrice: c.hasPrice, Quantity: thawDecimal(c.quantity), Filled: thawDecimal(c.filled),
		AccruedInterest: thawDecimal(c.accrued), MarketOrder: c.marketOrder, IsExecutable: c.isExecutable,
		SettlementDate: c.settlement, Priority: c.priority,
		CreatedAt: thawTime(c.createdAt, c.zeroCreated), UpdatedAt: thawTime(c.updatedAt, c.zeroUpdated),
		ModifiedAt: thawTime(c.modifiedAt, c.zeroModified), PriorityAt: thawTime(c.priorityAt, c.zeroPriorityAt)}
	if c.hasValidUntil {
		t := thawTime(c.validUntil, false)
		o.ValidUntil = &t
	}
	if c.hasTexts {
		t := s.texts[i]
		o.Notes, o.Message, o.ClientOrderID, o.Parties = t.notes, t.message, t.clientOrderID, t.parties
	}
	return o
}

func freezeDecimal(d udecimal.Decimal) (coldDecimal, bool) {
	neg, hi, lo, prec, ok := d.ToHiLo()
	return coldDecimal{hi: hi, lo: lo, prec: prec, neg: neg}, ok
}

func thawDecimal(c coldDecimal) udecimal.Decimal {
	d, err := udecimal.NewFromHiLo(c.neg, c.hi, c.lo, c.prec)
	if err != nil { // freeze took it from a valid decimal
		panic("open store: a frozen decimal does not thaw: " + err.Error())
	}
	return d
}

// freezeTime returns t as Unix nanoseconds; zero reports the zero time;
// ok is false for a time not in UTC or beyond the nanoseconds' range.
func freezeTime(t time.Time) (ns int64, zero, ok bool) {
	if t.IsZero() {
		return 0, true, true
	}
	if t.Location() != time.UTC || t.Year() < 1678 || t.Year() > 2261 {
		return 0, false, false
	}
	return t.UnixNano(), false, true
}

func thawTime(ns int64, zero bool) time.Time {
	if zero {
		return time.Time{}
	}
	return time.Unix(0, ns).UTC()
}
