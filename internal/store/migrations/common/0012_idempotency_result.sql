-- What the answer to an Idempotency-Key's request needs, written by the
-- transaction that applies the request (with committed_at): the use case's
-- result, in the venue's own terms. A retry whose first answer was never
-- kept (the process died after the commit) is answered from it, as the
-- first request would have been. NULL: nothing kept yet.
ALTER TABLE idempotency_keys ADD COLUMN result TEXT;
