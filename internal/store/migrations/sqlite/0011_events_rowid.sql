-- The event log keyed by its sequence number alone. "seq BIGINT PRIMARY
-- KEY" is not SQLite's alias for the rowid (only INTEGER PRIMARY KEY is),
-- so every event was written twice: the row in the rowid tree and its seq
-- in a separate unique index. With seq the rowid, an event is one entry in
-- one tree, and reading from a sequence number is one seek. The table is
-- rebuilt; event_audience, which references it, is rebuilt around it so
-- that no foreign key ever points at a table being dropped.
CREATE TABLE events_rowid (
    seq INTEGER PRIMARY KEY,
    type TEXT NOT NULL,
    occurred_at BIGINT NOT NULL,
    participant_id TEXT,
    data TEXT NOT NULL
);
INSERT INTO events_rowid (seq, type, occurred_at, participant_id, data)
    SELECT seq, type, occurred_at, participant_id, data FROM events ORDER BY seq;
CREATE TABLE event_audience_copy AS SELECT seq, participant_id FROM event_audience;
DROP TABLE event_audience;
DROP TABLE events;
ALTER TABLE events_rowid RENAME TO events;
CREATE TABLE event_audience (
    seq BIGINT NOT NULL REFERENCES events(seq),
    participant_id TEXT NOT NULL,
    PRIMARY KEY (participant_id, seq)
);
INSERT INTO event_audience (seq, participant_id)
    SELECT seq, participant_id FROM event_audience_copy ORDER BY participant_id, seq;
DROP TABLE event_audience_copy;
