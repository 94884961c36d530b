import { Context } from "effect"

/**
 * How a presented secret (an API key, a dashboard session's or an invitation's token) is kept: its
 * digest, the only form stored and looked up (`CredentialStore`, `DashboardSessionStore`,
 * `TeamStore`). Comparing digests in constant time is the caller's part.
 */
export class SecretDigest extends Context.Service<SecretDigest, {
  /** The digest of `secret` as lowercase hex (SHA-256 of the whole secret). */
  readonly digest: (secret: string) => string
}>()("@paygate/domain/SecretDigest") {}
