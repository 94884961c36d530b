import { Context, type Effect, type Option } from "effect"

/** Where the chain watcher is on one chain: the next block to read and the hash of the last one read. */
export interface ScanCursor {
  /** `null` before the first scan (the watcher picks its start). */
  readonly nextBlock: number | null
  /** Lower-case hash of block `nextBlock - 1` when it was read; `null` before the first scan. */
  readonly lastHash: string | null
}

/**
 * The chain watcher's cursors, one per chain, each leased to one worker at a time so that any
 * number of workers share the chains without scanning one twice; a lease that ends without a
 * release (a killed worker) frees the chain for another. Infrastructure failures are defects.
 */
export class ScanCursors extends Context.Service<ScanCursors, {
  /** Leases the chain's cursor to `holder` (or renews its lease); none while another holder's lease runs. */
  readonly claim: (chainId: string, holder: string, leaseMillis: number) => Effect.Effect<Option.Option<ScanCursor>>
  /** Moves the cursor and renews the lease if `holder` still holds it; answers whether it did. */
  readonly advance: (chainId: string, holder: string, cursor: ScanCursor, leaseMillis: number) => Effect.Effect<boolean>
  /**
   * The hashes of blocks read up to on the chain (each cursor moved past one, lower-case), newest
   * first: where a reorganisation forked is after the newest one the chain still has.
   */
  readonly checkpoints: (chainId: string) => Effect.Effect<ReadonlyArray<{ readonly blockNumber: number; readonly hash: string }>>
  /** Gives the lease up (at shutdown). */
  readonly release: (chainId: string, holder: string) => Effect.Effect<void>
}>()("@paygate/domain/ScanCursors") {}
