package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"time"

	"github.com/quagmt/udecimal"

	"github.com/bondvenue/bondvenue/internal/bondmath"
	"github.com/bondvenue/bondvenue/internal/venue"
)

// PortfolioWrite is a portfolio RFQ's state written with a batch; New is
// set for a list the batch created, whose dealers are written with it.
type PortfolioWrite struct {
	Portfolio *venue.PortfolioRFQ
	New       bool
}

// portfolioJSON is a portfolio RFQ as its record column keeps it: amounts
// as exact decimal text, times to the nanosecond.
type portfolioJSON struct {
	ID             string               `json:"id"`
	MarketID       string               `json:"market_id"`
	ParticipantID  string               `json:"participant_id"`
	AccountID      string               `json:"account_id"`
	UserID         string               `json:"user_id"`
	Counterparties []string             `json:"counterparties"`
	SettlementDate string               `json:"settlement_date"`
	ValidUntil     time.Time            `json:"valid_until"`
	Status         string               `json:"status"`
	Notes          string               `json:"notes,omitempty"`
	ClientID       string               `json:"client_id,omitempty"`
	Parties        *partiesJSON         `json:"parties,omitempty"`
	Lines          []portfolioLineJSON  `json:"lines"`
	Quotes         []portfolioQuoteJSON `json:"quotes"`
	CreatedAt      time.Time            `json:"created_at"`
	UpdatedAt      time.Time            `json:"updated_at"`
}

type portfolioLineJSON struct {
	LineID       string           `json:"line_id"`
	InstrumentID string           `json:"instrument_id"`
	Direction    string           `json:"direction"`
	Quantity     udecimal.Decimal `json:"quantity"`
	TradeID      string           `json:"trade_id,omitempty"`
}

type portfolioQuoteJSON struct {
	ID               string                     `json:"id"`
	ParticipantID    string                     `json:"participant_id"`
	AccountID        string                     `json:"account_id"`
	UserID           string                     `json:"user_id"`
	ClientID         string                     `json:"client_id,omitempty"`
	Parties          *partiesJSON               `json:"parties,omitempty"`
	Lines            []venue.PortfolioQuoteLine `json:"lines"`
	NetProceeds      udecimal.Decimal           `json:"net_proceeds"`
	ValidUntil       *time.Time                 `json:"valid_until,omitempty"`
	Status           string                     `json:"status"`
	Outcome          string                     `json:"outcome,omitempty"`
	CoverNetProceeds *udecimal.Decimal          `json:"cover_net_proceeds,omitempty"`
	CreatedAt        time.Time                  `json:"created_at"`
	UpdatedAt        time.Time                  `json:"updated_at"`
}

// partiesJSON is an order's parties as a record column keeps them (absent
// when none is given).
type partiesJSON struct {
	ClientID           string `json:"client_id_code,omitempty"`
	InvestmentDecision string `json:"investment_decision_id,omitempty"`
	ExecutionDecision  string `json:"execution_decision_id,omitempty"`
	Capacity           string `json:"trading_capacity,omitempty"`
}

func toPartiesJSON(p venue.Parties) *partiesJSON {
	if p.IsZero() {
		return nil
	}
	j := partiesJSON(p)
	return &j
}

func (j *partiesJSON) parties() venue.Parties {
	if j == nil {
		return venue.Parties{}
	}
	return venue.Parties(*j)
}

// EncodePortfolio is a portfolio RFQ as the store and the event log keep it.
func EncodePortfolio(r *venue.PortfolioRFQ) ([]byte, error) {
	j := portfolioJSON{ID: r.ID, MarketID: r.MarketID, ParticipantID: r.ParticipantID, AccountID: r.AccountID, UserID: r.UserID,
		Counterparties: r.Counterparties, SettlementDate: r.SettlementDate.String(), ValidUntil: r.ValidUntil,
		Status: r.Status, Notes: r.Notes, ClientID: r.ClientID, Parties: toPartiesJSON(r.Parties),
		CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt, Lines: make([]portfolioLineJSON, len(r.Lines)), Quotes: make([]portfolioQuoteJSON, len(r.Quotes))}
	for i, l := range r.Lines {
		j.Lines[i] = portfolioLineJSON(l)
	}
	for i, q := range r.Quotes {
		qj := portfolioQuoteJSON{ID: q.ID, ParticipantID: q.ParticipantID, AccountID: q.AccountID, UserID: q.UserID, ClientID: q.ClientID,
			Parties: toPartiesJSON(q.Parties), Lines: q.Lines, NetProceeds: q.NetProceeds, ValidUntil: q.ValidUntil, Status: q.Status, Outcome: q.Outcome,
			CreatedAt: q.CreatedAt, UpdatedAt: q.UpdatedAt}
		if q.HasCover {
			c := q.CoverNetProceeds
			qj.CoverNetProceeds = &c
		}
		if qj.Lines == nil {
			qj.Lines = []venue.PortfolioQuoteLine{}
		}
		j.Quotes[i] = qj
	}
	return json.Marshal(j)
}

// DecodePortfolio reads what EncodePortfolio wrote.
func DecodePortfolio(data []byte) (venue.PortfolioRFQ, error) {
	var j portfolioJSON
	if err := json.Unmarshal(data, &j); err != nil {
		return venue.PortfolioRFQ{}, fmt.Errorf("portfolio record: %w", err)
	}
	settle, err := bondmath.ParseDate(j.SettlementDate)
	if err != nil {
		return venue.PortfolioRFQ{}, fmt.Errorf("portfolio record: %w", err)
	}
	r := venue.PortfolioRFQ{ID: j.ID, MarketID: j.MarketID, ParticipantID: j.ParticipantID, AccountID: j.AccountID, UserID: j.UserID,
		Counterparties: j.Counterparties, SettlementDate: settle, ValidUntil: j.ValidUntil.UTC(), Status: j.Status, Notes: j.Notes,
		ClientID: j.ClientID, Parties: j.Parties.parties(),
		CreatedAt: j.CreatedAt.UTC(), UpdatedAt: j.UpdatedAt.UTC(),
		Lines: make([]venue.PortfolioLine, len(j.Lines)), Quotes: make([]venue.PortfolioQuote, len(j.Quotes))}
	for i, l := range j.Lines {
		r.Lines[i] = venue.PortfolioLine(l)
	}
	for i, q := range j.Quotes {
		pq := venue.PortfolioQuote{ID: q.ID, ParticipantID: q.ParticipantID, AccountID: q.AccountID, UserID: q.UserID, ClientID: q.ClientID,
			Parties: q.Parties.parties(), Lines: q.Lines, NetProceeds: q.NetProceeds, Status: q.Status, Outcome: q.Outcome,
			CreatedAt: q.CreatedAt.UTC(), UpdatedAt: q.UpdatedAt.UTC()}
		if len(pq.Lines) == 0 {
			pq.Lines = nil
		}
		if q.ValidUntil != nil {
			vu := q.ValidUntil.UTC()
			pq.ValidUntil = &vu
		}
		if q.CoverNetProceeds != nil {
			pq.CoverNetProceeds, pq.HasCover = *q.CoverNetProceeds, true
		}
		r.Quotes[i] = pq
	}
	return r, nil
}

// portfolioWrites returns the statements that write ws: each list's row,
// and the dealers of a new one.
func portfolioWrites(ws []PortfolioWrite) ([]statement, error) {
	var out []statement
	for _, w := range ws {
		r := w.Portfolio
		rec, err := EncodePortfolio(r)
		if err != nil {
			return nil, fmt.Errorf("encode portfolio rfq %s: %w", r.ID, err)
		}
		out = append(out, statement{query: `INSERT INTO portfolio_rfqs (id, market_id, participant_id, account_id, user_id, status,
			valid_until, record, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (id) DO UPDATE SET status = excluded.status, record = excluded.record, updated_at = excluded.updated_at`,
			args: []any{r.ID, r.MarketID, r.ParticipantID, r.AccountID, r.UserID, r.Status, ms(r.ValidUntil), string(rec),
				ms(r.CreatedAt), ms(r.UpdatedAt)}, what: "upsert portfolio rfq " + r.ID})
		if w.New && len(r.Counterparties) > 0 {
			args := make([]any, 0, 2*len(r.Counterparties))
			for _, c := range r.Counterparties {
				args = append(args, r.ID, c)
			}
			out = append(out, statement{query: "INSERT INTO portfolio_rfq_dealers (portfolio_rfq_id, participant_id) VALUES " +
				valueRows(len(r.Counterparties), 2), args: args, what: "insert portfolio rfq dealers " + r.ID})
		}
	}
	return out, nil
}

func scanPortfolio(r *sql.Rows) (venue.PortfolioRFQ, error) {
	var rec string
	if err := r.Scan(&rec); err != nil {
		return venue.PortfolioRFQ{}, err
	}
	return DecodePortfolio([]byte(rec))
}

// PortfolioRFQ returns one portfolio RFQ.
func (tx *Tx) PortfolioRFQ(ctx context.Context, id string) (venue.PortfolioRFQ, error) {
	rs, err := selectAll(ctx, tx, scanPortfolio, "SELECT record FROM portfolio_rfqs WHERE id = ?", id)
	if err != nil {
		return venue.PortfolioRFQ{}, fmt.Errorf("portfolio rfq %s: %w", id, normalize(err))
	}
	if len(rs) == 0 {
		return venue.PortfolioRFQ{}, venue.NotFound("portfolio request for quote")
	}
	return rs[0], nil
}

// OpenPortfolioRFQs returns every open portfolio RFQ, oldest first.
func (tx *Tx) OpenPortfolioRFQs(ctx context.Context) ([]venue.PortfolioRFQ, error) {
	rs, err := selectAll(ctx, tx, scanPortfolio, "SELECT record FROM portfolio_rfqs WHERE status = ? ORDER BY id", venue.StatusCreated)
	if err != nil {
		return nil, fmt.Errorf("open portfolio rfqs: %w", normalize(err))
	}
	return rs, nil
}

// PortfolioFilter selects portfolio RFQs in a list. Zero fields do not
// filter.
type PortfolioFilter struct {
	// Party lists the lists this participant sent or was asked to quote.
	Party string
	// Owner lists the lists this participant sent.
	Owner  string
	Status string
}

// PortfolioRFQs lists portfolio RFQs matching f, newest first.
func (tx *Tx) PortfolioRFQs(ctx context.Context, f PortfolioFilter, page Page) ([]venue.PortfolioRFQ, string, error) {
	q, args := "SELECT record FROM portfolio_rfqs p WHERE 1 = 1", []any(nil)
	if f.Party != "" {
		q += " AND (p.participant_id = ? OR p.id IN (SELECT portfolio_rfq_id FROM portfolio_rfq_dealers WHERE participant_id = ?))"
		args = append(args, f.Party, f.Party)
	}
	if f.Owner != "" {
		q += " AND p.participant_id = ?"
		args = append(args, f.Owner)
	}
	if f.Status != "" {
		q += " AND p.status = ?"
		args = append(args, f.Status)
	}
	q, args = pageSQL(q, args, page, "p.id", "p.created_at")
	rs, err := selectAll(ctx, tx, scanPortfolio, q, args...)
	if err != nil {
		return nil, "", fmt.Errorf("list portfolio rfqs: %w", normalize(err))
	}
	rs, next := trimPage(rs, page, func(r venue.PortfolioRFQ) string { return r.ID })
	return rs, next, nil
}
