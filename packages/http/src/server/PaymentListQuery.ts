import { InvalidParams, type ListPaymentsInput, type MerchantId, pageRequest, PaymentStatus } from "@paygate/domain"
import { Effect, Schema } from "effect"

/** The payment list filters as they arrive in the query string (API rules §11): plain strings. */
export interface PaymentListQuery {
  readonly status?: ReadonlyArray<string> | undefined
  readonly merchantId?: string | undefined
  readonly referenceId?: string | undefined
  readonly linkId?: string | undefined
  /** Unix seconds, inclusive. */
  readonly startTs?: string | undefined
  /** Unix seconds, exclusive. */
  readonly endTs?: string | undefined
  readonly sortDir?: string | undefined
  readonly limit?: string | undefined
  readonly cursor?: string | undefined
}

const isStatus = Schema.is(PaymentStatus)

const unixSeconds = (name: string, text: string | undefined) =>
  text === undefined
    ? Effect.succeed(undefined)
    : /^[0-9]{1,12}$/.test(text)
    ? Effect.succeed(Number(text) * 1000)
    : Effect.fail(new InvalidParams({ message: `${name} must be a Unix timestamp in seconds.` }))

/**
 * Decodes the payment list query into the use case's input; a malformed value is `invalid_params`,
 * reported in the order paging, status, sortDir, startTs, endTs.
 */
export const decodePaymentListQuery = (query: PaymentListQuery): Effect.Effect<ListPaymentsInput, InvalidParams> =>
  Effect.gen(function*() {
    const page = yield* pageRequest(query)
    const statuses = query.status ?? []
    if (!statuses.every(isStatus)) {
      return yield* new InvalidParams({ message: `status must be one of ${PaymentStatus.literals.join(", ")}.` })
    }
    if (query.sortDir !== undefined && query.sortDir !== "asc" && query.sortDir !== "desc") {
      return yield* new InvalidParams({ message: "sortDir must be asc or desc." })
    }
    return {
      statuses,
      // An id that names no merchant of the partner lists nothing.
      merchantId: query.merchantId as MerchantId | undefined,
      referenceId: query.referenceId,
      linkId: query.linkId,
      createdFrom: yield* unixSeconds("startTs", query.startTs),
      createdBefore: yield* unixSeconds("endTs", query.endTs),
      order: query.sortDir === "asc" ? "asc" : "desc",
      page
    }
  })
