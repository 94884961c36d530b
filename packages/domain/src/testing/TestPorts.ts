import { Clock, Effect, Layer, Option } from "effect"
import { SecureRandom } from "effect/crypto"
import { ParamsValidation } from "../errors/DomainErrors.ts"
import type { MerchantId, PartnerId } from "../ids/Ids.ts"
import { Merchant } from "../merchant/Merchant.ts"
import type { Mode } from "../payment/Payment.ts"
import type { MerchantRepository } from "../ports/MerchantRepository.ts"
import { layerMemoryMerchants, makeMemoryMerchants } from "./MemoryMerchantRepository.ts"
import { type AuthorizationProof, ChainGateway, type ChainOutcome } from "../ports/ChainGateway.ts"
import type { ChainUnavailable } from "../ports/ChainUnavailable.ts"
import type { SubmissionRefused } from "../ports/SubmissionRefused.ts"
import { SanctionsScreening } from "../ports/SanctionsScreening.ts"

/** Screening against a fixed set of CAIP-10 accounts (compared case-insensitively). */
export const screeningList = (accounts: Iterable<string>): Layer.Layer<SanctionsScreening> => {
  const listed = new Set([...accounts].map((a) => a.toLowerCase()))
  return Layer.succeed(SanctionsScreening, SanctionsScreening.of({
    isSanctioned: (account) => Effect.succeed(listed.has(account.toLowerCase()))
  }))
}

/** A scripted chain: proofs whose signature/tx hash is in `invalid` fail verification. */
export const scriptedChain = (options: {
  readonly invalid?: ReadonlySet<string>
  readonly outcome?: (txHash: string) => ChainOutcome
  /** Answers of `submit`; default: a hash derived from the nonce. */
  readonly submit?: (proof: AuthorizationProof) => Effect.Effect<string, ChainUnavailable | SubmissionRefused>
  /** Answers of `usedBy`; default: no transaction used it. */
  readonly usedBy?: (proof: AuthorizationProof) => Effect.Effect<Option.Option<string>, ChainUnavailable>
} = {}): Layer.Layer<ChainGateway> =>
  Layer.succeed(ChainGateway, ChainGateway.of({
    verify: (proof) => {
      const token = proof._tag === "Authorization" ? proof.signature : proof.txHash
      return options.invalid?.has(token)
        ? Effect.fail(new ParamsValidation({ message: "The signature was not made by the option's account." }))
        : Effect.void
    },
    submit: (proof) => options.submit?.(proof) ?? Effect.succeed(`0x${proof.nonce.slice(2).padStart(64, "0")}`),
    usedBy: (proof) => options.usedBy?.(proof) ?? Effect.succeed(Option.none()),
    // The chain's clock is the test's.
    expiredOnChain: (proof) => Effect.map(Clock.currentTimeMillis, (millis) => millis >= proof.validBefore * 1000),
    observe: (_asset, txHash) => Effect.succeed(options.outcome?.(txHash) ?? "succeeded"),
    tokenDomain: () => Effect.succeed({ name: "USD Coin", version: "2" }),
    balanceOf: () => Effect.succeed(2n ** 128n)
  }))

/** A deterministic `SecureRandom` for tests (xorshift32 from `seed`): same seed, same ids. */
export const seededSecureRandom = (seed: number): Layer.Layer<SecureRandom.SecureRandom> => {
  let state = seed >>> 0 || 1
  const next = () => {
    state ^= state << 13
    state >>>= 0
    state ^= state >>> 17
    state ^= state << 5
    state >>>= 0
    return state & 0xff
  }
  return Layer.succeed(SecureRandom.SecureRandom, SecureRandom.make((size) => Uint8Array.from({ length: size }, next)))
}

/** A merchant repository holding one active merchant, for tests that create payments. */
export const oneMerchant = (partnerId: PartnerId, merchantId: MerchantId, mode: Mode = "sandbox"): Layer.Layer<MerchantRepository> => {
  const store = makeMemoryMerchants()
  store.merchants.set(merchantId, new Merchant({
    id: merchantId,
    partnerId,
    mode,
    name: "Test shop",
    email: null,
    iconUrl: null,
    deleted: false,
    createdAt: 0,
    updatedAt: 0
  }))
  return layerMemoryMerchants(store)
}
