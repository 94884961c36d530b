/**
 * Migration 0007: in-flight idempotency keys are leased (API rules §5), so that no crash, timeout
 * or lost connection leaves a key answering `idempotency_conflict` for the 24 hours it is kept.
 *
 * - `lease_token`, `lease_until` (Unix ms): the holder of an unanswered key and until when. A claim
 *   after `lease_until` takes the key over with a new token; the first holder's completion, which
 *   names its token, then matches nothing. Keys in flight before this migration have no lease and
 *   can be taken over at once (their requests are gone: the migration runs at start).
 * - `idempotency_fence(held)`: raises `PG409` when `held` is false. A write that stores its answer
 *   in the same statement calls it with whether its completion matched, so a holder that lost the
 *   key writes nothing at all.
 *
 * @module
 */

/** SQLSTATE raised by `idempotency_fence` when the lease was lost. */
export const leaseLostState = "PG409"

/** The statements of migration 0007, in order. */
export const statements: ReadonlyArray<string> = [
  `ALTER TABLE idempotency_keys ADD COLUMN lease_token text, ADD COLUMN lease_until bigint`,
  `CREATE FUNCTION idempotency_fence(held boolean) RETURNS boolean LANGUAGE plpgsql AS $$
  BEGIN
    IF NOT held THEN
      RAISE EXCEPTION 'the idempotency key was taken over by a retry after its lease ran out' USING ERRCODE = '${leaseLostState}';
    END IF;
    RETURN true;
  END
  $$`
]
