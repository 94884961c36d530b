import { Context, type Effect } from "effect"
import type { ParamsValidation } from "../errors/DomainErrors.ts"
import type { PartnerId } from "../ids/Ids.ts"
import type { Mode } from "../payment/Payment.ts"
import type { Role } from "../team/Role.ts"

/** Who is invited to which team, as what, by whom (an audit actor). */
export interface InvitationRequest {
  readonly partnerId: PartnerId
  readonly mode: Mode
  readonly email: string
  readonly role: Role
  readonly invitedBy: string
}

/** A stored invitation as its owner is answered: the link carries the one-time token. */
export interface InvitationLink {
  readonly invitationId: string
  /** The email as members are known by (`normalEmail`). */
  readonly email: string
  readonly role: Role
  readonly mode: Mode
  /** The dashboard's invitation page under the origin asked for, the token after `#`. */
  readonly url: string
  /** Unix seconds. */
  readonly expiresAt: number
}

/**
 * Team invitations: a one-time token kept only as its digest, handed over as a link (paygate sends
 * no mail: the dashboard, the API or the operator CLI answers the link to who invited).
 */
export class TeamInvitations extends Context.Service<TeamInvitations, {
  /** Stores an invitation and answers its link under `origin` (e.g. `https://pay.example`); a malformed email is `params_validation`. */
  readonly invite: (request: InvitationRequest, origin: string) => Effect.Effect<InvitationLink, ParamsValidation>
}>()("@paygate/domain/TeamInvitations") {}
