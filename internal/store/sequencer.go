package store

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/bondvenue/bondvenue/internal/audit"
	"github.com/bondvenue/bondvenue/internal/records"
	"github.com/bondvenue/bondvenue/internal/venue"
)

// BatchWrite is what one batch of the trading sequencer writes: the final
// state of every offer, quote and RFQ it changed, the RFQ recipients it
// recorded, its trades, and its events in order.
type BatchWrite struct {
	// Portfolios are the portfolio RFQs the batch changed, written before
	// the offers and trades of their traded lines.
	Portfolios []PortfolioWrite
	Offers     []*venue.Offer
	Recipients []RecipientWrite
	Trades     []venue.Trade
	Events     []Event
	// Claims are the Idempotency-Key claims of the batch's applied
	// commands, marked applied with the batch. Their row counts are not
	// read: the service takes a claim over only when its request can no
	// longer run (an earlier lease's, whose batches fail the lease check, or
	// one its own process no longer serves), never while its command may
	// still be queued for the engine.
	Claims []IdempotencyClaim
	// KillSwitches and Halts are the pre-trade controls the batch set.
	KillSwitches []KillSwitch
	Halts        []venue.Halt
	// Marks are the market around the RFQs the batch sent or traded.
	Marks []RFQMark
	// Published are the trades whose price or volume the batch published.
	Published []PublicationWrite
	// Records are the order records of the batch's events, in order.
	Records []records.Record
	// Audit are the audit trail's entries of the batch's operator and
	// admin changes (a kill switch, a halt), written after its events.
	Audit []audit.Entry
}

// statements returns the writes of w other than its events, in the order
// they run: portfolio RFQs, offers, recipients, trades, marks, controls,
// claims.
func (w BatchWrite) statements(e Engine, now time.Time) ([]statement, error) {
	out, err := portfolioWrites(w.Portfolios)
	if err != nil {
		return nil, err
	}
	out = append(out, offerUpserts(e, w.Offers)...)
	for _, r := range w.Recipients {
		out = append(out, recipientUpsert(r))
	}
	out = append(out, tradeInserts(e, w.Trades)...)
	for _, p := range w.Published {
		out = append(out, publicationUpdate(p))
	}
	for _, m := range w.Marks {
		out = append(out, rfqMarkUpsert(m))
	}
	for _, k := range w.KillSwitches {
		out = append(out, killSwitchUpsert(k))
	}
	for _, h := range w.Halts {
		out = append(out, haltUpsert(h))
	}
	for _, c := range w.Claims {
		out = append(out, claimMark(c, now))
	}
	return out, nil
}

// SequencerBatch writes w in one transaction on the sequencer's connection
// if epoch still holds the sequencer lease, and returns w's events with
// their sequence numbers. When another engine has taken the lease it
// fails with ErrLeaseLost; on that or any other error nothing of w is
// written. Like InTx it runs the transaction again after a serialization
// failure; w itself is never changed.
//
// On SQLite it is SequencerTx running CheckLease, the writes and
// AppendEvents. On PostgreSQL the whole transaction (BEGIN, the lease
// check, the writes, the event append and COMMIT) is sent in one pipeline
// and costs one round trip to the server instead of one per statement (two
// when the connection has not prepared one of its statements yet).
func (db *DB) SequencerBatch(ctx context.Context, epoch int64, w BatchWrite) ([]Event, error) {
	var events []Event
	var err error
	if db.engine == Postgres {
		err = retry(ctx, func() error {
			var err error
			events, err = db.sendBatch(ctx, epoch, w)
			return err
		})
		if err == nil {
			db.notifyCommitted(events)
		}
	} else {
		err = db.SequencerTx(ctx, func(tx *Tx) error {
			if err := tx.CheckLease(ctx, epoch); err != nil {
				return err
			}
			stmts, err := w.statements(tx.engine, tx.now)
			if err != nil {
				return err
			}
			if err := tx.execAll(ctx, stmts); err != nil {
				return err
			}
			if events, err = tx.AppendEvents(ctx, append([]Event(nil), w.Events...)); err != nil {
				return err
			}
			if err := tx.AppendOrderRecords(ctx, w.Records); err != nil {
				return err
			}
			for _, e := range w.Audit {
				if err := tx.AppendAudit(ctx, e); err != nil {
					return err
				}
			}
			return nil
		})
	}
	if err != nil {
		return nil, err
	}
	return events, nil
}

// leaseCheck is the lease check of a pipelined batch (migration 0005): a
// statement that fails when the epoch no longer holds the lease, since the
// batch cannot read a row count before its writes are on their way.
const leaseCheck = "SELECT sequencer_check_lease(?)"

// sendBatch is one attempt of SequencerBatch on PostgreSQL: the whole
// transaction as one pgx batch, written at once, its results read in
// order. The server runs the statements in order; after the first that
// fails it skips the rest of the batch, COMMIT included, so the failed
// transaction stays open and is rolled back here. Every result is checked,
// the first error is returned, and COMMIT must answer COMMIT, so a failure
// can never pass for a commit.
func (db *DB) sendBatch(ctx context.Context, epoch int64, w BatchWrite) ([]Event, error) {
	now := db.now()
	stmts, err := w.statements(Postgres, now)
	if err != nil {
		return nil, err
	}
	events := append([]Event(nil), w.Events...)
	for i := range events {
		if events[i].OccurredAt.IsZero() {
			events[i].OccurredAt = now
		}
	}
	var first, n int64
	conn, err := db.sequencer.Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("sequencer connection: %w", err)
	}
	defer conn.Close()
	err = conn.Raw(func(dc any) error {
		b := &pgx.Batch{}
		b.BeginTx(pgx.TxOptions{IsoLevel: pgx.Serializable})
		b.Queue(db.binds.bind(leaseCheck), epoch)
		db.queue(b, stmts)
		var appendEvents statement
		if len(events) > 0 {
			appendEvents = eventAppend(events)
			b.Queue(db.binds.bind(appendEvents.query), appendEvents.args...)
		}
		var appended []statement // the order records, then the audit entries
		if len(w.Records) > 0 {
			appended = append(appended, recordAppend(w.Records))
		}
		appended = append(appended, auditAppends(w.Audit, now)...)
		db.queue(b, appended)
		b.Queue("COMMIT")

		br := dc.(*stdlib.Conn).Conn().SendBatch(ctx, b)
		err := func() error {
			if _, err := br.Exec(); err != nil {
				return fmt.Errorf("begin: %w", normalize(err))
			}
			if _, err := br.Exec(); err != nil {
				return fmt.Errorf("check sequencer lease: %w", normalize(err))
			}
			if err := execBatch(br, stmts); err != nil {
				return err
			}
			if len(events) > 0 {
				if err := br.QueryRow().Scan(&first, &n); err != nil {
					return fmt.Errorf("%s: %w", appendEvents.what, normalize(err))
				}
			}
			if err := execBatch(br, appended); err != nil {
				return err
			}
			tag, err := br.Exec()
			if err != nil {
				return fmt.Errorf("commit: %w", normalize(err))
			}
			if tag.String() != "COMMIT" {
				return fmt.Errorf("commit: the transaction ended with %q", tag.String())
			}
			return nil
		}()
		if cerr := br.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("end batch: %w", normalize(cerr))
		}
		if err != nil {
			// A statement that failed left the transaction open and
			// aborted. (Rollback does nothing when the batch failed
			// before BEGIN or at COMMIT, which ended it.)
			_ = br.Tx().Rollback(ctx)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	if len(events) == 0 {
		return events, nil
	}
	return numbered(events, first, n)
}

// queue adds sts to a pipelined batch, in order.
func (db *DB) queue(b *pgx.Batch, sts []statement) {
	for _, st := range sts {
		b.Queue(db.binds.bind(st.query), st.args...)
	}
}

// execBatch reads the results of sts, the next statements of a batch.
func execBatch(br pgx.BatchResults, sts []statement) error {
	for _, st := range sts {
		if _, err := br.Exec(); err != nil {
			return fmt.Errorf("%s: %w", st.what, normalize(err))
		}
	}
	return nil
}
