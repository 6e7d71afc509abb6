package orderrecords_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"runtime"
	"testing"
	"time"

	"github.com/quagmt/udecimal"

	"github.com/bondvenue/bondvenue/internal/records"
	"github.com/bondvenue/bondvenue/internal/store"
	"github.com/bondvenue/bondvenue/internal/testenv"
)

// TestOrderRecordExportSize exports a large day over HTTP and watches
// the process's heap while the records stream: it must stay within 64 MiB
// of where it started however many records the day holds. The size is
// 20 000 records, 1 000 000 with BONDVENUE_LONG_TESTS=1; the time it took
// is printed (docs/performance.md, "Order record export"), never asserted.
func TestOrderRecordExportSize(t *testing.T) {
	n := 20_000
	if os.Getenv("BONDVENUE_LONG_TESTS") != "" {
		n = 1_000_000
	}
	testenv.ForEach(t, func(t *testing.T, e store.Engine) {
		r := newRig(t, e)
		seedRecords(t, r.v.DB, n)
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		base, peak := ms.HeapAlloc, ms.HeapAlloc
		start := time.Now()
		res := r.get(t, "/api/v1/admin/order-records?date=2026-12-07", records.NDJSON)
		defer res.Body.Close()
		if res.StatusCode != 200 {
			t.Fatalf("export: %d", res.StatusCode)
		}
		sc := bufio.NewScanner(res.Body)
		lines, bytes := 0, 0
		for sc.Scan() {
			lines++
			bytes += len(sc.Bytes()) + 1
			if lines%5000 == 0 {
				runtime.ReadMemStats(&ms)
				peak = max(peak, ms.HeapAlloc)
			}
		}
		if err := sc.Err(); err != nil {
			t.Fatal(err)
		}
		elapsed := time.Since(start)
		if lines != n {
			t.Fatalf("the export streamed %d records of %d", lines, n)
		}
		growth := int64(peak) - int64(base)
		t.Logf("%s: %d records (%.1f MB) exported in %v (%.0f records/s); heap grew by at most %.1f MiB while streaming",
			e, n, float64(bytes)/1e6, elapsed.Round(time.Millisecond), float64(n)/elapsed.Seconds(), float64(growth)/(1<<20))
		if growth > 64<<20 {
			t.Errorf("the heap grew by %.1f MiB while streaming %d records: the export is not bounded", float64(growth)/(1<<20), n)
		}
	})
}

// seedRecords appends n records of one day to db, in transactions of
// 5 000, as the sequencer would write them (the content is a template:
// the test is about their number).
func seedRecords(t *testing.T, db *store.DB, n int) {
	t.Helper()
	ctx := context.Background()
	day := time.Date(2026, 12, 7, 8, 0, 0, 0, time.UTC)
	tmpl := records.Record{SubmittingEntity: "529900T8BM49AURSDO55", Capacity: records.Dealing, Validity: records.GoodTillCancelled,
		SegmentMIC: "BVEN", OrderBook: "market", ISIN: "DE0001102580", Event: records.New, OrderType: records.TypeLimit,
		Classification: records.LimitOrder, LimitPrice: udecimal.MustParse("99.125"), HasLimit: true, PriceCurrency: "EUR",
		Side: "BUYI", Status: records.StatusActive, QuantityCurrency: "EUR", InitialQuantity: udecimal.MustParse("1000000"),
		RemainingQuantity: udecimal.MustParse("1000000"), DisplayedQuantity: udecimal.MustParse("1000000"),
		TradingPhase: records.PhaseContinuous, ParticipantID: "participant", UserID: "user", MarketID: "market", InstrumentID: "instrument",
		Live: true, Resting: true}
	batch := make([]records.Record, 0, 5000)
	for i := 0; i < n; {
		batch = batch[:0]
		for ; i < n && len(batch) < cap(batch); i++ {
			r := tmpl
			r.EventTime = day.Add(time.Duration(i) * time.Millisecond)
			r.PriorityTime, r.ReceivedOn = r.EventTime, "2026-12-07"
			r.OrderID = fmt.Sprintf("order-%08d", i)
			batch = append(batch, r)
		}
		if err := db.InTx(ctx, func(tx *store.Tx) error { return tx.AppendOrderRecords(ctx, batch) }); err != nil {
			t.Fatal(err)
		}
	}
}
