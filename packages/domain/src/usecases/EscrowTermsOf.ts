import { Clock, Effect, Option } from "effect"
import type { OptionClaims } from "../gateway/OptionId.ts"
import { isUsable } from "../merchant/CryptoSettlement.ts"
import type { Payment } from "../payment/Payment.ts"
import { isHoldable, type PayableAsset } from "../ports/AssetCatalog.ts"
import { SettlementRepository } from "../ports/SettlementRepository.ts"

/**
 * Builds, over the settlement destinations in context, what a payment in `asset` is paid under: a held
 * payment into the escrow, in a token that can be held there, for the merchant's settlement destination
 * on that chain (past its change delay), else it cannot be paid in `asset` (none). An ordinary payment:
 * `some(undefined)`.
 */
export const makeEscrowTermsOf = Effect.map(SettlementRepository, (settlements) =>
  Effect.fnUntraced(function*(payment: Payment, asset: PayableAsset) {
    const hold = payment.hold
    if (hold === undefined) return Option.some<OptionClaims["escrow"]>(undefined)
    if (!isHoldable(asset)) return Option.none()
    const destination = yield* settlements.findByAsset(payment.merchantId, asset.assetId)
    if (Option.isNone(destination) || !isUsable(destination.value, yield* Clock.currentTimeMillis)) return Option.none()
    const receiver = destination.value.destination
    return Option.some<OptionClaims["escrow"]>({
      receiver: receiver.slice(receiver.lastIndexOf(":") + 1),
      captureBefore: hold.captureBefore,
      refundBefore: hold.refundBefore
    })
  }))
