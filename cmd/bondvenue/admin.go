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

Every action also takes --data-dir / --database-url and prints the result as JSON.
`

// admin runs one local administration action with the operator's rights,
// directly on the database (no server needed).
func admin(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, adminUsage)
		return usageError{Msg: "no admin action given"}
	}
	action := args[0]
	fs := flag.NewFlagSet("admin "+action, flag.ContinueOnError)
	fs.SetOutput(stderr)
	var db dbFlags
	db.register(fs, getenv)
	str := func(name, help string) *string { return fs.String(name, "", help) }
	var (
		email, name, lei, country, participantID, number, accountType, role, userID, clientID, counterpartyID, limitName, value *string
		enabled                                                                                                                 *bool
	)
	switch action {
	case "bootstrap":
		email = str("email", "operator e-mail address")
	case "participant":
		name, lei, country = str("name", "legal name"), str("lei", "ISO 17442 LEI"), str("country", "ISO 3166 two-letter code")
	case "account":
		participantID, number = str("participant-id", "participant id"), str("number", "account number")
		accountType = fs.String("type", "agent", "account type: agent, principal or omnibus")
	case "user":
		participantID, email = str("participant-id", "participant id"), str("email", "e-mail address")
		role = fs.String("role", string(venue.RoleTrader), "PARTICIPANT_ADMIN, PARTICIPANT_TRADER, PARTICIPANT_VIEWER or VENUE_OPERATOR")
	case "credential-issue":
		userID = str("user-id", "user id")
	case "credential-revoke":
		clientID = str("client-id", "client id")
	case "counterparty":
		participantID, counterpartyID = str("participant-id", "participant id"), str("counterparty-id", "counterparty participant id")
		enabled = fs.Bool("enabled", true, "enable (true) or disable (false) trading between the two")
	case "risk-limit":
		participantID, limitName, value = str("participant-id", "participant id"), str("name", "limit name"), str("value", "nominal value")
	case "fix-cancel-on-disconnect":
		clientID = str("client-id", "client id")
		enabled = fs.Bool("on", true, "turn cancel-on-disconnect on (true) or off (false)")
	case "status":
	case "-h", "--help", "help":
		fmt.Fprint(stdout, adminUsage)
		return nil
	default:
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
	sys := trading.System

	var out any
	switch action {
	case "bootstrap":
		u, c, err := svc.BootstrapOperator(ctx, *email)
		if err != nil {
			return err
		}
		out = map[string]string{"user_id": u.ID, "email": u.Email, "client_id": c.ClientID, "client_secret": c.Secret}
	case "participant":
		var p venue.Participant
		p, err = svc.CreateParticipant(ctx, sys, trading.ParticipantInput{Name: name, LEI: lei, Country: country})
		out = map[string]string{"id": p.ID, "name": p.Name, "lei": p.LEI, "country": p.Country}
	case "account":
		var a trading.AccountView
		a, err = svc.CreateAccount(ctx, sys, trading.AccountInput{ParticipantID: *participantID, Number: *number, Type: *accountType})
		out = map[string]string{"id": a.ID, "participant_id": a.ParticipantID, "number": a.Number, "type": a.Type}
	case "user":
		r := venue.Role(*role)
		var u trading.UserView
		u, err = svc.CreateUser(ctx, sys, trading.UserInput{ParticipantID: participantID, Email: email, Role: &r})
		out = map[string]string{"id": u.ID, "participant_id": u.ParticipantID, "email": u.Email, "role": string(u.Role)}
	case "credential-issue":
		var c trading.IssuedCredential
		c, err = svc.IssueCredential(ctx, sys, *userID)
		out = map[string]string{"user_id": c.UserID, "client_id": c.ClientID, "client_secret": c.Secret}
	case "credential-revoke":
		var c venue.Credential
		c, err = svc.RevokeCredential(ctx, sys, *clientID)
		out = map[string]any{"client_id": c.ClientID, "user_id": c.UserID, "revoked_at": c.RevokedAt}
	case "counterparty":
		var rel venue.CounterpartyRelation
		rel, err = svc.SetCounterparty(ctx, sys, *participantID, *counterpartyID, enabled)
		out = map[string]any{"participant_id": rel.ParticipantID, "counterparty_id": rel.CounterpartyID, "enabled": rel.Enabled}
	case "risk-limit":
		v, ok := venue.ParseAmount(*value)
		if !ok {
			return usageError{Msg: "--value must be a non-negative decimal, at most 18 digits before the decimal point and 8 after"}
		}
		var l venue.RiskLimit
		l, err = svc.SetRiskLimit(ctx, sys, *participantID, trading.RiskLimitInput{Name: *limitName, Value: &v})
		out = map[string]string{"participant_id": l.ParticipantID, "name": l.Name, "value": l.Value.String()}
	case "fix-cancel-on-disconnect":
		err = svc.SetFIXCancelOnDisconnect(ctx, sys, *clientID, *enabled)
		out = map[string]any{"client_id": *clientID, "cancel_on_disconnect": *enabled}
	case "status":
		var ins []cluster.Instance
		ins, err = svc.Instances(ctx, sys)
		list := []map[string]any{}
		leader := ""
		for _, in := range ins {
			list = append(list, map[string]any{"id": in.ID, "url": in.URL, "role": in.Role,
				"started_at": in.StartedAt, "seen_at": in.SeenAt})
			if in.Role == cluster.RoleLeader && leader == "" {
				leader = in.ID
			}
		}
		out = map[string]any{"engine": database.Engine(), "leader": leader, "instances": list}
	}
	if err != nil {
		return err
	}
	enc := json.NewEncoder(stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}
