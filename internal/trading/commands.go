package trading

import (
	"context"
	"fmt"
	"strconv"

	"github.com/bondvenue/bondvenue/internal/idempotency"
	"github.com/bondvenue/bondvenue/internal/store"
	"github.com/bondvenue/bondvenue/internal/venue"
)

// Command is a trading command as an instance passes it to the leader
// (docs/architecture.md, "Several instances"): the use case, its caller, its input and the
// idempotency claim it runs under. The FIX gateway of a standby sends its
// sessions' commands so; REST writes are passed on as HTTP requests.
type Command struct {
	Op            string          `json:"op"`
	Principal     venue.Principal `json:"principal"`
	Claim         *ClaimRef       `json:"claim,omitempty"`
	Offer         *OfferInput     `json:"offer,omitempty"`
	Change        *ChangeInput    `json:"change,omitempty"`
	ID            string          `json:"id,omitempty"`
	ClientOrderID string          `json:"client_order_id,omitempty"`
	// Portfolio and PortfolioQuote are the inputs of the portfolio RFQ
	// operations; QuoteID names a portfolio quote (ID the list).
	Portfolio      *PortfolioInput      `json:"portfolio,omitempty"`
	PortfolioQuote *PortfolioQuoteInput `json:"portfolio_quote,omitempty"`
	QuoteID        string               `json:"quote_id,omitempty"`
	// Parties are an accept's identifiers for its order record (the
	// other orders carry theirs in their input).
	Parties *venue.Parties `json:"parties,omitempty"`
}

// Operations of a Command.
const (
	OpCreateOffer = "create_offer" // an offer, or a quote (Offer.MatchedOfferID)
	OpUpdateOffer = "update_offer"
	OpCancelOrder = "cancel_order" // DeleteOffer naming the cancel request
	// OpCancelOnDisconnect is the venue cancelling an order of a FIX
	// session that dropped (its records say the venue cancelled it).
	OpCancelOnDisconnect = "cancel_on_disconnect"
	OpCreateRFQ          = "create_rfq"
	OpDeclineRFQ         = "decline_rfq"
	OpAcceptQuote        = "accept_quote"
	// OpMassCancel cancels every open record of the caller's firm; the
	// id it answers is the number cancelled, in decimal.
	OpMassCancel = "mass_cancel"
	// The portfolio RFQ operations: send a list, quote it whole (ID the
	// list), decline it, accept one of its quotes (ID the list, QuoteID
	// the quote). Each answers the list's id.
	OpCreatePortfolio      = "create_portfolio"
	OpQuotePortfolio       = "quote_portfolio"
	OpDeclinePortfolio     = "decline_portfolio"
	OpAcceptPortfolioQuote = "accept_portfolio_quote"
)

// ClaimRef names an idempotency claim across instances.
type ClaimRef struct {
	UserID string `json:"user_id"`
	Key    string `json:"key"`
	Claim  string `json:"claim"`
}

// RefOf is claim c's name for a Command.
func RefOf(c *idempotency.Claim) *ClaimRef {
	rec := c.Record()
	return &ClaimRef{UserID: rec.UserID, Key: rec.Key, Claim: rec.Claim}
}

// Run runs a command here (the leader) and returns the id of the record it
// made or changed.
func (s *Service) Run(ctx context.Context, cmd Command) (string, error) {
	svc := s
	if cmd.Claim != nil {
		svc = s.WithClaim(idempotency.Resume(store.IdempotencyClaim{UserID: cmd.Claim.UserID, Key: cmd.Claim.Key,
			Claim: cmd.Claim.Claim}))
	}
	p := cmd.Principal
	switch cmd.Op {
	case OpCreateOffer:
		if cmd.Offer == nil {
			break
		}
		v, err := svc.CreateOffer(ctx, p, *cmd.Offer)
		return v.ID, err
	case OpUpdateOffer:
		if cmd.Change == nil {
			break
		}
		v, err := svc.UpdateOffer(ctx, p, cmd.ID, *cmd.Change)
		return v.ID, err
	case OpCancelOrder:
		v, err := svc.CancelOrder(ctx, p, cmd.ID, cmd.ClientOrderID)
		return v.ID, err
	case OpCancelOnDisconnect:
		v, err := svc.CancelOnDisconnect(ctx, p, cmd.ID)
		return v.ID, err
	case OpCreateRFQ:
		if cmd.Offer == nil {
			break
		}
		v, err := svc.CreateRFQ(ctx, p, *cmd.Offer)
		return v.ID, err
	case OpDeclineRFQ:
		v, err := svc.DeclineRFQ(ctx, p, cmd.ID)
		return v.ID, err
	case OpAcceptQuote:
		v, err := svc.AcceptQuote(ctx, p, cmd.ID, cmd.parties())
		return v.ID, err
	case OpMassCancel:
		n, err := svc.MassCancel(ctx, p)
		return strconv.Itoa(n), err
	case OpCreatePortfolio:
		if cmd.Portfolio == nil {
			break
		}
		v, err := svc.CreatePortfolioRFQ(ctx, p, *cmd.Portfolio)
		return v.ID, err
	case OpQuotePortfolio:
		if cmd.PortfolioQuote == nil {
			break
		}
		v, err := svc.QuotePortfolio(ctx, p, cmd.ID, *cmd.PortfolioQuote)
		return v.ID, err
	case OpDeclinePortfolio:
		v, err := svc.DeclinePortfolio(ctx, p, cmd.ID)
		return v.ID, err
	case OpAcceptPortfolioQuote:
		v, err := svc.AcceptPortfolioQuote(ctx, p, cmd.ID, cmd.QuoteID, cmd.parties())
		return v.ID, err
	}
	return "", venue.Invalid(fmt.Sprintf("command %q is not one the leader runs", cmd.Op))
}

// parties are an accept's parties (none when the command carries none).
func (cmd Command) parties() venue.Parties {
	if cmd.Parties == nil {
		return venue.Parties{}
	}
	return *cmd.Parties
}
