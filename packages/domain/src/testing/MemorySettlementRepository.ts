import { Effect, Layer, Option } from "effect"
import { InvalidState } from "../errors/ApiErrors.ts"
import type { SettlementId } from "../ids/Ids.ts"
import type { CryptoSettlement } from "../merchant/CryptoSettlement.ts"
import { compareCreation } from "../paging/Page.ts"
import { SettlementRepository } from "../ports/SettlementRepository.ts"

/** The state behind the in-memory settlement repository, exposed so tests can inspect it. */
export interface MemorySettlements {
  readonly settlements: Map<SettlementId, CryptoSettlement>
}

/** A fresh, empty settlement store. */
export const makeMemorySettlements = (): MemorySettlements => ({ settlements: new Map() })

/**
 * In-memory {@link SettlementRepository} for unit tests: (merchant, asset) is unique and
 * `insertAll` writes all or nothing, checked and written in one synchronous step.
 */
export const layerMemorySettlements = (store: MemorySettlements = makeMemorySettlements()): Layer.Layer<SettlementRepository> => {
  const owned = (merchantId: string, id: SettlementId) =>
    Option.fromNullishOr(store.settlements.get(id)).pipe(Option.filter((s) => s.merchantId === merchantId))
  return Layer.succeed(SettlementRepository, SettlementRepository.of({
    insertAll: (batch) =>
      Effect.suspend(() => {
        const taken = [...store.settlements.values()]
        for (const [index, s] of batch.entries()) {
          if (store.settlements.has(s.id)) return Effect.die(new Error(`duplicate settlement ${s.id}`))
          const clash = [...taken, ...batch.slice(0, index)].some((o) => o.merchantId === s.merchantId && o.asset === s.asset)
          if (clash) {
            return Effect.fail(new InvalidState({ message: `Asset ${s.asset} already has a settlement destination.` }))
          }
        }
        for (const s of batch) store.settlements.set(s.id, s)
        return Effect.void
      }),
    list: (merchantId) =>
      Effect.sync(() => [...store.settlements.values()].filter((s) => s.merchantId === merchantId).sort(compareCreation)),
    findById: (merchantId, id) => Effect.sync(() => owned(merchantId, id)),
    findByAsset: (merchantId, asset) =>
      Effect.sync(() =>
        Option.fromNullishOr([...store.settlements.values()].find((s) => s.merchantId === merchantId && s.asset === asset))
      ),
    update: (settlement) =>
      Effect.suspend(() => {
        if (Option.isNone(owned(settlement.merchantId, settlement.id))) {
          return Effect.die(new Error(`unknown settlement ${settlement.id}`))
        }
        store.settlements.set(settlement.id, settlement)
        return Effect.void
      }),
    remove: (merchantId, id) => Effect.sync(() => Option.isSome(owned(merchantId, id)) && store.settlements.delete(id))
  }))
}
