-- The indexes the sequencer writes with every offer, reshaped so that a
-- batch appends to one place in each. offers_open was keyed by status and
-- instrument: a batch touched a page per instrument, a quarter of the
-- commit. Instrument books are now read from the sequencer, so the index
-- only has to find the open records on start, in time priority; and only
-- quotes have a matched offer.
DROP INDEX offers_open;
CREATE INDEX offers_open ON offers(priority) WHERE status = 'created';
DROP INDEX offers_matched;
CREATE INDEX offers_matched ON offers(matched_offer_id) WHERE matched_offer_id IS NOT NULL;
