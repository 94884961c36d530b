import { Effect, Layer, Option } from "effect"
import { InvalidState } from "../errors/DomainErrors.ts"
import type { SettlementId } from "../ids/Ids.ts"
import type { CryptoSettlement } from "../merchant/CryptoSettlement.ts"
import type { SettlementDestinationEvent } from "../merchant/SettlementDestinationEvent.ts"
import { compareCreation } from "../paging/Page.ts"
import { SettlementRepository } from "../ports/SettlementRepository.ts"

/** The state behind the in-memory settlement repository, exposed so tests can inspect it. */
export interface MemorySettlements {
  readonly settlements: Map<SettlementId, CryptoSettlement>
  /** The outbox events of the changes, in commit order. */
  readonly events: Array<SettlementDestinationEvent>
}

/** A fresh, empty settlement store. */
export const makeMemorySettlements = (): MemorySettlements => ({ settlements: new Map(), events: [] })

/**
 * In-memory {@link SettlementRepository} for unit tests: (merchant, asset) is unique and
 * every write (with its events) is checked and made in one synchronous step.
 */
export const layerMemorySettlements = (store: MemorySettlements = makeMemorySettlements()): Layer.Layer<SettlementRepository> => {
  const owned = (merchantId: string, id: SettlementId) =>
    Option.fromNullishOr(store.settlements.get(id)).pipe(Option.filter((s) => s.merchantId === merchantId))
  return Layer.succeed(SettlementRepository, SettlementRepository.of({
    insertAll: (batch, events) =>
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
        store.events.push(...events)
        return Effect.void
      }),
    list: (merchantId) =>
      Effect.sync(() => [...store.settlements.values()].filter((s) => s.merchantId === merchantId).sort(compareCreation)),
    findById: (merchantId, id) => Effect.sync(() => owned(merchantId, id)),
    findByAsset: (merchantId, asset) =>
      Effect.sync(() =>
        Option.fromNullishOr([...store.settlements.values()].find((s) => s.merchantId === merchantId && s.asset === asset))
      ),
    update: (settlement, previousDestination, event) =>
      Effect.sync(() => {
        const stored = owned(settlement.merchantId, settlement.id)
        if (Option.isNone(stored) || stored.value.destination !== previousDestination) return false
        store.settlements.set(settlement.id, settlement)
        store.events.push(event)
        return true
      }),
    remove: (merchantId, id, eventOf) =>
      Effect.sync(() => {
        const stored = owned(merchantId, id)
        if (Option.isNone(stored)) return false
        store.settlements.delete(id)
        store.events.push(eventOf(stored.value))
        return true
      })
  }))
}
