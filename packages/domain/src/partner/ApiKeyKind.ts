/**
 * What a presented API key announces by its shape (API rules §2, §8): `sk_live_` / `sk_test_`
 * (partner) or `wk_live_` / `wk_test_` (wallet), then base64url characters.
 *
 * @module
 */

/** Which API a key calls: partner/merchant APIs or the wallet gateway. */
export type ApiKeyKind = "partner" | "wallet"

// A key of ours: kind prefix, mode, and at least 16 base64url characters (a new secret has 43).
const secretShape = /^(sk|wk)_(live|test)_[A-Za-z0-9_-]{16,}$/

/** The kind a presented secret's shape announces (`sk_…` partner, `wk_…` wallet), or `undefined` for no key of ours. */
export const kindOfSecret = (secret: string): ApiKeyKind | undefined => {
  const match = secretShape.exec(secret)
  return match === null ? undefined : match[1] === "sk" ? "partner" : "wallet"
}
