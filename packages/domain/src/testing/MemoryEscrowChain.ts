import { Effect, Layer } from "effect"
import type { ChainOutcome } from "../ports/ChainGateway.ts"
import { ChainUnavailable } from "../ports/ChainUnavailable.ts"
import { EscrowChain, type EscrowedPayment } from "../ports/EscrowChain.ts"
import { SubmissionRefused } from "../ports/SubmissionRefused.ts"

interface Held {
  held: bigint
  captured: bigint
}

interface Sent {
  readonly hash: string
  readonly apply: () => boolean
  outcome: ChainOutcome
}

/**
 * The payment escrow as a test drives it: the contract's rules (a capture names what was captured
 * before it; nothing moves after the capture deadline but a void or the payer's reclaim), sent
 * transactions mined only when the test says, a clock of the chain's own, and an outage switch.
 */
export interface MemoryEscrow {
  readonly payments: Map<string, Held>
  readonly sent: Array<Sent>
  /** Unix seconds of the chain's newest block. */
  chainTime: number
  down: boolean
  /** Puts `amount` in the escrow for the payment whose terms' salt is `salt` (the authorization mined). */
  readonly authorize: (salt: string, amount: bigint) => void
  /** Mines every sent transaction, in order; each applies or reverts by the state it meets. */
  readonly mine: () => void
  /** The payer takes back what is held, when the chain is past `captureBefore`; answers whether it did. */
  readonly reclaim: (payment: EscrowedPayment) => boolean
}

/** A fresh escrow with its clock at `chainTime`. */
export const makeMemoryEscrow = (chainTime: number): MemoryEscrow => {
  const payments = new Map<string, Held>()
  const sent: Array<Sent> = []
  const escrow: MemoryEscrow = {
    payments,
    sent,
    chainTime,
    down: false,
    authorize: (salt, amount) => void payments.set(salt, { held: amount, captured: 0n }),
    mine: () => {
      for (const tx of sent) {
        if (tx.outcome === "pending") tx.outcome = tx.apply() ? "succeeded" : "failed"
      }
    },
    reclaim: (payment) => {
      const state = payments.get(payment.salt)
      if (state === undefined || state.held === 0n || escrow.chainTime < payment.terms.captureBefore) return false
      state.held = 0n
      return true
    }
  }
  return escrow
}

/** The {@link EscrowChain} over `escrow`. */
export const layerMemoryEscrow = (escrow: MemoryEscrow): Layer.Layer<EscrowChain> => {
  const chainId = "eip155:1"
  const down = () => new ChainUnavailable({ chainId, message: "connection refused" })
  const stateOf = (payment: EscrowedPayment) => escrow.payments.get(payment.salt) ?? { held: 0n, captured: 0n }
  // What the contract would say to `check` now (a simulation), then the transaction sent.
  const send = (check: () => string | undefined, apply: () => boolean): Effect.Effect<string, ChainUnavailable | SubmissionRefused> =>
    Effect.suspend((): Effect.Effect<string, ChainUnavailable | SubmissionRefused> => {
      if (escrow.down) return Effect.fail(down())
      const refusal = check()
      if (refusal !== undefined) return Effect.fail(new SubmissionRefused({ chainId, message: refusal }))
      const hash = `0x${(escrow.sent.length + 1).toString(16).padStart(64, "0")}`
      escrow.sent.push({ hash, apply, outcome: "pending" })
      return Effect.succeed(hash)
    })
  const captureRefusal = (payment: EscrowedPayment, amount: bigint, capturedBefore: bigint) => {
    const state = stateOf(payment)
    if (escrow.chainTime >= payment.terms.captureBefore) return "DeadlinePassed"
    if (state.held === 0n) return "NothingHeld"
    if (state.captured !== capturedBefore) return "Stale"
    return amount === 0n || amount > state.held ? "TooMuch" : undefined
  }
  return Layer.succeed(EscrowChain, EscrowChain.of({
    capture: (payment, amount, capturedBefore) =>
      send(() => captureRefusal(payment, amount, capturedBefore), () => {
        if (captureRefusal(payment, amount, capturedBefore) !== undefined) return false
        const state = escrow.payments.get(payment.salt)!
        state.held -= amount
        state.captured += amount
        return true
      }),
    void: (payment) =>
      send(() => (stateOf(payment).held === 0n ? "NothingHeld" : undefined), () => {
        const state = escrow.payments.get(payment.salt)
        if (state === undefined || state.held === 0n) return false
        state.held = 0n
        return true
      }),
    observe: (_asset, txHash) =>
      Effect.sync(() => (escrow.down ? "unknown" : escrow.sent.find((tx) => tx.hash === txHash)?.outcome ?? "dropped")),
    balance: (payment) => Effect.suspend(() => (escrow.down ? Effect.fail(down()) : Effect.succeed({ ...stateOf(payment) }))),
    chainTime: () => Effect.suspend(() => (escrow.down ? Effect.fail(down()) : Effect.succeed(escrow.chainTime)))
  }))
}
