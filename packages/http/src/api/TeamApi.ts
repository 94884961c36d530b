import { ApiKeyNotFound, InvalidState, Mode } from "@paygate/domain"
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import { wire } from "./ErrorWire.ts"
import { PartnerAuth } from "./Security.ts"
import * as Wire from "./wire/index.ts"
import { TeamRole } from "./wire/TeamRole.ts"

/** Body of `POST /v1/team/invitations`. */
export const InvitationRequest = Schema.Struct({
  email: Schema.String.annotate({ description: "The member's email: it becomes their sign-in name." }),
  role: TeamRole
}).annotate({ identifier: "TeamInvitationRequest" })

/** An invitation as its creator sees it, once: the link is the only way to accept it. */
export const InvitationRecord = Schema.Struct({
  invitationId: Schema.String,
  email: Schema.String,
  role: TeamRole,
  mode: Mode,
  /** The one-time link to hand to the member (no mail is sent): valid until `expiresAt`. */
  url: Schema.String,
  /** Unix seconds. */
  expiresAt: Wire.NonNegativeInt
}).annotate({ identifier: "TeamInvitation" })

/** A member of the partner's team. */
export const MemberRecord = Schema.Struct({
  memberId: Schema.String,
  email: Schema.String,
  role: TeamRole,
  /** Unix seconds. */
  createdAt: Wire.NonNegativeInt
}).annotate({ identifier: "TeamMember" })

/** One entry of the audit log. */
export const AuditRecord = Schema.Struct({
  /** `key:<key id>` (an API key or its dashboard session) or `member:<email>`. */
  actor: Schema.String,
  /** The operation, `group.endpoint` (e.g. `refunds.create`). */
  action: Schema.String,
  /** What it acted on: the path, and the id a creation's response named. */
  subject: Schema.String,
  /** Unix seconds. */
  at: Wire.NonNegativeInt
}).annotate({ identifier: "AuditEntry" })

const memberId = { memberId: Schema.String }
// A member is one of the partner's credentials, like a key: an unknown one gets the response a missing key gets.
const memberErrors = [wire(ApiKeyNotFound, "ApiKeyNotFound"), wire(InvalidState, "InvalidState")]

/**
 * Partner API: the dashboard team (docs/team.md). Owners (and API keys) invite, change roles and
 * remove members and read the audit log; every member may list the team.
 */
export class TeamApi extends HttpApiGroup.make("team")
  .add(
    HttpApiEndpoint.post("invite", "/v1/team/invitations", {
      payload: InvitationRequest,
      success: InvitationRecord.pipe(HttpApiSchema.status(201))
    }).annotate(OpenApi.Summary, "Invite a member by email with a role; answers the one-time link (hand it over: no mail is sent)"),
    HttpApiEndpoint.get("members", "/v1/team/members", {
      success: Schema.Struct({ data: Schema.Array(MemberRecord) }).annotate({ identifier: "TeamMemberList" })
    }).annotate(OpenApi.Summary, "List the team's members of the caller's mode"),
    HttpApiEndpoint.patch("changeRole", "/v1/team/members/:memberId", {
      params: memberId,
      payload: Schema.Struct({ role: TeamRole }).annotate({ identifier: "TeamRoleChange" }),
      success: MemberRecord,
      error: memberErrors
    }).annotate(OpenApi.Summary, "Change a member's role (the last owner stays an owner: 409 invalid_state; an unknown member: 404 api_key_not_found)"),
    HttpApiEndpoint.delete("remove", "/v1/team/members/:memberId", {
      params: memberId,
      success: HttpApiSchema.NoContent,
      error: memberErrors
    }).annotate(OpenApi.Summary, "Remove a member and end their sessions (never the last owner: 409 invalid_state)"),
    HttpApiEndpoint.get("audit", "/v1/audit-log", {
      query: { limit: Schema.optionalKey(Schema.String.annotate({ description: "1 to 500; default 100." })) },
      success: Schema.Struct({ data: Schema.Array(AuditRecord) }).annotate({ identifier: "AuditLog" })
    }).annotate(OpenApi.Summary, "The audit log of the caller's mode, newest first: who changed what, when")
  )
  .middleware(PartnerAuth)
  .annotate(OpenApi.Title, "Team")
{}
