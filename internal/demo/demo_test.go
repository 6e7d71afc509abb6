package demo_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/bondvenue/bondvenue/internal/demo"
	"github.com/bondvenue/bondvenue/internal/store"
	"github.com/bondvenue/bondvenue/internal/testenv"
	"github.com/bondvenue/bondvenue/internal/trading"
	"github.com/bondvenue/bondvenue/internal/venue"
)

func TestLoad(t *testing.T) {
	testenv.ForEach(t, func(t *testing.T, e store.Engine) {
		ctx := context.Background()
		core := testenv.Service(t, e, testenv.Config{Trading: trading.Config{}})
		svc := core.Svc
		dir := t.TempDir()
		returned, loaded, err := demo.Load(ctx, svc, dir, "http://127.0.0.1:8080")
		if err != nil || !loaded {
			t.Fatalf("Load() = %v, %v, want true, nil", loaded, err)
		}
		path := filepath.Join(dir, demo.CredentialsFile)
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != 0o600 {
			t.Errorf("credentials file mode = %v, want 0600", fi.Mode().Perm())
		}
		c, err := demo.ReadCredentials(path)
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(c, returned); d != "" {
			t.Errorf("Load() returned other credentials than it wrote (-file +returned):\n%s", d)
		}
		if c.BaseURL != "http://127.0.0.1:8080" || c.Operator.ClientID == "" || c.Operator.ClientSecret == "" {
			t.Errorf("credentials header = %+v, want base_url and an operator credential", c)
		}
		if len(c.Participants) != 4 {
			t.Fatalf("got %d participants, want 4", len(c.Participants))
		}
		for i, p := range c.Participants {
			if !venue.ValidLEI(p.LEI) {
				t.Errorf("participant %d LEI %q is not valid", i, p.LEI)
			}
			roles := map[string]bool{}
			for _, u := range p.Users {
				roles[u.Role] = true
				if u.ClientID == "" || u.ClientSecret == "" {
					t.Errorf("participant %d user %s has no credential", i, u.Email)
				}
			}
			for _, r := range venue.ParticipantRoles {
				if !roles[string(r)] {
					t.Errorf("participant %d has no %s user", i, r)
				}
			}
			if len(p.AccountIDs) == 0 {
				t.Errorf("participant %d has no account", i)
			}
		}

		// Participants 0–2 are mutual counterparties; 3 has none.
		for i, p := range c.Participants {
			tok, err := core.Access.IssueToken(ctx, p.Users[0].ClientID, p.Users[0].ClientSecret)
			if err != nil {
				t.Fatalf("IssueToken(participant %d) = %v", i, err)
			}
			pr, err := core.Access.Authenticate(ctx, tok.AccessToken)
			if err != nil {
				t.Fatal(err)
			}
			l, err := svc.Participants(ctx, pr, venue.Page{})
			if err != nil || len(l.Items) != 1 {
				t.Fatalf("Participants() = %v, %v", l, err)
			}
			n := l.Items[0].Nested
			want := 2
			if i == 3 {
				want = 0
			}
			if len(n.Counterparties) != want {
				t.Errorf("participant %d has %d counterparties, want %d", i, len(n.Counterparties), want)
			}
			if len(n.RiskLimits) != 4 || len(n.Markets) != 4 || len(n.Buckets) != 1 {
				t.Errorf("participant %d: %d risk limits, %d markets, %d buckets; want 4, 4, 1", i, len(n.RiskLimits), len(n.Markets), len(n.Buckets))
			}
		}

		ins, err := svc.Instruments(ctx, trading.System, trading.InstrumentFilter{}, venue.Page{})
		if err != nil {
			t.Fatal(err)
		}
		if len(ins.Items) < 10 {
			t.Errorf("got %d instruments, want at least 10", len(ins.Items))
		}
		conventions := map[string]bool{}
		for _, in := range ins.Items {
			if !venue.ValidISIN(in.Terms.ISIN) || in.Terms.Currency != "EUR" {
				t.Errorf("instrument %s: ISIN valid %v, currency %s", in.Terms.ISIN, venue.ValidISIN(in.Terms.ISIN), in.Terms.Currency)
			}
			conventions[in.Terms.DayCount+" "+in.Terms.CouponFrequency] = true
		}
		for _, want := range []string{"30E/360 Annual", "ACT/ACT ICMA Annual", "ACT/ACT ICMA Semi-annual"} {
			if !conventions[want] {
				t.Errorf("no demo bond with %s", want)
			}
		}

		// A second start with --demo changes nothing.
		before, _ := os.ReadFile(path)
		_, loaded, err = demo.Load(ctx, svc, dir, "http://127.0.0.1:9999")
		if err != nil || loaded {
			t.Fatalf("second Load() = %v, %v, want false, nil", loaded, err)
		}
		after, _ := os.ReadFile(path)
		if string(before) != string(after) {
			t.Error("second Load rewrote the credentials file")
		}
		all, err := svc.Participants(ctx, trading.System, venue.Page{})
		if err != nil || len(all.Items) != 4 {
			t.Errorf("after second Load: %d participants, %v; want 4", len(all.Items), err)
		}
	})
}

// TestAddSimulated: the simulated firms join a demo venue once, trade with
// the first three demo firms and each other (not the fourth), and hold no
// credential; a venue without the demo firms is not a demo.
func TestAddSimulated(t *testing.T) {
	testenv.ForEach(t, func(t *testing.T, e store.Engine) {
		ctx := context.Background()
		core := testenv.Service(t, e, testenv.Config{Trading: trading.Config{}})
		svc := core.Svc
		if _, err := demo.AddSimulated(ctx, svc); !errors.Is(err, demo.ErrNotDemo) {
			t.Fatalf("AddSimulated(empty venue) = %v, want ErrNotDemo", err)
		}
		creds, _, err := demo.Load(ctx, svc, t.TempDir(), "")
		if err != nil {
			t.Fatal(err)
		}
		first, err := demo.AddSimulated(ctx, svc)
		if err != nil {
			t.Fatalf("AddSimulated() = %v", err)
		}
		again, err := demo.AddSimulated(ctx, svc)
		if err != nil {
			t.Fatalf("AddSimulated() again = %v", err)
		}
		if d := cmp.Diff(first, again); d != "" {
			t.Errorf("a second AddSimulated() changed the firms (-first +again):\n%s", d)
		}
		if len(first.Firms) != 2 || first.Operator.UserID != creds.Operator.UserID {
			t.Fatalf("AddSimulated() = %d firms, operator %s; want 2 and the demo operator %s", len(first.Firms), first.Operator.UserID, creds.Operator.UserID)
		}
		if want := []string{creds.Participants[0].ID, creds.Participants[1].ID, creds.Participants[2].ID}; !cmp.Equal(first.Humans, want) {
			t.Errorf("Humans = %v, want participants 0–2 %v", first.Humans, want)
		}
		ps, err := svc.Participants(ctx, trading.System, venue.Page{Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		if len(ps.Items) != 6 {
			t.Errorf("%d participants, want the demo's 4 and 2 simulated", len(ps.Items))
		}
		for _, f := range first.Firms {
			own, err := svc.Participants(ctx, f.Trader, venue.Page{Limit: 1})
			if err != nil || len(own.Items) != 1 || own.Items[0].Nested == nil {
				t.Fatalf("Participants(as %s) = %d records, %v", f.Name, len(own.Items), err)
			}
			got := map[string]bool{}
			for _, c := range own.Items[0].Nested.Counterparties {
				got[c.ID] = true
			}
			for i, h := range creds.Participants {
				if got[h.ID] != (i < 3) {
					t.Errorf("%s counterparty of demo participant %d: %v, want %v", f.Name, i, got[h.ID], i < 3)
				}
			}
			for _, o := range first.Firms {
				if o.ID != f.ID && !got[o.ID] {
					t.Errorf("%s is not a counterparty of %s", o.Name, f.Name)
				}
			}
			if f.Trader.Role != venue.RoleTrader || f.Trader.ParticipantID != f.ID || f.AccountID == "" {
				t.Errorf("%s: trader %+v, account %q", f.Name, f.Trader, f.AccountID)
			}
			users, err := svc.Users(ctx, trading.System, trading.UserFilter{ParticipantID: f.ID}, venue.Page{Limit: 10})
			if err != nil {
				t.Fatal(err)
			}
			for _, u := range users.Items {
				cs, err := svc.Credentials(ctx, trading.System, u.ID, venue.Page{Limit: 1})
				if err != nil || len(cs.Items) != 0 {
					t.Errorf("%s user %s: %d credentials (%v), want none", f.Name, u.Email, len(cs.Items), err)
				}
			}
		}
	})
}
