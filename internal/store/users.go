package store

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/bondvenue/bondvenue/internal/venue"
)

const userCols = `id, participant_id, email, role, is_email_verified, identification_status,
	is_login_two_fa_enabled, terms_conditions_signed, terms_conditions_signed_at, last_active,
	status, locale, created_at, updated_at`

func scanUser(r interface{ Scan(...any) error }) (venue.User, error) {
	var u venue.User
	var pid sql.NullString
	var role string
	var signed, active sql.NullInt64
	var created, updated int64
	err := r.Scan(&u.ID, &pid, &u.Email, &role, &u.IsEmailVerified, &u.IdentificationStatus,
		&u.IsLoginTwoFAEnabled, &u.TermsConditionsSigned, &signed, &active, &u.Status, &u.Locale,
		&created, &updated)
	u.ParticipantID, u.Role = pid.String, venue.Role(role)
	u.TermsConditionsSignedAt, u.LastActive = fromNullMS(signed), fromNullMS(active)
	u.CreatedAt, u.UpdatedAt = fromMS(created), fromMS(updated)
	return u, err
}

// CreateUser inserts u.
func (tx *Tx) CreateUser(ctx context.Context, u *venue.User) error {
	_, err := tx.exec(ctx, "INSERT INTO users ("+userCols+") VALUES ("+placeholders(14)+")",
		u.ID, nullStr(u.ParticipantID), u.Email, string(u.Role), u.IsEmailVerified, u.IdentificationStatus,
		u.IsLoginTwoFAEnabled, u.TermsConditionsSigned, nullMS(u.TermsConditionsSignedAt), nullMS(u.LastActive),
		u.Status, u.Locale, ms(u.CreatedAt), ms(u.UpdatedAt))
	if err != nil {
		return fmt.Errorf("create user: %w", normalize(err))
	}
	return nil
}

// UpdateUser writes the mutable fields of u.
func (tx *Tx) UpdateUser(ctx context.Context, u *venue.User) error {
	_, err := tx.exec(ctx, `UPDATE users SET email = ?, role = ?, status = ?, locale = ?, updated_at = ? WHERE id = ?`,
		u.Email, string(u.Role), u.Status, u.Locale, ms(u.UpdatedAt), u.ID)
	if err != nil {
		return fmt.Errorf("update user: %w", normalize(err))
	}
	return nil
}

// TouchUser records the user's last activity.
func (tx *Tx) TouchUser(ctx context.Context, id string) error {
	_, err := tx.exec(ctx, "UPDATE users SET last_active = ? WHERE id = ?", ms(tx.now), id)
	if err != nil {
		return fmt.Errorf("touch user: %w", normalize(err))
	}
	return nil
}

// User returns one user.
func (tx *Tx) User(ctx context.Context, id string) (venue.User, error) {
	u, err := scanUser(tx.queryRow(ctx, "SELECT "+userCols+" FROM users WHERE id = ?", id))
	if err != nil {
		return u, fmt.Errorf("user %s: %w", id, normalize(err))
	}
	return u, nil
}

// UserFilter selects users in a list. Zero fields do not filter.
type UserFilter struct {
	ParticipantID string
	Role          venue.Role
	Status        string
}

// Users lists users matching f, newest first.
func (tx *Tx) Users(ctx context.Context, f UserFilter, page Page) ([]venue.User, string, error) {
	q, args := "SELECT "+userCols+" FROM users WHERE 1 = 1", []any(nil)
	for _, c := range []struct{ col, v string }{{"participant_id", f.ParticipantID}, {"role", string(f.Role)}, {"status", f.Status}} {
		if c.v != "" {
			q += " AND " + c.col + " = ?"
			args = append(args, c.v)
		}
	}
	q, args = pageSQL(q, args, page, "id", "created_at")
	us, err := selectAll(ctx, tx, func(r *sql.Rows) (venue.User, error) { return scanUser(r) }, q, args...)
	if err != nil {
		return nil, "", fmt.Errorf("list users: %w", normalize(err))
	}
	us, next := trimPage(us, page, func(u venue.User) string { return u.ID })
	return us, next, nil
}

// CountOperators returns how many VENUE_OPERATOR users exist.
func (tx *Tx) CountOperators(ctx context.Context) (int, error) {
	var n int
	err := tx.queryRow(ctx, "SELECT COUNT(*) FROM users WHERE role = ?", string(venue.RoleOperator)).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("count operators: %w", normalize(err))
	}
	return n, nil
}
