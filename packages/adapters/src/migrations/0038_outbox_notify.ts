/**
 * Migration 0038: every statement that adds outbox events notifies channel `paygate_outbox` when its
 * transaction commits, so the dispatchers of every process listening (on PostgreSQL) fan the events out
 * at once instead of at their next poll. Whoever writes them, the service or another tool.
 *
 * @module
 */

/** The statements of migration 0038, in order. */
export const statements: ReadonlyArray<string> = [
  `CREATE FUNCTION paygate_outbox_notify() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM pg_notify('paygate_outbox', '');
      RETURN NULL;
    END
  $$`,
  `CREATE TRIGGER outbox_events_notify AFTER INSERT ON outbox_events
    FOR EACH STATEMENT EXECUTE FUNCTION paygate_outbox_notify()`
]
