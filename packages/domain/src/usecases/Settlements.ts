import { Context, type Effect } from "effect"
import type { InvalidState, MerchantNotFound, ParamsValidation } from "../errors/ApiErrors.ts"
import type { CryptoSettlement } from "../merchant/CryptoSettlement.ts"
import type { PartnerAccess } from "./Merchants.ts"

/** One `{asset, destination}` entry of `POST /v1/merchants/{id}/settlements/crypto`. */
export interface SettlementEntry {
  readonly asset: string
  readonly destination: string
}

/**
 * Crypto settlement destinations of a merchant (contract §8). Registration is all-or-nothing;
 * asset and destination must share a CAIP-2 chain; a second destination for an asset is
 * `invalid_state`. The contract has no settlement-specific not-found code, so an unknown
 * settlement id is a 404 `merchant_not_found` whose message names the settlement.
 */
export class Settlements extends Context.Service<Settlements, {
  readonly register: (
    access: PartnerAccess,
    merchantId: string,
    entries: ReadonlyArray<SettlementEntry>
  ) => Effect.Effect<ReadonlyArray<CryptoSettlement>, MerchantNotFound | ParamsValidation | InvalidState>
  readonly list: (access: PartnerAccess, merchantId: string) => Effect.Effect<ReadonlyArray<CryptoSettlement>, MerchantNotFound>
  readonly changeDestination: (
    access: PartnerAccess,
    merchantId: string,
    id: string,
    destination: string
  ) => Effect.Effect<CryptoSettlement, MerchantNotFound | ParamsValidation>
  readonly remove: (access: PartnerAccess, merchantId: string, id: string) => Effect.Effect<void, MerchantNotFound>
}>()("@paygate/domain/Settlements") {}
