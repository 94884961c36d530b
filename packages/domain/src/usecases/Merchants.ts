import { Context, type Effect } from "effect"
import type { InvalidParams, MerchantExists, MerchantNotFound, ParamsValidation } from "../errors/ApiErrors.ts"
import type { PartnerId } from "../ids/Ids.ts"
import type { Merchant } from "../merchant/Merchant.ts"
import type { Page } from "../paging/Page.ts"
import type { Mode } from "../payment/Payment.ts"

/** The partner (and mode) on whose behalf a merchant operation runs. */
export interface PartnerAccess {
  readonly partnerId: PartnerId
  readonly mode: Mode
}

/** `POST /v1/merchants` body. */
export interface CreateMerchantInput {
  readonly merchantName: string
  readonly merchantEmail?: string | undefined
  readonly iconUrl?: string | undefined
}

/** `PATCH /v1/merchants/{id}` body: at least one field; `iconUrl: null` unsets the logo. */
export interface UpdateMerchantInput {
  readonly merchantName?: string | undefined
  readonly merchantEmail?: string | undefined
  readonly iconUrl?: string | null | undefined
}

/** `GET /v1/merchants` query. */
export interface ListMerchantsInput {
  readonly status?: string | undefined
  readonly search?: string | undefined
  readonly cursor?: string | undefined
  readonly limit?: string | undefined
}

/**
 * Merchant management under a partner. Merchants of other partners or of the other mode are
 * reported as missing (`merchant_not_found`).
 */
export class Merchants extends Context.Service<Merchants, {
  readonly create: (access: PartnerAccess, input: CreateMerchantInput) => Effect.Effect<Merchant, ParamsValidation | MerchantExists>
  /** A merchant, deleted ones included. */
  readonly get: (access: PartnerAccess, id: string) => Effect.Effect<Merchant, MerchantNotFound>
  /** An active merchant, for operations that need one (e.g. creating a payment). */
  readonly getActive: (access: PartnerAccess, id: string) => Effect.Effect<Merchant, MerchantNotFound>
  readonly list: (access: PartnerAccess, input: ListMerchantsInput) => Effect.Effect<Page<Merchant>, InvalidParams>
  readonly update: (
    access: PartnerAccess,
    id: string,
    input: UpdateMerchantInput
  ) => Effect.Effect<Merchant, MerchantNotFound | ParamsValidation | MerchantExists>
  /** Soft delete; deleting a deleted merchant answers it again (idempotent). */
  readonly remove: (access: PartnerAccess, id: string) => Effect.Effect<Merchant, MerchantNotFound>
}>()("@paygate/domain/Merchants") {}
