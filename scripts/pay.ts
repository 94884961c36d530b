/**
 * `npm run pay -- <paymentId> --app-id <app_…> [options]` (`--help` lists them)
 *
 * Pays a sandbox payment the way a wallet does, against a running service: asks the gateway for
 * the payment's options for one account, submits the buyer's data when the option asks for it
 * (as the data collection page does: `POST …/collect-data`), runs the option's actions with the account's
 * key (default: anvil's well-known account #1, which holds
 * 1,000,000 test tokens), confirms, and follows the status until it is final. With `--deposit` it
 * pays as a buyer sending from an exchange does instead: asks for the payment's deposit address
 * (the option the checkout shows first) and sends the amount there in a plain token transfer,
 * which the chain watcher credits. Each step prints what it sends and gets; every mistake is one
 * line on stderr.
 */
import { readFileSync } from "node:fs"
import { createPublicClient, createWalletClient, type Hex, http } from "viem"
import { fail, optionsAndId, parseCommandLine } from "./CommandLine.ts"
import { accountOf, serviceCaller, serviceUrl } from "./ServiceCall.ts"
import { sendDeposit } from "./DepositTransfer.ts"

// anvil's default account #1: a public test key, never use it on a real chain.
const anvilKey1 = "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d"

const usage = `Usage: npm run pay -- <paymentId> --app-id <app_…> [options]
       npm run pay -- <x402Url> [--key 0x…]

Pays a sandbox payment as a wallet would: options, buyer data when asked, sign, confirm, status.
With --deposit, as a buyer paying from an exchange: a plain token transfer (or, with --asset TETH,
an ether transfer) to the payment's deposit address, credited once the chain watcher sees it.

Options:
  --app-id ID            the wallet app's public App-Id (required; printed by npm start)
  --key 0x…              private key of the paying account (default: anvil's test account #1)
  --url URL              the service (default: http://localhost:3000)
  --chain CAIP-2         the account's chain (default: eip155:31337, the local chain)
  --asset SYMBOL         pay with this token's option, e.g. TUSDT (Permit2), TEURC or TETH (the local chain's
                         ether); default: the first signed option (TUSDC, or TEURC for EUR), with --deposit the
                         first deposit option
  --deposit              pay through the payment's deposit address instead of signing
  --rpc-url URL          the chain's RPC for transactions and --deposit (default: http://127.0.0.1:8545, the local
                         chain; npm start prints its address when it moved)
  -h, --help             this text

Buyer data, for payments at or above the partner's data-collection threshold (1000.00 by default):
  --buyer-data FILE      a JSON object with the fields of the option's collectData.schema
  --full-name NAME       fullName
  --dob YYYY-MM-DD       dob (date of birth)
  --pob-country CC       pobCountry, place of birth (ISO 3166-1 alpha-2, e.g. FR)
  --pob-address TEXT     pobAddress
  --por-country CC       porCountry, place of residence
  --por-address TEXT     porAddress
  Flags override the file's values. Sending data confirms the terms (tosConfirmed: true), as
  ticking the box of the data collection page does. Give either both pob fields or both por fields.

An x402 address (a payment's x402Url, http://…/v1/x402/payments/pay_…) is paid over HTTP 402 with
the published x402 client instead, as an agent would (docs/x402.md); it needs no --app-id.

Example:
  npm run pay -- pay_… --app-id app_… --full-name "Ada Lovelace" --dob 1990-12-10 \\
    --por-country GB --por-address "12 St James's Square, London"`

const dataFlags = {
  "full-name": "fullName",
  dob: "dob",
  "pob-country": "pobCountry",
  "pob-address": "pobAddress",
  "por-country": "porCountry",
  "por-address": "porAddress"
} as const

const parsed = parseCommandLine({
  "app-id": { type: "string" },
  key: { type: "string", default: anvilKey1 },
  url: { type: "string", default: "http://localhost:3000" },
  chain: { type: "string", default: "eip155:31337" },
  asset: { type: "string" },
  deposit: { type: "boolean" },
  "rpc-url": { type: "string", default: "http://127.0.0.1:8545" },
  "buyer-data": { type: "string" },
  ...Object.fromEntries(Object.keys(dataFlags).map((flag) => [flag, { type: "string" as const }])),
  help: { type: "boolean", short: "h" }
}, "npm run pay -- --help")
const { flag, id: paymentId, text } = optionsAndId(parsed, usage, "payment id", "npm run pay -- <paymentId> --app-id <app_…>")
const privateKey = text("key") as Hex
const wallet = accountOf(privateKey)
// An x402 address is paid over HTTP 402, with no gateway calls (the x402 client is loaded only then).
if (/^https?:\/\//.test(paymentId)) await (await import("./PayX402.ts")).payX402(paymentId, wallet)
if (!/^pay_[A-Za-z0-9]{1,64}$/.test(paymentId)) fail(`${JSON.stringify(paymentId)} is not a payment id (pay_…) nor an x402 address (http…)`, 2)
const appId = text("app-id") ?? fail("Missing --app-id <app_…>: the wallet app's public id that npm start printed", 2)
const baseUrl = serviceUrl(text("url")!)

/** The buyer data from `--buyer-data` and the data flags, or `undefined` when none was given. */
const buyerData = (() => {
  const file = text("buyer-data")
  let data: Record<string, unknown> = {}
  if (file !== undefined) {
    let content: string
    try {
      content = readFileSync(file, "utf8")
    } catch (error) {
      return fail(`--buyer-data: cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`, 2)
    }
    let json: unknown
    try {
      json = JSON.parse(content)
    } catch (error) {
      return fail(`--buyer-data: ${file} is not JSON (${(error as Error).message})`, 2)
    }
    if (typeof json !== "object" || json === null || Array.isArray(json)) {
      return fail(`--buyer-data: ${file} must hold a JSON object such as {"fullName": "…", "dob": "1990-12-10", …}`, 2)
    }
    data = json as Record<string, unknown>
  }
  for (const [flag, field] of Object.entries(dataFlags)) {
    const value = text(flag)
    if (value !== undefined) data[field] = value
  }
  if (Object.keys(data).length === 0) return undefined
  return { tosConfirmed: true, ...data }
})()

const headers = {
  "content-type": "application/json",
  "app-id": appId,
  "client-id": `pay-script-${process.pid}`,
  "sdk-name": "paygate pay script"
}

const call = serviceCaller(baseUrl, headers, `/v1/gateway/payment/${paymentId}`)

let step = 0
const say = (line: string) => console.log(`${++step}. ${line}`)

/** Follows the status from `current` until it is final; exits 0 when the payment succeeded. */
const follow = async (current: { status: string; isFinal: boolean }): Promise<never> => {
  say("follow the status")
  // Already final (a deposit the watcher credited before the first look): said once, as a poll would.
  if (current.isFinal) console.log(`   ${current.status}`)
  let status = current
  while (!status.isFinal) {
    status = await call("GET", "/status?maxPollMs=10000")
    console.log(`   ${status.status}`)
  }
  return process.exit(status.status === "succeeded" ? 0 : 1)
}

if (flag("deposit")) {
  if (buyerData !== undefined) fail("--deposit sends no buyer data: a payment that needs it is paid by signing (leave out --deposit)", 2)
  const rpcUrl = (() => {
    try {
      return new URL(text("rpc-url")!).href
    } catch {
      return fail(`--rpc-url ${JSON.stringify(text("rpc-url"))} is not a URL (e.g. http://127.0.0.1:8545)`, 2)
    }
  })()
  say(`deposit address on ${text("chain")}`)
  const offers = (await call("POST", "/deposit")).options as Array<any>
  const symbol = text("asset")
  const offer = offers.find((o) => o.network === text("chain") && (symbol === undefined || o.amount.display.assetSymbol === symbol))
  if (offer === undefined) {
    fail(offers.length === 0
      ? "This payment has no deposit address: no network has a deposit factory, or it needs the buyer's data (pay it without --deposit)"
      : `No ${symbol ?? "deposit"} option on ${text("chain")}; the payment offers ${offers.map((o) => `${o.amount.display.assetSymbol} on ${o.network}`).join(", ")} (--chain, --asset)`)
  }
  console.log(`   send ${offer.amount.value} base units of ${offer.amount.display.assetSymbol} (${offer.asset}) to ${offer.address}`)
  say(`transfer from ${wallet.address} through ${rpcUrl}`)
  const sent = await sendDeposit(offer, wallet, rpcUrl)
  if ("problem" in sent) fail(sent.problem)
  console.log(`   ${(sent as { hash: string }).hash}`)
  await follow(await call("GET", "/status"))
}

const account = `${text("chain")}:${wallet.address}`
// By default a signed option: EIP-3009, or Permit2 (its approve transactions before the signature).
const isSigned = (o: any) => o.actions.at(-1)?.data?.method === "eth_signTypedData_v4"
const asset = text("asset")
const chosen = (o: any) => (asset === undefined ? isSigned(o) : o.amount.display.assetSymbol === asset)
say(`options for ${account}`)
let option = ((await call("POST", "/options", { accounts: [account] })).options as Array<any>).find(chosen)
if (option === undefined) {
  fail(asset === undefined ? "No signed option for this account: is the payment in USD or EUR on the local chain?" : `No ${asset} option for this account.`)
}
console.log(`   ${option.amount.value} base units of ${option.amount.display.assetSymbol} (${option.amount.unit})`)

if (option.collectData != null) {
  const required: Array<string> = option.collectData.schema?.required ?? []
  if (buyerData === undefined) {
    fail(
      `This payment needs the buyer's data (${required.join(", ")}; and a place of birth or of residence): pass ` +
        `--full-name, --dob and --por-country with --por-address (or the pob pair), or --buyer-data file.json (--help)`
    )
  }
  say(`buyer data for ${account} (collect-data, as the data collection page sends it)`)
  await call("POST", "/collect-data", { account, data: buyerData })
  console.log(`   accepted: ${Object.keys(buyerData!).join(", ")}`)
  // The option no longer asks for data once the account has given it.
  option = ((await call("POST", "/options", { accounts: [account] })).options as Array<any>).find((o) => o.id === option.id) ?? option
} else if (buyerData !== undefined) {
  console.log("   (this payment needs no buyer data: the data given is not sent)")
}

// Each action in order: a signature, or a transaction the wallet sends and waits for (a Permit2 token's
// approve, or ether carrying the payment's reference).
const answers: Array<string> = []
for (const action of option.actions) {
  const answer = action.data.method === "eth_signTypedData_v4" ? await sign(action) : await sendTransaction(action)
  console.log(`   ${answer}`)
  answers.push(answer)
}
async function sign(action: any) {
  say(`sign the ${JSON.parse(action.data.params[1]).primaryType} typed data as ${wallet.address}`)
  // The adapters take a second to load: only once there is something to sign.
  const { Chain } = await import("@paygate/adapters")
  return Chain.LocalWallet.signOption(option, privateKey)
}
async function sendTransaction(action: any): Promise<string> {
  const [tx] = action.data.params as [{ to: Hex; value?: Hex; data?: Hex }]
  say(`send the transaction to ${tx.to} from ${wallet.address} (${text("rpc-url")})`)
  try {
    const sender = createWalletClient({ account: wallet, transport: http(text("rpc-url")) })
    const hash = await sender.sendTransaction({ chain: null, to: tx.to, value: BigInt(tx.value ?? "0x0"), ...(tx.data === undefined ? {} : { data: tx.data }) })
    await createPublicClient({ transport: http(text("rpc-url")) }).waitForTransactionReceipt({ hash, pollingInterval: 200 })
    return hash
  } catch (error) {
    return fail(`The transaction was not sent (${(error as Error).message.split("\n")[0]}): is --rpc-url the payment's chain?`)
  }
}

say("confirm")
const confirmed = await call("POST", "/confirm", {
  optionId: option.id,
  results: answers.map((answer) => ({ type: "walletRpc", data: [answer] })),
  collectedData: null
})
console.log(`   ${confirmed.status}`)
await follow(confirmed)
