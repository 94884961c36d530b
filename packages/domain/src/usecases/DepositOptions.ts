import { Clock, Context, Effect, Layer, Option } from "effect"
import type { InvalidState, PaymentExpired, PaymentNotFound } from "../errors/ApiErrors.ts"
import type { Payment } from "../payment/Payment.ts"
import { AssetCatalog } from "../ports/AssetCatalog.ts"
import { DepositChains } from "../ports/DepositChains.ts"
import { DepositStore } from "../ports/DepositStore.ts"
import { type DepositOption, eip681Transfer } from "../wire/DepositOption.ts"
import type { Access } from "./Access.ts"
import { notWaiting } from "./PaymentChanges.ts"
import { Payments } from "./Payments.ts"
import { makeQuoting } from "./Quoting.ts"
import { tokenAmount } from "./TokenAmount.ts"

/**
 * The gateway's deposit operation (issue #17): for a payment that waits for the buyer, one option
 * per chain with a deposit factory and accepted token that can be priced: the payment's own
 * deposit address there (recorded, so that the watcher follows it), the token amount and its
 * EIP-681 transfer request. The quote is kept per (payment, deposit address, token) like the
 * options' quotes: repeated calls give the same address, and the same amount while the quote holds.
 */
export class DepositOptions extends Context.Service<DepositOptions, {
  readonly deposit: (
    access: Access,
    paymentId: string
  ) => Effect.Effect<ReadonlyArray<DepositOption>, PaymentNotFound | PaymentExpired | InvalidState>
}>()("@paygate/domain/DepositOptions") {
  /** The operation over the ports in context. */
  static readonly layer = Layer.effect(
    DepositOptions,
    Effect.gen(function*() {
      const payments = yield* Payments
      const catalog = yield* AssetCatalog
      const chains = yield* DepositChains
      const store = yield* DepositStore
      const quoting = yield* makeQuoting

      const onChain = Effect.fnUntraced(function*(payment: Payment, chainId: string, address: string, millis: number) {
        yield* store.ensure({ chainId, address: address.toLowerCase(), paymentId: payment.id, createdAt: millis })
        const now = Math.floor(millis / 1000)
        const chainNumber = chainId.slice(chainId.indexOf(":") + 1)
        return yield* Effect.forEach(catalog.assetsOn(chainId), (asset) =>
          Effect.map(quoting.current(payment, `${chainId}:${address}`, asset, "deposit", now), Option.map(({ claims, optionId }): DepositOption => ({
            id: optionId,
            kind: "deposit",
            network: chainId,
            asset: asset.assetId,
            address,
            amount: tokenAmount(asset, claims.value),
            uri: eip681Transfer(asset.assetId.slice(asset.assetId.lastIndexOf(":") + 1), chainNumber, address, claims.value),
            expiresAt: claims.expiresAt
          }))))
      })

      const deposit = Effect.fn("DepositOptions.deposit")(function*(access: Access, paymentId: string) {
        const payment = yield* payments.find(access, paymentId)
        const millis = yield* Clock.currentTimeMillis
        if (payment.status !== "requires_action") return yield* notWaiting(payment, Math.floor(millis / 1000))
        const found = yield* Effect.forEach(chains.chains, (chainId) => {
          const address = chains.addressOf(chainId, payment.id)
          return address === undefined ? Effect.succeed([]) : onChain(payment, chainId, address, millis)
        })
        return found.flat().flatMap((o) => (Option.isSome(o) ? [o.value] : []))
      })

      return DepositOptions.of({ deposit })
    })
  )
}
