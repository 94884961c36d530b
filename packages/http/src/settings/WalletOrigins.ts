import { Context } from "effect"

/**
 * Origins (`https://wallet.example`) of wallet pages that may embed the data collection page and
 * receive its completion message, besides this service's own pages; empty, none.
 */
export class WalletOrigins extends Context.Service<WalletOrigins, ReadonlyArray<string>>()("@paygate/http/WalletOrigins") {}
