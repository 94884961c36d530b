/**
 * Limits on what a chain's payout key moves, per token (the `limits` of a chain entry in
 * `PAYGATE_CHAINS`). Each token is named by its symbol among the chain's configured tokens, or
 * by its asset id; amounts are decimal strings in the token's units (`"1000"`, `"1000.50"`):
 *
 * ```json
 * "limits": { "USDC": { "perPayout": "5000", "perRefund": "1000", "perDay": "20000.50" } }
 * ```
 *
 * `perPayout` bounds one settlement, `perRefund` one refund payout, `perDay` what the chain's
 * payouts of the token move in a UTC day. A payout beyond them waits for an owner's approval
 * (`PayoutLimits`). Checked when the service starts: an amount with more decimals than the
 * token has, a negative one, anything that is not a plain decimal, or a token not configured on
 * the chain stops it, with the path.
 *
 * @module
 */
import { Schema } from "effect"

/** The limits of one token, in its units as written. */
export const TokenLimitSettings = Schema.Struct({
  perPayout: Schema.optionalKey(Schema.String),
  perRefund: Schema.optionalKey(Schema.String),
  perDay: Schema.optionalKey(Schema.String)
})

/** A chain's limits: token (symbol or asset id) → its limits. */
export const PayoutLimitSettings = Schema.Record(Schema.String, TokenLimitSettings)

/** One token's limits in base units; an absent one does not bound. */
export interface TokenLimits {
  readonly perPayout?: bigint
  readonly perRefund?: bigint
  readonly perDay?: bigint
}

const fields = ["perPayout", "perRefund", "perDay"] as const

/** `text` in base units of a token with `decimals`, or why it is not an amount. */
export const baseUnits = (text: string, decimals: number): bigint | string => {
  const match = /^([0-9]+)(?:\.([0-9]+))?$/.exec(text)
  if (match === null) {
    return `"${text.slice(0, 40)}" is not an amount: write a non-negative decimal in the token's units, like "1000" or "1000.50"`
  }
  const fraction = match[2] ?? ""
  if (fraction.length > decimals) return `"${text}" has ${fraction.length} decimals; the token has ${decimals}`
  return BigInt(match[1]! + fraction.padEnd(decimals, "0"))
}

interface TokenLike {
  readonly assetId: string
  readonly symbol: string
  readonly decimals: number
}

// The token a limits key names on the chain: its asset id, else its symbol (when unambiguous).
const tokenNamed = (key: string, chainId: string, assets: ReadonlyArray<TokenLike>): TokenLike | string => {
  const own = assets.filter((asset) => asset.assetId.slice(0, asset.assetId.indexOf("/")) === chainId)
  const byId = own.find((asset) => asset.assetId.toLowerCase() === key.toLowerCase())
  if (byId !== undefined) return byId
  const bySymbol = own.filter((asset) => asset.symbol === key)
  if (bySymbol.length === 1) return bySymbol[0]!
  if (bySymbol.length > 1) return `several tokens on ${chainId} are ${key}: name it by its asset id`
  const known = own.map((asset) => asset.symbol).join(", ")
  return `no token ${key.slice(0, 80)} is configured on ${chainId} (its tokens: ${known === "" ? "none" : known})`
}

/** A chain's limits resolved: asset id → limits in base units; or the problems, each with its path under the chain's `limits`. */
export const resolveLimits = (
  limits: typeof PayoutLimitSettings.Type,
  chainId: string,
  assets: ReadonlyArray<TokenLike>
): { readonly limits: ReadonlyMap<string, TokenLimits>; readonly problems: ReadonlyArray<{ readonly path: ReadonlyArray<string>; readonly issue: string }> } => {
  const resolved = new Map<string, TokenLimits>()
  const problems: Array<{ readonly path: ReadonlyArray<string>; readonly issue: string }> = []
  for (const [key, settings] of Object.entries(limits)) {
    const token = tokenNamed(key, chainId, assets)
    if (typeof token === "string") {
      problems.push({ path: [key], issue: token })
      continue
    }
    const own: { -readonly [K in keyof TokenLimits]: bigint } = {}
    for (const field of fields) {
      const text = settings[field]
      if (text === undefined) continue
      const value = baseUnits(text, token.decimals)
      if (typeof value === "string") problems.push({ path: [key, field], issue: value })
      else own[field] = value
    }
    resolved.set(token.assetId, own)
  }
  return { limits: resolved, problems }
}
