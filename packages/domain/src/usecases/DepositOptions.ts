import { Clock, Context, Effect, Layer, Option } from "effect"
import type { InvalidState, PaymentExpired, PaymentNotFound } from "../errors/DomainErrors.ts"
import type { Payment } from "../payment/Payment.ts"
import type { Receipt } from "../receipt/Receipt.ts"
import { toChecksumAddress } from "../caip/Eip55.ts"
import { AssetCatalog } from "../ports/AssetCatalog.ts"
import { DepositChains } from "../ports/DepositChains.ts"
import { DepositStore } from "../ports/DepositStore.ts"
import { NetworkModes } from "../ports/NetworkModes.ts"
import { ReceiptStore } from "../ports/ReceiptStore.ts"
import { type DepositOption, eip681Transfer, eip681Value } from "../deposit/DepositOption.ts"
import type { Access } from "./Access.ts"
import { DataCollection } from "./DataCollection.ts"
import { notWaiting } from "./PaymentChanges.ts"
import { Payments } from "./Payments.ts"
import { makeQuoting } from "./Quoting.ts"
import { creditable, underpaidReceipts, valueOf } from "./Reconciliation.ts"
import { tokenAmount } from "./TokenAmount.ts"
import { traced } from "./Traced.ts"

/**
 * Whether a payment can be paid into a deposit address: `offered`; `needsData` when it reaches
 * its partner's data collection threshold (docs/api.md, data collection); `none` when no chain of the payment's mode
 * (`NetworkModes`) has a deposit factory.
 */
export type DepositAvailability = "offered" | "needsData" | "none"

/**
 * The gateway's deposit operation: for a payment that waits for the buyer, one option
 * per chain with a deposit factory and accepted token (or the chain's own coin) that can be priced: the payment's own
 * deposit address there (recorded, so that the watcher follows it), the token amount and its
 * EIP-681 transfer request. An address recorded for the payment earlier (a factory since replaced
 * made it) stays its address there, for tokens only. The quote is kept per (payment, deposit address, token) like the
 * options' quotes: repeated calls give the same address, and the same amount while the quote holds.
 * Underpaid transfers of the token already received count: the amount asked is what is still missing.
 *
 * A payment that requires buyer data (travel rule) gets no deposit option and no address: the data
 * is owed per paying account, and the account a transfer comes from is unknown until it arrives,
 * so only a wallet that shares the data before it pays (the options operation) can pay it.
 */
export class DepositOptions extends Context.Service<DepositOptions, {
  /** Whether `payment` can be paid into a deposit address, and if not, why. */
  readonly availability: (payment: Payment) => Effect.Effect<DepositAvailability>
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
      const modes = yield* NetworkModes
      const store = yield* DepositStore
      const dataCollection = yield* DataCollection
      const receipts = yield* ReceiptStore
      const quoting = yield* makeQuoting

      // The deposit chains of the payment's mode: a test payment never gets an address on a real network.
      const chainsFor = (payment: Payment) => chains.chains.filter((chainId) => modes.modeOf(chainId) === payment.mode)

      const availability = Effect.fnUntraced(function*(payment: Payment) {
        // A held payment is paid into the escrow by a signed authorization: a plain transfer cannot be held.
        if (chainsFor(payment).length === 0 || payment.hold !== undefined) return "none" as const
        return (yield* dataCollection.needsData(payment)) ? "needsData" as const : "offered" as const
      })

      const onChain = Effect.fnUntraced(function*(
        payment: Payment,
        received: ReadonlyArray<Receipt>,
        chainId: string,
        current: string,
        millis: number
      ) {
        const recorded = yield* store.ensure({ chainId, address: current.toLowerCase(), paymentId: payment.id, createdAt: millis })
        // An address handed out before the chain's factory was replaced stays the payment's; it takes tokens only.
        const latest = recorded === current.toLowerCase()
        const address = latest ? current : toChecksumAddress(recorded)
        const now = Math.floor(millis / 1000)
        const chainNumber = chainId.slice(chainId.indexOf(":") + 1)
        // Tokens, and the chain's own coin at the current factory's addresses (it sweeps the coin too).
        const payable = catalog.assetsOn(chainId).filter((asset) => asset.assetId.includes("/erc20:") || (latest && asset.assetId.includes("/slip44:")))
        return yield* Effect.forEach(payable, (asset) =>
          Effect.map(quoting.deposit(payment, `${chainId}:${address}`, asset, "deposit", now), Option.map(({ claims, optionId }): DepositOption => {
            const asked = BigInt(claims.value)
            const missing = (asked - valueOf(creditable(received, asset.assetId, asked))).toString()
            return {
              id: optionId,
              kind: "deposit",
              network: chainId,
              asset: asset.assetId,
              address,
              amount: tokenAmount(asset, missing),
              uri: asset.assetId.includes("/slip44:")
                ? eip681Value(chainNumber, address, missing)
                : eip681Transfer(asset.assetId.slice(asset.assetId.lastIndexOf(":") + 1), chainNumber, address, missing),
              expiresAt: claims.expiresAt
            }
          })))
      })

      const deposit = Effect.fnUntraced(function*(access: Access, paymentId: string) {
        const payment = yield* payments.find(access, paymentId)
        const millis = yield* Clock.currentTimeMillis
        if (payment.status !== "requires_action") return yield* notWaiting(payment, Math.floor(millis / 1000))
        if ((yield* availability(payment)) !== "offered") return []
        const received = yield* underpaidReceipts(receipts, payment)
        const found = yield* Effect.forEach(chainsFor(payment), (chainId) => {
          const address = chains.addressOf(chainId, payment.id)
          return address === undefined ? Effect.succeed([]) : onChain(payment, received, chainId, address, millis)
        })
        return found.flat().flatMap((o) => (Option.isSome(o) ? [o.value] : []))
      }, traced("DepositOptions.deposit"))

      return DepositOptions.of({ availability, deposit })
    })
  )
}
