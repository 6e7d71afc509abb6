-- SQLite only: its events table becomes keyed by seq as the rowid (see
-- the SQLite migration). PostgreSQL's events are already one heap row and
-- one primary-key entry each; nothing changes here.
SELECT 1;
