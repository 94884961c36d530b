/**
 * A team member's way in: accepting an invitation sets their password (the domain's
 * `PasswordHasher`) and signs them in; later they sign in with their email and password.
 * Both open an ordinary dashboard session (server/DashboardSessions.ts) that names the member.
 *
 * @module
 */
import { normalEmail, ParamsValidation, PasswordHasher, SecretDigest, TeamStore } from "@paygate/domain"
import { Clock, Effect, Option } from "effect"
import { randomBytes } from "node:crypto"
import { Unauthorized } from "../api/HttpErrors.ts"
import { DashboardSessions } from "./DashboardSessions.ts"

/** The shortest password a member may choose (and the longest: scrypt reads all of it). */
export const passwordLength = { min: 12, max: 1024 } as const

const checkPassword = (password: string) =>
  password.length >= passwordLength.min && password.length <= passwordLength.max
    ? Effect.void
    : Effect.fail(new ParamsValidation({ message: `password must be ${passwordLength.min} to ${passwordLength.max} characters.` }))

const wrongPassword = () => new Unauthorized({ message: "That email and password do not match a team member." })

/** Sign-in and invitation acceptance over the team store and the dashboard sessions. */
export const teamSignIn = Effect.gen(function*() {
  const team = yield* TeamStore
  const sessions = yield* DashboardSessions
  const passwords = yield* PasswordHasher
  const { digest } = yield* SecretDigest

  const signIn = Effect.fnUntraced(function*(email: string, password: string, environment: "production" | "staging") {
    const found = yield* team.findByEmail(yield* Effect.orElseSucceed(normalEmail(email), () => ""))
    // An unknown email costs the same as a wrong password: the response's time tells nothing.
    const matches = yield* passwords.verify(password, Option.getOrUndefined(Option.map(found, (member) => member.passwordHash)))
    if (Option.isNone(found) || !matches) return yield* wrongPassword()
    return yield* sessions.open(found.value.member, environment)
  })

  const accept = Effect.fnUntraced(function*(token: string, password: string, environment: "production" | "staging") {
    yield* checkPassword(password)
    const now = yield* Clock.currentTimeMillis
    const passwordHash = yield* passwords.hash(password)
    const accepted = yield* team.accept(digest(token), { id: `mem_${randomBytes(13).toString("hex")}`, passwordHash }, now)
    if (Option.isNone(accepted)) {
      return yield* new Unauthorized({
        message: "This invitation link is no longer valid: it was used, it expired, or its email is already a member. Ask an owner for a new one."
      })
    }
    const member = accepted.value
    yield* team.record({ partnerId: member.partnerId, mode: member.mode, actor: `member:${member.email}`, action: "team.accept", subject: `${member.id} as ${member.role}`, at: now })
    return yield* sessions.open(member, environment)
  })

  return { signIn, accept }
})
