-- A counter every write of the sequencer's reference data (markets,
-- instruments and their listings, counterparty relations, risk limits)
-- increases in its own transaction, so a running engine notices changes
-- made by another process (the admin commands, another instance) and
-- reloads them.
CREATE TABLE reference_version (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    version BIGINT NOT NULL
);
INSERT INTO reference_version (id, version) VALUES (1, 0);
