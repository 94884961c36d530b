/**
 * `npm run pay -- <paymentId> --app-id <app_…> [--key 0x…] [--url http://localhost:3000]`
 *
 * Pays a sandbox payment the way a wallet does, against a running `npm start`: asks the gateway for
 * the payment's options for one account, signs the EIP-3009 typed data of the first option with the
 * account's key (default: anvil's well-known account #1, which holds 1,000,000 test tokens), confirms,
 * and follows the status until it is final. Each step prints what it sends and gets.
 */
import { parseArgs } from "node:util"
import { Chain } from "@paygate/adapters"
import type { Hex } from "viem"
import { privateKeyToAccount } from "viem/accounts"

// anvil's default account #1: a public test key, never use it on a real chain.
const anvilKey1 = "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d"

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: {
    "app-id": { type: "string" },
    key: { type: "string", default: anvilKey1 },
    url: { type: "string", default: "http://localhost:3000" },
    chain: { type: "string", default: "eip155:31337" }
  }
})
const [paymentId] = positionals
if (paymentId === undefined || values["app-id"] === undefined) {
  console.error("usage: npm run pay -- <paymentId> --app-id <app_…> [--key 0x…] [--url http://localhost:3000]")
  process.exit(2)
}

const wallet = privateKeyToAccount(values.key as Hex)
const headers = {
  "content-type": "application/json",
  "app-id": values["app-id"],
  "client-id": `pay-script-${process.pid}`,
  "sdk-name": "paygate pay script"
}

const call = async (method: string, path: string, body?: unknown) => {
  const response = await fetch(`${values.url}/v1/gateway/payment/${paymentId}${path}`, {
    method,
    headers,
    ...(body === undefined ? {} : { body: JSON.stringify(body) })
  })
  const json = await response.json() as any
  if (!response.ok) {
    console.error(`${method} ${path} → ${response.status} ${json.code}: ${json.message}`)
    process.exit(1)
  }
  return json
}

const account = `${values.chain}:${wallet.address}`
console.log(`1. options for ${account}`)
const { options } = await call("POST", "/options", { accounts: [account] })
const option = options.find((o: any) => o.actions[0]?.data?.method === "eth_signTypedData_v4")
if (option === undefined) {
  console.error("No EIP-3009 (pull) option for this account: is the payment in USD on the local chain?")
  process.exit(1)
}
console.log(`   ${option.amount.value} base units of ${option.amount.display.assetSymbol} (${option.amount.unit})`)

console.log(`2. sign the TransferWithAuthorization typed data as ${wallet.address}`)
const signature = await Chain.LocalWallet.signOption(option, values.key as Hex)
console.log(`   ${signature}`)

console.log("3. confirm")
const confirmed = await call("POST", "/confirm", {
  optionId: option.id,
  results: [{ type: "walletRpc", data: [signature] }],
  collectedData: null
})
console.log(`   ${confirmed.status}`)

console.log("4. follow the status")
let status = confirmed
while (!status.isFinal) {
  status = await call("GET", "/status?maxPollMs=10000")
  console.log(`   ${status.status}`)
}
process.exit(status.status === "succeeded" ? 0 : 1)
