-- How each side of a trade was split to its firm's accounts: one row per
-- side, written once; the parts are the JSON text of record.
CREATE TABLE trade_allocations (
    trade_id TEXT NOT NULL REFERENCES trades(id),
    participant_id TEXT NOT NULL REFERENCES participants(id),
    user_id TEXT NOT NULL,
    late BOOLEAN NOT NULL,
    record TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    PRIMARY KEY (trade_id, participant_id)
);
