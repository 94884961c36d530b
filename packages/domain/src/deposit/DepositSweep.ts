import { Schema } from "effect"
import { PaymentId } from "../ids/Ids.ts"
import { SignedTransfer } from "../payout/Payout.ts"

/**
 * What a deposit address holds in one token, to be swept to the collection address. Every transfer
 * the watcher records into the address bumps `markedVersion`; a sweep signed at `markedVersion`
 * m covers every transfer marked up to m (each was confirmed before the sweep was signed), and
 * once it succeeds `sweptVersion` becomes m. The sweep is due while `markedVersion > sweptVersion`.
 */
export class DepositSweep extends Schema.Class<DepositSweep>("paygate/DepositSweep")({
  /** CAIP-2 chain. */
  chainId: Schema.String,
  /** The deposit address (lower-case). */
  address: Schema.String,
  /** CAIP-19 token. */
  asset: Schema.String,
  paymentId: PaymentId,
  markedVersion: Schema.Int,
  sweptVersion: Schema.Int,
  /** The sweep in flight, recorded before its broadcast (shared by every deposit it covers); `null` when none. */
  transfer: Schema.NullOr(SignedTransfer),
  /** The `markedVersion` the sweep in flight covers. */
  txVersion: Schema.NullOr(Schema.Int),
  /** Sweeps of this deposit that moved nothing (reverted, dropped) so far. */
  attempts: Schema.Int
}) {}

/** A deposit of one token at one address: the key of a {@link DepositSweep}. */
export interface DepositKey {
  readonly chainId: string
  readonly address: string
  readonly asset: string
}

/** What a sweep moved from one deposit address (lower-case) to the collection address, in token base units. */
export interface SweptAmount {
  readonly address: string
  readonly value: bigint
}
