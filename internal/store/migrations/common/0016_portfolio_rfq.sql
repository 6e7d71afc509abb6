-- Portfolio (list) RFQs. A list is written whole with each batch that
-- changes it: its lines and every quote on it (each with its priced lines)
-- are the JSON text of record; status, the deadline and the parties are
-- columns of their own for the rebuild and the lists. A traded line's trade
-- names the list.
CREATE TABLE portfolio_rfqs (
    id TEXT PRIMARY KEY,
    market_id TEXT NOT NULL REFERENCES markets(id),
    participant_id TEXT NOT NULL REFERENCES participants(id),
    account_id TEXT NOT NULL REFERENCES accounts(id),
    user_id TEXT NOT NULL REFERENCES users(id),
    status TEXT NOT NULL,
    valid_until BIGINT NOT NULL,
    record TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL
);
CREATE INDEX portfolio_rfqs_participant ON portfolio_rfqs (participant_id, id);
CREATE INDEX portfolio_rfqs_open ON portfolio_rfqs (status);

CREATE TABLE portfolio_rfq_dealers (
    portfolio_rfq_id TEXT NOT NULL REFERENCES portfolio_rfqs(id),
    participant_id TEXT NOT NULL REFERENCES participants(id),
    PRIMARY KEY (portfolio_rfq_id, participant_id)
);
CREATE INDEX portfolio_rfq_dealers_participant ON portfolio_rfq_dealers (participant_id, portfolio_rfq_id);

ALTER TABLE trades ADD COLUMN portfolio_rfq_id TEXT;
CREATE INDEX trades_portfolio ON trades (portfolio_rfq_id);
