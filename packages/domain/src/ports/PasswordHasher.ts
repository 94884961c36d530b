import { Context, type Effect } from "effect"

/** Team members' passwords: stored only as a salted, deliberately slow hash. */
export class PasswordHasher extends Context.Service<PasswordHasher, {
  /** The stored form of a new password. */
  readonly hash: (password: string) => Effect.Effect<string>
  /**
   * Whether `password` is the one `stored` was made from, compared in constant time. Without a
   * stored hash (no member has the email) it costs the same and answers `false`: the time of a
   * sign-in's answer tells nothing.
   */
  readonly verify: (password: string, stored: string | undefined) => Effect.Effect<boolean>
}>()("@paygate/domain/PasswordHasher") {}
