-- Trades of an instrument in time order: the OHLC bars read them by instrument and time.
CREATE INDEX trades_instrument_time ON trades(instrument_id, created_at, id);
