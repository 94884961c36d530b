import { Effect, Layer, Option } from "effect"
import { MerchantExists } from "../errors/DomainErrors.ts"
import type { MerchantId } from "../ids/Ids.ts"
import type { Merchant } from "../merchant/Merchant.ts"
import { compareCreation, isAfterCursor } from "../paging/Page.ts"
import { MerchantRepository } from "../ports/MerchantRepository.ts"

/** The state behind the in-memory merchant repository, exposed so tests can inspect it. */
export interface MemoryMerchants {
  readonly merchants: Map<MerchantId, Merchant>
}

/** A fresh, empty merchant store. */
export const makeMemoryMerchants = (): MemoryMerchants => ({ merchants: new Map() })

const sameName = (a: Merchant, b: Merchant) => a.name.toLowerCase() === b.name.toLowerCase()

// Another active merchant of the same partner and mode with the same name, case-insensitively.
const clash = (store: MemoryMerchants, merchant: Merchant): Merchant | undefined =>
  merchant.deleted
    ? undefined
    : [...store.merchants.values()].find((other) =>
      other.id !== merchant.id && !other.deleted && other.partnerId === merchant.partnerId &&
      other.mode === merchant.mode && sameName(other, merchant)
    )

// Checks and writes in one synchronous step, so it is atomic with respect to other fibers.
const write = (store: MemoryMerchants, merchant: Merchant, isNew: boolean): Effect.Effect<void, MerchantExists> =>
  Effect.suspend(() => {
    const exists = store.merchants.has(merchant.id)
    if (isNew === exists) return Effect.die(new Error(`${isNew ? "duplicate" : "unknown"} merchant ${merchant.id}`))
    if (clash(store, merchant) !== undefined) {
      return Effect.fail(new MerchantExists({ message: `An active merchant named "${merchant.name}" already exists.` }))
    }
    store.merchants.set(merchant.id, merchant)
    return Effect.void
  })

/**
 * In-memory {@link MerchantRepository} for unit tests: an active merchant's name is unique per
 * partner and mode, case-insensitively; lists are newest first, paged by cursor.
 */
export const layerMemoryMerchants = (store: MemoryMerchants = makeMemoryMerchants()): Layer.Layer<MerchantRepository> =>
  Layer.succeed(MerchantRepository, MerchantRepository.of({
    insert: (merchant) => write(store, merchant, true),
    update: (merchant) => write(store, merchant, false),
    findById: (partnerId, mode, id) =>
      Effect.sync(() =>
        Option.fromNullishOr(store.merchants.get(id)).pipe(
          Option.filter((m) => m.partnerId === partnerId && m.mode === mode)
        )
      ),
    list: (q) =>
      Effect.sync(() => {
        const search = q.search?.toLowerCase()
        return [...store.merchants.values()]
          .filter((m) =>
            m.partnerId === q.partnerId && m.mode === q.mode &&
            (q.status === undefined || m.deleted === (q.status === "deleted")) &&
            (q.search === undefined || search === undefined || m.id === q.search || m.name.toLowerCase().includes(search)) &&
            isAfterCursor(m, q.after, "desc")
          )
          .sort((a, b) => compareCreation(b, a))
          .slice(0, q.limit)
      })
  }))
