-- The sequencer's lease check as a statement that fails, so that a batch
-- can send it together with its writes instead of waiting to read a row
-- count first. Like the check it replaces, it writes the lease row, so a
-- concurrent takeover (AcquireLease) and the batch cannot both commit;
-- when the epoch no longer holds the lease it raises SQLSTATE BV001, which
-- aborts the transaction and which the store reads as the lease lost.
CREATE FUNCTION sequencer_check_lease(held BIGINT) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    UPDATE sequencer_lease SET epoch = epoch WHERE id = 1 AND epoch = held;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'epoch % no longer holds the sequencer lease', held USING ERRCODE = 'BV001';
    END IF;
END
$$;
