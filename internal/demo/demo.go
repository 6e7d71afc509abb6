// Package demo loads a realistic demonstration venue into an empty
// database: four participants (the first three mutual counterparties), a
// user of every participant role each with API credentials, a venue
// operator, three markets, EUR government and corporate bonds listed on
// every market, a public bucket and news. The credentials are written to
// <data-dir>/demo-credentials.json. AddSimulated adds the firms the live
// demo market (internal/demomarket) trades as.
package demo

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/bondvenue/bondvenue/internal/trading"
	"github.com/bondvenue/bondvenue/internal/venue"
	"github.com/quagmt/udecimal"
)

// CredentialsFile is the name of the file demo credentials are written to.
const CredentialsFile = "demo-credentials.json"

// Credentials is the content of demo-credentials.json.
type Credentials struct {
	BaseURL      string        `json:"base_url"`
	Operator     UserCred      `json:"operator"`
	Participants []Participant `json:"participants"`
}

// UserCred is one user with its API credential.
type UserCred struct {
	UserID       string `json:"user_id"`
	Email        string `json:"email"`
	Role         string `json:"role,omitempty"`
	ClientID     string `json:"client_id"`
	ClientSecret string `json:"client_secret"`
}

// Participant is one demo firm.
type Participant struct {
	ID         string     `json:"id"`
	Name       string     `json:"name"`
	LEI        string     `json:"lei"`
	AccountIDs []string   `json:"account_ids"`
	Users      []UserCred `json:"users"`
}

// Load fills an empty venue with demo data, writes the credentials file
// and returns the credentials. On a venue that already holds participants
// or users it changes nothing and reports loaded = false.
func Load(ctx context.Context, svc *trading.Service, dataDir, baseURL string) (creds Credentials, loaded bool, err error) {
	empty, err := svc.Empty(ctx)
	if err != nil {
		return creds, false, fmt.Errorf("demo: %w", err)
	}
	if !empty {
		return creds, false, nil
	}
	if creds, err = load(ctx, svc); err != nil {
		return creds, false, fmt.Errorf("demo: %w", err)
	}
	creds.BaseURL = baseURL
	if err := writeCredentials(filepath.Join(dataDir, CredentialsFile), creds); err != nil {
		return creds, true, fmt.Errorf("demo: %w", err)
	}
	return creds, true, nil
}

func writeCredentials(path string, c Credentials) error {
	b, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, append(b, '\n'), 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// ReadCredentials reads a demo credentials file.
func ReadCredentials(path string) (Credentials, error) {
	var c Credentials
	b, err := os.ReadFile(path)
	if err != nil {
		return c, err
	}
	return c, json.Unmarshal(b, &c)
}

func ptr[T any](v T) *T { return &v }

func load(ctx context.Context, svc *trading.Service) (Credentials, error) {
	sys := trading.System
	var c Credentials

	op, opCred, err := svc.BootstrapOperator(ctx, sys, "operations@bondvenue.example")
	if err != nil {
		return c, err
	}
	c.Operator = UserCred{UserID: op.ID, Email: op.Email, Role: string(op.Role), ClientID: opCred.ClientID, ClientSecret: opCred.Secret}

	// The market with hours first: lists show the newest first, so the
	// three that trade around the clock lead them, as before it came.
	hours, err := svc.CreateMarket(ctx, sys, hoursMarket)
	if err != nil {
		return c, fmt.Errorf("market %s: %w", *hoursMarket.Name, err)
	}
	var markets []string
	for _, m := range demoMarkets {
		got, err := svc.CreateMarket(ctx, sys, m)
		if err != nil {
			return c, fmt.Errorf("market %s: %w", *m.Name, err)
		}
		markets = append(markets, got.ID)
	}

	var instruments []string
	for i, b := range demoBonds {
		in := b.input()
		listed := markets
		if i < hoursListed {
			listed = append(slices.Clone(markets), hours.ID)
		}
		in.MarketIDs = &listed
		got, err := svc.CreateInstrument(ctx, sys, in)
		if err != nil {
			return c, fmt.Errorf("instrument %s: %w", b.isin, err)
		}
		instruments = append(instruments, got.ID)
	}

	for i, f := range demoFirms {
		dp, err := addFirm(ctx, svc, f, i, true)
		if err != nil {
			return c, err
		}
		c.Participants = append(c.Participants, dp)
	}
	// Participants 1–3 trade with each other; participant 4 has no relation.
	if _, err := svc.SetSettlementLinks(ctx, sys, SettlementLinks); err != nil {
		return c, fmt.Errorf("settlement links: %w", err)
	}
	for i := 0; i < 3; i++ {
		for j := i + 1; j < 3; j++ {
			if _, err := svc.SetCounterparty(ctx, sys, c.Participants[i].ID, c.Participants[j].ID, ptr(true)); err != nil {
				return c, err
			}
		}
	}

	if _, err := svc.CreatePublicBucket(ctx, sys, trading.BucketInput{Name: ptr("Euro area sovereigns"),
		InstrumentIDs: ptr(instruments[:sovereignCount])}); err != nil {
		return c, err
	}
	for _, n := range demoNews {
		if _, err := svc.CreateNews(ctx, sys, n); err != nil {
			return c, err
		}
	}
	return c, nil
}

// addFirm creates one demo firm: the participant, three accounts, a user of
// every participant role (with an API credential when issue is set), the
// risk limits and a default settlement provider at its CSD. i numbers its agent and
// codes apart from the other firms'.
func addFirm(ctx context.Context, svc *trading.Service, f firm, i int, issue bool) (Participant, error) {
	sys := trading.System
	p, err := svc.CreateParticipant(ctx, sys, f.input())
	if err != nil {
		return Participant{}, fmt.Errorf("participant %s: %w", f.name, err)
	}
	dp := Participant{ID: p.ID, Name: p.Name, LEI: p.LEI}
	// Three accounts: the firm's own book and two funds it allocates to.
	var accs []string
	for n, typ := range []string{"agent", "principal", "principal"} {
		acc, err := svc.CreateAccount(ctx, sys, trading.AccountInput{ParticipantID: p.ID, Number: fmt.Sprintf("%s-%04d", f.code, n+1), Type: typ})
		if err != nil {
			return dp, err
		}
		accs = append(accs, acc.ID)
	}
	dp.AccountIDs = accs
	for _, role := range venue.ParticipantRoles {
		email := fmt.Sprintf("%s@%s", roleMailbox[role], f.domain)
		u, err := svc.CreateUser(ctx, sys, trading.UserInput{ParticipantID: &p.ID, Email: &email, Role: ptr(role)})
		if err != nil {
			return dp, err
		}
		uc := UserCred{UserID: u.ID, Email: u.Email, Role: string(u.Role)}
		if issue {
			cred, err := svc.IssueCredential(ctx, sys, u.ID)
			if err != nil {
				return dp, err
			}
			uc.ClientID, uc.ClientSecret = cred.ClientID, cred.Secret
		}
		dp.Users = append(dp.Users, uc)
	}
	for name, v := range map[string]string{venue.LimitMaxOffer: "50000000", venue.LimitAllOfferSum: "250000000", venue.LimitAllOfferUserSum: "100000000",
		venue.LimitMaxOfferValue: "200000000"} {
		if _, err := svc.SetRiskLimit(ctx, sys, p.ID, trading.RiskLimitInput{Name: name, Value: ptr(udecimal.MustParse(v))}); err != nil {
			return dp, err
		}
	}
	sp, err := svc.CreateSettlementProvider(ctx, sys, venue.SettlementProvider{
		ParticipantID: p.ID, AccountID: accs[0], Provider: f.csd, Type: "custodian", Enabled: true,
		PSET: f.csdBIC, AgentName: f.name, AgentBIC: f.bic, AgentNumber: fmt.Sprintf("7%03d", 101+i),
		LocalCode: fmt.Sprintf("%04d", 7101+i), CSDBIC11: f.csdBIC, CustodyAccountNumber: fmt.Sprintf("%s-CUST-01", f.code),
		BeneficiaryBIC8: f.bic[:8], BuyrSellName: f.name, BuyrSellBIC: f.bic, Safe: f.safe, SwiatID: f.bic, D7ID: fmt.Sprintf("D7%05d", 4101+i),
	})
	if err != nil {
		return dp, err
	}
	if _, err := svc.SetParticipantDefaultProvider(ctx, sys, sp.ID, p.ID); err != nil {
		return dp, err
	}
	for _, acc := range accs {
		if _, err := svc.SetAccountDefaultProvider(ctx, sys, sp.ID, acc); err != nil {
			return dp, err
		}
	}
	return dp, nil
}

var roleMailbox = map[venue.Role]string{
	venue.RoleAdmin:  "admin",
	venue.RoleTrader: "trading",
	venue.RoleViewer: "middle-office",
}
