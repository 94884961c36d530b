import { Clock, Context, Effect, Layer } from "effect"
import { SecureRandom } from "effect/crypto"
import { encodeIdBody } from "./Crockford.ts"
import { type IdKind, type IdTypes, idPrefixes } from "./Ids.ts"

/**
 * Makes new resource ids (API rules §8): prefix + 26 Crockford base32 characters, time-ordered,
 * with 80 bits from a cryptographically secure source. Time comes from `Clock` and randomness
 * from `SecureRandom`, so tests get deterministic ids by providing seeded versions of both.
 */
export class IdGenerator extends Context.Service<IdGenerator, {
  readonly make: <K extends IdKind>(kind: K) => Effect.Effect<IdTypes[K]>
}>()("@paygate/domain/IdGenerator") {
  /** Ids from the `Clock` and `SecureRandom` services in context. */
  static readonly layer = Layer.effect(
    IdGenerator,
    Effect.gen(function*() {
      const random = yield* SecureRandom.SecureRandom
      return IdGenerator.of({
        make: (kind) =>
          Effect.gen(function*() {
            const millis = yield* Clock.currentTimeMillis
            const bytes = yield* random.randomBytes(10)
            return `${idPrefixes[kind]}_${encodeIdBody(millis, bytes)}` as IdTypes[typeof kind]
          })
      })
    })
  )
}
