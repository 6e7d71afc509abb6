package trading

import (
	"context"
	"fmt"
	"strings"

	"github.com/bondvenue/bondvenue/internal/store"
	"github.com/bondvenue/bondvenue/internal/venue"
)

// This file holds the venue's settlement links: which pairs of CSDs can
// settle a trade between their participants (docs/guide.md, "Settlement
// compatibility").

// SettlementLinks lists the venue's links (operators only).
func (s *Service) SettlementLinks(ctx context.Context, p venue.Principal) ([]venue.SettlementLink, error) {
	if err := require(p, venue.RoleOperator); err != nil {
		return nil, err
	}
	var out []venue.SettlementLink
	err := s.db.View(ctx, func(tx *store.Tx) error {
		var err error
		out, err = tx.SettlementLinks(ctx)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("settlement links: %w", err)
	}
	return out, nil
}

// SetSettlementLinks replaces the venue's links with pairs of CSD BIC11s
// (operators only). A pair listed twice, in either order, is one link.
// Open offers and quotes stay; the next match and accept follow the new
// links.
func (s *Service) SetSettlementLinks(ctx context.Context, p venue.Principal, pairs [][]string) ([]venue.SettlementLink, error) {
	if err := require(p, venue.RoleOperator); err != nil {
		return nil, err
	}
	var v venue.Validator
	v.Check(pairs != nil, "links", "is required: an array of [csd_bic11, csd_bic11] pairs")
	v.Check(len(pairs) <= venue.MaxSettlementLinks, "links", fmt.Sprintf("at most %d links", venue.MaxSettlementLinks))
	seen := map[venue.SettlementLink]bool{}
	var links []venue.SettlementLink
	for i, pair := range pairs {
		if v.Err() != nil {
			break
		}
		field := fmt.Sprintf("links[%d]", i)
		if len(pair) != 2 {
			v.Check(false, field, "must be a pair of CSD BIC11s")
			continue
		}
		a, b := strings.ToUpper(strings.TrimSpace(pair[0])), strings.ToUpper(strings.TrimSpace(pair[1]))
		v.Check(venue.ValidBIC11(a), field+"[0]", "must be an 11-character BIC")
		v.Check(venue.ValidBIC11(b), field+"[1]", "must be an 11-character BIC")
		v.Check(a != b, field, "must name two different CSDs (a CSD always settles with itself)")
		if l := venue.LinkOf(a, b); !seen[l] {
			seen[l] = true
			links = append(links, l)
		}
	}
	if err := v.Err(); err != nil {
		return nil, err
	}
	var out []venue.SettlementLink
	err := s.adminTx(ctx, p, &out, func(tx *store.Tx) (change, error) {
		before, err := tx.SettlementLinks(ctx)
		if err != nil {
			return change{}, err
		}
		if err := tx.ReplaceSettlementLinks(ctx, links); err != nil {
			return change{}, err
		}
		out, err = tx.SettlementLinks(ctx)
		// The table is one record of the venue's.
		return change{action: "settlement_links.set", entityType: "settlement_links", entityID: "venue",
			before: linksState(before), after: linksState(out)}, err
	})
	if err != nil {
		return nil, fmt.Errorf("set settlement links: %w", err)
	}
	if err := s.refreshEngine(ctx); err != nil {
		return out, err
	}
	s.log.Info("settlement links set", "links", len(out), "by", p.UserID)
	return out, nil
}

// linksState is the link table as the audit trail keeps it: never null,
// so that an empty table reads as one.
func linksState(ls []venue.SettlementLink) []venue.SettlementLink {
	if ls == nil {
		return []venue.SettlementLink{}
	}
	return ls
}
