-- The operator's audit trail (RTS 7 art. 19): one row per change an
-- operator or a firm's admin made, written in the transaction of the
-- change. seq numbers the rows 1..n without a gap (taken under a lock, never
-- from a sequence); at_us is the change's time in microseconds since the
-- Unix epoch (UTC). before_state and after_state are the entity's state as
-- JSON text, kept byte for byte as hashed (NULL: none); prev_hash is the hash
-- of row seq-1 ('' for row 1) and hash the SHA-256 of the row's canonical
-- form (internal/audit). The venue never updates or deletes a row.
CREATE TABLE audit_log (
    seq BIGINT PRIMARY KEY,
    at_us BIGINT NOT NULL,
    user_id TEXT NOT NULL,
    role TEXT NOT NULL,
    channel TEXT NOT NULL,
    action TEXT NOT NULL,
    entity_type TEXT NOT NULL,
    entity_id TEXT NOT NULL,
    before_state TEXT,
    after_state TEXT,
    reason TEXT NOT NULL,
    prev_hash TEXT NOT NULL,
    hash TEXT NOT NULL
);

CREATE INDEX audit_log_at ON audit_log (at_us, seq);
CREATE INDEX audit_log_entity ON audit_log (entity_type, entity_id, seq);
