import { Context, type Effect, type Option, type Redacted } from "effect"
import type { BuyerData } from "../datacollection/BuyerDataForm.ts"

/**
 * Buyer data (travel rule, API rules §10) that passed validation, one record per (payment, account).
 * Personal data: adapters keep it encrypted at rest, and it travels as `Redacted` so that it never
 * reaches a log by accident.
 */
export class BuyerDataStore extends Context.Service<BuyerDataStore, {
  /** The accounts (CAIP-10) that provided data for the payment. */
  readonly providedBy: (paymentId: string) => Effect.Effect<ReadonlySet<string>>
  /** The data `account` provided for the payment, if any. */
  readonly find: (paymentId: string, account: string) => Effect.Effect<Option.Option<Redacted.Redacted<BuyerData>>>
  /** Records the data of `account` for the payment, replacing what it provided before. */
  readonly save: (paymentId: string, account: string, data: Redacted.Redacted<BuyerData>) => Effect.Effect<void>
}>()("@paygate/domain/BuyerDataStore") {}
