import { InvalidState, MerchantExists, MerchantNotFound } from "@paygate/domain"
import { MissingMerchantId } from "./HttpErrors.ts"
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import { wire } from "./ErrorWire.ts"
import { PaymentListFilters, PaymentPage } from "./PaymentsApi.ts"
import { PartnerAuth } from "./Security.ts"
import * as Wire from "./wire/index.ts"

/** Body of `POST /v1/merchants`. `null` for an optional field means the same as leaving it out. */
export const CreateMerchantRequest = Schema.Struct({
  merchantName: Schema.String,
  merchantEmail: Schema.optionalKey(Schema.NullOr(Schema.String)),
  iconUrl: Schema.optionalKey(Schema.NullOr(Schema.String))
}).annotate({ identifier: "CreateMerchantRequest" })

/**
 * Body of `PATCH /v1/merchants/{merchantId}`: at least one field (checked by the use case);
 * `iconUrl: null` unsets the logo, a missing `iconUrl` keeps it.
 */
export const UpdateMerchantRequest = Schema.Struct({
  merchantName: Schema.optionalKey(Schema.String),
  merchantEmail: Schema.optionalKey(Schema.String),
  iconUrl: Schema.optionalKey(Schema.NullOr(Schema.String))
}).annotate({ identifier: "UpdateMerchantRequest" })

/** A merchant as the partner API shows it; timestamps in Unix seconds. */
export const MerchantRecord = Schema.Struct({
  merchantId: Schema.String,
  merchantName: Schema.String,
  merchantEmail: Schema.NullOr(Schema.String),
  iconUrl: Schema.NullOr(Schema.String),
  status: Schema.Literals(["active", "deleted"]),
  createdAt: Wire.NonNegativeInt,
  updatedAt: Wire.NonNegativeInt
}).annotate({ identifier: "MerchantRecord" })

/** A crypto settlement destination: a CAIP-19 asset forwarded to a CAIP-10 account on its chain. */
export const CryptoSettlementRecord = Schema.Struct({
  id: Schema.String,
  asset: Schema.String,
  destination: Schema.String,
  createdAt: Wire.NonNegativeInt,
  updatedAt: Wire.NonNegativeInt,
  /**
   * Unix seconds from which payments are forwarded to `destination`: added or changed, a destination
   * waits the configured delay (docs/partners.md); payments succeeded until then stay at the collection address.
   */
  usableFrom: Wire.NonNegativeInt
}).annotate({ identifier: "CryptoSettlementRecord" })

/** A merchant's settlement destinations. Fiat settlement is not offered yet: `fiat` is always empty. */
export const MerchantSettlements = Schema.Struct({
  crypto: Schema.Array(CryptoSettlementRecord),
  fiat: Schema.Tuple([])
}).annotate({ identifier: "MerchantSettlements" })

/** `GET /v1/merchants/{merchantId}`: the merchant and its configured settlements. */
export const MerchantDetail = Schema.Struct({
  ...MerchantRecord.fields,
  settlements: MerchantSettlements
}).annotate({ identifier: "MerchantDetail" })

/** One page of merchants. */
export const MerchantPage = Schema.Struct({
  data: Schema.Array(MerchantRecord),
  nextCursor: Schema.NullOr(Schema.String)
}).annotate({ identifier: "MerchantPage" })

/** Body of `POST /v1/merchants/{merchantId}/settlements/crypto`: registered all or nothing. */
export const RegisterSettlementsRequest = Schema.Struct({
  settlements: Schema.Array(Schema.Struct({ asset: Schema.String, destination: Schema.String }))
}).annotate({ identifier: "RegisterSettlementsRequest" })

/** Body of `PUT /v1/merchants/{merchantId}/settlements/crypto/{id}`. */
export const ChangeSettlementRequest = Schema.Struct({ destination: Schema.String }).annotate({
  identifier: "ChangeSettlementRequest"
})

const merchantParams = { merchantId: Schema.String }
const settlementParams = { merchantId: Schema.String, id: Schema.String }
const merchantNotFound = wire(MerchantNotFound, "MerchantNotFound")

/**
 * Partner API: merchants, their crypto settlement destinations and their payments (API rules §11).
 * `/v1/merchants/payments` is a static path, which the router always prefers over
 * `/v1/merchants/:merchantId`.
 */
export class MerchantsApi extends HttpApiGroup.make("merchants")
  .add(
    HttpApiEndpoint.post("create", "/v1/merchants", {
      payload: CreateMerchantRequest,
      success: MerchantRecord.pipe(HttpApiSchema.status(201)),
      error: wire(MerchantExists, "MerchantExists")
    }).annotate(OpenApi.Summary, "Create a merchant; requires Idempotency-Key, a retry answers the same merchant"),
    HttpApiEndpoint.get("list", "/v1/merchants", {
      query: {
        status: Schema.optionalKey(Schema.String.annotate({ description: "active (default) or deleted." })),
        search: Schema.optionalKey(Schema.String.annotate({ description: "Part of the name (any case) or a merchant id." })),
        cursor: Schema.optionalKey(Schema.String.annotate({ description: "nextCursor of the previous page." })),
        limit: Schema.optionalKey(Schema.String.annotate({ description: "1 to 100; default 20." }))
      },
      success: MerchantPage
    }).annotate(OpenApi.Summary, "List the partner's merchants, newest first"),
    HttpApiEndpoint.get("payments", "/v1/merchants/payments", {
      headers: { "merchant-id": Schema.optionalKey(Schema.String.annotate({ description: "The merchant (required)." })) },
      query: PaymentListFilters,
      success: PaymentPage,
      error: [wire(MissingMerchantId, "MissingMerchantId"), merchantNotFound]
    }).annotate(OpenApi.Summary, "List one merchant's payments (Merchant-Id header), with optional filters"),
    HttpApiEndpoint.get("get", "/v1/merchants/:merchantId", {
      params: merchantParams,
      success: MerchantDetail,
      error: merchantNotFound
    }).annotate(OpenApi.Summary, "A merchant's profile and configured settlements"),
    HttpApiEndpoint.patch("update", "/v1/merchants/:merchantId", {
      params: merchantParams,
      payload: UpdateMerchantRequest,
      success: MerchantRecord,
      error: [merchantNotFound, wire(MerchantExists, "MerchantExists")]
    }).annotate(OpenApi.Summary, "Update a merchant's profile; iconUrl: null unsets the logo"),
    HttpApiEndpoint.delete("remove", "/v1/merchants/:merchantId", {
      params: merchantParams,
      success: Schema.Struct({ merchantId: Schema.String, deleted: Schema.Literal(true) }).annotate({ identifier: "MerchantDeleted" }),
      error: merchantNotFound
    }).annotate(OpenApi.Summary, "Soft-delete a merchant (idempotent)"),
    HttpApiEndpoint.get("paymentsByPath", "/v1/merchants/:merchantId/payments", {
      params: merchantParams,
      query: PaymentListFilters,
      success: HttpApiSchema.WithHeaders(PaymentPage, {
        deprecation: Schema.Literal("true"),
        link: Schema.String
      }),
      error: merchantNotFound
    })
      .annotate(OpenApi.Summary, "Deprecated: use GET /v1/merchants/payments with a Merchant-Id header")
      .annotate(OpenApi.Deprecated, true),
    HttpApiEndpoint.get("settlements", "/v1/merchants/:merchantId/settlements", {
      params: merchantParams,
      success: MerchantSettlements,
      error: merchantNotFound
    }).annotate(OpenApi.Summary, "List a merchant's fiat and crypto settlement destinations"),
    HttpApiEndpoint.post("registerCrypto", "/v1/merchants/:merchantId/settlements/crypto", {
      params: merchantParams,
      payload: RegisterSettlementsRequest,
      success: Schema.Struct({ crypto: Schema.Array(CryptoSettlementRecord) })
        .annotate({ identifier: "RegisteredSettlements" })
        .pipe(HttpApiSchema.status(201)),
      error: [merchantNotFound, wire(InvalidState, "InvalidState")]
    }).annotate(OpenApi.Summary, "Register crypto settlement destinations (all or nothing; one per asset)"),
    HttpApiEndpoint.put("changeCrypto", "/v1/merchants/:merchantId/settlements/crypto/:id", {
      params: settlementParams,
      payload: ChangeSettlementRequest,
      success: CryptoSettlementRecord,
      error: merchantNotFound
    }).annotate(OpenApi.Summary, "Change a crypto settlement's destination (same chain as its asset)"),
    HttpApiEndpoint.delete("removeCrypto", "/v1/merchants/:merchantId/settlements/crypto/:id", {
      params: settlementParams,
      success: Schema.Struct({ id: Schema.String, deleted: Schema.Literal(true) }).annotate({ identifier: "SettlementDeleted" }),
      error: merchantNotFound
    }).annotate(OpenApi.Summary, "Remove a crypto settlement destination")
  )
  .middleware(PartnerAuth)
  .annotate(OpenApi.Title, "Merchants")
{}
