import { Context, type Effect } from "effect"
import { IdempotencyConflict } from "../errors/DomainErrors.ts"

/** Where an `Idempotency-Key` applies: the credential's partner and the route (API rules §5). */
export interface IdempotencyScope {
  readonly partnerId: string
  /** Method and route template, e.g. `POST /v1/payments`. */
  readonly route: string
  readonly key: string
}

/** A stored first response. */
export interface StoredResponse {
  readonly status: number
  readonly body: string
}

/**
 * A claimed key, held by one request until it answers or its lease runs out. `token` fences the
 * holder: once a retry has taken the key over after the lease, the first holder's completion and
 * release no longer match and change nothing.
 */
export interface IdempotencyLease {
  readonly scope: IdempotencyScope
  readonly token: string
}

/** A claimed key's response, to be stored while the lease still holds it. */
export interface IdempotencyCompletion {
  readonly lease: IdempotencyLease
  readonly response: StoredResponse
}

/**
 * The response of a request whose key a retry took over after the lease ran out: its write did not
 * commit (the retry runs it instead).
 */
export const idempotencyLeaseLost = (): IdempotencyConflict =>
  new IdempotencyConflict({
    message: "This request outlived its hold on its idempotency key and a retry took the key over; this request changed nothing."
  })

/**
 * What a claimed key's request decided about its changes, for {@link IdempotencyStore}'s
 * `completing` and `completingWrite`: keep them with this response stored; keep them without a
 * response to replay, the key released (`released`: a response with no body to store); or undo them
 * and release the key (`undone`: a 5xx).
 */
export type Completing<A> = {
  readonly value: A
  readonly keep: StoredResponse | "released" | "undone"
}

/** How `completing` ended: the changes and the response committed, undone, or undone because the lease was lost. */
export type CompletingOutcome = "committed" | "undone" | "leaseLost"

/** What a claim found. */
export type IdempotencyClaim =
  | { readonly _tag: "Claimed"; readonly lease: IdempotencyLease }
  | { readonly _tag: "Replay"; readonly response: StoredResponse }
  | { readonly _tag: "Conflict"; readonly reason: "in_flight" | "different_body" }

/**
 * Idempotency keys: the first completed response (any status but 5xx) is kept with a hash of the
 * request body for 24 hours and replayed for the same key and body.
 *
 * A key without a response is in flight for at most the store's lease: a holder that crashed, lost
 * its database connection or hangs cannot keep the key from being retried for longer. A retry of
 * the same key after the lease takes it over (with any body: nothing was stored for the key).
 */
export class IdempotencyStore extends Context.Service<IdempotencyStore, {
  /** Claims the key for this body, or finds its stored response, or a conflict. */
  readonly claim: (scope: IdempotencyScope, bodyHash: string, nowMillis: number) => Effect.Effect<IdempotencyClaim>
  /**
   * Stores the response of a claimed key; a 5xx response releases the key instead. Answers
   * `false` when the lease had been lost (nothing is stored then).
   */
  readonly complete: (completion: IdempotencyCompletion) => Effect.Effect<boolean>
  /** Frees a claimed key whose request failed (5xx, interrupted), so a retry can run at once. */
  readonly release: (lease: IdempotencyLease) => Effect.Effect<void>
  /**
   * Runs `request` (a claimed key's work) and stores the response it decided on in the same atomic
   * unit (one database transaction): the changes commit with their response, or not at all. A
   * crash, a lost connection or a lost lease (a retry took the key over) in between leaves neither,
   * so a retry after the lease runs the request again, and nothing is done twice. `undone` rolls
   * the changes back and releases the key.
   */
  readonly completing: <A, E, R>(
    lease: IdempotencyLease,
    request: Effect.Effect<Completing<A>, E, R>
  ) => Effect.Effect<{ readonly outcome: CompletingOutcome; readonly value: A }, E, R>
  /**
   * As `completing`, for a request whose changes are at most one write, a new payment
   * (`PaymentRepository.insert`): that write is held back until the request has decided on its
   * response, then the payment, its events and the response are stored in one atomic unit, without
   * a transaction held open while the request runs. Nothing of an undone request is written; a
   * request that wrote nothing has its response stored alone.
   */
  readonly completingWrite: <A, E, R>(
    lease: IdempotencyLease,
    request: Effect.Effect<Completing<A>, E, R>
  ) => Effect.Effect<{ readonly outcome: CompletingOutcome; readonly value: A }, E, R>
  /**
   * Forgets up to `limit` keys past their 24 hours (oldest first), skipping any a claim holds at
   * that moment; answers how many. A forgotten key is a new key to its next request, as an expired
   * one already is.
   */
  readonly purgeExpired: (nowMillis: number, limit: number) => Effect.Effect<number>
}>()("@paygate/domain/IdempotencyStore") {}
