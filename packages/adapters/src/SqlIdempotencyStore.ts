/**
 * `IdempotencyStore` on SQL (`idempotency_keys`, primary key `(partner_id, route, key)`), with
 * the semantics of API rules §5 and of the domain's in-memory store:
 *
 * - `claim` inserts an in-flight row (`status_code` NULL) kept 24 hours from the claim, held by a
 *   fresh `lease_token` until `lease_until` (`IDEMPOTENCY_LEASE_MS`, default 30 s). The insert is
 *   `ON CONFLICT DO UPDATE ... WHERE` the row expired or is in flight past its lease: such a row is
 *   replaced in the same atomic statement, a live one is left alone. When nothing was written the
 *   row is read: another body → `Conflict different_body`; same body in flight → `Conflict
 *   in_flight`; same body completed → `Replay` of the stored response. Of concurrent claims
 *   exactly one wins.
 * - `complete` stores the response of a key still held by the lease's token; a 5xx response is
 *   never stored (it releases the key instead, as the in-memory store does).
 * - `release` deletes a key still held by the lease's token so a retry can run; completed keys stay.
 * - `completing` runs a request in a transaction with its response; `completingWrite` holds the
 *   request's one payment insert and runs it with the response in one statement.
 *
 * Why a lease: a request's claim commits before its work, so a process killed (or a database
 * connection lost) in between would otherwise leave the key in flight for the whole 24 hours.
 *
 * @module
 */
import {
  type Completing,
  type IdempotencyClaim,
  type IdempotencyCompletion,
  type IdempotencyLease,
  type IdempotencyScope,
  IdempotencyStore,
  type StoredResponse,
  traced
} from "@paygate/domain"
import { Config, Data, Effect, Exit, Layer } from "effect"
import { SqlClient, SqlError } from "effect/sql"
import { randomUUID } from "node:crypto"
import { type HeldInsert, HeldWrite } from "./internal/HeldWrite.ts"
import { completeStatement, heldWhere, keyWhere } from "./internal/IdempotencyRows.ts"
import { toInt, toIntOrNull } from "./internal/Rows.ts"
import * as SharedStatement from "./internal/SharedStatement.ts"
import * as Configuration from "./Configuration.ts"

// Built once; a span only when tracing is on (`traced`: a disabled span still costs a stack trace and context copies per call).
const spans = {
  claim: traced("SqlIdempotencyStore.claim"),
  release: traced("SqlIdempotencyStore.release"),
  complete: traced("SqlIdempotencyStore.complete"),
  completing: traced("SqlIdempotencyStore.completing"),
  completingWrite: traced("SqlIdempotencyStore.completingWrite"),
  purgeExpired: traced("SqlIdempotencyStore.purgeExpired")
}

/** How long a key is remembered from its claim (API rules §5: 24 hours). */
export const retentionMillis = 24 * 60 * 60 * 1000

/** How long an unanswered key is held by its request by default (`IDEMPOTENCY_LEASE_MS`). */
export const defaultLeaseMillis = Configuration.defaultIdempotencyLeaseMs

const claimed = (lease: IdempotencyLease): IdempotencyClaim => ({ _tag: "Claimed", lease })
const differentBody: IdempotencyClaim = { _tag: "Conflict", reason: "different_body" }
const inFlight: IdempotencyClaim = { _tag: "Conflict", reason: "in_flight" }
const replay = (response: StoredResponse): IdempotencyClaim => ({ _tag: "Replay", response })

/** Ends `completing`'s transaction with a rollback: its changes are undone. */
class Undo extends Data.TaggedError("Undo")<{ readonly outcome: "undone" | "leaseLost"; readonly value: unknown }> {}

// A claim whose row vanished (released) between the write and the read is tried again.
const maxAttempts = 5

// Claims per shared statement at most.
const maxGroup = 50

interface ClaimInput {
  readonly scope: IdempotencyScope
  readonly bodyHash: string
  readonly nowMillis: number
}

/** Builds the store over the `SqlClient` in context, holding unanswered keys for `leaseMillis`. */
export const make = (leaseMillis: number) => Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient

  // Claims `requests`' keys, each with its token: the tokens of the keys it claimed. A key held by
  // another request (in flight, answered, or still within its retention) is left as it is.
  const insertClaims = (requests: ReadonlyArray<ClaimInput>, tokens: ReadonlyArray<string>) =>
    sql<{ readonly lease_token: string }>`
      INSERT INTO idempotency_keys AS k (partner_id, route, key, body_sha256, status_code, response_body, created_at,
        expires_at, lease_token, lease_until)
      VALUES ${
      sql.csv(requests.map(({ bodyHash, nowMillis, scope }, i) =>
        sql`(${scope.partnerId}, ${scope.route}, ${scope.key}, ${bodyHash}, NULL, NULL, ${nowMillis}::bigint,
          ${nowMillis + retentionMillis}::bigint, ${tokens[i]!}, ${nowMillis + leaseMillis}::bigint)`
      ))
    }
      ON CONFLICT (partner_id, route, key) DO UPDATE SET
        body_sha256 = EXCLUDED.body_sha256, status_code = NULL, response_body = NULL,
        created_at = EXCLUDED.created_at, expires_at = EXCLUDED.expires_at,
        lease_token = EXCLUDED.lease_token, lease_until = EXCLUDED.lease_until
      WHERE k.expires_at <= EXCLUDED.created_at
        OR (k.status_code IS NULL AND COALESCE(k.lease_until, 0) <= EXCLUDED.created_at)
      RETURNING lease_token`

  const claimAlone = ({ bodyHash, nowMillis, scope }: ClaimInput) =>
    Effect.gen(function*() {
      for (let attempt = 1; attempt <= maxAttempts; attempt++) {
        const token = randomUUID()
        const written = yield* insertClaims([{ scope, bodyHash, nowMillis }], [token])
        if (written.length > 0) return claimed({ scope, token })
        const rows = yield* sql<{
          readonly body_sha256: string
          readonly status_code: unknown
          readonly response_body: string | null
          readonly expires_at: unknown
          readonly lease_until: unknown
        }>`SELECT body_sha256, status_code, response_body, expires_at, lease_until FROM idempotency_keys WHERE ${keyWhere(sql, scope)}`
        const row = rows[0]
        if (row === undefined || toInt(row.expires_at) <= nowMillis) continue
        const status = toIntOrNull(row.status_code)
        // Passed its lease between our insert and this read: claim again.
        if (status === null && (toIntOrNull(row.lease_until) ?? 0) <= nowMillis) continue
        if (row.body_sha256 !== bodyHash) return differentBody
        if (status === null || row.response_body === null) return inFlight
        return replay({ status, body: row.response_body })
      }
      return yield* Effect.die(new Error(`idempotency key ${scope.key} kept changing under us`))
    }).pipe(Effect.orDie)

  // Claims started together share one INSERT (internal/SharedStatement.ts); a key it did not
  // claim (held by another request) is claimed alone, which reads why.
  const claimShared = SharedStatement.make<ClaimInput, IdempotencyClaim, never>(sql, {
    alone: claimAlone,
    together: (requests) => {
      const tokens = requests.map(() => randomUUID())
      return Effect.map(insertClaims(requests, tokens), (rows) => {
        const written = new Set(rows.map((row) => row.lease_token))
        return requests.map(({ scope }, i) => written.has(tokens[i]!) ? Exit.succeed(claimed({ scope, token: tokens[i]! })) : undefined)
      })
    },
    max: maxGroup
  })

  const claim = (scope: IdempotencyScope, bodyHash: string, nowMillis: number) =>
    claimShared({ scope, bodyHash, nowMillis }).pipe(spans.claim)

  const release = (lease: IdempotencyLease) =>
    sql`DELETE FROM idempotency_keys WHERE ${heldWhere(sql, lease)}`.pipe(Effect.asVoid, Effect.orDie, spans.release)

  const complete = (completion: IdempotencyCompletion) =>
    completion.response.status >= 500
      ? release(completion.lease).pipe(Effect.as(true))
      : completeStatement(sql, completion).pipe(Effect.map((rows) => rows.length > 0), Effect.orDie, spans.complete)

  const completing = <A, E, R>(lease: IdempotencyLease, request: Effect.Effect<Completing<A>, E, R>) =>
    Effect.gen(function*() {
      const done = yield* Effect.gen(function*() {
        const { keep, value } = yield* request
        if (keep === "undone") return yield* new Undo({ outcome: "undone", value })
        if (keep === "released") yield* release(lease)
        else if ((yield* completeStatement(sql, { lease, response: keep })).length === 0) {
          return yield* new Undo({ outcome: "leaseLost", value })
        }
        return { outcome: "committed" as const, value }
      }).pipe(
        sql.withTransaction,
        Effect.catchIf((error): error is Undo => error instanceof Undo, (undo) => Effect.succeed({ outcome: undo.outcome, value: undo.value as A })),
        Effect.catchIf((error): error is SqlError.SqlError => error instanceof SqlError.SqlError, Effect.die)
      )
      // Released outside the rolled-back transaction, so that a retry can run at once.
      if (done.outcome === "undone") yield* release(lease)
      return done
    }).pipe(spans.completing)

  // The request's one payment insert is held (internal/HeldWrite.ts) and runs with the response: one
  // statement, fenced on the lease, instead of a transaction open while the request runs.
  const completingWrite = <A, E, R>(lease: IdempotencyLease, request: Effect.Effect<Completing<A>, E, R>) =>
    Effect.gen(function*() {
      let held: HeldInsert | undefined
      const hold = (insert: HeldInsert) =>
        held === undefined
          ? Effect.sync(() => void (held = insert))
          : Effect.die(new Error("completingWrite holds one write; this request made a second one, which would not commit with the first"))
      const { keep, value } = yield* Effect.provideService(request, HeldWrite, HeldWrite.of({ hold }))
      if (keep === "undone") {
        yield* release(lease)
        return { outcome: "undone" as const, value }
      }
      const response = keep === "released" ? undefined : { lease, response: keep }
      const written = held === undefined
        ? response === undefined ? Effect.succeed(true) : complete(response)
        : Effect.as(held(response), true).pipe(Effect.catchTag("IdempotencyConflict", () => Effect.succeed(false)))
      const kept = yield* written
      if (keep === "released") yield* release(lease)
      return { outcome: kept ? "committed" as const : "leaseLost" as const, value }
    }).pipe(spans.completingWrite)

  // Oldest first through `idempotency_keys_expiry`; a key a claim is replacing right now is locked and skipped.
  // The rows are deleted by their physical address: matched by key instead, the planner may hash-join the whole table.
  const purgeExpired = (nowMillis: number, limit: number) =>
    sql<{ readonly key: string }>`DELETE FROM idempotency_keys WHERE ctid = ANY(ARRAY(
        SELECT ctid FROM idempotency_keys WHERE expires_at <= ${nowMillis}::bigint
        ORDER BY expires_at LIMIT ${limit} FOR UPDATE SKIP LOCKED))
      RETURNING key`.pipe(Effect.map((rows) => rows.length), Effect.orDie, spans.purgeExpired)

  return IdempotencyStore.of({ claim, complete, release, completing, completingWrite, purgeExpired })
})

/** How long an unanswered key is held: `IDEMPOTENCY_LEASE_MS`, 30 s by default. */
export const leaseMillisConfig = Configuration.idempotencyLeaseMs

/** `IdempotencyStore` over the `SqlClient` in context, with the lease from the environment. */
export const layer: Layer.Layer<IdempotencyStore, Config.ConfigError, SqlClient.SqlClient> = Layer.effect(
  IdempotencyStore,
  Effect.gen(function*() {
    return yield* make(yield* leaseMillisConfig)
  })
)
