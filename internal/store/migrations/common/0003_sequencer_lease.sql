-- The sequencer lease: exactly one engine writes offers and trades at a
-- time. An engine takes the lease by raising the epoch before it rebuilds
-- its state; every batch it commits first checks the epoch is still its
-- own, so a previous holder (a killed process whose last commit was still
-- in flight, or a second instance) can never write over newer state.
CREATE TABLE sequencer_lease (
    id INTEGER PRIMARY KEY,
    epoch BIGINT NOT NULL,
    holder TEXT NOT NULL,
    acquired_at BIGINT NOT NULL
);
INSERT INTO sequencer_lease (id, epoch, holder, acquired_at) VALUES (1, 0, '', 0);
