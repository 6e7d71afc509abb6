-- The outcome of a quote once it ended (null while open) and, on the done
-- quote, the cover price as exact decimal text (null without a cover).
ALTER TABLE offers ADD COLUMN outcome TEXT;
ALTER TABLE offers ADD COLUMN cover_price TEXT;
