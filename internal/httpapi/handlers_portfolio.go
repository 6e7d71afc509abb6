package httpapi

import (
	"context"
	"fmt"
	"net/http"

	"github.com/bondvenue/bondvenue/internal/trading"
	"github.com/bondvenue/bondvenue/internal/venue"
	"github.com/bondvenue/bondvenue/internal/wire"
)

// Portfolio (list) RFQs: /participant/portfolio-rfq.

type portfolioBody struct {
	MarketID             string   `json:"market_id"`
	AccountID            string   `json:"account_id"`
	Counterparties       []string `json:"counterparties"`
	SettlementDate       *string  `json:"settlement_date"`
	ValidUntil           *string  `json:"valid_until"`
	Notes                string   `json:"notes"`
	ClientIDCode         string   `json:"client_id_code"`
	InvestmentDecisionID string   `json:"investment_decision_id"`
	ExecutionDecisionID  string   `json:"execution_decision_id"`
	TradingCapacity      string   `json:"trading_capacity"`
	Lines                []struct {
		InstrumentID string      `json:"instrument_id"`
		Direction    string      `json:"direction"`
		Quantity     amountInput `json:"quantity"`
	} `json:"lines"`
}

func (b portfolioBody) input() (trading.PortfolioInput, error) {
	var f fields
	in := trading.PortfolioInput{MarketID: b.MarketID, AccountID: b.AccountID, Counterparties: b.Counterparties, Notes: b.Notes,
		Parties: partiesOf(b.ClientIDCode, b.InvestmentDecisionID, b.ExecutionDecisionID, b.TradingCapacity),
		Lines:   make([]trading.PortfolioLineInput, len(b.Lines))}
	if b.SettlementDate != nil && *b.SettlementDate != "" {
		d := f.date("settlement_date", b.SettlementDate, true)
		in.SettlementDate = &d
	}
	in.ValidUntil = f.instant("valid_until", b.ValidUntil)
	for i, l := range b.Lines {
		f.decimal(fmt.Sprintf("lines[%d].quantity", i), l.Quantity.decimalInput, true)
		in.Lines[i] = trading.PortfolioLineInput{InstrumentID: l.InstrumentID, Direction: l.Direction, Quantity: l.Quantity.ptr()}
	}
	return in, f.v.Err()
}

type portfolioQuoteBody struct {
	AccountID            string  `json:"account_id"`
	ValidUntil           *string `json:"valid_until"`
	ClientIDCode         string  `json:"client_id_code"`
	InvestmentDecisionID string  `json:"investment_decision_id"`
	ExecutionDecisionID  string  `json:"execution_decision_id"`
	TradingCapacity      string  `json:"trading_capacity"`
	Lines                []struct {
		LineID       string     `json:"line_id"`
		PricePerUnit priceInput `json:"price_per_unit"`
	} `json:"lines"`
}

func (b portfolioQuoteBody) input() (trading.PortfolioQuoteInput, error) {
	var f fields
	in := trading.PortfolioQuoteInput{AccountID: b.AccountID,
		Parties: partiesOf(b.ClientIDCode, b.InvestmentDecisionID, b.ExecutionDecisionID, b.TradingCapacity),
		Lines:   make([]trading.PortfolioQuoteLineInput, len(b.Lines))}
	in.ValidUntil = f.instant("valid_until", b.ValidUntil)
	for i, l := range b.Lines {
		f.decimal(fmt.Sprintf("lines[%d].price_per_unit", i), l.PricePerUnit.decimalInput, false)
		in.Lines[i] = trading.PortfolioQuoteLineInput{LineID: l.LineID, Price: l.PricePerUnit.ptr()}
	}
	return in, f.v.Err()
}

// portfolioAnswer is an accept's answer: the list and its trades.
type portfolioAnswer struct {
	wire.PortfolioRFQ
	Trades []wire.TradeRecord `json:"trades"`
}

func portfolioView(v trading.PortfolioView) wire.PortfolioRFQ {
	return wire.PortfolioRFQOf(v.PortfolioRFQ)
}

func (s *Server) createPortfolio(w http.ResponseWriter, r *http.Request, p venue.Principal) error {
	var body portfolioBody
	if err := decode(r, &body); err != nil {
		return err
	}
	in, err := body.input()
	if err != nil {
		return err
	}
	v, err := s.use(r).CreatePortfolioRFQ(r.Context(), p, in)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, portfolioView(v))
	return nil
}

func (s *Server) listPortfolios(w http.ResponseWriter, r *http.Request, p venue.Principal) error {
	q := r.URL.Query()
	page, err := pageParams(q)
	if err != nil {
		return err
	}
	l, err := s.use(r).PortfolioRFQs(r.Context(), p, q.Get("status"), page)
	if err != nil {
		return err
	}
	writeList(w, r, l.Items, l.Next, wire.PortfolioRFQOf)
	return nil
}

func (s *Server) quotePortfolio(w http.ResponseWriter, r *http.Request, p venue.Principal) error {
	var body portfolioQuoteBody
	if err := decode(r, &body); err != nil {
		return err
	}
	in, err := body.input()
	if err != nil {
		return err
	}
	v, err := s.use(r).QuotePortfolio(r.Context(), p, r.PathValue("portfolioId"), in)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, portfolioView(v))
	return nil
}

// onPortfolioQuote runs a requester's command on one quote of a list.
func onPortfolioQuote(s *Server, use func(*trading.Service, context.Context, venue.Principal, string, string) (trading.PortfolioView, error)) authedFunc {
	return func(w http.ResponseWriter, r *http.Request, p venue.Principal) error {
		v, err := use(s.use(r), r.Context(), p, r.PathValue("portfolioId"), r.PathValue("quoteId"))
		if err != nil {
			return err
		}
		writePortfolioAnswer(w, v)
		return nil
	}
}
