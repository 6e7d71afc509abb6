package store

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/bondvenue/bondvenue/internal/venue"
)

// maxLookup bounds the ids of one lookup by id: the 2000 offers of a
// trades list of 1000 take four statements.
const maxLookup = 512

// byID loads the rows of a table whose id is in ids and answers them by
// id; an id without a row is absent from the answer, a repeated id is
// looked up once. The ids go in chunks of at most maxLookup (powers of two
// on SQLite, so the statements come in a handful of shapes that stay
// prepared), one statement per chunk whatever the number of records that
// name them.
func byID[T any](ctx context.Context, tx *Tx, what, cols, table string, scan func(*sql.Rows) (T, error), id func(T) string, ids []string) (map[string]T, error) {
	out := make(map[string]T, len(ids))
	seen := make(map[string]bool, len(ids))
	distinct := make([]string, 0, len(ids))
	for _, v := range ids {
		if !seen[v] {
			seen[v] = true
			distinct = append(distinct, v)
		}
	}
	var err error
	chunks(tx.engine, len(distinct), maxLookup, func(from, n int) {
		if err != nil {
			return
		}
		q, args := andIn("SELECT "+cols+" FROM "+table+" WHERE 1 = 1", nil, "id", distinct[from:from+n])
		var rows []T
		if rows, err = selectAll(ctx, tx, scan, q, args...); err != nil {
			err = fmt.Errorf("%s by id: %w", what, normalize(err))
			return
		}
		for _, r := range rows {
			out[id(r)] = r
		}
	})
	return out, err
}

// OffersByID returns the offers, RFQs and quotes with these ids (an RFQ
// without its recipients, as in lists).
func (tx *Tx) OffersByID(ctx context.Context, ids []string) (map[string]venue.Offer, error) {
	return byID(ctx, tx, "offers", offerCols, "offers", func(r *sql.Rows) (venue.Offer, error) { return scanOffer(r) },
		func(o venue.Offer) string { return o.ID }, ids)
}

// AccountsByID returns the accounts with these ids.
func (tx *Tx) AccountsByID(ctx context.Context, ids []string) (map[string]venue.Account, error) {
	return byID(ctx, tx, "accounts", accountCols, "accounts", func(r *sql.Rows) (venue.Account, error) { return scanAccount(r) },
		func(a venue.Account) string { return a.ID }, ids)
}

// ParticipantsByID returns the participants with these ids.
func (tx *Tx) ParticipantsByID(ctx context.Context, ids []string) (map[string]venue.Participant, error) {
	return byID(ctx, tx, "participants", participantCols, "participants",
		func(r *sql.Rows) (venue.Participant, error) { return scanParticipant(r) },
		func(p venue.Participant) string { return p.ID }, ids)
}

// InstrumentsByID returns the instruments with these ids (without market
// ids, as in lists).
func (tx *Tx) InstrumentsByID(ctx context.Context, ids []string) (map[string]venue.Instrument, error) {
	return byID(ctx, tx, "instruments", instrumentCols, "instruments",
		func(r *sql.Rows) (venue.Instrument, error) { return scanInstrument(r) },
		func(in venue.Instrument) string { return in.ID }, ids)
}

// MarketsByID returns the markets with these ids.
func (tx *Tx) MarketsByID(ctx context.Context, ids []string) (map[string]venue.Market, error) {
	return byID(ctx, tx, "markets", marketCols, "markets", func(r *sql.Rows) (venue.Market, error) { return scanMarket(r) },
		func(m venue.Market) string { return m.ID }, ids)
}
