package demo

import (
	"context"
	"errors"
	"fmt"

	"github.com/bondvenue/bondvenue/internal/trading"
	"github.com/bondvenue/bondvenue/internal/venue"
	"github.com/quagmt/udecimal"
)

// The simulated firms are the participants the live demo market
// (internal/demomarket) trades as: market makers on the continuous markets
// and dealers answering RFQs. They are added beside the four demo firms,
// whose records and relations stay as they are, and are counterparties of
// the first three demo firms and of each other; nobody signs in as them (no
// credential is issued).
var simulatedFirms = []firm{
	{name: "Meridian Liquidity Partners Ltd", code: "MLP", domain: "meridian-lp.example", bic: "MLPTIE2DXXX",
		leiPrefix: "635400MLPX4R7Q2D9K", country: "IE", city: "Dublin", postal: "D02 R296", address: "1 Grand Canal Square",
		legal: "Ltd", regNo: "CRO 648213", category: "wholesale",
		csd: "Clearstream Banking AG", csdBIC: clearstreamDE, safe: "CBF"},
	{name: "Alpine Rates Trading AG", code: "ART", domain: "alpine-rates.example", bic: "ALRTCHZZXXX",
		leiPrefix: "506700ALRT5T8Q3W1M", country: "CH", city: "Zurich", postal: "8001", address: "Bahnhofstrasse 45",
		legal: "AG", regNo: "CHE 115284903", category: "wholesale",
		csd: "Euronext Securities Milan", csdBIC: monteTitoli, safe: "ESM"},
}

// SimulatedFirm is a simulated participant with what acting as it takes.
type SimulatedFirm struct {
	ID, Name, AccountID string
	// Trader is the principal of the firm's trader user.
	Trader venue.Principal
}

// Simulated is the demo venue as the live demo market sees it.
type Simulated struct {
	// Operator is the principal of the demo operator user (news).
	Operator venue.Principal
	// Humans are the demo firms people sign in as that trade with the
	// simulated firms (participants 0–2 of the credentials file).
	Humans []string
	Firms  []SimulatedFirm
}

// ErrNotDemo reports a venue without the demo firms: the live demo market
// has nobody to trade with there.
var ErrNotDemo = errors.New("not a demo venue: the demo participants are missing")

// AddSimulated returns the simulated firms of a demo venue, adding them
// (and their counterparty relations) when they are missing, so that a demo
// database loaded before them gains them too. It fails with ErrNotDemo on a
// venue without the demo firms.
func AddSimulated(ctx context.Context, svc *trading.Service) (Simulated, error) {
	sys := trading.System
	var out Simulated
	for _, f := range demoFirms[:3] {
		id, err := svc.ParticipantIDByLEI(ctx, f.lei())
		if errors.Is(err, venue.ErrNotFound) {
			return out, ErrNotDemo
		}
		if err != nil {
			return out, fmt.Errorf("demo firm %s: %w", f.name, err)
		}
		out.Humans = append(out.Humans, id)
	}
	ops, err := svc.Users(ctx, sys, trading.UserFilter{Role: venue.RoleOperator, Status: "active"}, venue.Page{Limit: 1})
	if err != nil {
		return out, fmt.Errorf("demo operator: %w", err)
	}
	if len(ops.Items) == 0 {
		return out, ErrNotDemo
	}
	out.Operator = venue.Principal{UserID: ops.Items[0].ID, Role: venue.RoleOperator, Channel: venue.ChannelSystem}

	for k, f := range simulatedFirms {
		id, err := svc.ParticipantIDByLEI(ctx, f.lei())
		if errors.Is(err, venue.ErrNotFound) {
			p, err := addFirm(ctx, svc, f, len(demoFirms)+k, false)
			if err != nil {
				return out, fmt.Errorf("simulated firm %s: %w", f.name, err)
			}
			id = p.ID
			// A market maker rests two sides on every bond it makes and
			// quotes RFQs besides: more in all than a demo firm.
			for _, name := range []string{venue.LimitAllOfferSum, venue.LimitAllOfferUserSum} {
				if _, err := svc.SetRiskLimit(ctx, sys, id, trading.RiskLimitInput{Name: name, Value: ptr(udecimal.MustFromInt64(1_000_000_000, 0))}); err != nil {
					return out, fmt.Errorf("simulated firm %s: %w", f.name, err)
				}
			}
			for _, other := range append(append([]string{}, out.Humans...), firmIDs(out.Firms)...) {
				if _, err := svc.SetCounterparty(ctx, sys, id, other, ptr(true)); err != nil {
					return out, fmt.Errorf("simulated firm %s: %w", f.name, err)
				}
			}
		} else if err != nil {
			return out, fmt.Errorf("simulated firm %s: %w", f.name, err)
		}
		sf, err := simulatedFirm(ctx, svc, id)
		if err != nil {
			return out, fmt.Errorf("simulated firm %s: %w", f.name, err)
		}
		out.Firms = append(out.Firms, sf)
	}
	return out, nil
}

func firmIDs(fs []SimulatedFirm) []string {
	var ids []string
	for _, f := range fs {
		ids = append(ids, f.ID)
	}
	return ids
}

// simulatedFirm reads a simulated firm's account and trader user.
func simulatedFirm(ctx context.Context, svc *trading.Service, id string) (SimulatedFirm, error) {
	sys := trading.System
	p, err := svc.Participant(ctx, sys, id)
	if err != nil {
		return SimulatedFirm{}, err
	}
	accs, err := svc.Accounts(ctx, sys, trading.AccountFilter{ParticipantID: id, Status: "active"}, venue.Page{Limit: 1})
	if err != nil {
		return SimulatedFirm{}, err
	}
	users, err := svc.Users(ctx, sys, trading.UserFilter{ParticipantID: id, Role: venue.RoleTrader, Status: "active"}, venue.Page{Limit: 1})
	if err != nil {
		return SimulatedFirm{}, err
	}
	if len(accs.Items) == 0 || len(users.Items) == 0 {
		return SimulatedFirm{}, fmt.Errorf("no active account or trader user")
	}
	u := users.Items[0]
	return SimulatedFirm{ID: id, Name: p.Name, AccountID: accs.Items[0].ID,
		Trader: venue.Principal{UserID: u.ID, ParticipantID: id, Role: u.Role}}, nil
}
