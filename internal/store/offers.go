package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/bondvenue/bondvenue/internal/bondmath"
	"github.com/bondvenue/bondvenue/internal/venue"
)

const offerCols = `id, type, direction, participant_id, account_id, user_id, market_id, instrument_id,
	settlement_provider_id, price, quantity, filled_quantity, status, matched_offer_id, notes, market_order,
	is_executable, settlement_date, validity, valid_until, accrued_interest, message, priority,
	created_at, updated_at, modified_at, client_order_id, outcome, cover_price, created_us, updated_us, modified_us, priority_us,
	client_id_code, investment_decision_id, execution_decision_id, trading_capacity`

// offerColCount is the number of offerCols.
const offerColCount = 37

func scanOffer(r interface{ Scan(...any) error }) (venue.Offer, error) {
	var o venue.Offer
	var sp, price, matched, msg, outcome, cover sql.NullString
	var settle string
	var validUntil sql.NullInt64
	var priority, created, updated, modified int64
	var createdUS, updatedUS, modifiedUS, priorityUS sql.NullInt64
	var client, investment, execution, capacity sql.NullString
	err := r.Scan(&o.ID, &o.Type, &o.Direction, &o.ParticipantID, &o.AccountID, &o.UserID, &o.MarketID,
		&o.InstrumentID, &sp, &price, decimal{&o.Quantity}, decimal{&o.Filled}, &o.Status, &matched, &o.Notes,
		&o.MarketOrder, &o.IsExecutable, &settle, &o.Validity, &validUntil, decimal{&o.AccruedInterest}, &msg,
		&priority, &created, &updated, &modified, &o.ClientOrderID, &outcome, &cover, &createdUS, &updatedUS, &modifiedUS,
		&priorityUS, &client, &investment, &execution, &capacity)
	if err != nil {
		return o, err
	}
	o.Parties = venue.Parties{ClientID: client.String, InvestmentDecision: investment.String,
		ExecutionDecision: execution.String, Capacity: capacity.String}
	o.Outcome = outcome.String
	if cover.Valid {
		if err := (decimal{&o.CoverPrice}).Scan(cover.String); err != nil {
			return o, err
		}
		o.HasCover = true
	}
	o.SettlementProviderID, o.MatchedOfferID, o.Message = sp.String, matched.String, msg.String
	if price.Valid {
		if err := (decimal{&o.Price}).Scan(price.String); err != nil {
			return o, err
		}
		o.HasPrice = true
	}
	if o.SettlementDate, err = bondmath.ParseDate(settle); err != nil {
		return o, fmt.Errorf("offer %s settlement date: %w", o.ID, err)
	}
	o.ValidUntil = fromNullMS(validUntil)
	o.Priority = uint64(priority)
	o.CreatedAt, o.UpdatedAt, o.ModifiedAt = fromUSOr(createdUS, created), fromUSOr(updatedUS, updated), fromUSOr(modifiedUS, modified)
	if priorityUS.Valid {
		o.PriorityAt = fromUSOr(priorityUS, 0)
	}
	return o, nil
}

// UpsertOffer inserts an offer or overwrites its mutable fields.
func (tx *Tx) UpsertOffer(ctx context.Context, o *venue.Offer) error {
	return tx.UpsertOffers(ctx, []*venue.Offer{o})
}

// UpsertOffers is UpsertOffer for many offers of distinct ids, in a few
// multi-row statements: the sequencer writes a whole batch at once, and
// one statement per offer would cost PostgreSQL a round trip each.
func (tx *Tx) UpsertOffers(ctx context.Context, offers []*venue.Offer) error {
	return tx.execAll(ctx, offerUpserts(tx.engine, offers))
}

// offerUpserts returns the statements of UpsertOffers.
func offerUpserts(e Engine, offers []*venue.Offer) []statement {
	var out []statement
	inChunks(e, len(offers), func(from, n int) {
		args := make([]any, 0, n*offerColCount)
		for _, o := range offers[from : from+n] {
			var price, cover any
			if o.HasPrice {
				price = o.Price.String()
			}
			if o.HasCover {
				cover = o.CoverPrice.String()
			}
			args = append(args, o.ID, o.Type, o.Direction, o.ParticipantID, o.AccountID, o.UserID, o.MarketID, o.InstrumentID,
				nullStr(o.SettlementProviderID), price, o.Quantity.String(), o.Filled.String(), o.Status,
				nullStr(o.MatchedOfferID), o.Notes, o.MarketOrder, o.IsExecutable, o.SettlementDate.String(), o.Validity,
				nullMS(o.ValidUntil), o.AccruedInterest.String(), nullStr(o.Message), int64(o.Priority),
				ms(o.CreatedAt), ms(o.UpdatedAt), ms(o.ModifiedAt), o.ClientOrderID, nullStr(o.Outcome), cover,
				o.CreatedAt.UnixMicro(), o.UpdatedAt.UnixMicro(), o.ModifiedAt.UnixMicro(), nullUS(o.PriorityAt),
				nullStr(o.Parties.ClientID), nullStr(o.Parties.InvestmentDecision), nullStr(o.Parties.ExecutionDecision),
				nullStr(o.Parties.Capacity))
		}
		what := fmt.Sprintf("upsert %d offers", n)
		if n == 1 {
			what = "upsert offer " + offers[from].ID
		}
		out = append(out, statement{query: "INSERT INTO offers (" + offerCols + ") VALUES " + valueRows(n, offerColCount) + `
		ON CONFLICT (id) DO UPDATE SET price = excluded.price, quantity = excluded.quantity,
		filled_quantity = excluded.filled_quantity, status = excluded.status, notes = excluded.notes,
		settlement_date = excluded.settlement_date, validity = excluded.validity, valid_until = excluded.valid_until,
		accrued_interest = excluded.accrued_interest, message = excluded.message, priority = excluded.priority,
		updated_at = excluded.updated_at, modified_at = excluded.modified_at,
		client_order_id = excluded.client_order_id, outcome = excluded.outcome,
		cover_price = excluded.cover_price, updated_us = excluded.updated_us,
		modified_us = excluded.modified_us, priority_us = excluded.priority_us, client_id_code = excluded.client_id_code,
		investment_decision_id = excluded.investment_decision_id, execution_decision_id = excluded.execution_decision_id,
		trading_capacity = excluded.trading_capacity`, args: args, what: what})
	})
	return out
}

// Offer returns one offer, RFQ or quote (with an RFQ's recipients).
func (tx *Tx) Offer(ctx context.Context, id string) (venue.Offer, error) {
	o, err := scanOffer(tx.queryRow(ctx, "SELECT "+offerCols+" FROM offers WHERE id = ?", id))
	if err != nil {
		return o, fmt.Errorf("offer %s: %w", id, normalize(err))
	}
	if o.Type == venue.TypeRFQ {
		rs, err := tx.Recipients(ctx, id)
		if err != nil {
			return o, err
		}
		for _, r := range rs {
			o.Counterparties = append(o.Counterparties, r.ParticipantID)
		}
	}
	return o, nil
}

// OfferFilter selects offers in a list. Zero fields do not filter.
type OfferFilter struct {
	// Types restricts the record types (offer, request_for_quote, quote).
	Types []string
	// Owner restricts to one participant's records.
	Owner string
	// RecipientOf lists RFQs sent to this participant (with Owner: sent or
	// received, i.e. either).
	RecipientOf    string
	Status         string
	InstrumentID   string
	MarketID       string
	MatchedOfferID string
	// QuoteOwnerOrRFQOwner, with MatchedOfferID: only quotes of this
	// participant, unless it owns the RFQ.
	Direction string
}

// Offers lists offers matching f, newest first.
func (tx *Tx) Offers(ctx context.Context, f OfferFilter, page Page) ([]venue.Offer, string, error) {
	q, args := "SELECT "+offerCols+" FROM offers WHERE 1 = 1", []any(nil)
	if len(f.Types) > 0 {
		q, args = andIn(q, args, "type", f.Types)
	}
	switch {
	case f.Owner != "" && f.RecipientOf != "":
		q += " AND (participant_id = ? OR id IN (SELECT rfq_id FROM rfq_recipients WHERE participant_id = ?))"
		args = append(args, f.Owner, f.RecipientOf)
	case f.Owner != "":
		q += " AND participant_id = ?"
		args = append(args, f.Owner)
	case f.RecipientOf != "":
		q += " AND id IN (SELECT rfq_id FROM rfq_recipients WHERE participant_id = ?)"
		args = append(args, f.RecipientOf)
	}
	for _, c := range []struct{ col, v string }{{"status", f.Status}, {"instrument_id", f.InstrumentID},
		{"market_id", f.MarketID}, {"matched_offer_id", f.MatchedOfferID}, {"direction", f.Direction}} {
		if c.v != "" {
			q += " AND " + c.col + " = ?"
			args = append(args, c.v)
		}
	}
	q, args = pageSQL(q, args, page, "id", "created_at")
	out, err := selectAll(ctx, tx, func(r *sql.Rows) (venue.Offer, error) { return scanOffer(r) }, q, args...)
	if err != nil {
		return nil, "", fmt.Errorf("list offers: %w", normalize(err))
	}
	out, next := trimPage(out, page, func(o venue.Offer) string { return o.ID })
	return out, next, nil
}

// OpenOffers returns every open offer, quote and RFQ in time priority, for
// rebuilding the engine.
func (tx *Tx) OpenOffers(ctx context.Context) ([]venue.Offer, error) {
	out, err := selectAll(ctx, tx, func(r *sql.Rows) (venue.Offer, error) { return scanOffer(r) },
		// The literal status matches offers_open's partial index.
		"SELECT "+offerCols+" FROM offers WHERE status = '"+venue.StatusCreated+"' ORDER BY priority, id")
	if err != nil {
		return nil, fmt.Errorf("open offers: %w", normalize(err))
	}
	for i := range out {
		if out[i].Type != venue.TypeRFQ {
			continue
		}
		rs, err := tx.Recipients(ctx, out[i].ID)
		if err != nil {
			return nil, err
		}
		for _, r := range rs {
			out[i].Counterparties = append(out[i].Counterparties, r.ParticipantID)
		}
	}
	return out, nil
}

// MaxPriority returns the highest book priority ever assigned.
func (tx *Tx) MaxPriority(ctx context.Context) (uint64, error) {
	var v int64
	if err := tx.queryRow(ctx, "SELECT COALESCE(MAX(priority), 0) FROM offers").Scan(&v); err != nil {
		return 0, fmt.Errorf("max priority: %w", normalize(err))
	}
	return uint64(v), nil
}

// Recipient is an RFQ's invited dealer.
type Recipient struct {
	ParticipantID string
	Declined      bool
}

// RecipientWrite is a Recipient of the RFQ RFQID to record.
type RecipientWrite struct {
	RFQID string
	Recipient
}

// recipientUpsert returns the statement that records an RFQ recipient or
// its decline.
func recipientUpsert(w RecipientWrite) statement {
	return statement{query: `INSERT INTO rfq_recipients (rfq_id, participant_id, declined) VALUES (?, ?, ?)
		ON CONFLICT (rfq_id, participant_id) DO UPDATE SET declined = excluded.declined`,
		args: []any{w.RFQID, w.ParticipantID, w.Declined}, what: "rfq recipient"}
}

// Recipients lists an RFQ's recipients.
func (tx *Tx) Recipients(ctx context.Context, rfqID string) ([]Recipient, error) {
	out, err := selectAll(ctx, tx, func(r *sql.Rows) (Recipient, error) {
		var x Recipient
		return x, r.Scan(&x.ParticipantID, &x.Declined)
	}, "SELECT participant_id, declined FROM rfq_recipients WHERE rfq_id = ? ORDER BY participant_id", rfqID)
	if err != nil {
		return nil, fmt.Errorf("rfq recipients: %w", normalize(err))
	}
	return out, nil
}

// BookEntry is an open firm offer as the instrument's book shows it.
type BookEntry struct {
	OfferID         string
	InstrumentID    string
	MarketID        string
	Direction       string
	Price           venue.Offer // only Price/HasPrice/Quantity/Filled are set
	ParticipantID   string
	ParticipantName string
	ParticipantLEI  string
	MarketOrder     bool
	Priority        uint64
	// The offer's account and settlement provider: where it settles.
	AccountID, SettlementProviderID string
}

// BookEntries returns the open firm offers of the instruments, in time
// priority. The service reads books from the sequencer; this is for when
// none runs (administration offline), and scans the open records.
func (tx *Tx) BookEntries(ctx context.Context, instrumentIDs []string) ([]BookEntry, error) {
	if len(instrumentIDs) == 0 {
		return nil, nil
	}
	args := []any{venue.TypeOffer, venue.StatusCreated}
	for _, id := range instrumentIDs {
		args = append(args, id)
	}
	out, err := selectAll(ctx, tx, func(r *sql.Rows) (BookEntry, error) {
		var e BookEntry
		var price, sp sql.NullString
		var prio int64
		err := r.Scan(&e.OfferID, &e.InstrumentID, &e.MarketID, &e.Direction, &price, decimal{&e.Price.Quantity},
			decimal{&e.Price.Filled}, &e.ParticipantID, &e.ParticipantName, &e.ParticipantLEI, &e.MarketOrder, &prio,
			&e.AccountID, &sp)
		e.SettlementProviderID = sp.String
		if err == nil && price.Valid {
			e.Price.HasPrice = true
			err = (decimal{&e.Price.Price}).Scan(price.String)
		}
		e.Priority = uint64(prio)
		return e, err
	}, `SELECT o.id, o.instrument_id, o.market_id, o.direction, o.price, o.quantity, o.filled_quantity,
		o.participant_id, p.name, p.lei, o.market_order, o.priority, o.account_id, o.settlement_provider_id
		FROM offers o JOIN participants p ON p.id = o.participant_id
		WHERE o.type = ? AND o.status = ? AND o.instrument_id IN (`+placeholders(len(instrumentIDs))+`)
		ORDER BY o.priority`, args...)
	if err != nil {
		return nil, fmt.Errorf("book entries: %w", normalize(err))
	}
	return out, nil
}

// OfferIDByClientOrderID returns the id of the participant's offer whose
// client_order_id is clientOrderID (the latest created when several are).
func (tx *Tx) OfferIDByClientOrderID(ctx context.Context, participantID, clientOrderID string) (string, error) {
	var id string
	err := tx.queryRow(ctx, `SELECT id FROM offers WHERE participant_id = ? AND client_order_id = ?
		ORDER BY created_at DESC, id DESC LIMIT 1`, participantID, clientOrderID).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) || clientOrderID == "" {
		return "", venue.NotFound("order with ClOrdID " + clientOrderID)
	}
	if err != nil {
		return "", fmt.Errorf("offer by client order id: %w", normalize(err))
	}
	return id, nil
}
