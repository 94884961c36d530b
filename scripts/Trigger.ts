/**
 * `npm run webhooks -- trigger <type>`: makes the sandbox emit a webhook event of a type for real.
 * It creates a payment of the key's partner and takes it where that event happens (cancels it, or
 * pays it with a plain transfer to its deposit address on the local chain), so the event goes
 * through the outbox to every registered endpoint and every listener like any other. Nothing is
 * faked, and only a sandbox key is accepted: sandbox payments only ever use test networks.
 */
import { privateKeyToAccount } from "viem/accounts"
import { sendDeposit } from "./DepositTransfer.ts"

/** The types a real sandbox sequence can produce within seconds, and what produces each. */
export const triggerSequences = {
  "payment.created": "a payment is created",
  "payment.cancelled": "a payment is created, then cancelled",
  "payment.processing": "a payment is created, then paid to its deposit address",
  "payment.succeeded": "a payment is created, then paid to its deposit address",
  "payment.transfer_received": "a payment is created, then half its amount is sent to its deposit address"
} as const
export type TriggerType = keyof typeof triggerSequences
export const triggerTypes = Object.keys(triggerSequences) as ReadonlyArray<TriggerType>

/** Why the other event types cannot be triggered on the spot. */
export const untriggerable: Record<string, string> = {
  "payment.expired": "a payment expires when its lifetime (15 minutes) ends: create one (trigger payment.created) and wait",
  "payment.failed": "a payment fails when its on-chain transfer does, which a sandbox cannot cause on demand",
  "payment.settled": "a payment is settled by the worker's settlement batch after it succeeded: trigger payment.succeeded and wait for it",
  "settlement_destination.changed":
    "a merchant's settlement destination is added, changed or removed (`/v1/merchants/{id}/settlements/crypto`): do one of those"
}

// anvil's default account #1: a public test key that holds the local chain's test tokens.
const anvilKey1 = "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d"

export interface TriggerInput {
  readonly type: TriggerType
  readonly baseUrl: string
  readonly apiKey: string
  readonly merchantId: string | undefined
  readonly appId: string | undefined
  readonly rpcUrl: string
  /** Prints a step. */
  readonly say: (line: string) => void
}

type Call = (method: string, path: string, body?: unknown, headers?: Record<string, string>) => Promise<any>

/** Runs the sequence of `input.type`; answers the emitted event's id, or why it failed. */
export const trigger = async (input: TriggerInput, call: Call): Promise<{ eventId: string } | { problem: string }> => {
  const pays = input.type !== "payment.created" && input.type !== "payment.cancelled"
  if (pays && input.appId === undefined) return { problem: `${input.type} pays a payment: give a wallet app's --app-id (npm start prints one)` }
  const merchantId = input.merchantId ?? (await call("GET", "/v1/merchants?limit=1")).data?.[0]?.merchantId
  if (merchantId === undefined) return { problem: "this partner has no merchant: create one (POST /v1/merchants) or give --merchant" }
  const payment = await call("POST", "/v1/payments", {
    merchantId,
    amount: { unit: "iso4217/USD", value: "1050" },
    referenceId: `trigger-${input.type}-${Date.now()}`
  })
  const paymentId: string = payment.paymentId
  input.say(`created ${paymentId} (10.50 USD) for ${merchantId}`)
  if (input.type === "payment.cancelled") {
    await call("POST", `/v1/payments/${paymentId}/cancel`)
    input.say(`cancelled ${paymentId}`)
  }
  if (pays) {
    const gateway = { "app-id": input.appId!, "client-id": `webhooks-trigger-${process.pid}` }
    const offer = ((await call("POST", `/v1/gateway/payment/${paymentId}/deposit`, undefined, gateway)).options as Array<any>)[0]
    if (offer === undefined) return { problem: `${paymentId} has no deposit address: no test network here has a deposit factory` }
    const value = input.type === "payment.transfer_received" ? (BigInt(offer.amount.value) / 2n).toString() : offer.amount.value
    const sent = await sendDeposit({ ...offer, amount: { value } }, privateKeyToAccount(anvilKey1), input.rpcUrl)
    if ("problem" in sent) return sent
    input.say(`sent ${value} base units of ${offer.amount.display.assetSymbol} to its deposit address ${offer.address}: ${sent.hash}`)
  }
  // The event is in the outbox once the change committed; the chain watcher's take a few seconds.
  const deadline = Date.now() + 120_000
  while (Date.now() < deadline) {
    const { data } = await call("GET", "/v1/events?limit=100")
    const event = (data as Array<any>).find((e) => e.type === input.type && e.data.payment.paymentId === paymentId)
    if (event !== undefined) return { eventId: event.id }
    await new Promise((resolve) => setTimeout(resolve, 500))
  }
  return { problem: `no ${input.type} event for ${paymentId} within 2 minutes: is the worker running?` }
}
