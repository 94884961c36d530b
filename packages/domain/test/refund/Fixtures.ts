import type { PaymentId, ReceiptId } from "../../src/ids/Ids.ts"
import { Commitment } from "../../src/payment/Payment.ts"
import { Receipt, type ReceiptOutcome } from "../../src/receipt/Receipt.ts"

/** Test fixtures of the refund tests: a token, accounts, a commitment and the receipts of its parts. */
export const usdc = "eip155:1/erc20:0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48"
export const account = (n: number) => `eip155:1:0x${n.toString(16).padStart(40, "0")}`

/** A push commitment of `tokenAmount` USDC from account 9. */
export const commitmentOf = (tokenAmount: bigint) =>
  new Commitment({
    kind: "push",
    account: account(9),
    asset: usdc,
    tokenAmount,
    fingerprint: "f",
    txHash: null,
    authorization: null,
    reference: null,
    walletName: "w",
    confirmedAt: 0
  })

let n = 0
/** A receipt of payment `pay_1` from account `from`, each in a later block than the one before. */
export const receipt = (from: number, value: bigint, outcome: ReceiptOutcome = "paid", expectedValue: bigint | null = null, asset = usdc) =>
  new Receipt({
    id: `rcp_${++n}` as ReceiptId,
    chainId: "eip155:1",
    asset,
    txHash: `0x${n.toString(16).padStart(64, "0")}`,
    logIndex: 0,
    blockNumber: n,
    blockHash: "0x00",
    blockTime: 0,
    from: account(from),
    value,
    reference: null,
    outcome,
    paymentId: "pay_1" as PaymentId,
    partnerId: null,
    mode: null,
    expectedValue,
    paymentStatus: "requires_action",
    recordedAt: 0,
    refund: null,
    reversedAt: null
  })
