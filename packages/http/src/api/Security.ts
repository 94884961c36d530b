import type { ApiVersion, Mode, Partner } from "@paygate/domain"
import {
  ApiVersionDowngrade,
  HeaderNotAscii,
  IdempotencyConflict,
  InternalError,
  InvalidApiKey,
  InvalidApiVersion,
  InvalidParams,
  MissingApiKey,
  MissingMerchantApiKey,
  MissingMerchantId,
  NotSandboxApiKey,
  ParamsValidation,
  RateLimited,
  UnknownApiVersion
} from "@paygate/domain"
import { Context } from "effect"
import { HttpApiMiddleware } from "effect/http-api"
import { wire } from "./ErrorWire.ts"

/** The authenticated partner credential behind a request. */
export class CurrentCaller extends Context.Service<CurrentCaller, {
  readonly partner: Partner
  readonly mode: Mode
  readonly keyId: string
  readonly version: ApiVersion
}>()("@paygate/http/CurrentCaller") {}

/** The `Merchant-Id` of a Merchant API request (resolved against the partner by the handler). */
export class CurrentMerchantId extends Context.Service<CurrentMerchantId, string>()("@paygate/http/CurrentMerchantId") {}

// Errors any authenticated request can meet before its handler runs (contract §2 check order).
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

/** Partner API authentication: `Api-Key` = partner secret key (contract §3). */
export class PartnerAuth extends HttpApiMiddleware.Service<PartnerAuth, { provides: CurrentCaller }>()(
  "@paygate/http/PartnerAuth",
  { error: [...pipelineErrors, wire(MissingApiKey, "MissingApiKey")] }
) {}

/** Merchant API authentication: `Api-Key` (partner secret key) + `Merchant-Id` (contract §3). */
export class MerchantAuth extends HttpApiMiddleware.Service<MerchantAuth, { provides: CurrentCaller | CurrentMerchantId }>()(
  "@paygate/http/MerchantAuth",
  { error: [...pipelineErrors, wire(MissingMerchantApiKey, "MissingMerchantApiKey"), wire(MissingMerchantId, "MissingMerchantId")] }
) {}
