package fix

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"time"

	"github.com/bondvenue/bondvenue/internal/trading"
	"github.com/bondvenue/bondvenue/internal/venue"
)

// Several instances (docs/architecture.md, "Several instances"): the FIX sessions of a standby
// are served there — reports, market data, news and drop copies come from
// its own feed — and their trading commands run on the leader, passed as
// trading.Commands to its POST /internal/v1/commands, signed with the
// instances' shared secret.

// commandsPath is the leader's endpoint for commands of other instances.
const commandsPath = "/internal/v1/commands"

const headerSignature = "X-Bondvenue-Command-Signature"

// run runs a trading command: here when this instance leads, else on the
// leader.
func (g *Gateway) run(ctx context.Context, cmd trading.Command) (string, error) {
	if g.svc.Role() == trading.RoleLeader {
		return g.svc.Run(ctx, cmd)
	}
	leader, err := g.svc.LeaderURL(ctx)
	if err != nil {
		return "", err
	}
	secret, err := g.svc.ClusterSecret(ctx)
	if err != nil {
		return "", err
	}
	body, err := json.Marshal(cmd)
	if err != nil {
		return "", err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, leader+commandsPath, bytes.NewReader(body))
	if err != nil {
		return "", err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(headerSignature, sign(secret, body))
	resp, err := g.client.Do(req)
	if err != nil {
		return "", &venue.Error{Kind: venue.KindNotReady, Message: "the leader did not answer (a takeover may be under way); send again"}
	}
	defer resp.Body.Close()
	var out commandAnswer
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&out); err != nil {
		return "", &venue.Error{Kind: venue.KindNotReady, Message: "the leader's answer was cut off; send again"}
	}
	if out.Error != nil {
		return "", &venue.Error{Kind: out.Error.Kind, Message: out.Error.Message, Details: out.Error.Details}
	}
	return out.ID, nil
}

// commandAnswer is the leader's answer to a command.
type commandAnswer struct {
	ID    string        `json:"id,omitempty"`
	Error *commandError `json:"error,omitempty"`
}

type commandError struct {
	Kind    venue.Kind         `json:"kind"`
	Message string             `json:"message"`
	Details []venue.FieldIssue `json:"details,omitempty"`
}

func sign(secret, body []byte) string {
	m := hmac.New(sha256.New, secret)
	m.Write(body)
	return hex.EncodeToString(m.Sum(nil))
}

// CommandsHandler serves POST /internal/v1/commands: the trading commands
// other instances' FIX sessions send to the leader. A request not signed
// with the instances' secret is refused (403); an instance that does not
// lead answers 503 (the sender looks the leader up again).
func CommandsHandler(svc *trading.Service) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		answer := func(status int, a commandAnswer) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(status)
			_ = json.NewEncoder(w).Encode(a)
		}
		fail := func(status int, e *venue.Error) {
			answer(status, commandAnswer{Error: &commandError{Kind: e.Kind, Message: e.Message, Details: e.Details}})
		}
		body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		if err != nil {
			fail(http.StatusBadRequest, venue.Invalid("unreadable command"))
			return
		}
		secret, err := svc.ClusterSecret(r.Context())
		if err != nil {
			fail(http.StatusServiceUnavailable, &venue.Error{Kind: venue.KindUnavailable, Message: "the database did not answer"})
			return
		}
		if !hmac.Equal([]byte(r.Header.Get(headerSignature)), []byte(sign(secret, body))) {
			fail(http.StatusForbidden, venue.Forbidden("a command not signed by an instance of this venue"))
			return
		}
		if svc.Role() != trading.RoleLeader {
			fail(http.StatusServiceUnavailable, &venue.Error{Kind: venue.KindNotReady, Message: "this instance does not lead"})
			return
		}
		var cmd trading.Command
		if err := json.Unmarshal(body, &cmd); err != nil {
			fail(http.StatusBadRequest, venue.Invalid("malformed command"))
			return
		}
		ctx, cancel := context.WithTimeout(r.Context(), 30*time.Second)
		defer cancel()
		id, err := svc.Run(ctx, cmd)
		var e *venue.Error
		switch {
		case err == nil:
			answer(http.StatusOK, commandAnswer{ID: id})
		case errors.As(err, &e) && e.Kind != venue.KindInternal:
			fail(http.StatusOK, e) // the domain's answer, delivered
		default:
			fail(http.StatusOK, &venue.Error{Kind: venue.KindInternal, Message: "internal error"})
		}
	})
}
