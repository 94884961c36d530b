import { Effect, Option, Schema } from "effect"
import { MerchantNotFound } from "../errors/DomainErrors.ts"
import { MerchantId, type PartnerId } from "../ids/Ids.ts"
import type { Mode } from "../payment/Payment.ts"
import type { MerchantRepository } from "../ports/MerchantRepository.ts"

const otherMode = (mode: Mode): Mode => (mode === "live" ? "sandbox" : "live")
const keyOf = (mode: Mode) => (mode === "live" ? "a live key" : "a sandbox key")

/**
 * `merchant_not_found` for a merchant this partner does not have in this mode. When the partner
 * has it in the other mode, the message says so (the usual mistake: a sandbox key with a live
 * merchant's id); the lookup is scoped to the same partner, so another partner's ids are never
 * confirmed, and the code stays the contract's.
 */
export const missingMerchant = (
  repo: MerchantRepository["Service"],
  partnerId: PartnerId,
  mode: Mode,
  id: string
): Effect.Effect<MerchantNotFound> =>
  (Schema.is(MerchantId)(id) ? repo.findById(partnerId, otherMode(mode), id) : Effect.succeedNone).pipe(
    Effect.map((found) =>
      new MerchantNotFound({
        message: Option.isSome(found) && found.value.partnerId === partnerId && found.value.mode !== mode
          ? `${id} is a ${found.value.mode} merchant; this is ${keyOf(mode)}. Use a ${found.value.mode} key (sk_${found.value.mode === "live" ? "live" : "test"}_…) for it, or a ${mode} merchant with this key.`
          : `No merchant ${id}.`
      })
    )
  )
