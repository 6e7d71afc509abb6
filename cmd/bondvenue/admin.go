package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"

	"github.com/bondvenue/bondvenue/internal/cluster"
	"github.com/bondvenue/bondvenue/internal/trading"
	"github.com/bondvenue/bondvenue/internal/venue"
)

const adminUsage = `usage: bondvenue admin <action> [flags]

actions:
  bootstrap          --email E                      create the first venue operator and its credential
  participant        --name N --lei L --country CC  onboard a participant (risk limits start at 0)
  account            --participant-id P --number N  open an account
  user               --participant-id P --email E --role R
  credential-issue   --user-id U                    issue a client id and secret
  credential-revoke  --client-id C                  revoke a credential and its tokens
  counterparty       --participant-id A --counterparty-id B [--enabled=false]
  risk-limit         --participant-id P --name MAX_OFFER|ALL_OFFER_SUM|ALL_OFFER_USER_SUM --value V
  status                                            the instances serving the venue and which one leads
  fix-cancel-on-disconnect --client-id C [--on=false]
                     cancel the open FIX orders of a credential when its FIX session ends (or not)
  audit verify                                      walk the audit trail's hash chain and name the first
                                                    entry that breaks it (exit status 1)

Every action also takes --data-dir / --database-url; every change also takes --reason R, the why
the audit trail records (channel cli). Every action but audit verify prints its result as JSON.
`

// adminFlags are an admin action's flags (nil: the action takes none).
type adminFlags struct {
	email, name, lei, country, participantID, number, accountType, role, userID, clientID, counterpartyID, limitName, value *string
	enabled                                                                                                                 *bool
	// reason is why, as the audit trail records a change (nil: the action
	// changes nothing).
	reason *string
}

// register declares action's flags on fs; ok is false for an action that
// does not exist.
func (f *adminFlags) register(fs *flag.FlagSet, action string) (ok bool) {
	str := func(name, help string) *string { return fs.String(name, "", help) }
	switch action {
	case "bootstrap":
		f.email = str("email", "operator e-mail address")
	case "participant":
		f.name, f.lei, f.country = str("name", "legal name"), str("lei", "ISO 17442 LEI"), str("country", "ISO 3166 two-letter code")
	case "account":
		f.participantID, f.number = str("participant-id", "participant id"), str("number", "account number")
		f.accountType = fs.String("type", "agent", "account type: agent, principal or omnibus")
	case "user":
		f.participantID, f.email = str("participant-id", "participant id"), str("email", "e-mail address")
		f.role = fs.String("role", string(venue.RoleTrader), "PARTICIPANT_ADMIN, PARTICIPANT_TRADER, PARTICIPANT_VIEWER or VENUE_OPERATOR")
	case "credential-issue":
		f.userID = str("user-id", "user id")
	case "credential-revoke":
		f.clientID = str("client-id", "client id")
	case "counterparty":
		f.participantID, f.counterpartyID = str("participant-id", "participant id"), str("counterparty-id", "counterparty participant id")
		f.enabled = fs.Bool("enabled", true, "enable (true) or disable (false) trading between the two")
	case "risk-limit":
		f.participantID, f.limitName, f.value = str("participant-id", "participant id"), str("name", "limit name"), str("value", "nominal value")
	case "fix-cancel-on-disconnect":
		f.clientID = str("client-id", "client id")
		f.enabled = fs.Bool("on", true, "turn cancel-on-disconnect on (true) or off (false)")
	case "status":
		return true
	default:
		return false
	}
	f.reason = fs.String("reason", "", "why, as the audit trail records the change")
	return true
}

// admin runs one local administration action with the operator's rights,
// directly on the database (no server needed).
func admin(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, adminUsage)
		return usageError{Msg: "no admin action given"}
	}
	action := args[0]
	switch action {
	case "-h", "--help", "help":
		fmt.Fprint(stdout, adminUsage)
		return nil
	case "audit":
		return auditCommand(ctx, args[1:], getenv, stdout, stderr)
	}
	fs := flag.NewFlagSet("admin "+action, flag.ContinueOnError)
	fs.SetOutput(stderr)
	var db dbFlags
	db.register(fs, getenv)
	var f adminFlags
	if !f.register(fs, action) {
		fmt.Fprint(stderr, adminUsage)
		return usageError{Msg: fmt.Sprintf("unknown admin action %q", action)}
	}
	if err := parse(fs, args[1:]); err != nil {
		return err
	}
	database, err := db.open(ctx)
	if err != nil {
		return err
	}
	defer database.Close()
	if _, err := database.Migrate(ctx); err != nil {
		return err
	}
	svc := newCore(database, coreConfig{}).svc // not started: the use cases write to the database
	if f.reason != nil {
		svc = svc.WithReason(*f.reason)
	}
	out, err := f.run(ctx, svc, action)
	if err != nil {
		return err
	}
	if action == "status" {
		out.(map[string]any)["engine"] = database.Engine()
	}
	enc := json.NewEncoder(stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

// run runs action with f's values as the venue operator, over the admin
// command's channel, and returns what to print.
func (f *adminFlags) run(ctx context.Context, svc *trading.Service, action string) (any, error) {
	sys := trading.System
	sys.Channel = venue.ChannelCLI
	var out any
	var err error
	switch action {
	case "bootstrap":
		u, c, err := svc.BootstrapOperator(ctx, sys, *f.email)
		if err != nil {
			return nil, err
		}
		out = map[string]string{"user_id": u.ID, "email": u.Email, "client_id": c.ClientID, "client_secret": c.Secret}
	case "participant":
		var p venue.Participant
		p, err = svc.CreateParticipant(ctx, sys, trading.ParticipantInput{Name: f.name, LEI: f.lei, Country: f.country})
		out = map[string]string{"id": p.ID, "name": p.Name, "lei": p.LEI, "country": p.Country}
	case "account":
		var a trading.AccountView
		a, err = svc.CreateAccount(ctx, sys, trading.AccountInput{ParticipantID: *f.participantID, Number: *f.number, Type: *f.accountType})
		out = map[string]string{"id": a.ID, "participant_id": a.ParticipantID, "number": a.Number, "type": a.Type}
	case "user":
		r := venue.Role(*f.role)
		var u trading.UserView
		u, err = svc.CreateUser(ctx, sys, trading.UserInput{ParticipantID: f.participantID, Email: f.email, Role: &r})
		out = map[string]string{"id": u.ID, "participant_id": u.ParticipantID, "email": u.Email, "role": string(u.Role)}
	case "credential-issue":
		var c trading.IssuedCredential
		c, err = svc.IssueCredential(ctx, sys, *f.userID)
		out = map[string]string{"user_id": c.UserID, "client_id": c.ClientID, "client_secret": c.Secret}
	case "credential-revoke":
		var c venue.Credential
		c, err = svc.RevokeCredential(ctx, sys, *f.clientID)
		out = map[string]any{"client_id": c.ClientID, "user_id": c.UserID, "revoked_at": c.RevokedAt}
	case "counterparty":
		var rel venue.CounterpartyRelation
		rel, err = svc.SetCounterparty(ctx, sys, *f.participantID, *f.counterpartyID, f.enabled)
		out = map[string]any{"participant_id": rel.ParticipantID, "counterparty_id": rel.CounterpartyID, "enabled": rel.Enabled}
	case "risk-limit":
		v, ok := venue.ParseAmount(*f.value)
		if !ok {
			return nil, usageError{Msg: "--value must be a non-negative decimal, at most 18 digits before the decimal point and 8 after"}
		}
		var l venue.RiskLimit
		l, err = svc.SetRiskLimit(ctx, sys, *f.participantID, trading.RiskLimitInput{Name: *f.limitName, Value: &v})
		out = map[string]string{"participant_id": l.ParticipantID, "name": l.Name, "value": l.Value.String()}
	case "fix-cancel-on-disconnect":
		err = svc.SetFIXCancelOnDisconnect(ctx, sys, *f.clientID, *f.enabled)
		out = map[string]any{"client_id": *f.clientID, "cancel_on_disconnect": *f.enabled}
	case "status":
		out, err = status(ctx, svc)
	}
	return out, err
}

// status is the instances serving the venue and which one leads.
func status(ctx context.Context, svc *trading.Service) (map[string]any, error) {
	ins, err := svc.Instances(ctx, trading.System)
	list := []map[string]any{}
	leader := ""
	for _, in := range ins {
		list = append(list, map[string]any{"id": in.ID, "url": in.URL, "role": in.Role,
			"started_at": in.StartedAt, "seen_at": in.SeenAt})
		if in.Role == cluster.RoleLeader && leader == "" {
			leader = in.ID
		}
	}
	return map[string]any{"leader": leader, "instances": list}, err
}
