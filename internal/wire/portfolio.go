package wire

import "github.com/bondvenue/bondvenue/internal/venue"

// PortfolioRFQ is a portfolio (list) RFQ as REST answers it and the
// portfolio_rfq.* events carry it: its lines and the quotes the reader may
// see (the requester every quote, a dealer its own). Cash amounts are
// exact decimal text, as an offer's accrued_interest is.
type PortfolioRFQ struct {
	ID             string   `json:"id"`
	MarketID       string   `json:"market_id"`
	ParticipantID  string   `json:"participant_id"`
	AccountID      string   `json:"account_id"`
	UserID         string   `json:"user_id"`
	Counterparties []string `json:"counterparties"`
	SettlementDate string   `json:"settlement_date"`
	ValidUntil     string   `json:"valid_until"`
	Status         string   `json:"status"`
	Notes          string   `json:"notes"`
	// Parties are the requester's, for the requester (and the operator).
	Parties
	Lines     []PortfolioLine  `json:"lines"`
	Quotes    []PortfolioQuote `json:"quotes"`
	CreatedAt string           `json:"createdAt"`
	UpdatedAt string           `json:"updatedAt"`
}

// PortfolioLine is one bond of a list; direction is the requester's.
type PortfolioLine struct {
	LineID       string  `json:"line_id"`
	InstrumentID string  `json:"instrument_id"`
	Direction    string  `json:"direction"`
	Quantity     Num     `json:"quantity"`
	TradeID      *string `json:"trade_id"`
}

// PortfolioQuote is one dealer's quote for a whole list (or its decline:
// no lines, outcome declined).
type PortfolioQuote struct {
	ID               string               `json:"id"`
	PortfolioRFQID   string               `json:"portfolio_rfq_id"`
	ParticipantID    string               `json:"participant_id"`
	AccountID        string               `json:"account_id"`
	UserID           string               `json:"user_id"`
	Lines            []PortfolioQuoteLine `json:"lines"`
	NetProceeds      *string              `json:"net_proceeds"`
	ValidUntil       *string              `json:"valid_until"`
	Status           string               `json:"status"`
	Outcome          *string              `json:"outcome"`
	CoverNetProceeds *string              `json:"cover_net_proceeds"`
	// Parties are the dealer's, for the dealer (and the operator).
	Parties
	CreatedAt string `json:"createdAt"`
	UpdatedAt string `json:"updatedAt"`
}

// Parties are an order's parties as its owner reads them: the keys of
// the offer record (Offer), each absent when not given.
type Parties struct {
	ClientIDCode         string `json:"client_id_code,omitempty"`
	InvestmentDecisionID string `json:"investment_decision_id,omitempty"`
	ExecutionDecisionID  string `json:"execution_decision_id,omitempty"`
	TradingCapacity      string `json:"trading_capacity,omitempty"`
}

// PartiesOf renders p.
func PartiesOf(p venue.Parties) Parties {
	return Parties{ClientIDCode: p.ClientID, InvestmentDecisionID: p.InvestmentDecision, ExecutionDecisionID: p.ExecutionDecision,
		TradingCapacity: p.Capacity}
}

// PortfolioQuoteLine is a quote's price for one line and what it comes to
// at the list's settlement date.
type PortfolioQuoteLine struct {
	LineID           string `json:"line_id"`
	PricePerUnit     Num    `json:"price_per_unit"`
	AccruedInterest  string `json:"accrued_interest"`
	SettlementAmount string `json:"settlement_amount"`
}

// PortfolioRFQOf renders r (already cut to what its reader may see).
func PortfolioRFQOf(r venue.PortfolioRFQ) PortfolioRFQ {
	out := PortfolioRFQ{ID: r.ID, MarketID: r.MarketID, ParticipantID: r.ParticipantID, AccountID: r.AccountID,
		UserID: r.UserID, Counterparties: r.Counterparties, SettlementDate: r.SettlementDate.String(),
		ValidUntil: Time(r.ValidUntil), Status: r.Status, Notes: r.Notes, Parties: PartiesOf(r.Parties),
		CreatedAt: Time(r.CreatedAt), UpdatedAt: Time(r.UpdatedAt),
		Lines: make([]PortfolioLine, len(r.Lines)), Quotes: make([]PortfolioQuote, len(r.Quotes))}
	if out.Counterparties == nil {
		out.Counterparties = []string{}
	}
	for i, l := range r.Lines {
		out.Lines[i] = PortfolioLine{LineID: l.LineID, InstrumentID: l.InstrumentID, Direction: l.Direction,
			Quantity: NumOf(l.Quantity), TradeID: Nullable(l.TradeID)}
	}
	for i, q := range r.Quotes {
		pq := PortfolioQuote{ID: q.ID, PortfolioRFQID: r.ID, ParticipantID: q.ParticipantID, AccountID: q.AccountID,
			UserID: q.UserID, ValidUntil: TimePtr(q.ValidUntil), Status: q.Status, Outcome: Nullable(q.Outcome),
			Parties: PartiesOf(q.Parties), CreatedAt: Time(q.CreatedAt), UpdatedAt: Time(q.UpdatedAt),
			Lines: make([]PortfolioQuoteLine, len(q.Lines))}
		if q.Outcome != venue.OutcomeDeclined {
			s := q.NetProceeds.String()
			pq.NetProceeds = &s
		}
		if q.HasCover {
			s := q.CoverNetProceeds.String()
			pq.CoverNetProceeds = &s
		}
		for j, ql := range q.Lines {
			pq.Lines[j] = PortfolioQuoteLine{LineID: ql.LineID, PricePerUnit: NumOf(ql.PricePerUnit),
				AccruedInterest: ql.AccruedInterest.String(), SettlementAmount: ql.SettlementAmount.String()}
		}
		out.Quotes[i] = pq
	}
	return out
}
