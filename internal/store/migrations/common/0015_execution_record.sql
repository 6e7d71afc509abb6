-- The best-execution record of an RFQ. Offers keep their times to the
-- microsecond beside the millisecond columns the lists page by (null on
-- rows written before); an RFQ's marks are the market around it when it was
-- sent and when a quote was accepted: the best bid and ask of the
-- instrument's continuous books and the newest indicative mid, as exact
-- decimal text (null when there was none).
ALTER TABLE offers ADD COLUMN created_us BIGINT;
ALTER TABLE offers ADD COLUMN updated_us BIGINT;
ALTER TABLE offers ADD COLUMN modified_us BIGINT;

CREATE TABLE rfq_marks (
    rfq_id TEXT NOT NULL REFERENCES offers(id),
    kind TEXT NOT NULL,
    best_bid TEXT,
    best_ask TEXT,
    indicative_mid TEXT,
    recorded_us BIGINT NOT NULL,
    PRIMARY KEY (rfq_id, kind)
);

-- The execution records of a period are the RFQs sent in it.
CREATE INDEX rfq_marks_sent ON rfq_marks (kind, recorded_us);
