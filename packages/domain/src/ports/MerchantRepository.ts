import { Context, type Effect, type Option } from "effect"
import type { MerchantExists } from "../errors/DomainErrors.ts"
import type { MerchantId, PartnerId } from "../ids/Ids.ts"
import type { Merchant } from "../merchant/Merchant.ts"
import type { Cursor } from "../paging/Page.ts"
import type { Mode } from "../payment/Payment.ts"

/** Which merchants a list covers. */
export interface MerchantQuery {
  readonly partnerId: PartnerId
  readonly mode: Mode
  /** `active` (default listing) or `deleted`; unset lists both. */
  readonly status?: "active" | "deleted" | undefined
  /** Case-insensitive substring of the name, or an exact id. */
  readonly search?: string | undefined
  readonly after: Cursor | null
  /** Rows to return at most (callers ask for one more than a page to detect the next). */
  readonly limit: number
}

/**
 * How current a merchant read must be. `current` reads the store. `recent` accepts a copy read a
 * few seconds ago (the store's cache, when it has one): for requests that only read the merchant
 * and name it like a credential (the merchant API's `Merchant-Id`), never for ones that change it.
 */
export type MerchantRead = "current" | "recent"

/**
 * Merchant persistence. An active merchant's name is unique per partner and mode,
 * case-insensitively: the store enforces it and answers `MerchantExists`.
 */
export class MerchantRepository extends Context.Service<MerchantRepository, {
  readonly insert: (merchant: Merchant) => Effect.Effect<void, MerchantExists>
  /** The merchant (deleted or not) if it belongs to this partner and mode; `read` defaults to `current`. */
  readonly findById: (partnerId: PartnerId, mode: Mode, id: MerchantId, read?: MerchantRead) => Effect.Effect<Option.Option<Merchant>>
  /** Merchants in creation order (newest first). */
  readonly list: (query: MerchantQuery) => Effect.Effect<ReadonlyArray<Merchant>>
  /** Replaces a stored merchant. */
  readonly update: (merchant: Merchant) => Effect.Effect<void, MerchantExists>
}>()("@paygate/domain/MerchantRepository") {}
