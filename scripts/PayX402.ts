/**
 * `npm run pay -- <x402Url>`: pays a payment at its x402 address as any x402 client does, with the
 * published `@x402/fetch` and the account's key: the 402 response's requirements, the signed
 * payment, then the payment's status with the settlement's transaction.
 */
import { ExactEvmScheme } from "@x402/evm"
import { decodePaymentResponseHeader, wrapFetchWithPaymentFromConfig } from "@x402/fetch"
import type { LocalAccount } from "viem"
import { fail } from "./CommandLine.ts"

const reach = (url: string) => (error: unknown) => {
  const cause = (error as { cause?: { code?: string } }).cause?.code ?? (error as Error).message
  return fail(`Cannot pay ${url} (${cause}): is the service running?`)
}

/** Pays the x402 address `url` as `account`; exits 0 once the payment succeeded. */
export const payX402 = async (url: string, account: LocalAccount): Promise<never> => {
  let step = 0
  const say = (line: string) => console.log(`${++step}. ${line}`)
  say(`GET ${url}`)
  const asked = await fetch(url).catch(reach(url))
  if (asked.status !== 402) fail(`${url} → ${asked.status}: ${(await asked.text()).slice(0, 200)} (nothing to pay)`)
  const required = JSON.parse(Buffer.from(asked.headers.get("payment-required") ?? "", "base64").toString("utf8") || "{}")
  for (const r of required.accepts ?? []) console.log(`   402: ${r.amount} base units of ${r.asset} on ${r.network}, to ${r.payTo}`)
  say(`pay with x402 as ${account.address}`)
  const pay = wrapFetchWithPaymentFromConfig(fetch, {
    schemes: [{ network: "eip155:*", client: new ExactEvmScheme(account) }],
    // paygate asks for the tokens it is configured with, which x402's client does not know by default.
    spendControls: { allowedAssets: true }
  })
  const paid = await pay(url).catch(reach(url))
  const body = await paid.text()
  const settled = paid.headers.get("payment-response")
  if (settled !== null) console.log(`   transaction ${decodePaymentResponseHeader(settled).transaction}`)
  if (paid.status !== 200) fail(`${url} → ${paid.status}: ${body.slice(0, 300)}`)
  const status = JSON.parse(body)
  console.log(`   ${status.status}`)
  return process.exit(status.status === "succeeded" ? 0 : 1)
}
