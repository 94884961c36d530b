import { Clock, Context, Effect, Layer, Option, Schema } from "effect"
import { InvalidParams, type MerchantExists, MerchantNotFound, ParamsValidation } from "../errors/DomainErrors.ts"
import { IdGenerator } from "../ids/IdGenerator.ts"
import { MerchantId, type PartnerId } from "../ids/Ids.ts"
import { Merchant } from "../merchant/Merchant.ts"
import { type Page, pageRequest, toPage } from "../paging/Page.ts"
import type { Mode } from "../payment/Payment.ts"
import { type MerchantRead, MerchantRepository } from "../ports/MerchantRepository.ts"
import { missingMerchant } from "./MissingMerchant.ts"
import { validateIconUrl, validateMerchantEmail, validateMerchantName } from "./MerchantRules.ts"
import { traced } from "./Traced.ts"

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

const isMerchantId = Schema.is(MerchantId)

/**
 * Merchant management under a partner. Merchants of other partners or of the other mode are
 * reported as missing (`merchant_not_found`).
 *
 * Decisions: `list` without `status` shows active merchants only (soft-deleted ones are hidden
 * from listings, service-spec); `status=deleted` lists the deleted ones. `search` is trimmed and
 * matches a case-insensitive substring of the name or an exact id. Names and emails are trimmed
 * before they are validated and stored; `iconUrl` is stored as given.
 */
export class Merchants extends Context.Service<Merchants, {
  readonly create: (access: PartnerAccess, input: CreateMerchantInput) => Effect.Effect<Merchant, ParamsValidation | MerchantExists>
  /** A merchant, deleted ones included; `read` defaults to `current` (see {@link MerchantRead}). */
  readonly get: (access: PartnerAccess, id: string, read?: MerchantRead) => Effect.Effect<Merchant, MerchantNotFound>
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
}>()("@paygate/domain/Merchants") {
  /** The use cases over the {@link MerchantRepository} and {@link IdGenerator} in context. */
  static readonly layer = Layer.effect(
    Merchants,
    Effect.gen(function*() {
      const repo = yield* MerchantRepository
      const ids = yield* IdGenerator

      const notFound = (id: string) => new MerchantNotFound({ message: `No merchant ${id}.` })

      // Combinators, not a generator: every merchant API request (the status poll among them) reads its merchant here.
      const missing = (access: PartnerAccess, id: string) => Effect.flatMap(missingMerchant(repo, access.partnerId, access.mode, id), Effect.fail)

      const load = (access: PartnerAccess, id: string, read: MerchantRead = "current"): Effect.Effect<Merchant, MerchantNotFound> =>
        isMerchantId(id)
          ? Effect.flatMap(repo.findById(access.partnerId, access.mode, id, read), (found) =>
            // The repository scopes by partner and mode; checked again so a foreign row can never leak.
            Option.isNone(found) || found.value.partnerId !== access.partnerId || found.value.mode !== access.mode
              ? missing(access, id)
              : Effect.succeed(found.value))
          : missing(access, id)

      const loadActive = Effect.fnUntraced(function*(access: PartnerAccess, id: string) {
        const merchant = yield* load(access, id)
        if (merchant.deleted) return yield* notFound(id)
        return merchant
      })

      const create = Effect.fn("Merchants.create")(function*(access: PartnerAccess, input: CreateMerchantInput) {
        const name = yield* validateMerchantName(input.merchantName)
        const email = input.merchantEmail === undefined ? null : yield* validateMerchantEmail(input.merchantEmail)
        const iconUrl = input.iconUrl === undefined ? null : yield* validateIconUrl(input.iconUrl)
        const millis = yield* Clock.currentTimeMillis
        const merchant = new Merchant({
          id: yield* ids.make("merchant"),
          partnerId: access.partnerId,
          mode: access.mode,
          name,
          email,
          iconUrl,
          deleted: false,
          createdAt: millis,
          updatedAt: millis
        })
        yield* repo.insert(merchant)
        return merchant
      })

      const spanGet = traced("Merchants.get")
      const get = (access: PartnerAccess, id: string, read?: MerchantRead) => spanGet(load(access, id, read))
      const getActive = Effect.fn("Merchants.getActive")(loadActive)

      const list = Effect.fn("Merchants.list")(function*(access: PartnerAccess, input: ListMerchantsInput) {
        const page = yield* pageRequest(input)
        const status = input.status ?? "active"
        if (status !== "active" && status !== "deleted") {
          return yield* new InvalidParams({ message: "status must be active or deleted." })
        }
        const search = input.search?.trim()
        const rows = yield* repo.list({
          partnerId: access.partnerId,
          mode: access.mode,
          status,
          search: search === "" ? undefined : search,
          after: page.after,
          limit: page.limit + 1
        })
        return toPage(rows, page.limit)
      })

      const update = Effect.fn("Merchants.update")(function*(access: PartnerAccess, id: string, input: UpdateMerchantInput) {
        if (input.merchantName === undefined && input.merchantEmail === undefined && input.iconUrl === undefined) {
          return yield* new ParamsValidation({ message: "at least one of merchantName, merchantEmail, iconUrl is required." })
        }
        const name = input.merchantName === undefined ? undefined : yield* validateMerchantName(input.merchantName)
        const email = input.merchantEmail === undefined ? undefined : yield* validateMerchantEmail(input.merchantEmail)
        const iconUrl = input.iconUrl === undefined || input.iconUrl === null
          ? input.iconUrl
          : yield* validateIconUrl(input.iconUrl)
        const current = yield* loadActive(access, id)
        const millis = yield* Clock.currentTimeMillis
        const next = new Merchant({
          ...current,
          name: name ?? current.name,
          email: email ?? current.email,
          iconUrl: iconUrl === undefined ? current.iconUrl : iconUrl,
          updatedAt: Math.max(millis, current.updatedAt)
        })
        yield* repo.update(next)
        return next
      })

      const remove = Effect.fn("Merchants.remove")(function*(access: PartnerAccess, id: string) {
        const current = yield* load(access, id)
        if (current.deleted) return current
        const millis = yield* Clock.currentTimeMillis
        const next = new Merchant({ ...current, deleted: true, updatedAt: Math.max(millis, current.updatedAt) })
        // Only active names are unique, so deleting can never clash with another merchant.
        yield* Effect.orDie(repo.update(next))
        return next
      })

      return Merchants.of({ create, get, getActive, list, update, remove })
    })
  )
}
