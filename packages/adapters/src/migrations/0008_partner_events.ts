/**
 * Migration 0008: a partner's events, newest first (`GET /v1/events`, read by
 * `npm run webhooks -- listen`), without scanning other partners' events.
 *
 * @module
 */

/** The statements of migration 0008, in order. */
export const statements: ReadonlyArray<string> = [
  `CREATE INDEX outbox_events_partner ON outbox_events (partner_id, created_at DESC, id DESC)`
]
