package trading

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/quagmt/udecimal"

	"github.com/bondvenue/bondvenue/internal/calculator"
	"github.com/bondvenue/bondvenue/internal/store"
	"github.com/bondvenue/bondvenue/internal/venue"
)

// This file holds the best-execution record of an RFQ (docs/guide.md, "The
// execution record"): every dealer invited with what it answered, to the
// microsecond, the market around the RFQ when it was sent and when a quote
// was accepted, the cover and the saving against it. The requester's firm
// reads its own, the operator all of them.

// ExecutionRecord is one RFQ's best-execution record.
type ExecutionRecord struct {
	RFQ        venue.Offer
	Instrument venue.Instrument
	Sent       *MarketMark // the market when the RFQ was sent
	Accepted   *MarketMark // and when a quote was accepted (nil if none was)
	Dealers    []DealerRecord
	// Done is the accepted quote; Cover its cover price; Saving the done
	// price's advantage over the cover for the requester, per 100 of
	// nominal and in the instrument's currency for the RFQ's quantity.
	Done                      *venue.Offer
	Cover                     *udecimal.Decimal
	SavingPrice, SavingAmount *udecimal.Decimal
}

// MarketMark is the market around an RFQ at one moment: the best bid and
// ask of the instrument's continuous books and the newest valid indicative
// mid, each nil when there was none.
type MarketMark struct {
	BestBid, BestAsk, IndicativeMid *udecimal.Decimal
	At                              time.Time
}

// DealerRecord is one invited dealer in an execution record: every quote
// record of it on the RFQ, oldest first (a decline is one, without price).
type DealerRecord struct {
	ParticipantID, Name string
	Declined            bool
	Quotes              []QuoteRecord
}

// QuoteRecord is one quote in an execution record.
type QuoteRecord struct {
	Quote venue.Offer
	Yield *udecimal.Decimal // at the quote's price and settlement date; nil without price
}

// Responded is when the dealer first answered (quote or decline), or nil.
func (d DealerRecord) Responded() *time.Time {
	if len(d.Quotes) == 0 {
		return nil
	}
	t := d.Quotes[0].Quote.CreatedAt
	return &t
}

// Outcome is the outcome of the dealer's latest quote record ("" while it
// is open or when the dealer did not answer).
func (d DealerRecord) Outcome() string {
	if len(d.Quotes) == 0 {
		return ""
	}
	return d.Quotes[len(d.Quotes)-1].Quote.Outcome
}

// ExecutionRecord returns one RFQ's record: to the requester's firm and the
// operator; to anyone else the RFQ does not exist.
func (s *Service) ExecutionRecord(ctx context.Context, p venue.Principal, id string) (ExecutionRecord, error) {
	if !validID(id) {
		return ExecutionRecord{}, venue.NotFound("request for quote")
	}
	var out []ExecutionRecord
	err := s.db.View(ctx, func(tx *store.Tx) error {
		rfq, err := tx.Offer(ctx, id)
		if err != nil {
			return notFoundOr(err, "request for quote")
		}
		if rfq.Type != venue.TypeRFQ || (!p.IsOperator() && rfq.ParticipantID != p.ParticipantID) {
			return venue.NotFound("request for quote")
		}
		out, err = s.executionRecords(ctx, tx, []string{id})
		return err
	})
	if err != nil {
		return ExecutionRecord{}, fmt.Errorf("execution record: %w", err)
	}
	if len(out) != 1 {
		return ExecutionRecord{}, venue.NotFound("request for quote")
	}
	return out[0], nil
}

// MaxExecutionRange bounds the period of one ExecutionRecords call.
const MaxExecutionRange = 31 * 24 * time.Hour

// ExecutionRecords returns the records of the RFQs sent in [from, to),
// oldest first: the caller's firm's, or every firm's for the operator.
func (s *Service) ExecutionRecords(ctx context.Context, p venue.Principal, from, to time.Time) ([]ExecutionRecord, error) {
	var v venue.Validator
	v.Check(to.After(from), "to", "must be after from")
	v.Check(to.Sub(from) <= MaxExecutionRange, "to", "must be at most 31 days after from")
	if err := v.Err(); err != nil {
		return nil, err
	}
	var requesters []string
	if !p.IsOperator() {
		requesters = []string{p.ParticipantID}
	}
	var out []ExecutionRecord
	err := s.db.View(ctx, func(tx *store.Tx) error {
		ids, err := tx.RFQsSent(ctx, from, to, requesters)
		if err != nil {
			return err
		}
		out, err = s.executionRecords(ctx, tx, ids)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("execution records: %w", err)
	}
	return out, nil
}

// executionRecords builds the records of RFQs ids, in that order, with a
// few reads for all of them.
func (s *Service) executionRecords(ctx context.Context, tx *store.Tx, ids []string) ([]ExecutionRecord, error) {
	rs, err := readRFQs(ctx, tx, ids)
	if err != nil {
		return nil, err
	}
	names := map[string]string{}
	name := func(id string) (string, error) {
		if n, ok := names[id]; ok {
			return n, nil
		}
		part, err := tx.Participant(ctx, id)
		if err != nil {
			return "", err
		}
		names[id] = part.Name
		return part.Name, nil
	}
	instruments := map[string]venue.Instrument{}
	yields := map[yieldKey]*udecimal.Decimal{}
	out := make([]ExecutionRecord, 0, len(ids))
	for _, id := range ids {
		rfq, ok := rs.byID[id]
		if !ok || rfq.Type != venue.TypeRFQ {
			continue
		}
		in, ok := instruments[rfq.InstrumentID]
		if !ok {
			if in, err = tx.Instrument(ctx, rfq.InstrumentID); err != nil {
				return nil, err
			}
			instruments[rfq.InstrumentID] = in
		}
		rec := ExecutionRecord{RFQ: rfq, Instrument: in}
		if m, ok := rs.marks[id][store.MarkSent]; ok {
			rec.Sent = &m
		}
		if m, ok := rs.marks[id][store.MarkAccepted]; ok {
			rec.Accepted = &m
		}
		qs := rs.quotes[id]
		slices.SortFunc(qs, func(a, b venue.Offer) int { return cmp.Compare(a.Priority, b.Priority) })
		for _, r := range rs.recipients[id] {
			n, err := name(r.ParticipantID)
			if err != nil {
				return nil, err
			}
			rec.Dealers = append(rec.Dealers, s.dealerRecord(&rec, r, n, qs, yields))
		}
		slices.SortFunc(rec.Dealers, func(a, b DealerRecord) int { return cmp.Compare(a.Name, b.Name) })
		rec.saving()
		out = append(out, rec)
	}
	return out, nil
}

// rfqRecords are the records of a set of RFQs, by RFQ id.
type rfqRecords struct {
	byID       map[string]venue.Offer
	quotes     map[string][]venue.Offer
	recipients map[string][]store.Recipient
	marks      map[string]map[string]MarketMark
}

// readRFQs reads the RFQs ids, their quotes, recipients and market marks.
func readRFQs(ctx context.Context, tx *store.Tx, ids []string) (rfqRecords, error) {
	rs := rfqRecords{byID: map[string]venue.Offer{}, quotes: map[string][]venue.Offer{}, marks: map[string]map[string]MarketMark{}}
	rfqs, err := tx.OffersByIDs(ctx, ids)
	if err != nil {
		return rs, err
	}
	quotes, err := tx.QuotesOf(ctx, ids)
	if err != nil {
		return rs, err
	}
	if rs.recipients, err = tx.RecipientsOf(ctx, ids); err != nil {
		return rs, err
	}
	marks, err := tx.RFQMarks(ctx, ids)
	if err != nil {
		return rs, err
	}
	for _, r := range rfqs {
		rs.byID[r.ID] = r
	}
	for _, q := range quotes {
		rs.quotes[q.MatchedOfferID] = append(rs.quotes[q.MatchedOfferID], q)
	}
	for _, m := range marks {
		if rs.marks[m.RFQID] == nil {
			rs.marks[m.RFQID] = map[string]MarketMark{}
		}
		rs.marks[m.RFQID][m.Kind] = MarketMark{BestBid: m.BestBid, BestAsk: m.BestAsk, IndicativeMid: m.IndicativeMid, At: m.At}
	}
	return rs, nil
}

// dealerRecord is recipient r's part of rec, named name, with its quotes
// among qs (the RFQ's, by priority); a quote that was done is rec's Done.
func (s *Service) dealerRecord(rec *ExecutionRecord, r store.Recipient, name string, qs []venue.Offer,
	yields map[yieldKey]*udecimal.Decimal) DealerRecord {
	d := DealerRecord{ParticipantID: r.ParticipantID, Name: name, Declined: r.Declined}
	for _, q := range qs {
		if q.ParticipantID != r.ParticipantID {
			continue
		}
		qr := QuoteRecord{Quote: q}
		if q.HasPrice {
			qr.Yield = s.quoteYield(yields, rec.Instrument, q)
		}
		d.Quotes = append(d.Quotes, qr)
		if q.Outcome == venue.OutcomeDone {
			done := q
			rec.Done = &done
		}
	}
	return d
}

// saving sets the cover price of a done RFQ that had one, and what the
// requester saved against it, per 100 and for the quantity.
func (rec *ExecutionRecord) saving() {
	if rec.Done == nil || !rec.Done.HasCover {
		return
	}
	c := rec.Done.CoverPrice
	rec.Cover = &c
	saving := c.Sub(rec.Done.Price) // the requester buys: a lower price saves
	if rec.RFQ.Direction == venue.Ask {
		saving = rec.Done.Price.Sub(c)
	}
	amount, err := saving.Mul(rec.Done.Quantity).Div(calculator.Hundred)
	if err == nil {
		rec.SavingPrice, rec.SavingAmount = &saving, &amount
	}
}

// yieldDecimals is the precision of a quote's yield in the record.
var yieldDecimals = 6

type yieldKey struct {
	instrument, settlement, price string
}

// quoteYield is the yield of a quote's price at its settlement date, nil
// when the bond's terms give none; yields are shared by equal keys.
func (s *Service) quoteYield(cache map[yieldKey]*udecimal.Decimal, in venue.Instrument, q venue.Offer) *udecimal.Decimal {
	k := yieldKey{in.ID, q.SettlementDate.String(), q.Price.String()}
	if y, ok := cache[k]; ok {
		return y
	}
	var out *udecimal.Decimal
	if b, err := venue.BondOf(in); err == nil && q.Price.IsPos() {
		if y, err := calculator.Yield(calculator.BondInput{Bond: b, Settlement: q.SettlementDate, Nominal: calculator.Hundred, Decimals: &yieldDecimals}, q.Price); err == nil {
			out = &y.Yield
		}
	}
	cache[k] = out
	return out
}
