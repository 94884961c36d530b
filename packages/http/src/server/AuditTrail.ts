/**
 * The audit log's writer: every partner API change that succeeds (a refund, a key, a webhook, a
 * payment link, a member…) is recorded with who made it (`key:<key id>` for an API key or a key's
 * dashboard session, `member:<email>` for a team member), the operation (`group.endpoint`), what
 * it acted on (the path, and the id a creation's response named) and when. Reads are not recorded.
 *
 * @module
 */
import { type Member, type Mode, type PartnerId, TeamStore } from "@paygate/domain"
import { Clock, Effect } from "effect"
import type { HttpServerRequest, HttpServerResponse } from "effect/http"

/** Who an audit entry names. */
export const actorOf = (keyId: string, member?: Member) => (member === undefined ? `key:${keyId}` : `member:${member.email}`)

const decoder = new TextDecoder()

// The path, and for a creation the first id its response names that the path does not.
const subjectOf = (request: HttpServerRequest.HttpServerRequest, response: HttpServerResponse.HttpServerResponse) => {
  const path = request.url.split("?")[0] ?? request.url
  if (response.body._tag !== "Uint8Array") return path
  try {
    const responseBody: unknown = JSON.parse(decoder.decode(response.body.body))
    if (typeof responseBody !== "object" || responseBody === null) return path
    const created = Object.entries(responseBody).find(([name, value]) => /Id$|^id$/.test(name) && typeof value === "string" && !path.includes(value))
    return created === undefined ? path : `${path} ${created[1]}`
  } catch {
    return path
  }
}

/** Wraps a partner request's handler so that a change it makes is recorded. */
export const auditTrail = Effect.map(Effect.service(TeamStore), (team) =>
  <E, R>(
    request: HttpServerRequest.HttpServerRequest,
    operation: string,
    caller: { readonly partner: { readonly id: PartnerId }; readonly mode: Mode; readonly actor: string },
    handled: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>
  ) =>
    request.method === "GET" || request.method === "HEAD"
      ? handled
      : Effect.tap(handled, (response) =>
        response.status >= 400
          ? Effect.void
          : Effect.flatMap(Clock.currentTimeMillis, (at) =>
            team.record({ partnerId: caller.partner.id, mode: caller.mode, actor: caller.actor, action: operation, subject: subjectOf(request, response), at }))))
