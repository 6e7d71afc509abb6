-- The order records: one row for every event in the life of an order, in
-- the fields the venue reports (the record itself is kept in data, a JSON
-- array of its fields' values). seq is the venue-wide, gap-free sequence
-- number of the records. Rows are never updated or
-- deleted.
CREATE TABLE order_records (
    seq BIGINT PRIMARY KEY,
    event_us BIGINT NOT NULL,
    day TEXT NOT NULL,
    participant_id TEXT NOT NULL,
    market_id TEXT NOT NULL,
    instrument_id TEXT NOT NULL,
    order_id TEXT NOT NULL,
    data TEXT NOT NULL
);
CREATE INDEX order_records_day ON order_records (day, seq);
CREATE INDEX order_records_book ON order_records (instrument_id, seq);
-- When an open order took its time priority (field 13 of its records).
-- An open offer written before this keeps its creation time as its
-- priority time (an amendment may have moved it later: that is not known).
ALTER TABLE offers ADD COLUMN priority_us BIGINT;
UPDATE offers SET priority_us = COALESCE(created_us, created_at * 1000) WHERE status = 'created';
