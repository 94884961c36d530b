/**
 * What a drain by worker processes left behind: what a receiver got per (endpoint, event) pair,
 * and the state of the deliveries and the outbox in the database.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import type { PostgresWorld, SeededEndpoint } from "../../../../test/support/PostgresWorld.ts"
import type { Receiver } from "../../../../test/support/Receiver.ts"

/** Counts what each endpoint received, by `<path> <event id>` pair; `first` is each pair's first arrival. */
export const tally = (receiver: Receiver, endpoints: ReadonlyArray<SeededEndpoint>) => {
  const counts = new Map<string, number>()
  const first = new Map<string, number>()
  let unverified = 0
  for (const r of receiver.received) {
    if (!r.verified) unverified++
    const key = `${r.path} ${r.webhookId}`
    counts.set(key, (counts.get(key) ?? 0) + 1)
    if (!first.has(key)) first.set(key, r.at)
  }
  const paths = new Set(endpoints.map((e) => e.path))
  const pairs = [...counts.entries()].filter(([key]) => paths.has(key.split(" ")[0]!))
  return { counts, first, unverified, pairs, duplicates: pairs.filter(([, n]) => n > 1) }
}

/**
 * A running count of the distinct `<path> <event id>` pairs the endpoints received, for polling:
 * each call reads only what arrived since the last (the receiver only appends).
 */
export const pairCounter = (receiver: Receiver, endpoints: ReadonlyArray<SeededEndpoint>) => {
  const paths = new Set(endpoints.map((e) => e.path))
  const pairs = new Set<string>()
  let read = 0
  return () => {
    for (; read < receiver.received.length; read++) {
      const r = receiver.received[read]!
      if (paths.has(r.path)) pairs.add(`${r.path} ${r.webhookId}`)
    }
    return pairs.size
  }
}

/** Every `<path> <event id>` pair the endpoints should receive. */
export const expectedPairs = (endpoints: ReadonlyArray<SeededEndpoint>, eventIds: ReadonlyArray<string>) =>
  new Set(endpoints.flatMap((e) => eventIds.map((id) => `${e.path} ${id}`)))

/** Deliveries (by status, attempted once, leased) and outbox events (unprocessed, leased) in the world's database. */
export const dbState = (world: PostgresWorld) =>
  world.run(Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const [d] = yield* sql<{ readonly total: string; readonly succeeded: string; readonly once: string; readonly leased: string }>`
      SELECT count(*)::text AS total, count(*) FILTER (WHERE status = 'succeeded')::text AS succeeded,
        count(*) FILTER (WHERE status = 'succeeded' AND attempts = 1)::text AS once,
        count(*) FILTER (WHERE status = 'pending' AND lease_until IS NOT NULL)::text AS leased
      FROM webhook_deliveries`
    const [o] = yield* sql<{ readonly unprocessed: string; readonly leased: string }>`
      SELECT count(*) FILTER (WHERE processed_at IS NULL)::text AS unprocessed,
        count(*) FILTER (WHERE processed_at IS NULL AND lease_until IS NOT NULL)::text AS leased
      FROM outbox_events`
    return {
      deliveries: Number(d!.total),
      succeeded: Number(d!.succeeded),
      once: Number(d!.once),
      leasedDeliveries: Number(d!.leased),
      unprocessedEvents: Number(o!.unprocessed),
      leasedEvents: Number(o!.leased)
    }
  }).pipe(Effect.orDie))
