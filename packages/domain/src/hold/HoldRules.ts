import { Hold, type HoldOperation } from "./Hold.ts"

/** Bounds of a held payment's capture window, in seconds. */
export const captureWindow = {
  /** When the request names none: a week, as card authorizations commonly last. */
  defaultSeconds: 7 * 86_400,
  /** Live payments: at least an hour, so a capture has time to reach the chain. */
  liveMinSeconds: 3_600,
  /** Sandbox payments: short windows let a test watch the deadline pass. */
  sandboxMinSeconds: 10,
  maxSeconds: 30 * 86_400
} as const

/** How long after the capture deadline a captured amount may be refunded through the escrow. */
export const refundWindowSeconds = 90 * 86_400

/**
 * A new payment's hold. The window counts from the payment's expiry, the latest moment the buyer can
 * authorize, so the merchant always has at least the whole window to capture.
 */
export const newHold = (expiresAt: number, windowSeconds: number, voidAtDeadline: boolean): Hold =>
  new Hold({
    captureBefore: expiresAt + windowSeconds,
    refundBefore: expiresAt + windowSeconds + refundWindowSeconds,
    voidAtDeadline,
    authorized: 0n,
    captured: 0n,
    capturedValue: 0n,
    released: null,
    operations: []
  }, { disableChecks: true })

const open = (op: HoldOperation) => op.status === "pending" || op.status === "submitted"

/** The operation the worker carries out next (operations run one at a time, in the order asked), if any. */
export const nextOperation = (hold: Hold): { readonly index: number; readonly operation: HoldOperation } | undefined => {
  const index = hold.operations.findIndex(open)
  return index < 0 ? undefined : { index, operation: hold.operations[index]! }
}

/** Whether a void is asked and not yet carried out: nothing more can be asked then. */
export const voidAsked = (hold: Hold): boolean => hold.operations.some((op) => op.kind === "void" && open(op))

/** The payment currency's minor units neither captured nor asked to be captured. */
export const uncommittedValue = (hold: Hold, paymentValue: bigint): bigint =>
  paymentValue - hold.capturedValue - hold.operations.reduce((sum, op) => (op.kind === "capture" && open(op) ? sum + op.value : sum), 0n)

/** Token base units neither captured nor asked to be captured. */
export const uncommittedTokens = (hold: Hold): bigint =>
  hold.authorized - hold.captured - hold.operations.reduce((sum, op) => (op.kind === "capture" && open(op) ? sum + op.tokenAmount : sum), 0n)

/**
 * The tokens a capture of `value` minor units moves, when `uncommitted` minor units are still free.
 * Counted on the running total so that parts add up to the authorization exactly: the part that takes
 * the last minor unit takes every token left, and no part rounds in anyone's favour twice.
 */
export const captureTokens = (hold: Hold, paymentValue: bigint, value: bigint): bigint => {
  const freeValue = uncommittedValue(hold, paymentValue)
  const freeTokens = uncommittedTokens(hold)
  if (value === freeValue) return freeTokens
  const committedValue = paymentValue - freeValue + value
  const committedTokens = hold.authorized - freeTokens
  return (hold.authorized * committedValue) / paymentValue - committedTokens
}

/** The hold with operation `index` replaced. */
export const withOperation = (hold: Hold, index: number, operation: HoldOperation): Hold =>
  new Hold({ ...hold, operations: hold.operations.map((op, i) => (i === index ? operation : op)) }, { disableChecks: true })
