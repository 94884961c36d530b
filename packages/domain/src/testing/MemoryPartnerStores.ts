import { Layer } from "effect"
import type { IdempotencyStore } from "../ports/IdempotencyStore.ts"
import type { MerchantRepository } from "../ports/MerchantRepository.ts"
import type { RefundRepository } from "../ports/RefundRepository.ts"
import type { SettlementRepository } from "../ports/SettlementRepository.ts"
import { layerMemoryIdempotency, makeMemoryIdempotency, type MemoryIdempotency } from "./MemoryIdempotencyStore.ts"
import { layerMemoryMerchants, makeMemoryMerchants, type MemoryMerchants } from "./MemoryMerchantRepository.ts"
import { layerMemoryRefunds, makeMemoryRefunds, type MemoryRefunds } from "./MemoryRefundRepository.ts"
import { layerMemorySettlements, makeMemorySettlements, type MemorySettlements } from "./MemorySettlementRepository.ts"

/** The state behind every in-memory partner-API store. */
export interface MemoryPartnerStores {
  readonly merchants: MemoryMerchants
  readonly settlements: MemorySettlements
  readonly refunds: MemoryRefunds
  readonly idempotency: MemoryIdempotency
}

/** Fresh, empty partner-API stores. */
export const makeMemoryPartnerStores = (): MemoryPartnerStores => ({
  merchants: makeMemoryMerchants(),
  settlements: makeMemorySettlements(),
  refunds: makeMemoryRefunds(),
  idempotency: makeMemoryIdempotency()
})

/** In-memory merchant, settlement, refund and idempotency stores over `stores`, for unit tests. */
export const layerMemoryPartnerStores = (
  stores: MemoryPartnerStores = makeMemoryPartnerStores()
): Layer.Layer<MerchantRepository | SettlementRepository | RefundRepository | IdempotencyStore> =>
  Layer.mergeAll(
    layerMemoryMerchants(stores.merchants),
    layerMemorySettlements(stores.settlements),
    layerMemoryRefunds(stores.refunds),
    layerMemoryIdempotency(stores.idempotency)
  )
