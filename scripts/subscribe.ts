/**
 * `npm run subscribe -- <planId> --app-id <app_…> [options]` (`--help` lists them)
 *
 * Subscribes to a sandbox plan the way a wallet does, against a running service: reads the plan,
 * lets Permit2 move the token when the account has not yet (one `approve`), asks for the offer,
 * signs its permit with the account's key (default: anvil's well-known account #1, which holds test
 * tokens) and subscribes; with `--follow`, prints each charge as the worker makes it until the
 * subscription ends. Every mistake is one line on stderr.
 */
import { createPublicClient, createWalletClient, erc20Abi, type Hex, http, maxUint256 } from "viem"
import { fail, optionsAndId, parseCommandLine } from "./CommandLine.ts"
import { accountOf, serviceCaller, serviceUrl } from "./ServiceCall.ts"

// anvil's default account #1: a public test key, never use it on a real chain.
const anvilKey1 = "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d"

const usage = `Usage: npm run subscribe -- <planId> --app-id <app_…> [options]

Subscribes to a sandbox plan as a wallet would: approve Permit2 once, sign the plan's permit, subscribe.

Options:
  --app-id ID            the wallet app's public App-Id (required; printed by npm start)
  --key 0x…              private key of the subscribing account (default: anvil's test account #1)
  --url URL              the service (default: http://localhost:3000)
  --chain CAIP-2         the account's chain (default: eip155:31337, the local chain)
  --asset SYMBOL         the token to pay in, when the plan takes several (default: the first)
  --rpc-url URL          the chain's RPC for the approval (default: http://127.0.0.1:8545, the local chain)
  --follow               print each charge until the subscription ends (or is cancelled)
  -h, --help             this text

Example:
  npm run subscribe -- pln_… --app-id app_… --follow`

const parsed = parseCommandLine({
  "app-id": { type: "string" },
  key: { type: "string", default: anvilKey1 },
  url: { type: "string", default: "http://localhost:3000" },
  chain: { type: "string", default: "eip155:31337" },
  asset: { type: "string" },
  "rpc-url": { type: "string", default: "http://127.0.0.1:8545" },
  follow: { type: "boolean" },
  help: { type: "boolean", short: "h" }
}, "npm run subscribe -- --help")
const { flag, id: planId, text } = optionsAndId(parsed, usage, "plan id", "npm run subscribe -- <planId> --app-id <app_…>")
if (!/^pln_[A-Za-z0-9]{1,64}$/.test(planId)) fail(`${JSON.stringify(planId)} is not a plan id (pln_…)`, 2)
const privateKey = text("key") as Hex
const wallet = accountOf(privateKey)
const appId = text("app-id") ?? fail("Missing --app-id <app_…>: the wallet app's public id that npm start printed", 2)
const baseUrl = serviceUrl(text("url")!)
const rpcUrl = text("rpc-url")!
const headers = { "content-type": "application/json", "app-id": appId, "client-id": `subscribe-script-${process.pid}`, "sdk-name": "paygate subscribe script" }

const call = serviceCaller(baseUrl, headers)

let step = 0
const say = (line: string) => console.log(`${++step}. ${line}`)
const units = (amount: { value: string; display: { decimals: number; assetSymbol: string } }) => {
  const { decimals, assetSymbol } = amount.display
  const padded = amount.value.padStart(decimals + 1, "0")
  return `${padded.slice(0, padded.length - decimals)}${decimals > 0 ? `.${padded.slice(-decimals)}` : ""} ${assetSymbol}`
}

say(`plan ${planId}`)
const plan = await call("GET", `/v1/gateway/plan/${planId}`)
console.log(`   ${plan.name} by ${plan.merchant.name}: ${units(plan.amount)} every ${plan.periodSeconds} s, ${plan.periods === null ? "until cancelled" : `${plan.periods} periods`}`)
const symbol = text("asset")
const asset = (plan.assets as Array<any>).find((a) => a.chainId === text("chain") && (symbol === undefined || a.display.assetSymbol === symbol))
if (asset === undefined) {
  fail(plan.assets.length === 0
    ? "This plan takes no new subscribers now (inactive, or the merchant has no settlement destination for its token)"
    : `No ${symbol ?? "token"} on ${text("chain")}; the plan takes ${plan.assets.map((a: any) => `${a.display.assetSymbol} on ${a.chainId}`).join(", ")} (--chain, --asset)`)
}
const account = `${text("chain")}:${wallet.address}`

say(`offer for ${account}`)
const offer = await call("POST", `/v1/gateway/plan/${planId}/offer`, { payer: account, asset: asset.asset })
console.log(`   at most ${units(offer.amountPerPeriod)} a period to ${offer.receiver}, from ${new Date(offer.start * 1000).toISOString()}`)

// Permit2 moves the tokens: the account lets it, once per token, as wallets do before a first permit.
const token = (asset.asset as string).split(":").at(-1) as Hex
const chain = createPublicClient({ transport: http(rpcUrl) })
const allowed = await chain.readContract({ address: token, abi: erc20Abi, functionName: "allowance", args: [wallet.address, offer.permit2] })
  .catch((error: Error) => fail(`Cannot read the token's allowance through ${rpcUrl} (${error.message.split("\n")[0]}): is --rpc-url the plan's chain?`))
if (allowed < BigInt(offer.amountPerPeriod.value)) {
  say(`approve Permit2 (${offer.permit2}) on ${asset.display.assetSymbol}`)
  const sender = createWalletClient({ account: wallet, transport: http(rpcUrl) })
  const hash = await sender.writeContract({ chain: null, address: token, abi: erc20Abi, functionName: "approve", args: [offer.permit2, maxUint256] })
  await chain.waitForTransactionReceipt({ hash, pollingInterval: 200 })
  console.log(`   ${hash}`)
}

say(`sign the permit as ${wallet.address}`)
// The adapters take a second to load: only once there is something to sign.
const { Chain } = await import("@paygate/adapters")
const signature = await Chain.LocalWallet.signTypedDataJson(privateKey, offer.typedData)

say("subscribe")
const { manageUrl, subscription } = await call("POST", `/v1/gateway/plan/${planId}/subscribe`, { offer: offer.offer, signature })
console.log(`   ${subscription.id} (${subscription.status})`)
console.log(`   manage or cancel: ${manageUrl}`)
if (!flag("follow")) process.exit(0)

say("follow the charges")
const tokenOfLink = new URL(manageUrl).hash.slice(1)
const shown = new Set<string>()
for (;;) {
  const view = await call("GET", `/v1/gateway/subscription/${subscription.id}?token=${encodeURIComponent(tokenOfLink)}`)
  for (const charge of view.charges as Array<any>) {
    const line = `period ${charge.periodIndex + 1}: ${charge.status}${charge.txHash === null ? "" : ` ${charge.txHash}`}`
    if (charge.status !== "pending" && !shown.has(line)) {
      shown.add(line)
      console.log(`   ${line}`)
    }
  }
  const status = view.subscription.status as string
  if (status === "ended" || status === "cancelled") {
    console.log(`   ${status}${view.subscription.endedReason === null ? "" : ` (${view.subscription.endedReason})`}`)
    process.exit(status === "ended" && view.subscription.endedReason === "completed" ? 0 : 1)
  }
  await new Promise((resolve) => setTimeout(resolve, 1000))
}
