import * as HandlerGroup from "./HandlerGroup.ts"
import { ApiKeyAdmin, ApiKeyId, ApiKeyNotFound, isAfterCursor, type KeyListing, type PartnerAccess, pageRequest, toPage } from "@paygate/domain"
import { Effect, Schema } from "effect"
import { PaygateApi } from "../api/Api.ts"
import { partnerAccess } from "./PaymentsHandlers.ts"

const isApiKeyId = Schema.is(ApiKeyId)
const seconds = (millis: number) => Math.floor(millis / 1000)

const toRecord = (key: KeyListing) => ({
  id: key.keyId,
  mode: key.mode,
  hint: key.hint,
  createdAt: seconds(key.createdAt),
  revokedAt: key.revokedAt === null ? null : seconds(key.revokedAt)
})

/** Partner API key handlers over the domain's `ApiKeyAdmin` (the operator CLI's credential administration runs the same). */
export const ApiKeysHandlers = HandlerGroup.group(
  PaygateApi,
  "apiKeys",
  Effect.fn(function*(handlers) {
    const admin = yield* ApiKeyAdmin
    // The caller's partner exists (it just authenticated): an unknown owner cannot happen.
    const keysOf = (access: PartnerAccess) =>
      Effect.map(
        Effect.orDie(admin.listKeys(access.partnerId)),
        (keys) => keys.filter((key) => key.kind === "partner" && key.mode === access.mode)
      )
    const keyOf = Effect.fnUntraced(function*(access: PartnerAccess, id: string) {
      const found = isApiKeyId(id) ? (yield* keysOf(access)).find((key) => key.keyId === id) : undefined
      if (found === undefined) return yield* new ApiKeyNotFound({ message: `No API key ${id}.` })
      return found
    })
    return handlers
      .handle("list", ({ query }) =>
        Effect.gen(function*() {
          const page = yield* pageRequest(query)
          const newestFirst = (yield* keysOf(yield* partnerAccess))
            .map((key) => ({ ...key, id: key.keyId }))
            .filter((key) => isAfterCursor(key, page.after, "desc"))
            .reverse()
          const listed = toPage(newestFirst.slice(0, page.limit + 1), page.limit)
          return { data: listed.data.map(toRecord), nextCursor: listed.nextCursor }
        }))
      .handle("create", () =>
        Effect.gen(function*() {
          const access = yield* partnerAccess
          const issued = yield* Effect.orDie(admin.createApiKey({ kind: "partner", partnerId: access.partnerId, mode: access.mode }))
          return { ...toRecord(yield* keyOf(access, issued.keyId).pipe(Effect.orDie)), secret: issued.apiKey }
        }))
      .handle("revoke", ({ params }) =>
        Effect.gen(function*() {
          const access = yield* partnerAccess
          yield* admin.revokeKey((yield* keyOf(access, params.id)).keyId)
          return toRecord(yield* keyOf(access, params.id).pipe(Effect.orDie))
        }))
  })
)
