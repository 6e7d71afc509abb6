package store

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/quagmt/udecimal"

	"github.com/bondvenue/bondvenue/internal/venue"
)

// This file keeps what an RFQ's best-execution record needs beyond its
// offers: the market around it when it was sent and when a quote was
// accepted (docs/guide.md, "The execution record").

// Marks of an RFQ: when it was sent, when a quote was accepted.
const (
	MarkSent     = "create"
	MarkAccepted = "accept"
)

// RFQMark is the market around an RFQ at one moment: the best bid and ask
// of the instrument's continuous books and the newest valid indicative
// mid, each nil when there was none.
type RFQMark struct {
	RFQID         string
	Kind          string
	BestBid       *udecimal.Decimal
	BestAsk       *udecimal.Decimal
	IndicativeMid *udecimal.Decimal
	At            time.Time
}

func decText(d *udecimal.Decimal) any {
	if d == nil {
		return nil
	}
	return d.String()
}

func rfqMarkUpsert(m RFQMark) statement {
	return statement{query: `INSERT INTO rfq_marks (rfq_id, kind, best_bid, best_ask, indicative_mid, recorded_us)
		VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (rfq_id, kind) DO UPDATE SET best_bid = excluded.best_bid,
		best_ask = excluded.best_ask, indicative_mid = excluded.indicative_mid, recorded_us = excluded.recorded_us`,
		args: []any{m.RFQID, m.Kind, decText(m.BestBid), decText(m.BestAsk), decText(m.IndicativeMid), m.At.UnixMicro()},
		what: "rfq mark " + m.RFQID}
}

// RFQMarks returns the marks of the given RFQs.
func (tx *Tx) RFQMarks(ctx context.Context, rfqIDs []string) ([]RFQMark, error) {
	if len(rfqIDs) == 0 {
		return nil, nil
	}
	var out []RFQMark
	for from := 0; from < len(rfqIDs); from += 500 {
		ids := rfqIDs[from:min(from+500, len(rfqIDs))]
		q, args := andIn(`SELECT rfq_id, kind, best_bid, best_ask, indicative_mid, recorded_us FROM rfq_marks WHERE 1 = 1`, nil, "rfq_id", ids)
		ms, err := selectAll(ctx, tx, scanRFQMark, q, args...)
		if err != nil {
			return nil, fmt.Errorf("rfq marks: %w", normalize(err))
		}
		out = append(out, ms...)
	}
	return out, nil
}

func scanRFQMark(r *sql.Rows) (RFQMark, error) {
	var m RFQMark
	var bid, ask, mid sql.NullString
	var at int64
	if err := r.Scan(&m.RFQID, &m.Kind, &bid, &ask, &mid, &at); err != nil {
		return m, err
	}
	for _, f := range []struct {
		s   sql.NullString
		dst **udecimal.Decimal
	}{{bid, &m.BestBid}, {ask, &m.BestAsk}, {mid, &m.IndicativeMid}} {
		if !f.s.Valid {
			continue
		}
		d, err := udecimal.Parse(f.s.String)
		if err != nil {
			return m, fmt.Errorf("rfq mark %s: %w", m.RFQID, err)
		}
		*f.dst = &d
	}
	m.At = time.UnixMicro(at).UTC()
	return m, nil
}

// RFQsSent returns the ids of the RFQs sent in [from, to), oldest first,
// of the given requesters (nil: any).
func (tx *Tx) RFQsSent(ctx context.Context, from, to time.Time, requesters []string) ([]string, error) {
	q := `SELECT m.rfq_id FROM rfq_marks m JOIN offers o ON o.id = m.rfq_id
		WHERE m.kind = ? AND m.recorded_us >= ? AND m.recorded_us < ?`
	args := []any{MarkSent, from.UnixMicro(), to.UnixMicro()}
	if requesters != nil {
		if len(requesters) == 0 {
			return nil, nil
		}
		q, args = andIn(q, args, "o.participant_id", requesters)
	}
	q += " ORDER BY m.recorded_us, m.rfq_id"
	ids, err := selectAll(ctx, tx, func(r *sql.Rows) (string, error) {
		var id string
		return id, r.Scan(&id)
	}, q, args...)
	if err != nil {
		return nil, fmt.Errorf("rfqs sent: %w", normalize(err))
	}
	return ids, nil
}

// OffersByIDs returns the records with the given ids.
func (tx *Tx) OffersByIDs(ctx context.Context, ids []string) ([]venue.Offer, error) {
	return tx.offersIn(ctx, "id", ids)
}

// QuotesOf returns every quote record of the given RFQs, declines included.
func (tx *Tx) QuotesOf(ctx context.Context, rfqIDs []string) ([]venue.Offer, error) {
	return tx.offersIn(ctx, "matched_offer_id", rfqIDs)
}

func (tx *Tx) offersIn(ctx context.Context, col string, vals []string) ([]venue.Offer, error) {
	var out []venue.Offer
	for from := 0; from < len(vals); from += 500 {
		chunk := vals[from:min(from+500, len(vals))]
		q, args := andIn("SELECT "+offerCols+" FROM offers WHERE 1 = 1", nil, col, chunk)
		os, err := selectAll(ctx, tx, func(r *sql.Rows) (venue.Offer, error) { return scanOffer(r) }, q, args...)
		if err != nil {
			return nil, fmt.Errorf("offers by %s: %w", col, normalize(err))
		}
		out = append(out, os...)
	}
	return out, nil
}

// RecipientsOf returns the recipients of the given RFQs, by RFQ.
func (tx *Tx) RecipientsOf(ctx context.Context, rfqIDs []string) (map[string][]Recipient, error) {
	out := map[string][]Recipient{}
	for from := 0; from < len(rfqIDs); from += 500 {
		chunk := rfqIDs[from:min(from+500, len(rfqIDs))]
		q, args := andIn("SELECT rfq_id, participant_id, declined FROM rfq_recipients WHERE 1 = 1", nil, "rfq_id", chunk)
		rows, err := tx.query(ctx, q, args...)
		if err != nil {
			return nil, fmt.Errorf("rfq recipients: %w", normalize(err))
		}
		for rows.Next() {
			var id string
			var r Recipient
			if err := rows.Scan(&id, &r.ParticipantID, &r.Declined); err != nil {
				rows.Close()
				return nil, fmt.Errorf("rfq recipients: %w", normalize(err))
			}
			out[id] = append(out[id], r)
		}
		if err := rows.Close(); err != nil {
			return nil, fmt.Errorf("rfq recipients: %w", normalize(err))
		}
		if err := rows.Err(); err != nil {
			return nil, fmt.Errorf("rfq recipients: %w", normalize(err))
		}
	}
	return out, nil
}
