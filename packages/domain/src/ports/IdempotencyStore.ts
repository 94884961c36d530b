import { Context, type Effect } from "effect"

/** Where an `Idempotency-Key` applies: the credential's partner and the route (contract §9). */
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
 * A claimed key's response, to be stored by the write that produced it, in the same atomic unit:
 * once the write commits its response can be replayed, and never before.
 */
export interface IdempotencyCompletion {
  readonly scope: IdempotencyScope
  readonly response: StoredResponse
}

/** What a claim found. */
export type IdempotencyClaim =
  | { readonly _tag: "Claimed" }
  | { readonly _tag: "Replay"; readonly response: StoredResponse }
  | { readonly _tag: "Conflict"; readonly reason: "in_flight" | "different_body" }

/**
 * Idempotency keys: the first completed response (any status but 5xx) is kept with a hash of the
 * request body for 24 hours and replayed for the same key and body.
 */
export class IdempotencyStore extends Context.Service<IdempotencyStore, {
  /** Claims the key for this body, or finds its stored response, or a conflict. */
  readonly claim: (scope: IdempotencyScope, bodyHash: string, nowMillis: number) => Effect.Effect<IdempotencyClaim>
  /** Stores the response of a claimed key. */
  readonly complete: (scope: IdempotencyScope, response: StoredResponse) => Effect.Effect<void>
  /** Frees a claimed key whose request failed with 5xx, so a retry can run again. */
  readonly release: (scope: IdempotencyScope) => Effect.Effect<void>
}>()("@paygate/domain/IdempotencyStore") {}
