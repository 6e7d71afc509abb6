-- A market's settlement lag changes from a trade date on (EU T+1): a JSON
-- array of {"from": "YYYY-MM-DD", "lag": N}, sorted by date; the lag of
-- the latest change on or before a trade date applies, else settlement_lag.
ALTER TABLE markets ADD COLUMN settlement_lags TEXT NOT NULL DEFAULT '[]';
