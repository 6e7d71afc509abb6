-- The instances serving the venue on this database (docs/design.md §10):
-- each writes its row every second with the URL other instances reach it
-- at and its role, so that a standby finds the leader to pass trading
-- commands to, and an operator sees who runs.
CREATE TABLE instances (
    id         TEXT PRIMARY KEY,
    url        TEXT NOT NULL,
    role       TEXT NOT NULL,
    started_at BIGINT NOT NULL,
    seen_at    BIGINT NOT NULL
);

-- The secret with which instances sign the requests they pass to each
-- other (set by the first instance that needs it).
CREATE TABLE cluster_secret (
    id     INTEGER PRIMARY KEY,
    secret TEXT NOT NULL
);
