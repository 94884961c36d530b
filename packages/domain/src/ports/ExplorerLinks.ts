import { Context } from "effect"

/** Where a person can look a transaction up: a block explorer page, per chain. */
export interface ExplorerLinksShape {
  /** The explorer page of transaction `hash` on CAIP-2 chain `chainId`, or `null` when the chain has no explorer. */
  readonly transaction: (chainId: string, hash: string) => string | null
}

/**
 * The block explorers of the configured chains, for the links in payment records (partner API,
 * webhooks) and the checkout. Default: no explorer (a local chain has none).
 */
export const ExplorerLinks = Context.Reference<ExplorerLinksShape>("@paygate/domain/ExplorerLinks", {
  defaultValue: () => ({ transaction: () => null })
})
