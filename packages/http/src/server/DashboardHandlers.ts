import * as HandlerGroup from "./HandlerGroup.ts"
import { InvalidParams, ParamsValidation } from "@paygate/domain"
import { type ContractError, isContractError } from "../api/ErrorCodes.ts"
import { RateLimited } from "../api/HttpErrors.ts"
import { Effect, Layer, Schema } from "effect"
import { HttpServerRequest, HttpServerResponse } from "effect/http"
import { PaygateApi } from "../api/Api.ts"
import { DashboardGuard } from "../api/DashboardApi.ts"
import { errorResponse } from "./ErrorResponses.ts"
import { ClientAddress } from "./ClientAddress.ts"
import { teamSignIn } from "./TeamSignIn.ts"
import { requireAsciiHeaders } from "./HeaderChecks.ts"
import { Environment } from "../settings/Environment.ts"
import { csrfHeader, DashboardSessions, secureCookieFor, sessionCookie, sessionCookieHeader, type SessionView } from "./DashboardSessions.ts"
import { renderFailures } from "./Pipeline.ts"
import { refuseUnknownBodyFields, unknownFieldMessage, unknownFieldOf } from "./UnknownFields.ts"
import { requireWellFormedText } from "./WellFormedText.ts"

// `null` and absent alike: no key (missing_api_key); anything but a string or an object is invalid_params.
const decodeSignIn = Schema.decodeUnknownEffect(
  Schema.fromJsonString(Schema.Struct({
    apiKey: Schema.optionalKey(Schema.NullOr(Schema.String)),
    email: Schema.optionalKey(Schema.String),
    password: Schema.optionalKey(Schema.String)
  })),
  { onExcessProperty: "error" }
)

/** What a sign-in presents: a key (maybe none), or a member's email and password. */
type Credentials = { readonly apiKey: string | undefined } | { readonly email: string; readonly password: string }

const credentialsOf = (text: string): Effect.Effect<Credentials, InvalidParams | ParamsValidation> =>
  text.trim() === ""
    ? Effect.succeed({ apiKey: undefined })
    : decodeSignIn(text).pipe(
      Effect.map((body): Credentials =>
        body.email !== undefined && body.apiKey === undefined
          ? { email: body.email, password: body.password ?? "" }
          : { apiKey: body.apiKey ?? undefined }
      ),
      Effect.mapError((error) => {
        const unknownField = unknownFieldOf(error.issue)
        return unknownField !== undefined
          ? new ParamsValidation({ message: unknownFieldMessage(unknownField) })
          : new InvalidParams({ message: 'The body must be JSON {"apiKey": "sk_…"} with the key as a string, or {"email", "password"}.' })
      })
    )

const unreadable = new InvalidParams({ message: "The request body could not be read; it must be JSON of at most 64 KiB." })

// A form can post any body, but only with a form's content types: JSON alone cannot come from one.
const notJson = new InvalidParams({ message: 'Sign in with Content-Type: application/json and the body {"apiKey": "sk_…"}.' })
const isJson = (contentType: string | undefined) => contentType?.split(";")[0]?.trim().toLowerCase() === "application/json"

// Session responses carry the CSRF token: never cached.
const noStore = { "cache-control": "no-store" }

/**
 * The dashboard guard: ASCII headers, well-formed strings (server/WellFormedText.ts), no unknown
 * body fields (server/UnknownFields.ts), contract errors for every failure.
 */
export const DashboardGuardLive = Layer.succeed(DashboardGuard, (httpEffect, { endpoint }) =>
  Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const checked = requireAsciiHeaders(request.headers, [csrfHeader]).pipe(
      Effect.andThen(requireWellFormedText(endpoint)),
      Effect.andThen(refuseUnknownBodyFields(endpoint))
    )
    return yield* renderFailures(request, Effect.andThen(checked, httpEffect))
  }))

/** `POST`, `GET` and `DELETE /dashboard/session` (server/DashboardSessions.ts) and `POST /dashboard/invitation` (server/TeamSignIn.ts). */
export const DashboardHandlers = HandlerGroup.group(
  PaygateApi,
  "dashboard",
  Effect.fn(function*(handlers) {
    const sessions = yield* DashboardSessions
    const clients = yield* ClientAddress
    const environment = yield* Environment
    const { settings } = sessions
    const members = yield* teamSignIn
    const clearedFor = (request: HttpServerRequest.HttpServerRequest) => ({
      ...noStore,
      "set-cookie": sessionCookieHeader(secureCookieFor(settings, clients.of(request)))
    })
    // Takes a sign-in attempt of the client, then opens the session and responds with it and its cookie
    // (a success gives the attempt back).
    const attempted = <E>(
      request: HttpServerRequest.HttpServerRequest,
      signIn: () => Effect.Effect<{ readonly token: string; readonly view: SessionView }, E>
    ) =>
      Effect.gen(function*() {
        const client = clients.of(request)
        const retryAfter = yield* sessions.takeAttempt(client)
        if (retryAfter !== undefined) {
          return errorResponse(new RateLimited({ message: `Too many failed sign-ins; retry after ${retryAfter} s.` }), {
            "retry-after": String(retryAfter)
          })
        }
        const { token, view } = yield* signIn()
        yield* sessions.giveBack(client)
        const cookie = sessionCookieHeader(secureCookieFor(settings, client), { value: token, maxSeconds: Math.floor(settings.maxMillis / 1000) })
        return HttpServerResponse.jsonUnsafe(view, { status: 201, headers: { ...noStore, "set-cookie": cookie } })
      })
    // Refusals are responded to here (the session service speaks every contract code); an ended
    // session's response also clears its cookie.
    const refused = (request: HttpServerRequest.HttpServerRequest) => (error: ContractError) =>
      Effect.succeed(errorResponse(error, error._tag === "Unauthorized" ? clearedFor(request) : noStore))
    return handlers
      .handleRaw("signIn", ({ request }) =>
        Effect.gen(function*() {
          const client = clients.of(request)
          yield* sessions.admit(request.headers)
          if (!isJson(request.headers["content-type"])) return yield* notJson
          // The body is the credential: read first (a malformed one, one without a key or a live key over
          // plain HTTP is no attempt), then the client's allowance.
          const credentials = yield* credentialsOf(yield* request.text.pipe(Effect.mapError(() => unreadable)))
          if ("email" in credentials) {
            return yield* attempted(request, () => members.signIn(credentials.email, credentials.password, environment))
          }
          const apiKey = yield* sessions.checkKey(credentials.apiKey, client)
          return yield* attempted(request, () => sessions.signIn(apiKey, environment))
        }).pipe(Effect.catchIf(isContractError, refused(request))))
      .handle("acceptInvitation", ({ payload, request }) =>
        Effect.gen(function*() {
          yield* sessions.admit(request.headers)
          return yield* attempted(request, () => members.accept(payload.token, payload.password, environment))
        }).pipe(Effect.catch(refused(request))))
      .handle("session", ({ request }) =>
        sessions.resume(request.cookies[sessionCookie], environment).pipe(
          Effect.map(({ view }) => HttpServerResponse.jsonUnsafe(view, { headers: noStore })),
          Effect.catch(refused(request))
        ))
      .handle("signOut", ({ request }) =>
        Effect.gen(function*() {
          const token = request.cookies[sessionCookie] ?? ""
          yield* sessions.authenticate(token, { method: "DELETE", csrfToken: request.headers[csrfHeader], headers: request.headers }, environment)
          yield* sessions.signOut(token)
          return HttpServerResponse.empty({ status: 204, headers: clearedFor(request) })
        }).pipe(Effect.catch(refused(request))))
  })
)
