package store

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/bondvenue/bondvenue/internal/venue"
)

const accountCols = `id, participant_id, number, status, type, default_settlement_provider_id, created_at, updated_at`

func scanAccount(r interface{ Scan(...any) error }) (venue.Account, error) {
	var a venue.Account
	var def sql.NullString
	var created, updated int64
	err := r.Scan(&a.ID, &a.ParticipantID, &a.Number, &a.Status, &a.Type, &def, &created, &updated)
	a.DefaultSettlementProviderID = def.String
	a.CreatedAt, a.UpdatedAt = fromMS(created), fromMS(updated)
	return a, err
}

// CreateAccount inserts a.
func (tx *Tx) CreateAccount(ctx context.Context, a *venue.Account) error {
	_, err := tx.exec(ctx, "INSERT INTO accounts ("+accountCols+") VALUES ("+placeholders(8)+")",
		a.ID, a.ParticipantID, a.Number, a.Status, a.Type, nullStr(a.DefaultSettlementProviderID), ms(a.CreatedAt), ms(a.UpdatedAt))
	if err != nil {
		return fmt.Errorf("create account: %w", normalize(err))
	}
	return nil
}

// SetAccountDefaultProvider records the account's default settlement
// provider.
func (tx *Tx) SetAccountDefaultProvider(ctx context.Context, accountID, providerID string) error {
	_, err := tx.exec(ctx, "UPDATE accounts SET default_settlement_provider_id = ?, updated_at = ? WHERE id = ?",
		providerID, ms(tx.now), accountID)
	if err != nil {
		return fmt.Errorf("set account default provider: %w", normalize(err))
	}
	return tx.referenceChanged(ctx) // settlement compatibility
}

// Account returns one account.
func (tx *Tx) Account(ctx context.Context, id string) (venue.Account, error) {
	a, err := scanAccount(tx.queryRow(ctx, "SELECT "+accountCols+" FROM accounts WHERE id = ?", id))
	if err != nil {
		return a, fmt.Errorf("account %s: %w", id, normalize(err))
	}
	return a, nil
}

// AccountFilter selects accounts in a list. Zero fields do not filter.
type AccountFilter struct {
	// ParticipantIDs restricts to accounts of these participants: nil
	// means any participant, an empty set none.
	ParticipantIDs []string
	Status         string
	Type           string
}

// Accounts lists accounts matching f, newest first.
func (tx *Tx) Accounts(ctx context.Context, f AccountFilter, page Page) ([]venue.Account, string, error) {
	q, args := "SELECT "+accountCols+" FROM accounts WHERE 1 = 1", []any(nil)
	if f.ParticipantIDs != nil {
		if len(f.ParticipantIDs) == 0 {
			return nil, "", nil
		}
		q, args = andIn(q, args, "participant_id", f.ParticipantIDs)
	}
	if f.Status != "" {
		q += " AND status = ?"
		args = append(args, f.Status)
	}
	if f.Type != "" {
		q += " AND type = ?"
		args = append(args, f.Type)
	}
	q, args = pageSQL(q, args, page, "id", "created_at")
	as, err := selectAll(ctx, tx, func(r *sql.Rows) (venue.Account, error) { return scanAccount(r) }, q, args...)
	if err != nil {
		return nil, "", fmt.Errorf("list accounts: %w", normalize(err))
	}
	as, next := trimPage(as, page, func(a venue.Account) string { return a.ID })
	return as, next, nil
}

// FirstActiveAccount returns the id of the participant's oldest active
// account; ErrNotFound when it has none.
func (tx *Tx) FirstActiveAccount(ctx context.Context, participantID string) (string, error) {
	var id string
	err := tx.queryRow(ctx, `SELECT id FROM accounts WHERE participant_id = ? AND status = 'active'
		ORDER BY created_at, id LIMIT 1`, participantID).Scan(&id)
	if err != nil {
		return "", fmt.Errorf("first active account of %s: %w", participantID, normalize(err))
	}
	return id, nil
}
