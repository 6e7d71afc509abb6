-- The identifiers a client gives with an order for the order records: its
-- client (an LEI, AGGR, PNAL or a short code), the investment and execution
-- decision makers within the firm, and the trading capacity (DEAL, MTCH,
-- AOTC). Null when the client gave none: the record shows the defaults.
ALTER TABLE offers ADD COLUMN client_id_code TEXT;
ALTER TABLE offers ADD COLUMN investment_decision_id TEXT;
ALTER TABLE offers ADD COLUMN execution_decision_id TEXT;
ALTER TABLE offers ADD COLUMN trading_capacity TEXT;
