/**
 * Team invitations: a one-time token of 32 random bytes, kept only as its SHA-256, valid for
 * {@link invitationDays} days, handed over as a link to the dashboard (the token after `#`, so it
 * never reaches a server log or a `Referer`). paygate sends no mail: the link is returned to the
 * owner who invited (dashboard, API) or printed by the operator CLI.
 *
 * @module
 */
import { hashSecret } from "./ApiKeySecret.ts"
import { type InvitationLink, type InvitationRequest, normalEmail, TeamInvitations, TeamStore } from "@paygate/domain"
import { Clock, Effect, Layer } from "effect"
import { randomBytes } from "node:crypto"

/** How long an invitation can be accepted. */
export const invitationDays = 7

/** The dashboard's page that accepts an invitation; the token follows as the fragment. */
export const invitationPath = "/dashboard/invitation"

/** Stores an invitation and responds with it and its link under `origin` (e.g. `https://pay.example`). */
export const invite = Effect.fnUntraced(function*(request: InvitationRequest, origin: string) {
  const team = yield* TeamStore
  const email = yield* normalEmail(request.email)
  const now = yield* Clock.currentTimeMillis
  const token = randomBytes(32).toString("base64url")
  const invitation = {
    id: `inv_${randomBytes(13).toString("hex")}`,
    partnerId: request.partnerId,
    mode: request.mode,
    email,
    role: request.role,
    tokenSha256: hashSecret(token),
    invitedBy: request.invitedBy,
    createdAt: now,
    expiresAt: now + invitationDays * 86_400_000
  }
  yield* team.invite(invitation)
  return {
    invitationId: invitation.id,
    email,
    role: request.role,
    mode: request.mode,
    url: `${origin.replace(/\/+$/, "")}${invitationPath}#${token}`,
    expiresAt: Math.floor(invitation.expiresAt / 1000)
  } satisfies InvitationLink
})

/** The domain's `TeamInvitations` by {@link invite}, over the team store. */
export const layer: Layer.Layer<TeamInvitations, never, TeamStore> = Layer.effect(
  TeamInvitations,
  Effect.map(TeamStore, (team) =>
    TeamInvitations.of({ invite: (request, origin) => Effect.provideService(invite(request, origin), TeamStore, team) }))
)
