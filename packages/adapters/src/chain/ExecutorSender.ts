/**
 * Sends transactions from one account (a chain's executor) with ONE nonce sequence: "pick nonce →
 * sign → broadcast → remember next" runs as one critical section, so concurrent senders never race
 * for a nonce, while the slow parts (fee and gas estimation, waiting for inclusion) stay outside it.
 * A permit serializes it in the process; the account's `NonceSequences` entry serializes it across
 * processes and keeps the next nonce (in PostgreSQL: every worker signing with the key shares it).
 *
 * The nonce used is the larger of the stored next one and the node's pending count
 * (`eth_getTransactionCount`, `pending`): the stored one covers a provider whose count lags (it
 * never hands out a nonce already used), the node's covers a broadcast whose success was not stored
 * (a lost response, a process killed mid-section, another user of the key). A nonce the node says
 * is used by something else moves the sender past it. A transaction of the account found dropped (a
 * reorganisation removed it after it was mined, or another transaction took its nonce) lowers the
 * stored nonce to the node's count (`resync`): the stored one would leave a gap that stalls every
 * later transaction, and the next one sent fills it. A timed-out broadcast is retried with the same
 * signed bytes (same hash), so it can never produce two different transactions.
 *
 * `sendRecorded` is the send-once variant (payouts): it hands the signed transaction to the caller to
 * record before broadcasting it, still within the section, so that a crash between the broadcast and
 * its recording leaves a transaction the caller can broadcast again byte for byte (`resend`).
 *
 * Not handled here: replacing (fee-bumping) a transaction stuck in the mempool.
 *
 * @module
 */
import { Effect, Redacted, Result, Schedule, type Scope, Semaphore } from "effect"
import { type Address, type Hash, type Hex, keccak256, type PublicClient } from "viem"
import { isKnown } from "./KnownTransaction.ts"
import { NonceSequences, type NonceSequencesShape } from "./NonceSequences.ts"
import { ChainRpcError, rpc } from "./RpcCall.ts"
import type { TransactionSigner } from "./TransactionSigner.ts"

/** A transaction to send: a call (`to`) or a contract creation (no `to`). */
export interface TransactionRequest {
  readonly to?: Address | undefined
  readonly data: Hex
  /** Wei sent along (native payouts); default 0. */
  readonly value?: bigint | undefined
  /** Gas limit. */
  readonly gas: bigint
}

/** A transaction signed and not yet known to be broadcast. */
export interface SignedTransaction {
  readonly hash: Hash
  /** The serialized signed transaction (`eth_sendRawTransaction`'s parameter). */
  readonly raw: Hex
}

/** Sends from one account. */
export interface ExecutorSender {
  readonly address: Address
  /** Signs and broadcasts; answers the transaction hash once the node has accepted the transaction. */
  readonly send: (request: TransactionRequest) => Effect.Effect<Hash, ChainRpcError>
  /**
   * Signs with the next nonce, then runs `record`, then broadcasts only if `record` answered `true`
   * (else nothing is sent, and the nonce stays free). Answers the transaction, or `undefined` when
   * not recorded. A failed broadcast fails without re-signing: the recorded transaction stands.
   */
  readonly sendRecorded: <E>(
    request: TransactionRequest,
    record: (signed: SignedTransaction) => Effect.Effect<boolean, E>
  ) => Effect.Effect<SignedTransaction | undefined, ChainRpcError | E>
  /**
   * Broadcasts a signed transaction again. Accepted, already known, or its nonce already used
   * (mined, or taken by another transaction: observing it tells which) all succeed.
   */
  readonly resend: (raw: Hex) => Effect.Effect<void, ChainRpcError>
  /** Lowers the stored next nonce to the node's pending count (after the current send, if one is under way). */
  readonly resync: Effect.Effect<void>
}

/** Options of {@link make}. */
export interface SenderOptions {
  /** CAIP-2 chain id, e.g. `eip155:31337`. */
  readonly chainId: string
  readonly client: PublicClient
  /** Signs the account's transactions (a key, a keystore or a remote signer). */
  readonly signer: TransactionSigner
}

const ALREADY_KNOWN = /already known|known transaction|already imported|already exists/i
/** The nonce is taken: mined already, or held by another pending transaction ("replacement … underpriced"). */
const NONCE_USED = /nonce too low|nonce has already been used|nonce_expired|invalid nonce|old nonce|replacement transaction underpriced/i
/** Broadcasts whose answer was lost are retried a few times with the same bytes. */
const broadcastRetries = 2
/** Attempts when the node says the nonce is used (another sender, a restart): re-read and re-sign. */
const maxNonceAttempts = 3

/** A sender for the account of `signer` on `chainId`, its sequence from `NonceSequences`. */
export const make = (options: SenderOptions): Effect.Effect<ExecutorSender> =>
  Effect.gen(function*() {
    const account = options.signer
    const chainNumber = Number(options.chainId.slice(options.chainId.indexOf(":") + 1))
    const { client, chainId } = options
    const sequence = (yield* NonceSequences).of(chainId, account.address)
    const permit = Semaphore.makeUnsafe(1)
    // A resync that could not be stored yet: the next section of this process ignores the stored nonce.
    let resyncDue = false

    const pendingCount = rpc(chainId, "eth_getTransactionCount", () =>
      client.getTransactionCount({ address: account.address, blockTag: "pending" }))

    /** Runs `section` holding the sequence, given the lowest nonce it may use. */
    const sequenced = <A, E>(section: (floor: number) => Effect.Effect<readonly [A, number | undefined], E>) =>
      permit.withPermit(sequence.hold((stored) =>
        Effect.suspend(() => {
          const floor = resyncDue ? 0 : stored ?? 0
          return Effect.tap(section(floor), ([, next]) => Effect.sync(() => (resyncDue = resyncDue && next === undefined)))
        })
      ))

    const nextNonce = (floor: number) => Effect.map(pendingCount, (pending) => Math.max(floor, pending))

    const broadcast = (signed: Hex) =>
      rpc(chainId, "eth_sendRawTransaction", () => client.sendRawTransaction({ serializedTransaction: signed })).pipe(
        Effect.asVoid,
        Effect.retry({
          schedule: Schedule.exponential("100 millis"),
          times: broadcastRetries,
          while: (error: ChainRpcError) => error.failure === "unavailable"
        }),
        Effect.catchIf(
          (error: ChainRpcError) => error.failure === "rejected" && ALREADY_KNOWN.test(error.message),
          () => Effect.void
        )
      )

    /** Whether the node knows `hash` (then a "nonce too low" was our own earlier, lost broadcast); not when it cannot say. */
    const ownBroadcast = (hash: Hash) => isKnown({ chainId, client }, hash).pipe(Effect.catch(() => Effect.succeed(false)))

    type Fees = { readonly maxFeePerGas: bigint; readonly maxPriorityFeePerGas: bigint }

    // A signer that cannot sign (a remote one down) leaves the transaction unsent, like a node that cannot be reached.
    const sign = (request: TransactionRequest, fees: Fees, nonce: number) =>
      account.sign({
        chainId: chainNumber,
        nonce,
        ...(request.to === undefined ? {} : { to: request.to }),
        data: request.data,
        gas: request.gas,
        value: request.value ?? 0n,
        ...fees
      }).pipe(
        Effect.map((raw): SignedTransaction => ({ raw, hash: keccak256(raw) })),
        Effect.mapError((error) =>
          new ChainRpcError({ chainId, operation: "eth_signTransaction", failure: "unavailable", message: `${error.role} signer: ${error.message}` })
        )
      )

    // Only a success moves the stored nonce; after a failure the next section asks the node again.
    const sendWithFees = (request: TransactionRequest, fees: Fees) =>
      sequenced((floor) =>
        Effect.gen(function*() {
          for (let attempt = 1, lowest = floor; ; attempt++) {
            const nonce = yield* nextNonce(lowest)
            const { raw: signed, hash } = yield* sign(request, fees, nonce)
            const sent = yield* Effect.result(broadcast(signed))
            if (Result.isSuccess(sent)) return [hash, nonce + 1] as const
            const error = sent.failure
            if (error.failure !== "rejected" || !NONCE_USED.test(error.message)) return yield* error
            if (yield* ownBroadcast(hash)) return [hash, nonce + 1] as const
            if (attempt >= maxNonceAttempts) return yield* error
            lowest = nonce + 1
          }
        })
      )

    const sendRecordedWithFees = <E>(
      request: TransactionRequest,
      fees: Fees,
      record: (signed: SignedTransaction) => Effect.Effect<boolean, E>
    ) =>
      sequenced((floor) =>
        Effect.gen(function*() {
          const nonce = yield* nextNonce(floor)
          const signed = yield* sign(request, fees, nonce)
          if (!(yield* record(signed))) return [undefined, undefined] as const
          yield* broadcast(signed.raw)
          return [signed, nonce + 1] as const
        })
      )

    const fees = rpc(chainId, "eth_feeHistory", () => client.estimateFeesPerGas()).pipe(
      Effect.map((fees): Fees => ({ maxFeePerGas: fees.maxFeePerGas, maxPriorityFeePerGas: fees.maxPriorityFeePerGas }))
    )

    const send = (request: TransactionRequest) =>
      fees.pipe(
        Effect.flatMap((fees) => sendWithFees(request, fees)),
        Effect.withSpan("ExecutorSender.send", { attributes: { chainId } })
      )

    const sendRecorded = <E>(request: TransactionRequest, record: (signed: SignedTransaction) => Effect.Effect<boolean, E>) =>
      fees.pipe(
        Effect.flatMap((fees) => sendRecordedWithFees(request, fees, record)),
        Effect.withSpan("ExecutorSender.sendRecorded", { attributes: { chainId } })
      )

    // Picks no nonce: the next section reads the node's count, which covers this transaction once accepted.
    const resend = (raw: Hex) =>
      broadcast(raw).pipe(
        Effect.catchIf((error: ChainRpcError) => error.failure === "rejected" && NONCE_USED.test(error.message), () => Effect.void),
        (self) => permit.withPermit(self),
        Effect.withSpan("ExecutorSender.resend", { attributes: { chainId } })
      )

    // Stored now when it can be, else by this process's next section; flagged within the permit so a send under way keeps the flag.
    const resync = permit.withPermit(Effect.sync(() => (resyncDue = true))).pipe(
      Effect.andThen(sequenced(() => Effect.map(pendingCount, (pending) => [undefined, pending] as const))),
      Effect.catch((error) => Effect.logWarning("nonce resync deferred to the next send", { chainId, error: error.message }))
    )

    return { address: account.address, send, sendRecorded, resend, resync }
  })

/** A shared sender and how many users (open scopes) hold it. */
interface SharedSender {
  readonly sender: ExecutorSender
  users: number
}

// Keyed by the sequence store first: two applications in one process (two databases) never share a
// sender, and an entry leaves with its last user, so no sender outlives the database it stores into.
const sharedSenders = new WeakMap<NonceSequencesShape, Map<string, SharedSender>>()

/**
 * The sender of the account of `signer` on `chainId` at `rpcUrl`, one per application: every user of
 * an account (the gateway's executor, the deposit sweeps) shares its nonce sequence while its scope
 * is open. The first caller's client is the one it sends with.
 */
export const shared = (
  options: SenderOptions & { readonly rpcUrl: Redacted.Redacted<string> }
): Effect.Effect<ExecutorSender, never, Scope.Scope> =>
  Effect.gen(function*() {
    const sequences = yield* NonceSequences
    const key = `${options.chainId} ${options.signer.address} ${Redacted.value(options.rpcUrl)}`
    const senders = sharedSenders.get(sequences) ?? new Map<string, SharedSender>()
    sharedSenders.set(sequences, senders)
    return yield* Effect.acquireRelease(
      Effect.suspend(() => {
        const known = senders.get(key)
        if (known !== undefined) {
          known.users++
          return Effect.succeed(known.sender)
        }
        return Effect.tap(make(options), (sender) => Effect.sync(() => senders.set(key, { sender, users: 1 })))
      }),
      () =>
        Effect.sync(() => {
          const entry = senders.get(key)
          if (entry !== undefined && --entry.users === 0) senders.delete(key)
        })
    )
  })
