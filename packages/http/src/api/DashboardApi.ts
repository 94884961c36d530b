import { Forbidden, InvalidParams, Mode, ParamsValidation } from "@paygate/domain"
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiMiddleware, HttpApiSchema, OpenApi } from "effect/http-api"
import { wire } from "./ErrorWire.ts"
import { HeaderNotAscii, InternalError, InvalidApiKey, MissingApiKey, NotSandboxApiKey, RateLimited, Unauthorized } from "./HttpErrors.ts"
import { TeamRole } from "./wire/TeamRole.ts"

/**
 * Body of `POST /dashboard/session`: the partner secret key, sent once and never stored in the
 * browser; or a team member's email and password.
 */
export const SignInRequest = Schema.Struct({
  apiKey: Schema.optionalKey(Schema.String.annotate({ description: "A partner secret key (sk_live_… / sk_test_…)." })),
  email: Schema.optionalKey(Schema.String.annotate({ description: "A team member's email (with password, instead of apiKey)." })),
  password: Schema.optionalKey(Schema.String)
}).annotate({ identifier: "DashboardSignIn" })

/** Body of `POST /dashboard/invitation`: the invitation link's token and the new member's password. */
export const AcceptInvitationRequest = Schema.Struct({
  token: Schema.String.annotate({ description: "What follows `#` in the invitation link." }),
  password: Schema.String.annotate({ description: "12 to 1024 characters; stored as a scrypt hash." })
}).annotate({ identifier: "DashboardAcceptInvitation" })

/** An open dashboard session. */
export const DashboardSessionRecord = Schema.Struct({
  partnerId: Schema.String,
  partnerName: Schema.String,
  /** The key the session acts as. */
  keyId: Schema.String,
  mode: Mode,
  /** Send it as the `Csrf-Token` header with every change made with the session's cookie. */
  csrfToken: Schema.String,
  /** Unix seconds: when the session ends unless used before (each use moves it on, up to its absolute end). */
  expiresAt: Schema.Int,
  /** The team member signed in (their role limits the session), or `null` for a key's session. */
  member: Schema.NullOr(Schema.Struct({ memberId: Schema.String, email: Schema.String, role: TeamRole }))
}).annotate({ identifier: "DashboardSession" })

/**
 * The dashboard endpoints' guard: renders every failure (a malformed body included) as the
 * contract's `{"code", "message"}`, and checks the ASCII of the headers it reads.
 */
export class DashboardGuard extends HttpApiMiddleware.Service<DashboardGuard>()("@paygate/http/DashboardGuard", {
  error: [wire(HeaderNotAscii, "HeaderNotAscii"), wire(InvalidParams, "InvalidParams"), wire(InternalError, "InternalError")]
}) {}

const ended = wire(Unauthorized, "Unauthorized")

/**
 * The dashboard's session: a partner secret key exchanged once for an HttpOnly,
 * SameSite=Strict cookie `paygate_session`, which then authenticates the partner API as that key
 * would (every `/v1/…` partner operation; not the merchant API or the gateway). A change made with
 * the cookie must carry the session's `Csrf-Token` header.
 */
export class DashboardApi extends HttpApiGroup.make("dashboard")
  .add(
    HttpApiEndpoint.post("signIn", "/dashboard/session", {
      payload: SignInRequest,
      success: DashboardSessionRecord.pipe(HttpApiSchema.status(201)),
      error: [
        wire(MissingApiKey, "MissingApiKey"),
        wire(InvalidApiKey, "InvalidApiKey"),
        wire(Forbidden, "Forbidden"),
        wire(NotSandboxApiKey, "NotSandboxApiKey"),
        wire(RateLimited, "RateLimited"),
        wire(Unauthorized, "Unauthorized")
      ]
    }).annotate(OpenApi.Summary, "Sign in to the dashboard with a partner secret key or a member's email and password; sets the session cookie")
      .annotate(
        OpenApi.Description,
        "A team member sends `{\"email\", \"password\"}` instead of `apiKey` (a wrong pair: `401 unauthorized`). " +
          "Takes `Content-Type: application/json` only, and refuses a request a browser marks as coming from another " +
          "origin (`Origin`, `Sec-Fetch-Site`: `forbidden`); a live key signs in over TLS only (`forbidden`). Checks the " +
          "key as the partner API does (missing → `missing_api_key`, unknown, revoked or wallet key → " +
          "`invalid_api_key`, live key on staging → `not_sandbox_api_key`) and answers the session with " +
          "`Set-Cookie: paygate_session=…; HttpOnly; SameSite=Strict; Path=/` (`Secure` when PUBLIC_URL is https or the " +
          "request came over TLS). Failed attempts are limited per client and for all clients together (`429 rate_limited` " +
          "with `Retry-After`). The session ends after DASHBOARD_SESSION_IDLE_SECONDS unused (default 1 h), " +
          "DASHBOARD_SESSION_MAX_SECONDS after sign-in (default 12 h), on sign-out, or when its key is revoked."
      ),
    HttpApiEndpoint.post("acceptInvitation", "/dashboard/invitation", {
      payload: AcceptInvitationRequest,
      success: DashboardSessionRecord.pipe(HttpApiSchema.status(201)),
      error: [wire(Unauthorized, "Unauthorized"), wire(Forbidden, "Forbidden"), wire(ParamsValidation, "ParamsValidation"), wire(RateLimited, "RateLimited")]
    }).annotate(OpenApi.Summary, "Accept a team invitation: sets the member's password and signs them in (sets the session cookie)")
      .annotate(
        OpenApi.Description,
        "The token is what follows `#` in the invitation link; it works once, until it expires (7 days). The password " +
          "(12 to 1024 characters, else `params_validation`) is stored as a scrypt hash. A used, expired or unknown token " +
          "is `401 unauthorized`. Refused from another origin (`forbidden`) and limited like sign-in (`429 rate_limited`)."
      ),
    HttpApiEndpoint.get("session", "/dashboard/session", {
      success: DashboardSessionRecord,
      error: ended
    }).annotate(OpenApi.Summary, "The current dashboard session (with its CSRF token), or 401 unauthorized when it has ended"),
    HttpApiEndpoint.delete("signOut", "/dashboard/session", {
      success: HttpApiSchema.NoContent,
      error: [ended, wire(Forbidden, "Forbidden")]
    }).annotate(OpenApi.Summary, "Sign out: ends the session and clears its cookie (needs the Csrf-Token header)")
  )
  .middleware(DashboardGuard)
  .annotate(OpenApi.Title, "Dashboard")
{}
