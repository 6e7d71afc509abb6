-- The FIX gateway. An order's ClOrdID (the latest one: a replace or a
-- cancel names the order anew) is kept on the offer, so every execution
-- report, whichever channel caused it, names the order as its owner does.
ALTER TABLE offers ADD COLUMN client_order_id TEXT NOT NULL DEFAULT '';

-- A FIX session's sequence numbers and creation (reset) time, and the
-- last event of the log it turned into a message it kept (it resumes
-- after that one when it logs on again).
CREATE TABLE fix_sessions (
    session_id     TEXT PRIMARY KEY,
    next_sender    BIGINT NOT NULL,
    next_target    BIGINT NOT NULL,
    created_at     BIGINT NOT NULL,
    last_event_seq BIGINT NOT NULL DEFAULT 0
);

-- The messages a FIX session sent, kept for resend until its next reset.
CREATE TABLE fix_messages (
    session_id TEXT NOT NULL,
    seq        BIGINT NOT NULL,
    body       TEXT NOT NULL,
    PRIMARY KEY (session_id, seq)
);

-- The SenderCompID bound to an API credential at its first logon.
CREATE TABLE fix_comp_ids (
    sender_comp_id TEXT PRIMARY KEY,
    client_id      TEXT NOT NULL,
    created_at     BIGINT NOT NULL
);

-- Credentials whose FIX sessions cancel their open orders when they end.
CREATE TABLE fix_cancel_on_disconnect (
    client_id  TEXT PRIMARY KEY,
    updated_at BIGINT NOT NULL
);

-- Cancel, replace and status requests name an order by its ClOrdID.
CREATE INDEX offers_client_order ON offers(participant_id, client_order_id) WHERE client_order_id <> '';
