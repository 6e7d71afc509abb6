-- Post-trade transparency: when the public tape shows each trade's price
-- and size (the deferral band that says so), and when the venue published
-- them. Trades made before this were published at once.
ALTER TABLE trades ADD COLUMN deferral TEXT NOT NULL DEFAULT '';
ALTER TABLE trades ADD COLUMN price_due_at BIGINT;
ALTER TABLE trades ADD COLUMN volume_due_at BIGINT;
ALTER TABLE trades ADD COLUMN published_price_at BIGINT;
ALTER TABLE trades ADD COLUMN published_volume_at BIGINT;
UPDATE trades SET price_due_at = created_at, volume_due_at = created_at, published_price_at = created_at,
    published_volume_at = created_at;
CREATE INDEX trades_unpublished ON trades (volume_due_at) WHERE published_volume_at IS NULL;
