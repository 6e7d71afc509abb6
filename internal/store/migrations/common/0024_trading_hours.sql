-- A market's trading hours: local times HH:MM in the market's time zone
-- on the business days of its calendar, and the minutes of pre-open
-- before the open. An empty open and close: the market trades around the
-- clock, as every market did before.
ALTER TABLE markets ADD COLUMN trading_open TEXT NOT NULL DEFAULT '';
ALTER TABLE markets ADD COLUMN trading_close TEXT NOT NULL DEFAULT '';
ALTER TABLE markets ADD COLUMN pre_open_minutes INTEGER NOT NULL DEFAULT 0;
