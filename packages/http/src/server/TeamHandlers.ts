import * as HandlerGroup from "./HandlerGroup.ts"
import { ApiKeyNotFound, InvalidState, type Member, type MemberChange, ParamsValidation, TeamInvitations, TeamStore } from "@paygate/domain"
import { Effect } from "effect"
import { PaygateApi } from "../api/Api.ts"
import { CurrentCaller } from "../api/Security.ts"
import { DashboardSessions } from "./DashboardSessions.ts"

const seconds = (millis: number) => Math.floor(millis / 1000)

const toRecord = (member: Member) => ({ memberId: member.id, email: member.email, role: member.role, createdAt: seconds(member.createdAt) })

const refusalOf = (change: MemberChange, memberId: string) =>
  change === "not_found"
    ? Effect.fail(new ApiKeyNotFound({ message: `No member ${memberId} in your team.` }))
    : change === "last_owner"
    ? Effect.fail(new InvalidState({ message: "The team needs an owner: make another member an owner first." }))
    : Effect.void

const limitOf = (limit: string | undefined) => {
  if (limit === undefined) return Effect.succeed(100)
  const value = /^\d{1,3}$/.test(limit) ? Number(limit) : 0
  return value >= 1 && value <= 500 ? Effect.succeed(value) : Effect.fail(new ParamsValidation({ message: "limit must be an integer from 1 to 500." }))
}

/** The team's handlers: invitations, members, the audit log (who may call which: server/Permissions.ts). */
export const TeamHandlers = HandlerGroup.group(
  PaygateApi,
  "team",
  Effect.fn(function*(handlers) {
    const team = yield* TeamStore
    const invitations = yield* TeamInvitations
    const { settings } = yield* DashboardSessions
    return handlers
      .handle("invite", ({ payload, request }) =>
        Effect.gen(function*() {
          const caller = yield* CurrentCaller
          // PUBLIC_URL's origin, else the address this request came to.
          const origin = settings.publicOrigin ?? `http://${request.headers.host ?? "localhost"}`
          return yield* invitations.invite({ partnerId: caller.partner.id, mode: caller.mode, email: payload.email, role: payload.role, invitedBy: caller.actor }, origin)
        }))
      .handle("members", () =>
        Effect.gen(function*() {
          const caller = yield* CurrentCaller
          return { data: (yield* team.list(caller.partner.id, caller.mode)).map(toRecord) }
        }))
      .handle("changeRole", ({ params, payload }) =>
        Effect.gen(function*() {
          const caller = yield* CurrentCaller
          yield* refusalOf(yield* team.changeRole(caller.partner.id, caller.mode, params.memberId, payload.role), params.memberId)
          const members = yield* team.list(caller.partner.id, caller.mode)
          return toRecord(members.find((member) => member.id === params.memberId)!)
        }))
      .handle("remove", ({ params }) =>
        Effect.gen(function*() {
          const caller = yield* CurrentCaller
          yield* refusalOf(yield* team.remove(caller.partner.id, caller.mode, params.memberId), params.memberId)
        }))
      .handle("audit", ({ query }) =>
        Effect.gen(function*() {
          const caller = yield* CurrentCaller
          const entries = yield* team.audit(caller.partner.id, caller.mode, yield* limitOf(query.limit))
          return { data: entries.map((entry) => ({ actor: entry.actor, action: entry.action, subject: entry.subject, at: seconds(entry.at) })) }
        }))
  })
)
