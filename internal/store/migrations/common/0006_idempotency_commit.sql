-- An Idempotency-Key's request is marked in the transaction that applies
-- it, so a retry after a crash between that commit and the answer being
-- kept never applies it again. claim names one claim of the key (a retry
-- that takes over a dead claim gets a new one), epoch is the sequencer
-- lease the claim was made under (a claim of an older epoch whose request
-- never committed can be taken over at once: its engine is fenced), and
-- committed_at is set by the request's own transaction.
ALTER TABLE idempotency_keys ADD COLUMN claim TEXT NOT NULL DEFAULT '';
ALTER TABLE idempotency_keys ADD COLUMN epoch BIGINT NOT NULL DEFAULT 0;
ALTER TABLE idempotency_keys ADD COLUMN committed_at BIGINT;
