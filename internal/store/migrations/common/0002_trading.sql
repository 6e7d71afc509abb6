-- Trading: offers, RFQs and quotes (one table, as the spec shares one
-- shape), RFQ recipients, trades with their two orders, indicative prices,
-- idempotency keys, and event audiences.

CREATE TABLE offers (
    id TEXT PRIMARY KEY,
    type TEXT NOT NULL,                 -- offer | request_for_quote | quote
    direction TEXT NOT NULL,            -- ask | bid
    participant_id TEXT NOT NULL REFERENCES participants(id),
    account_id TEXT NOT NULL REFERENCES accounts(id),
    user_id TEXT NOT NULL REFERENCES users(id),
    market_id TEXT NOT NULL REFERENCES markets(id),
    instrument_id TEXT NOT NULL REFERENCES instruments(id),
    settlement_provider_id TEXT,
    price TEXT,                         -- clean price per unit, percent of par; NULL: none (market order, RFQ without limit)
    quantity TEXT NOT NULL,
    filled_quantity TEXT NOT NULL,
    status TEXT NOT NULL,
    matched_offer_id TEXT,
    notes TEXT NOT NULL,
    market_order BOOLEAN NOT NULL,
    is_executable BOOLEAN NOT NULL,
    settlement_date TEXT NOT NULL,
    validity TEXT NOT NULL,
    valid_until BIGINT,
    accrued_interest TEXT NOT NULL,
    message TEXT,
    priority BIGINT NOT NULL,           -- time priority in the book (engine sequence)
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    modified_at BIGINT NOT NULL
);
CREATE INDEX offers_participant ON offers(participant_id, id);
CREATE INDEX offers_open ON offers(status, instrument_id, market_id);
CREATE INDEX offers_matched ON offers(matched_offer_id);

CREATE TABLE rfq_recipients (
    rfq_id TEXT NOT NULL REFERENCES offers(id),
    participant_id TEXT NOT NULL REFERENCES participants(id),
    declined BOOLEAN NOT NULL,
    PRIMARY KEY (rfq_id, participant_id)
);
CREATE INDEX rfq_recipients_participant ON rfq_recipients(participant_id, rfq_id);

CREATE TABLE trades (
    id TEXT PRIMARY KEY,
    transaction_identification_code TEXT NOT NULL UNIQUE,
    market_id TEXT NOT NULL REFERENCES markets(id),
    instrument_id TEXT NOT NULL REFERENCES instruments(id),
    ask_order_id TEXT NOT NULL,
    bid_order_id TEXT NOT NULL,
    ask_participant_id TEXT NOT NULL REFERENCES participants(id),
    bid_participant_id TEXT NOT NULL REFERENCES participants(id),
    status TEXT NOT NULL,
    quantity TEXT NOT NULL,
    price_per_unit TEXT NOT NULL,       -- clean, percent of par
    accrued_interest TEXT NOT NULL,     -- amount for the quantity
    price TEXT NOT NULL,                -- settlement amount
    fee TEXT NOT NULL,
    settlement_date TEXT NOT NULL,
    execution_type TEXT NOT NULL,       -- otc | continuous
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL
);
CREATE INDEX trades_ask ON trades(ask_participant_id, id);
CREATE INDEX trades_bid ON trades(bid_participant_id, id);

CREATE TABLE orders (
    id TEXT PRIMARY KEY,
    trade_id TEXT NOT NULL REFERENCES trades(id),
    offer_id TEXT NOT NULL REFERENCES offers(id),
    direction TEXT NOT NULL,
    participant_id TEXT NOT NULL REFERENCES participants(id),
    account_id TEXT NOT NULL REFERENCES accounts(id),
    market_id TEXT NOT NULL,
    instrument_id TEXT NOT NULL,
    quantity TEXT NOT NULL,
    price_per_unit TEXT NOT NULL,
    filled_quantity TEXT NOT NULL,
    status TEXT NOT NULL,
    type TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL
);
CREATE INDEX orders_trade ON orders(trade_id);

CREATE TABLE indicative_prices (
    id TEXT PRIMARY KEY,
    participant_id TEXT NOT NULL REFERENCES participants(id),
    account_id TEXT NOT NULL REFERENCES accounts(id),
    user_id TEXT NOT NULL REFERENCES users(id),
    instrument_id TEXT NOT NULL REFERENCES instruments(id),
    bid_price TEXT,
    ask_price TEXT,
    bid_quantity TEXT,
    ask_quantity TEXT,
    bid_yield TEXT,
    ask_yield TEXT,
    settlement_date TEXT NOT NULL,
    valid_until BIGINT,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL
);
CREATE INDEX indicative_prices_instrument ON indicative_prices(instrument_id, id);

-- The first response to a request with an Idempotency-Key, per user, kept
-- 24 hours. status_code 0 marks a request still in flight.
CREATE TABLE idempotency_keys (
    user_id TEXT NOT NULL,
    key TEXT NOT NULL,
    request_hash TEXT NOT NULL,
    status_code INTEGER NOT NULL,
    response TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    PRIMARY KEY (user_id, key)
);
CREATE INDEX idempotency_keys_created ON idempotency_keys(created_at);

-- Who may read an event besides its owner: RFQ recipients, trade
-- counterparties. events.participant_id NULL stays "everyone".
CREATE TABLE event_audience (
    seq BIGINT NOT NULL REFERENCES events(seq),
    participant_id TEXT NOT NULL,
    PRIMARY KEY (participant_id, seq)
);
