import { Effect, Layer, Option, type Redacted } from "effect"
import type { BuyerData } from "../datacollection/BuyerDataForm.ts"
import { BuyerDataStore } from "../ports/BuyerDataStore.ts"
import { BuyerDataValidator } from "../ports/BuyerDataValidator.ts"
import { DataCollectionThresholds } from "../ports/DataCollectionThresholds.ts"
import type { SanctionsScreening } from "../ports/SanctionsScreening.ts"
import { DataCollection } from "../usecases/DataCollection.ts"
import { DataCollectionPage } from "../usecases/DataCollectionPage.ts"
import type { Payments } from "../usecases/Payments.ts"

/** Buyer data by `paymentId account`, as the memory store keeps it (tests may inspect it). */
export type MemoryBuyerData = Map<string, Redacted.Redacted<BuyerData>>

/** In-memory {@link BuyerDataStore} over `records`. */
export const layerMemoryBuyerData = (records: MemoryBuyerData = new Map()): Layer.Layer<BuyerDataStore> =>
  Layer.succeed(BuyerDataStore, BuyerDataStore.of({
    providedBy: (paymentId) =>
      Effect.sync(() => new Set([...records.keys()].filter((key) => key.startsWith(`${paymentId} `)).map((key) => key.slice(paymentId.length + 1)))),
    find: (paymentId, account) => Effect.sync(() => Option.fromNullishOr(records.get(`${paymentId} ${account}`))),
    save: (paymentId, account, data) => Effect.sync(() => void records.set(`${paymentId} ${account}`, data))
  }))

/**
 * A validator stub: `check` answers the problems of some data. Domain tests inject what they need;
 * the JSON Schema itself is judged by the real validator of the adapters.
 */
export const validatorOf = (check: (data: unknown) => ReadonlyArray<string>): Layer.Layer<BuyerDataValidator> =>
  Layer.succeed(BuyerDataValidator, BuyerDataValidator.of({ problems: (_schema, data) => Effect.sync(() => check(data)) }))

/** Thresholds by partner id; partners not listed use the default. */
export const thresholdsOf = (thresholds: Readonly<Record<string, string>> = {}): Layer.Layer<DataCollectionThresholds> =>
  Layer.succeed(DataCollectionThresholds, DataCollectionThresholds.of({
    thresholdOf: (partnerId) => Effect.succeed(Option.fromNullishOr(thresholds[partnerId]))
  }))

/** The data collection page at `url`. */
export const dataCollectionPageAt = (url: string): Layer.Layer<DataCollectionPage> =>
  Layer.succeed(DataCollectionPage, DataCollectionPage.of({ url }))

/** What {@link layerTestDataCollection} runs on; every part has a default. */
export interface TestDataCollectionOptions {
  /** Default: every partner uses the contract's threshold. */
  readonly thresholds?: Readonly<Record<string, string>>
  readonly records?: MemoryBuyerData
  /** Default: every data is valid. */
  readonly check?: (data: unknown) => ReadonlyArray<string>
  /** Default: `https://collect.test/form`. */
  readonly pageUrl?: string
}

/**
 * {@link DataCollection} over memory ports, for tests of the use cases that need it (options,
 * confirm); the host's `Payments` and `SanctionsScreening` are used.
 */
export const layerTestDataCollection = (
  options: TestDataCollectionOptions = {}
): Layer.Layer<DataCollection, never, Payments | SanctionsScreening> =>
  DataCollection.layer.pipe(Layer.provide([
    layerMemoryBuyerData(options.records),
    validatorOf(options.check ?? (() => [])),
    thresholdsOf(options.thresholds),
    dataCollectionPageAt(options.pageUrl ?? "https://collect.test/form")
  ]))
