-- Pre-trade controls. A market's price collar (percent either side of the
-- reference price) and the highest price it takes when there is no
-- reference, as exact decimal text; the firms whose kill switch is on; the
-- instruments halted on a market. The sequencer writes the last two in the
-- batch that applies them.
ALTER TABLE markets ADD COLUMN price_collar_percent TEXT NOT NULL DEFAULT '10';
ALTER TABLE markets ADD COLUMN max_price_percent TEXT NOT NULL DEFAULT '200';

CREATE TABLE kill_switches (
    participant_id TEXT PRIMARY KEY REFERENCES participants(id),
    enabled BOOLEAN NOT NULL,
    updated_at BIGINT NOT NULL
);

CREATE TABLE instrument_halts (
    market_id TEXT NOT NULL REFERENCES markets(id),
    instrument_id TEXT NOT NULL REFERENCES instruments(id),
    halted BOOLEAN NOT NULL,
    reason TEXT NOT NULL,
    updated_at BIGINT NOT NULL,
    PRIMARY KEY (market_id, instrument_id)
);
