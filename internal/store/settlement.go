package store

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/bondvenue/bondvenue/internal/venue"
)

const providerCols = `id, participant_id, account_id, provider, type, enabled, swiat_id, d7_id, pset, agent_name,
	agent_bic, agent_number, localcode, csd_bic11, custody_account_number, beneficiary_bic8, buyr_sell_name,
	buyr_sell_bic, safe, created_at, updated_at`

func scanProvider(r interface{ Scan(...any) error }) (venue.SettlementProvider, error) {
	var s venue.SettlementProvider
	var acc sql.NullString
	var created, updated int64
	err := r.Scan(&s.ID, &s.ParticipantID, &acc, &s.Provider, &s.Type, &s.Enabled, &s.SwiatID, &s.D7ID, &s.PSET,
		&s.AgentName, &s.AgentBIC, &s.AgentNumber, &s.LocalCode, &s.CSDBIC11, &s.CustodyAccountNumber,
		&s.BeneficiaryBIC8, &s.BuyrSellName, &s.BuyrSellBIC, &s.Safe, &created, &updated)
	s.AccountID = acc.String
	s.CreatedAt, s.UpdatedAt = fromMS(created), fromMS(updated)
	return s, err
}

// CreateSettlementProvider inserts s.
func (tx *Tx) CreateSettlementProvider(ctx context.Context, s *venue.SettlementProvider) error {
	_, err := tx.exec(ctx, "INSERT INTO settlement_providers ("+providerCols+") VALUES ("+placeholders(21)+")",
		s.ID, s.ParticipantID, nullStr(s.AccountID), s.Provider, s.Type, s.Enabled, s.SwiatID, s.D7ID, s.PSET,
		s.AgentName, s.AgentBIC, s.AgentNumber, s.LocalCode, s.CSDBIC11, s.CustodyAccountNumber,
		s.BeneficiaryBIC8, s.BuyrSellName, s.BuyrSellBIC, s.Safe, ms(s.CreatedAt), ms(s.UpdatedAt))
	if err != nil {
		return fmt.Errorf("create settlement provider: %w", normalize(err))
	}
	return tx.referenceChanged(ctx) // settlement compatibility
}

// SetSettlementProviderEnabled sets the provider's enabled flag.
func (tx *Tx) SetSettlementProviderEnabled(ctx context.Context, id string, enabled bool) error {
	_, err := tx.exec(ctx, "UPDATE settlement_providers SET enabled = ?, updated_at = ? WHERE id = ?", enabled, ms(tx.now), id)
	if err != nil {
		return fmt.Errorf("toggle settlement provider: %w", normalize(err))
	}
	return nil
}

// SetParticipantDefaultProvider records the participant's default
// settlement provider.
func (tx *Tx) SetParticipantDefaultProvider(ctx context.Context, participantID, providerID string) error {
	_, err := tx.exec(ctx, "UPDATE participants SET default_settlement_provider_id = ?, updated_at = ? WHERE id = ?",
		providerID, ms(tx.now), participantID)
	if err != nil {
		return fmt.Errorf("set participant default provider: %w", normalize(err))
	}
	return tx.referenceChanged(ctx) // settlement compatibility
}

// SettlementProvider returns one provider.
func (tx *Tx) SettlementProvider(ctx context.Context, id string) (venue.SettlementProvider, error) {
	s, err := scanProvider(tx.queryRow(ctx, "SELECT "+providerCols+" FROM settlement_providers WHERE id = ?", id))
	if err != nil {
		return s, fmt.Errorf("settlement provider %s: %w", id, normalize(err))
	}
	return s, nil
}

// SettlementProviderFilter selects settlement providers in a list. Zero
// fields do not filter.
type SettlementProviderFilter struct {
	ParticipantID string
	// AccountID restricts to the providers registered for that account.
	AccountID string
	Enabled   *bool
}

// SettlementProviders lists providers matching f, newest first.
func (tx *Tx) SettlementProviders(ctx context.Context, f SettlementProviderFilter, page Page) ([]venue.SettlementProvider, string, error) {
	q, args := "SELECT "+providerCols+" FROM settlement_providers WHERE 1 = 1", []any(nil)
	if f.ParticipantID != "" {
		q += " AND participant_id = ?"
		args = append(args, f.ParticipantID)
	}
	if f.AccountID != "" {
		q += " AND account_id = ?"
		args = append(args, f.AccountID)
	}
	if f.Enabled != nil {
		q += " AND enabled = ?"
		args = append(args, *f.Enabled)
	}
	q, args = pageSQL(q, args, page, "id", "created_at")
	out, err := selectAll(ctx, tx, func(r *sql.Rows) (venue.SettlementProvider, error) { return scanProvider(r) }, q, args...)
	if err != nil {
		return nil, "", fmt.Errorf("list settlement providers: %w", normalize(err))
	}
	out, next := trimPage(out, page, func(s venue.SettlementProvider) string { return s.ID })
	return out, next, nil
}

// Settlement reads what settlement compatibility needs: every provider's
// CSD, every participant's default provider and CSD, every account's default
// provider, and the links.
func (tx *Tx) Settlement(ctx context.Context) (*venue.Settlement, error) {
	pairs, err := selectAll(ctx, tx, func(r *sql.Rows) ([2]string, error) {
		var p [2]string
		return p, r.Scan(&p[0], &p[1])
	}, "SELECT id, csd_bic11 FROM settlement_providers")
	if err != nil {
		return nil, fmt.Errorf("settlement providers: %w", err)
	}
	providers := make(map[string]string, len(pairs))
	for _, p := range pairs {
		providers[p[0]] = p[1]
	}
	parties, err := selectAll(ctx, tx, func(r *sql.Rows) (venue.SettlementParty, error) {
		var p venue.SettlementParty
		var def sql.NullString
		err := r.Scan(&p.ID, &def, &p.CSDBIC11)
		p.DefaultProviderID = def.String
		return p, err
	}, "SELECT id, default_settlement_provider_id, csd_bic_11 FROM participants")
	if err != nil {
		return nil, fmt.Errorf("settlement parties: %w", err)
	}
	accounts, err := selectAll(ctx, tx, func(r *sql.Rows) ([2]string, error) {
		var a [2]string
		var def sql.NullString
		err := r.Scan(&a[0], &def)
		a[1] = def.String
		return a, err
	}, "SELECT id, default_settlement_provider_id FROM accounts")
	if err != nil {
		return nil, fmt.Errorf("settlement accounts: %w", err)
	}
	accountDefaults := make(map[string]string, len(accounts))
	for _, a := range accounts {
		accountDefaults[a[0]] = a[1]
	}
	links, err := tx.SettlementLinks(ctx)
	if err != nil {
		return nil, err
	}
	return venue.NewSettlement(providers, parties, accountDefaults, links), nil
}

// SettlementLinks returns the venue's links, in order.
func (tx *Tx) SettlementLinks(ctx context.Context) ([]venue.SettlementLink, error) {
	out, err := selectAll(ctx, tx, func(r *sql.Rows) (venue.SettlementLink, error) {
		var l venue.SettlementLink
		return l, r.Scan(&l.A, &l.B)
	}, "SELECT csd_a, csd_b FROM settlement_links ORDER BY csd_a, csd_b")
	if err != nil {
		return nil, fmt.Errorf("settlement links: %w", err)
	}
	return out, nil
}

// ReplaceSettlementLinks makes links the venue's whole link table.
func (tx *Tx) ReplaceSettlementLinks(ctx context.Context, links []venue.SettlementLink) error {
	if _, err := tx.exec(ctx, "DELETE FROM settlement_links"); err != nil {
		return fmt.Errorf("replace settlement links: %w", normalize(err))
	}
	for _, l := range links {
		l = venue.LinkOf(l.A, l.B)
		if _, err := tx.exec(ctx, "INSERT INTO settlement_links (csd_a, csd_b, created_at) VALUES (?, ?, ?)", l.A, l.B, ms(tx.now)); err != nil {
			return fmt.Errorf("replace settlement links: %w", normalize(err))
		}
	}
	return tx.referenceChanged(ctx)
}
