import { ApiKeyNotFound, Mode } from "@paygate/domain"
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import { wire } from "./ErrorWire.ts"
import { PartnerAuth } from "./Security.ts"
import * as Wire from "./wire/index.ts"

/** A partner secret key as the partner API shows it: never its secret. Times in Unix seconds. */
export const ApiKeyRecord = Schema.Struct({
  id: Schema.String,
  mode: Mode,
  /** The secret's last four characters, to tell keys apart; `null` for keys issued before hints were kept. */
  hint: Schema.NullOr(Schema.String),
  createdAt: Wire.NonNegativeInt,
  /** `null` while the key works. */
  revokedAt: Schema.NullOr(Wire.NonNegativeInt)
}).annotate({ identifier: "ApiKey" })

/** Response of `POST /v1/api-keys`: the key and its secret, shown this once. */
export const CreatedApiKey = Schema.Struct({
  ...ApiKeyRecord.fields,
  secret: Schema.String
}).annotate({ identifier: "CreatedApiKey" })

/** One page of keys, newest first. */
export const ApiKeyPage = Schema.Struct({
  data: Schema.Array(ApiKeyRecord),
  nextCursor: Schema.NullOr(Schema.String)
}).annotate({ identifier: "ApiKeyPage" })

const notFound = wire(ApiKeyNotFound, "ApiKeyNotFound")

/**
 * Partner API: the partner's own secret keys in the caller's mode (what the operator CLI's `key`
 * commands do, for the partner itself). A revoked key stops working at once in this process (in
 * others within `CREDENTIAL_CACHE_SECONDS`), and its dashboard sessions end.
 */
export class ApiKeysApi extends HttpApiGroup.make("apiKeys")
  .add(
    HttpApiEndpoint.get("list", "/v1/api-keys", {
      query: {
        limit: Schema.optionalKey(Schema.String.annotate({ description: "1 to 100; default 20." })),
        cursor: Schema.optionalKey(Schema.String.annotate({ description: "nextCursor of the previous page." }))
      },
      success: ApiKeyPage
    }).annotate(OpenApi.Summary, "List the partner's secret keys of the caller's mode, revoked ones too, newest first"),
    HttpApiEndpoint.post("create", "/v1/api-keys", {
      success: CreatedApiKey.pipe(HttpApiSchema.status(201))
    }).annotate(OpenApi.Summary, "Create a secret key of the caller's mode; the secret is shown in this answer only"),
    HttpApiEndpoint.delete("revoke", "/v1/api-keys/:id", {
      params: { id: Schema.String },
      success: ApiKeyRecord,
      error: notFound
    }).annotate(OpenApi.Summary, "Revoke a key (again: no change); its dashboard sessions end")
  )
  .middleware(PartnerAuth)
  .annotate(OpenApi.Title, "API keys")
{}
