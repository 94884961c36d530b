import {
  type AppId,
  kindOfSecret,
  latestStableVersion,
  type Mode
} from "@paygate/domain"
import {
  ConflictingAuthHeaders,
  InvalidApiKey,
  InvalidAppId,
  MissingAppId,
  MissingAuthHeaders,
  MissingClientId,
  NotSandboxApiKey,
  Unauthorized
} from "../api/HttpErrors.ts"
import { Effect, Option } from "effect"
import type { Headers } from "effect/http"
import type { CurrentGatewayCaller } from "../api/Security.ts"
import { headerValue } from "./HeaderChecks.ts"
import { findKey, type KeyLookup } from "./PartnerCredential.ts"
import type { Authenticated } from "./Pipeline.ts"

// Every gateway path is `/v1/gateway/payment/{id}…`; an id of the accepted form names the payment.
const gatewayPayment = /^\/v1\/gateway\/payment\/(pay_[A-Za-z0-9]{1,64})(?:[/?]|$)/

/**
 * What an app's caller is rate limited by: the app and the payment the request is about. The
 * `Client-Id` is the caller's own choice (the hosted checkout makes a new one per page load), so
 * counting by it would let anyone take a fresh allowance per request. A payment id is an
 * unguessable capability; ids that are not of its form share one allowance per app.
 */
export const appRateLimitKey = (appId: string, url: string) => `${appId}:${gatewayPayment.exec(url)?.[1] ?? "-"}`

/**
 * Gateway authentication (API rules §2): a wallet `Api-Key`, or a public `App-Id` with any
 * `Client-Id`. `Api-Key` + `App-Id` conflict; `Api-Key` + `Client-Id` is fine. `url` is the
 * request's path and query.
 */
export const authenticateGateway = Effect.fnUntraced(function*(
  keys: KeyLookup,
  headers: Headers.Headers,
  url: string,
  environment: "production" | "staging"
) {
  const apiKey = headerValue(headers, "api-key")
  const appId = headerValue(headers, "app-id")
  const clientId = headerValue(headers, "client-id")
  if (apiKey !== undefined && appId !== undefined) {
    return yield* new ConflictingAuthHeaders({ message: "Send either Api-Key or App-Id with Client-Id, not both." })
  }
  if (apiKey === undefined && appId === undefined) {
    return yield* clientId === undefined
      ? new MissingAuthHeaders({ message: "Send a wallet Api-Key, or App-Id with Client-Id." })
      : new MissingAppId({ message: "Client-Id needs an App-Id." })
  }
  let credential: CurrentGatewayCaller["Service"]["credential"]
  let mode: Mode
  if (apiKey !== undefined) {
    const kind = kindOfSecret(apiKey)
    if (kind === "partner") {
      return yield* new Unauthorized({ message: "Partner secret keys are for servers; the gateway takes a wallet key (wk_…) or App-Id with Client-Id." })
    }
    const key = kind === "wallet" ? (yield* findKey(keys, apiKey))?.key : undefined
    if (key === undefined || key.kind !== "wallet") return yield* new InvalidApiKey({ message: "The API key is not valid." })
    credential = { _tag: "WalletKey", keyId: key.id }
    mode = key.mode
  } else {
    if (clientId === undefined) return yield* new MissingClientId({ message: "App-Id needs a Client-Id." })
    const app = /^app_[A-Za-z0-9]{1,64}$/.test(appId!) ? yield* keys.store.findApp(appId as AppId) : Option.none()
    if (Option.isNone(app)) return yield* new InvalidAppId({ message: "The App-Id is not valid." })
    credential = { _tag: "App", appId: app.value.id, clientId }
    mode = app.value.mode
  }
  if (environment === "staging" && mode === "live") {
    return yield* new NotSandboxApiKey({ message: "This deployment accepts sandbox credentials only." })
  }
  // Idempotency keys are scoped to the wallet key, or to one client of an app (the hosted portal's
  // buyers share its App-Id); the rate limit counts per wallet key, or per app and payment.
  const scope = credential._tag === "WalletKey" ? credential.keyId : `${credential.appId}:${credential.clientId}`
  const keyId = credential._tag === "WalletKey" ? credential.keyId : appRateLimitKey(credential.appId, url)
  const auth: Authenticated = { partnerId: `gateway:${scope}`, keyId, pinnedVersion: latestStableVersion }
  const sdk = {
    name: headerValue(headers, "sdk-name") ?? null,
    version: headerValue(headers, "sdk-version") ?? null,
    platform: headerValue(headers, "sdk-platform") ?? null
  }
  return { auth, caller: { mode, credential, sdk } }
})
