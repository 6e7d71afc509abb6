-- Reference data, authentication and the event log.
-- Times are Unix milliseconds (UTC); decimals are exact text.

CREATE TABLE participants (
    id TEXT PRIMARY KEY,
    lei TEXT NOT NULL UNIQUE,
    type TEXT NOT NULL,
    category_name TEXT NOT NULL,
    name TEXT NOT NULL,
    address TEXT NOT NULL,
    postal_code TEXT NOT NULL,
    city TEXT NOT NULL,
    state TEXT NOT NULL,
    country TEXT NOT NULL,
    legal_form TEXT NOT NULL,
    registration_number TEXT NOT NULL,
    tax_number TEXT NOT NULL,
    status TEXT NOT NULL,
    kyc_status TEXT NOT NULL,
    csd TEXT NOT NULL,
    csd_bic_11 TEXT NOT NULL,
    custody_account_number TEXT NOT NULL,
    custody_account_beneficiary_bic_8 TEXT NOT NULL,
    default_settlement_provider_id TEXT,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL
);

CREATE TABLE accounts (
    id TEXT PRIMARY KEY,
    participant_id TEXT NOT NULL REFERENCES participants(id),
    number TEXT NOT NULL,
    status TEXT NOT NULL,
    type TEXT NOT NULL,
    default_settlement_provider_id TEXT,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    UNIQUE (participant_id, number)
);
CREATE INDEX accounts_participant ON accounts(participant_id, id);

CREATE TABLE users (
    id TEXT PRIMARY KEY,
    participant_id TEXT REFERENCES participants(id),
    email TEXT NOT NULL UNIQUE,
    role TEXT NOT NULL,
    is_email_verified BOOLEAN NOT NULL,
    identification_status TEXT NOT NULL,
    is_login_two_fa_enabled BOOLEAN NOT NULL,
    terms_conditions_signed BOOLEAN NOT NULL,
    terms_conditions_signed_at BIGINT,
    last_active BIGINT,
    status TEXT NOT NULL,
    locale TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL
);
CREATE INDEX users_participant ON users(participant_id, id);

CREATE TABLE credentials (
    client_id TEXT PRIMARY KEY,
    user_id TEXT NOT NULL REFERENCES users(id),
    secret_hash TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    revoked_at BIGINT
);
CREATE INDEX credentials_user ON credentials(user_id);

CREATE TABLE tokens (
    token_hash TEXT PRIMARY KEY,
    client_id TEXT NOT NULL REFERENCES credentials(client_id),
    user_id TEXT NOT NULL REFERENCES users(id),
    created_at BIGINT NOT NULL,
    expires_at BIGINT NOT NULL,
    revoked_at BIGINT
);
CREATE INDEX tokens_client ON tokens(client_id);
CREATE INDEX tokens_expiry ON tokens(expires_at);

CREATE TABLE counterparties (
    participant_id TEXT NOT NULL REFERENCES participants(id),
    counterparty_id TEXT NOT NULL REFERENCES participants(id),
    enabled BOOLEAN NOT NULL,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    PRIMARY KEY (participant_id, counterparty_id)
);

CREATE TABLE risk_limits (
    id TEXT PRIMARY KEY,
    participant_id TEXT NOT NULL REFERENCES participants(id),
    name TEXT NOT NULL,
    value TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    UNIQUE (participant_id, name)
);

CREATE TABLE markets (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    type TEXT NOT NULL,
    facility_type TEXT NOT NULL,
    timezone TEXT NOT NULL,
    is_enabled BOOLEAN NOT NULL,
    is_partial_fill_allowed BOOLEAN NOT NULL,
    settlement_lag INTEGER NOT NULL,
    calendar TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL
);

CREATE TABLE instruments (
    id TEXT PRIMARY KEY,
    isin TEXT NOT NULL UNIQUE,
    name TEXT NOT NULL,
    currency TEXT NOT NULL,
    enabled BOOLEAN NOT NULL,
    min_piece TEXT NOT NULL,
    min_increment TEXT NOT NULL,
    par_amount TEXT NOT NULL,
    precision INTEGER NOT NULL,
    terms TEXT NOT NULL,
    static_data TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL
);

CREATE TABLE instrument_markets (
    instrument_id TEXT NOT NULL REFERENCES instruments(id),
    market_id TEXT NOT NULL REFERENCES markets(id),
    PRIMARY KEY (instrument_id, market_id)
);
CREATE INDEX instrument_markets_market ON instrument_markets(market_id);

CREATE TABLE buckets (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    type TEXT NOT NULL,
    participant_id TEXT REFERENCES participants(id),
    is_enabled BOOLEAN NOT NULL,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL
);
CREATE INDEX buckets_participant ON buckets(participant_id, id);

CREATE TABLE bucket_instruments (
    bucket_id TEXT NOT NULL REFERENCES buckets(id) ON DELETE CASCADE,
    instrument_id TEXT NOT NULL REFERENCES instruments(id),
    position INTEGER NOT NULL,
    PRIMARY KEY (bucket_id, instrument_id)
);
CREATE INDEX bucket_instruments_instrument ON bucket_instruments(instrument_id);

CREATE TABLE settlement_providers (
    id TEXT PRIMARY KEY,
    participant_id TEXT NOT NULL REFERENCES participants(id),
    account_id TEXT REFERENCES accounts(id),
    provider TEXT NOT NULL,
    type TEXT NOT NULL,
    enabled BOOLEAN NOT NULL,
    swiat_id TEXT NOT NULL,
    d7_id TEXT NOT NULL,
    pset TEXT NOT NULL,
    agent_name TEXT NOT NULL,
    agent_bic TEXT NOT NULL,
    agent_number TEXT NOT NULL,
    localcode TEXT NOT NULL,
    csd_bic11 TEXT NOT NULL,
    custody_account_number TEXT NOT NULL,
    beneficiary_bic8 TEXT NOT NULL,
    buyr_sell_name TEXT NOT NULL,
    buyr_sell_bic TEXT NOT NULL,
    safe TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL
);
CREATE INDEX settlement_providers_participant ON settlement_providers(participant_id, id);

CREATE TABLE news (
    id TEXT PRIMARY KEY,
    title TEXT NOT NULL,
    body TEXT NOT NULL,
    source TEXT NOT NULL,
    url TEXT NOT NULL,
    published_at BIGINT NOT NULL,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL
);

-- The event log: a gap-free global sequence assigned by the writer inside
-- the transaction that makes the change. participant_id scopes visibility
-- (NULL: visible to every authenticated caller).
CREATE TABLE events (
    seq BIGINT PRIMARY KEY,
    type TEXT NOT NULL,
    occurred_at BIGINT NOT NULL,
    participant_id TEXT,
    data TEXT NOT NULL
);
