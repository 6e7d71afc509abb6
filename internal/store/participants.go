package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/bondvenue/bondvenue/internal/venue"
)

const participantCols = `id, lei, type, category_name, name, address, postal_code, city, state, country,
	legal_form, registration_number, tax_number, status, kyc_status, csd, csd_bic_11,
	custody_account_number, custody_account_beneficiary_bic_8, default_settlement_provider_id,
	created_at, updated_at`

func participantArgs(p *venue.Participant) []any {
	return []any{p.ID, p.LEI, p.Type, p.CategoryName, p.Name, p.Address, p.PostalCode, p.City, p.State,
		p.Country, p.LegalForm, p.RegistrationNumber, p.TaxNumber, p.Status, p.KYCStatus, p.CSD, p.CSDBIC11,
		p.CustodyAccountNumber, p.CustodyAccountBeneficiaryBIC8, nullStr(p.DefaultSettlementProviderID),
		ms(p.CreatedAt), ms(p.UpdatedAt)}
}

func scanParticipant(r interface{ Scan(...any) error }) (venue.Participant, error) {
	var p venue.Participant
	var def sql.NullString
	var created, updated int64
	err := r.Scan(&p.ID, &p.LEI, &p.Type, &p.CategoryName, &p.Name, &p.Address, &p.PostalCode, &p.City,
		&p.State, &p.Country, &p.LegalForm, &p.RegistrationNumber, &p.TaxNumber, &p.Status, &p.KYCStatus,
		&p.CSD, &p.CSDBIC11, &p.CustodyAccountNumber, &p.CustodyAccountBeneficiaryBIC8, &def,
		&created, &updated)
	p.DefaultSettlementProviderID = def.String
	p.CreatedAt, p.UpdatedAt = fromMS(created), fromMS(updated)
	return p, err
}

// CreateParticipant inserts p.
func (tx *Tx) CreateParticipant(ctx context.Context, p *venue.Participant) error {
	_, err := tx.exec(ctx, "INSERT INTO participants ("+participantCols+") VALUES ("+placeholders(22)+")",
		participantArgs(p)...)
	if err != nil {
		return fmt.Errorf("create participant: %w", normalize(err))
	}
	return tx.referenceChanged(ctx) // settlement compatibility
}

// UpdateParticipant writes every field of p except id and created_at.
func (tx *Tx) UpdateParticipant(ctx context.Context, p *venue.Participant) error {
	args := participantArgs(p)
	_, err := tx.exec(ctx, `UPDATE participants SET lei = ?, type = ?, category_name = ?, name = ?, address = ?,
		postal_code = ?, city = ?, state = ?, country = ?, legal_form = ?, registration_number = ?, tax_number = ?,
		status = ?, kyc_status = ?, csd = ?, csd_bic_11 = ?, custody_account_number = ?,
		custody_account_beneficiary_bic_8 = ?, default_settlement_provider_id = ?, updated_at = ?
		WHERE id = ?`, append(append(args[1:20:20], args[21]), p.ID)...)
	if err != nil {
		return fmt.Errorf("update participant: %w", normalize(err))
	}
	return tx.referenceChanged(ctx) // settlement compatibility
}

// Participant returns one participant.
func (tx *Tx) Participant(ctx context.Context, id string) (venue.Participant, error) {
	p, err := scanParticipant(tx.queryRow(ctx, "SELECT "+participantCols+" FROM participants WHERE id = ?", id))
	if err != nil {
		return p, fmt.Errorf("participant %s: %w", id, normalize(err))
	}
	return p, nil
}

// Participants lists participants, restricted to ids when ids is not nil.
func (tx *Tx) Participants(ctx context.Context, ids []string, page Page) ([]venue.Participant, string, error) {
	q, args := "SELECT "+participantCols+" FROM participants WHERE 1 = 1", []any(nil)
	if ids != nil {
		if len(ids) == 0 {
			return nil, "", nil
		}
		q, args = andIn(q, args, "id", ids)
	}
	q, args = pageSQL(q, args, page, "id", "created_at")
	ps, err := selectAll(ctx, tx, func(r *sql.Rows) (venue.Participant, error) { return scanParticipant(r) }, q, args...)
	if err != nil {
		return nil, "", fmt.Errorf("list participants: %w", normalize(err))
	}
	ps, next := trimPage(ps, page, func(p venue.Participant) string { return p.ID })
	return ps, next, nil
}

// SetCounterparty enables or disables trading between a and b in both
// directions.
func (tx *Tx) SetCounterparty(ctx context.Context, a, b string, enabled bool) (venue.CounterpartyRelation, error) {
	now := tx.now
	for _, pair := range [][2]string{{a, b}, {b, a}} {
		_, err := tx.exec(ctx, `INSERT INTO counterparties (participant_id, counterparty_id, enabled, created_at, updated_at)
			VALUES (?, ?, ?, ?, ?)
			ON CONFLICT (participant_id, counterparty_id) DO UPDATE SET enabled = excluded.enabled, updated_at = excluded.updated_at`,
			pair[0], pair[1], enabled, ms(now), ms(now))
		if err != nil {
			return venue.CounterpartyRelation{}, fmt.Errorf("set counterparty: %w", normalize(err))
		}
	}
	if err := tx.referenceChanged(ctx); err != nil {
		return venue.CounterpartyRelation{}, err
	}
	return tx.CounterpartyRelation(ctx, a, b)
}

// CounterpartyRelation returns the relation of a to b, enabled or not
// (not found when it was never set).
func (tx *Tx) CounterpartyRelation(ctx context.Context, a, b string) (venue.CounterpartyRelation, error) {
	var rel venue.CounterpartyRelation
	var created, updated int64
	err := tx.queryRow(ctx, `SELECT participant_id, counterparty_id, enabled, created_at, updated_at
		FROM counterparties WHERE participant_id = ? AND counterparty_id = ?`, a, b).
		Scan(&rel.ParticipantID, &rel.CounterpartyID, &rel.Enabled, &created, &updated)
	rel.CreatedAt, rel.UpdatedAt = fromMS(created), fromMS(updated)
	if errors.Is(err, sql.ErrNoRows) {
		return venue.CounterpartyRelation{}, venue.NotFound("counterparty relation")
	}
	if err != nil {
		return rel, fmt.Errorf("read counterparty: %w", normalize(err))
	}
	return rel, nil
}

// Counterparties returns the ids of the participants enabled as
// counterparties of participantID.
func (tx *Tx) Counterparties(ctx context.Context, participantID string) ([]string, error) {
	ids, err := selectAll(ctx, tx, scanString, `SELECT counterparty_id FROM counterparties
		WHERE participant_id = ? AND enabled = TRUE ORDER BY counterparty_id`, participantID)
	if err != nil {
		return nil, fmt.Errorf("counterparties: %w", normalize(err))
	}
	return ids, nil
}

// CounterpartyRelations returns every enabled relation, for the engine's
// eligibility matrix.
func (tx *Tx) CounterpartyRelations(ctx context.Context) ([]venue.CounterpartyRelation, error) {
	rels, err := selectAll(ctx, tx, func(r *sql.Rows) (venue.CounterpartyRelation, error) {
		var rel venue.CounterpartyRelation
		var created, updated int64
		err := r.Scan(&rel.ParticipantID, &rel.CounterpartyID, &rel.Enabled, &created, &updated)
		rel.CreatedAt, rel.UpdatedAt = fromMS(created), fromMS(updated)
		return rel, err
	}, `SELECT participant_id, counterparty_id, enabled, created_at, updated_at
		FROM counterparties WHERE enabled = TRUE`)
	if err != nil {
		return nil, fmt.Errorf("counterparty relations: %w", normalize(err))
	}
	return rels, nil
}

// ParticipantIDByLEI returns the id of the participant with that LEI.
func (tx *Tx) ParticipantIDByLEI(ctx context.Context, lei string) (string, error) {
	var id string
	err := tx.queryRow(ctx, `SELECT id FROM participants WHERE lei = ? ORDER BY id LIMIT 1`, lei).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return "", venue.NotFound("participant with LEI " + lei)
	}
	if err != nil {
		return "", fmt.Errorf("participant by lei: %w", normalize(err))
	}
	return id, nil
}

// ParticipantLEIs maps every participant to its LEI.
func (tx *Tx) ParticipantLEIs(ctx context.Context) (map[string]string, error) {
	type pair struct{ id, lei string }
	ps, err := selectAll(ctx, tx, func(r *sql.Rows) (pair, error) {
		var p pair
		return p, r.Scan(&p.id, &p.lei)
	}, "SELECT id, lei FROM participants")
	if err != nil {
		return nil, fmt.Errorf("participant LEIs: %w", normalize(err))
	}
	out := make(map[string]string, len(ps))
	for _, p := range ps {
		out[p.id] = p.lei
	}
	return out, nil
}
