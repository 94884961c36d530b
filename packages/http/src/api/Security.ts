import type { ApiVersion, Mode, Partner } from "@paygate/domain"
import { Forbidden, IdempotencyConflict, InvalidParams, ParamsValidation } from "@paygate/domain"
import {
  ApiVersionDowngrade,
  ConflictingAuthHeaders,
  HeaderNotAscii,
  InternalError,
  InvalidApiKey,
  InvalidApiVersion,
  InvalidAppId,
  MissingApiKey,
  MissingAppId,
  MissingAuthHeaders,
  MissingClientId,
  MissingMerchantApiKey,
  MissingMerchantId,
  NotSandboxApiKey,
  RateLimited,
  Unauthorized,
  UnknownApiVersion
} from "./HttpErrors.ts"
import { Context } from "effect"
import { HttpApiMiddleware } from "effect/http-api"
import { wire } from "./ErrorWire.ts"

/** The authenticated partner credential behind a request. */
export class CurrentCaller extends Context.Service<CurrentCaller, {
  readonly partner: Partner
  readonly mode: Mode
  readonly keyId: string
  /** Who the audit log names: `key:<key id>`, or `member:<email>` for a team member's session. */
  readonly actor: string
  readonly version: ApiVersion
}>()("@paygate/http/CurrentCaller") {}

/** The `Merchant-Id` of a Merchant API request (resolved against the partner by the handler). */
export class CurrentMerchantId extends Context.Service<CurrentMerchantId, string>()("@paygate/http/CurrentMerchantId") {}

// Errors any authenticated request can meet before its handler runs (API rules §1 check order).
const pipelineErrors = [
  wire(HeaderNotAscii, "HeaderNotAscii"),
  wire(InvalidApiKey, "InvalidApiKey"),
  wire(NotSandboxApiKey, "NotSandboxApiKey"),
  wire(InvalidApiVersion, "InvalidApiVersion"),
  wire(UnknownApiVersion, "UnknownApiVersion"),
  wire(ApiVersionDowngrade, "ApiVersionDowngrade"),
  wire(RateLimited, "RateLimited"),
  wire(InvalidParams, "InvalidParams"),
  wire(ParamsValidation, "ParamsValidation"),
  wire(IdempotencyConflict, "IdempotencyConflict"),
  wire(InternalError, "InternalError")
] as const

// A known credential of the wrong kind for the API (a wallet key on the partner API).
const wrongKind = wire(Forbidden, "Forbidden")

/** The wallet (or hosted portal) behind a gateway request. Payment ids are its capability. */
export class CurrentGatewayCaller extends Context.Service<CurrentGatewayCaller, {
  readonly mode: Mode
  /** `wallet` key id, or the app id with the caller's `Client-Id`. */
  readonly credential:
    | { readonly _tag: "WalletKey"; readonly keyId: string }
    | { readonly _tag: "App"; readonly appId: string; readonly clientId: string }
  readonly version: ApiVersion
  /** `Sdk-Name`, `Sdk-Version`, `Sdk-Platform`: recorded, never required. */
  readonly sdk: { readonly name: string | null; readonly version: string | null; readonly platform: string | null }
}>()("@paygate/http/CurrentGatewayCaller") {}

/** Gateway authentication: a wallet `Api-Key`, or `App-Id` + `Client-Id` (API rules §2). */
export class GatewayAuth extends HttpApiMiddleware.Service<GatewayAuth, { provides: CurrentGatewayCaller }>()(
  "@paygate/http/GatewayAuth",
  {
    error: [
      ...pipelineErrors,
      wire(MissingAuthHeaders, "MissingAuthHeaders"),
      wire(ConflictingAuthHeaders, "ConflictingAuthHeaders"),
      wire(MissingAppId, "MissingAppId"),
      wire(MissingClientId, "MissingClientId"),
      wire(InvalidAppId, "InvalidAppId"),
      wire(Unauthorized, "Unauthorized")
    ]
  }
) {}

/**
 * Partner API authentication: `Api-Key` = partner secret key (API rules §2), or a dashboard
 * session's cookie (`unauthorized` once the session has ended).
 */
export class PartnerAuth extends HttpApiMiddleware.Service<PartnerAuth, { provides: CurrentCaller }>()(
  "@paygate/http/PartnerAuth",
  { error: [...pipelineErrors, wrongKind, wire(MissingApiKey, "MissingApiKey"), wire(Unauthorized, "Unauthorized")] }
) {}

/** Merchant API authentication: `Api-Key` (partner secret key) + `Merchant-Id` (API rules §2). */
export class MerchantAuth extends HttpApiMiddleware.Service<MerchantAuth, { provides: CurrentCaller | CurrentMerchantId }>()(
  "@paygate/http/MerchantAuth",
  {
    error: [...pipelineErrors, wrongKind, wire(MissingMerchantApiKey, "MissingMerchantApiKey"), wire(MissingMerchantId, "MissingMerchantId")]
  }
) {}
