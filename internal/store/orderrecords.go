package store

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/bondvenue/bondvenue/internal/records"
)

// This file keeps the order records (internal/records): the sequencer
// appends them with its batch, numbered 1..n with no gap, and they are
// read back in pages for export and replay. The venue never updates or
// deletes one.

// recordLockKey is the advisory lock under which PostgreSQL numbers the
// records (the events have their own).
const recordLockKey = 7242003

// recordRow is one record in the form it is stored.
type recordRow struct {
	eventUS                                           int64
	day, participant, market, instrument, order, data string
}

// rowOf is r as it is stored: the fields kept in columns of their own
// (participant, market — also the order book's code —, instrument, order)
// are left out of data, and put back when a record is read (recordPage).
func rowOf(r *records.Record) recordRow {
	cp := *r
	cp.ParticipantID, cp.MarketID, cp.OrderBook, cp.InstrumentID, cp.OrderID = "", "", "", "", ""
	return recordRow{eventUS: r.EventTime.UnixMicro(), day: r.EventTime.UTC().Format(time.DateOnly), participant: r.ParticipantID,
		market: r.MarketID, instrument: r.InstrumentID, order: r.OrderID, data: string(cp.AppendJSON(nil))}
}

// recordAppend is PostgreSQL's statement appending recs, numbered after
// the last record under the record lock.
func recordAppend(recs []records.Record) statement {
	n := len(recs)
	us, days, parts, markets, instruments, orders, data := make([]int64, n), make([]string, n), make([]string, n),
		make([]string, n), make([]string, n), make([]string, n), make([]string, n)
	for i := range recs {
		r := rowOf(&recs[i])
		us[i], days[i], parts[i], markets[i], instruments[i], orders[i], data[i] = r.eventUS, r.day, r.participant, r.market,
			r.instrument, r.order, r.data
	}
	return statement{query: fmt.Sprintf(`WITH last AS (
			SELECT pg_advisory_xact_lock(%d) AS locked, (SELECT COALESCE(MAX(seq), 0) FROM order_records) AS seq
		)
		INSERT INTO order_records (seq, event_us, day, participant_id, market_id, instrument_id, order_id, data)
		SELECT last.seq + r.n, r.event_us, r.day, r.participant_id, r.market_id, r.instrument_id, r.order_id, r.data
		FROM last, unnest(?::bigint[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[])
			WITH ORDINALITY AS r(event_us, day, participant_id, market_id, instrument_id, order_id, data, n)`, recordLockKey),
		args: []any{us, days, parts, markets, instruments, orders, data}, what: "append order records"}
}

// AppendOrderRecords adds recs in order in the caller's transaction,
// numbering each after the last record.
func (tx *Tx) AppendOrderRecords(ctx context.Context, recs []records.Record) error {
	if len(recs) == 0 {
		return nil
	}
	if tx.engine == Postgres {
		return tx.execAll(ctx, []statement{recordAppend(recs)})
	}
	var last int64
	if err := tx.queryRow(ctx, "SELECT COALESCE(MAX(seq), 0) FROM order_records").Scan(&last); err != nil {
		return fmt.Errorf("last order record: %w", normalize(err))
	}
	var stmts []statement
	inChunks(tx.engine, len(recs), func(from, n int) {
		args := make([]any, 0, n*8)
		for i := range recs[from : from+n] {
			r := rowOf(&recs[from+i])
			last++
			args = append(args, last, r.eventUS, r.day, r.participant, r.market, r.instrument, r.order, r.data)
		}
		stmts = append(stmts, statement{query: "INSERT INTO order_records (seq, event_us, day, participant_id, market_id, instrument_id, order_id, data) VALUES " +
			valueRows(n, 8), args: args, what: "append order records"})
	})
	return tx.execAll(ctx, stmts)
}

// RecordFilter selects order records. Zero fields do not filter.
type RecordFilter struct {
	Day           string // YYYY-MM-DD, UTC
	ParticipantID string
	InstrumentID  string
	MarketID      string
	// Until keeps the records at or before an instant (zero: all).
	Until time.Time
}

// recordPage is how many records one read of OrderRecords takes.
const recordPage = 2000

// OrderRecords calls fn with every record filter selects, in sequence
// order. It reads a page at a time, each in a transaction of its own, so
// memory stays bounded however many records there are; a record appended
// while it runs is read if it comes before the end.
func (db *DB) OrderRecords(ctx context.Context, filter RecordFilter, fn func(records.Stored) error) error {
	var after int64
	for {
		page, err := db.recordPage(ctx, filter, after)
		if err != nil {
			return err
		}
		for _, s := range page {
			if err := fn(s); err != nil {
				return err
			}
		}
		if len(page) < recordPage {
			return nil
		}
		after = page[len(page)-1].Seq
	}
}

func (db *DB) recordPage(ctx context.Context, f RecordFilter, after int64) ([]records.Stored, error) {
	q, args := "SELECT seq, participant_id, market_id, instrument_id, order_id, data FROM order_records WHERE seq > ?", []any{after}
	if f.Day != "" {
		q, args = q+" AND day = ?", append(args, f.Day)
	}
	if f.MarketID != "" {
		q, args = q+" AND market_id = ?", append(args, f.MarketID)
	}
	if f.InstrumentID != "" {
		q, args = q+" AND instrument_id = ?", append(args, f.InstrumentID)
	}
	if f.ParticipantID != "" {
		q, args = q+" AND participant_id = ?", append(args, f.ParticipantID)
	}
	if !f.Until.IsZero() {
		q, args = q+" AND event_us <= ?", append(args, f.Until.UnixMicro())
	}
	q += fmt.Sprintf(" ORDER BY seq LIMIT %d", recordPage)
	var out []records.Stored
	err := db.View(ctx, func(tx *Tx) error {
		var err error
		out, err = selectAll(ctx, tx, func(r *sql.Rows) (records.Stored, error) {
			var seq int64
			var participant, market, instrument, order, data string
			if err := r.Scan(&seq, &participant, &market, &instrument, &order, &data); err != nil {
				return records.Stored{}, err
			}
			s, err := records.Decode(seq, []byte(data))
			if err == nil {
				s.SetKeys(participant, market, instrument, order)
			}
			return s, err
		}, q, args...)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("order records: %w", normalize(err))
	}
	return out, nil
}

// LastOrderRecord is the sequence number of the newest record (0: none).
func (tx *Tx) LastOrderRecord(ctx context.Context) (int64, error) {
	var last int64
	if err := tx.queryRow(ctx, "SELECT COALESCE(MAX(seq), 0) FROM order_records").Scan(&last); err != nil {
		return 0, fmt.Errorf("last order record: %w", normalize(err))
	}
	return last, nil
}
