import { Context, Result } from "effect"
import { validateAssetId } from "../caip/AssetId.ts"
import type { Mode } from "../payment/Payment.ts"

/** Which payments each configured chain may carry. */
export interface NetworkModesShape {
  /**
   * `sandbox` for a test network, `live` for a real one; `undefined` for a chain the service is not
   * configured on (nothing is collected or paid out there).
   */
  readonly modeOf: (chainId: string) => Mode | undefined
}

/**
 * The rule that keeps test payments away from real money: sandbox payments, deposit addresses,
 * settlements and refunds only on test networks, live ones only on real networks. Every chain the
 * host configures is one or the other. Default: no chain is configured (nothing is offered).
 */
export const NetworkModes = Context.Reference<NetworkModesShape>("@paygate/domain/NetworkModes", {
  defaultValue: () => ({ modeOf: () => undefined })
})

/** What a mode's networks are called, for messages. */
export const networksOf = (mode: Mode) => (mode === "sandbox" ? "test network" : "real network")

/** Why something of a `mode` payment or merchant is refused on a network of the other mode. */
export const offNetwork = (mode: Mode, what: string) =>
  `${what} is not on a ${networksOf(mode)}: ${mode} payments use ${networksOf(mode)}s only.`

/** The mode a CAIP-19 asset's chain serves; `undefined` off the configured chains (or for no asset id). */
export const assetMode = (modes: NetworkModesShape, assetId: string): Mode | undefined => {
  const parsed = validateAssetId(assetId)
  return Result.isSuccess(parsed) ? modes.modeOf(parsed.success.chainId) : undefined
}
