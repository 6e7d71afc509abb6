package store_test

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/bondvenue/bondvenue/internal/store"
	"github.com/bondvenue/bondvenue/internal/testenv"
	"github.com/bondvenue/bondvenue/internal/venue"
)

// BenchmarkSequencerBatch measures what the sequencer's writes cost per new
// resting offer: batches of 32 offers, each with its offer.create event
// (a record of the size the venue writes), through SequencerBatch as the
// sequencer calls it, on a table that already holds 50 000 offers. Besides
// the time it reports the process's CPU per offer (on PostgreSQL the
// client's only) and, where /proc says, the bytes the process wrote per
// offer (SQLite: the log and its checkpoints into the database file) – the
// figures that "fewer and narrower writes" must move.
func BenchmarkSequencerBatch(b *testing.B) {
	const batch, preload = 32, 50_000
	for _, e := range testenv.Engines {
		b.Run(string(e), func(b *testing.B) {
			db := testenv.Open(b, e)
			v := newBatchVenue(b, db)
			epoch := v.acquire(b)
			priority := 0
			next := func() store.BatchWrite {
				w := store.BatchWrite{Offers: make([]*venue.Offer, batch), Events: make([]store.Event, batch)}
				for i := range w.Offers {
					priority++
					o := v.offer(b, venue.TypeOffer, venue.Bid, priority)
					w.Offers[i] = o
					w.Events[i] = store.Event{Type: "offer.create", OccurredAt: o.CreatedAt, ParticipantID: o.ParticipantID,
						Data: offerRecord(o)}
				}
				return w
			}
			ctx := b.Context()
			for range preload / batch {
				if _, err := db.SequencerBatch(ctx, epoch, next()); err != nil {
					b.Fatalf("SequencerBatch(preload) = %v", err)
				}
			}
			writes := make([]store.BatchWrite, b.N)
			for i := range writes {
				writes[i] = next()
			}
			cpu0, wrote0 := processCPU(b), processWritten()
			b.ResetTimer()
			for i := range b.N {
				if _, err := db.SequencerBatch(ctx, epoch, writes[i]); err != nil {
					b.Fatalf("SequencerBatch = %v", err)
				}
			}
			b.StopTimer()
			offers := float64(b.N * batch)
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/offers, "ns/offer")
			b.ReportMetric(float64((processCPU(b)-cpu0).Nanoseconds())/offers, "cpu-ns/offer")
			if wrote0 >= 0 {
				b.ReportMetric(float64(processWritten()-wrote0)/offers, "written-B/offer")
			}
		})
	}
}

// offerRecord is an offer.create record of the venue's size and shape.
func offerRecord(o *venue.Offer) []byte {
	return fmt.Appendf(nil, `{"id":%q,"type":"offer","direction":"bid","price":"99.125","quantity":"100000",`+
		`"filled_quantity":"0","status":"created","matched_offer_id":null,"notes":"","market_order":false,`+
		`"is_executable":true,"settlement_date":"2030-01-15","validity":"gtc","valid_until":null,`+
		`"participant_id":%q,"account_id":%q,"market_id":%q,"instrument_id":%q,"user_id":%q,`+
		`"settlement_provider_id":null,"accrued_interest":"0","message":null,"modified_at":%q,`+
		`"createdAt":%q,"updatedAt":%q,"price_change":{"instrument_id":%q,"market_id":%q,`+
		`"bid":{"limit":"99.125","quantity":"100000","participant_id":%q,"offer_id":%q},"ask":null,"trades":[]}}`,
		o.ID, o.ParticipantID, o.AccountID, o.MarketID, o.InstrumentID, o.UserID, o.ModifiedAt.Format(time.RFC3339Nano),
		o.CreatedAt.Format(time.RFC3339Nano), o.UpdatedAt.Format(time.RFC3339Nano), o.InstrumentID, o.MarketID,
		o.ParticipantID, o.ID)
}

// processCPU is the user and system CPU the process has used.
func processCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatalf("getrusage: %v", err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// processWritten is the bytes the process has passed to write calls
// (/proc/self/io wchar), or -1 where the system does not say.
func processWritten() int64 {
	raw, err := os.ReadFile("/proc/self/io")
	if err != nil {
		return -1
	}
	for line := range bytes.Lines(raw) {
		if v, ok := bytes.CutPrefix(line, []byte("wchar: ")); ok {
			n, err := strconv.ParseInt(string(bytes.TrimSpace(v)), 10, 64)
			if err == nil {
				return n
			}
		}
	}
	return -1
}
