-- The venue's settlement links: pairs of CSDs (by BIC11, csd_a < csd_b)
-- that can settle a trade between their participants.
CREATE TABLE settlement_links (
    csd_a TEXT NOT NULL,
    csd_b TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    PRIMARY KEY (csd_a, csd_b)
);
