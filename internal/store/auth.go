package store

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/bondvenue/bondvenue/internal/venue"
)

// CreateCredential inserts c.
func (tx *Tx) CreateCredential(ctx context.Context, c *venue.Credential) error {
	_, err := tx.exec(ctx, `INSERT INTO credentials (client_id, user_id, secret_hash, created_at, revoked_at)
		VALUES (?, ?, ?, ?, ?)`, c.ClientID, c.UserID, c.SecretHash, ms(c.CreatedAt), nullMS(c.RevokedAt))
	if err != nil {
		return fmt.Errorf("create credential: %w", normalize(err))
	}
	return nil
}

func scanCredential(r interface{ Scan(...any) error }) (venue.Credential, error) {
	var c venue.Credential
	var created int64
	var revoked sql.NullInt64
	err := r.Scan(&c.ClientID, &c.UserID, &c.SecretHash, &created, &revoked)
	c.CreatedAt, c.RevokedAt = fromMS(created), fromNullMS(revoked)
	return c, err
}

// Credential returns one credential by client id.
func (tx *Tx) Credential(ctx context.Context, clientID string) (venue.Credential, error) {
	c, err := scanCredential(tx.queryRow(ctx, `SELECT client_id, user_id, secret_hash, created_at, revoked_at
		FROM credentials WHERE client_id = ?`, clientID))
	if err != nil {
		return c, fmt.Errorf("credential: %w", normalize(err))
	}
	return c, nil
}

// Credentials lists a user's credentials, newest first. Client ids are
// random, so the order is (created_at, client_id) and a page's cursor is the
// client id of its last row.
func (tx *Tx) Credentials(ctx context.Context, userID string, page Page) ([]venue.Credential, string, error) {
	q, args := `SELECT client_id, user_id, secret_hash, created_at, revoked_at FROM credentials WHERE user_id = ?`, []any{userID}
	if page.Cursor != "" {
		q += " AND (created_at, client_id) < (SELECT created_at, client_id FROM credentials WHERE client_id = ?)"
		args = append(args, page.Cursor)
	}
	if page.From != nil {
		q += " AND created_at >= ?"
		args = append(args, ms(*page.From))
	}
	if page.To != nil {
		q += " AND created_at < ?"
		args = append(args, ms(*page.To))
	}
	q += " ORDER BY created_at DESC, client_id DESC"
	if page.Limit > 0 {
		q += " LIMIT ?"
		args = append(args, page.Limit+1)
	}
	cs, err := selectAll(ctx, tx, func(r *sql.Rows) (venue.Credential, error) { return scanCredential(r) }, q, args...)
	if err != nil {
		return nil, "", fmt.Errorf("list credentials: %w", normalize(err))
	}
	cs, next := trimPage(cs, page, func(c venue.Credential) string { return c.ClientID })
	return cs, next, nil
}

// RevokeCredential marks a credential and every token issued with it as
// revoked.
func (tx *Tx) RevokeCredential(ctx context.Context, clientID string) error {
	if _, err := tx.exec(ctx, "UPDATE credentials SET revoked_at = ? WHERE client_id = ? AND revoked_at IS NULL",
		ms(tx.now), clientID); err != nil {
		return fmt.Errorf("revoke credential: %w", normalize(err))
	}
	if _, err := tx.exec(ctx, "UPDATE tokens SET revoked_at = ? WHERE client_id = ? AND revoked_at IS NULL",
		ms(tx.now), clientID); err != nil {
		return fmt.Errorf("revoke tokens: %w", normalize(err))
	}
	return nil
}

// RevokeUserTokens marks every unrevoked token of a user as revoked.
func (tx *Tx) RevokeUserTokens(ctx context.Context, userID string) error {
	if _, err := tx.exec(ctx, "UPDATE tokens SET revoked_at = ? WHERE user_id = ? AND revoked_at IS NULL",
		ms(tx.now), userID); err != nil {
		return fmt.Errorf("revoke tokens: %w", normalize(err))
	}
	return nil
}

// CreateToken stores an issued token by its hash and removes tokens that
// expired more than a day ago.
func (tx *Tx) CreateToken(ctx context.Context, t *venue.Token) error {
	if _, err := tx.exec(ctx, `INSERT INTO tokens (token_hash, client_id, user_id, created_at, expires_at, revoked_at)
		VALUES (?, ?, ?, ?, ?, NULL)`, t.Hash, t.ClientID, t.UserID, ms(t.CreatedAt), ms(t.ExpiresAt)); err != nil {
		return fmt.Errorf("create token: %w", normalize(err))
	}
	if _, err := tx.exec(ctx, "DELETE FROM tokens WHERE expires_at < ?", ms(tx.now.Add(-24*time.Hour))); err != nil {
		return fmt.Errorf("prune tokens: %w", normalize(err))
	}
	return nil
}

// TokenPrincipal resolves a token hash to the caller it acts for and the
// instant the token expires. Expired, revoked, or belonging to a revoked
// credential or an inactive user: not found.
func (tx *Tx) TokenPrincipal(ctx context.Context, hash string, now time.Time) (venue.Principal, time.Time, error) {
	var p venue.Principal
	var pid sql.NullString
	var role string
	var expires int64
	err := tx.queryRow(ctx, `SELECT u.id, u.participant_id, u.role, t.client_id, t.expires_at
		FROM tokens t
		JOIN credentials c ON c.client_id = t.client_id
		JOIN users u ON u.id = t.user_id
		WHERE t.token_hash = ? AND t.revoked_at IS NULL AND t.expires_at > ?
		  AND c.revoked_at IS NULL AND u.status = 'active'`, hash, ms(now)).Scan(&p.UserID, &pid, &role, &p.ClientID, &expires)
	if err != nil {
		return p, time.Time{}, fmt.Errorf("token: %w", normalize(err))
	}
	p.ParticipantID, p.Role = pid.String, venue.Role(role)
	return p, fromMS(expires), nil
}
