package httpapi

import (
	"net/http"

	"github.com/bondvenue/bondvenue/internal/trading"
	"github.com/bondvenue/bondvenue/internal/venue"
	"github.com/bondvenue/bondvenue/internal/wire"
)

// partiesBody is an order's parties in a request body: the client's
// identifiers for the order records, each optional (docs/guide.md,
// "Identifying the client and the decision makers"). The bodies that
// carry them besides (wire.OfferBody, changeBody, portfolioBody,
// portfolioQuoteBody) spell the same four fields out rather than embed
// this one: encoding/json would name an embedded field's wrong type
// partiesBody.client_id_code.
type partiesBody struct {
	ClientIDCode         string `json:"client_id_code"`
	InvestmentDecisionID string `json:"investment_decision_id"`
	ExecutionDecisionID  string `json:"execution_decision_id"`
	TradingCapacity      string `json:"trading_capacity"`
}

func (b partiesBody) parties() venue.Parties {
	return partiesOf(b.ClientIDCode, b.InvestmentDecisionID, b.ExecutionDecisionID, b.TradingCapacity)
}

// partiesOf is the parties of a body's four fields.
func partiesOf(clientID, investmentDecision, executionDecision, capacity string) venue.Parties {
	return venue.Parties{ClientID: clientID, InvestmentDecision: investmentDecision, ExecutionDecision: executionDecision,
		Capacity: capacity}
}

// given is p when a body names any of its fields, else nil.
func given(p venue.Parties) *venue.Parties {
	if p.IsZero() {
		return nil
	}
	return &p
}

// acceptQuote is PUT …/offers/{offerId}/accept. The body is optional: it
// gives the requester's parties for the accept's order record.
func (s *Server) acceptQuote(w http.ResponseWriter, r *http.Request, p venue.Principal) error {
	var body partiesBody
	if err := decodeOptional(r, &body); err != nil {
		return err
	}
	v, err := s.use(r).AcceptQuote(r.Context(), p, r.PathValue("offerId"), body.parties())
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, wire.TradeNestedOf(v))
	return nil
}

// acceptPortfolioQuote is PUT …/portfolio-rfq/{portfolioId}/quotes/{quoteId}/accept,
// its optional body as acceptQuote's.
func (s *Server) acceptPortfolioQuote(w http.ResponseWriter, r *http.Request, p venue.Principal) error {
	var body partiesBody
	if err := decodeOptional(r, &body); err != nil {
		return err
	}
	v, err := s.use(r).AcceptPortfolioQuote(r.Context(), p, r.PathValue("portfolioId"), r.PathValue("quoteId"), body.parties())
	if err != nil {
		return err
	}
	writePortfolioAnswer(w, v)
	return nil
}

// writePortfolioAnswer answers a command on one quote of a list: the list
// and the trades the command made.
func writePortfolioAnswer(w http.ResponseWriter, v trading.PortfolioView) {
	out := portfolioAnswer{PortfolioRFQ: portfolioView(v), Trades: make([]wire.TradeRecord, len(v.Trades))}
	for i, t := range v.Trades {
		out.Trades[i] = wire.TradeRecordOf(t)
	}
	writeJSON(w, http.StatusOK, out)
}
