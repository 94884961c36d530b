import { Option } from "effect"
import type { Sandbox } from "./Bootstrap.ts"

/**
 * What `npm start` prints once it listens: where, what it accepts, and the sandbox's ids with
 * ready-to-paste commands on every start; its secret keys only on the first start, when they are
 * created (they are stored hashed and cannot be shown again).
 */
export const welcome = (
  baseUrl: string,
  sandbox: Option.Option<Sandbox>,
  tokens: ReadonlyArray<string>,
  localChains: ReadonlyArray<string>,
  /** The sandbox's `export` lines, when the local set-up keeps them (`data/sandbox.env`). */
  envFile: string | undefined,
  /** The symbol of a token pegged to EUR, when one is configured: EUR payments are payable then. */
  euroToken?: string | undefined
) => {
  const lines = [
    ``,
    `paygate is listening on ${baseUrl}  (API docs: ${baseUrl}/docs, OpenAPI: ${baseUrl}/openapi.json)`,
    `Dashboard: ${baseUrl}/dashboard  (sign in with a partner's secret API key)`
  ]
  lines.push(tokens.length === 0 ? `No chain configured (PAYGATE_CHAINS): payments have no options.` : `Accepting ${tokens.join(", ")}`)
  for (const chain of localChains) lines.push(`Local chain ${chain}: add it to a browser wallet to pay on the checkout page (gatewayUrl)`)
  if (Option.isNone(sandbox)) {
    lines.push(`Using the existing database. List partners: npm run -s admin -- partner list`, ``)
    console.log(lines.join("\n"))
    return
  }
  const { ids, secrets } = sandbox.value
  const apiKey = Option.match(secrets, { onNone: () => "$API_KEY", onSome: (s) => s.apiKey })
  lines.push(``)
  if (Option.isSome(secrets)) {
    lines.push(`First start: created sandbox credentials. Keep the keys; secrets are stored hashed and shown only now.`)
    if (envFile !== undefined) lines.push(`Also written to ${envFile} (owner-only): source ${envFile} sets API_KEY, MERCHANT_ID, APP_ID and the rest.`)
  } else {
    lines.push(`Sandbox (created on the first start; its Api-Key was shown then, stored hashed):`)
    if (envFile !== undefined) lines.push(`Its credentials: source ${envFile}`)
  }
  lines.push(
    `  partner       ${ids.partnerId}`,
    `  Api-Key       ${Option.match(secrets, { onNone: () => `not shown again; mint another: npm run -s admin -- key create --partner ${ids.partnerId} --sandbox`, onSome: (s) => s.apiKey })}`,
    `  Merchant-Id   ${ids.merchantId}`,
    `  App-Id        ${ids.appId}${Option.match(secrets, { onNone: () => "", onSome: (s) => `   (wallet Api-Key ${s.walletApiKey})` })}`,
    ``,
    `Create a payment: 10.50 USD, written "1050" (amounts are integers in minor units, cents):`,
    `  curl -s ${baseUrl}/v1/merchant/payment \\`,
    `    -H "Api-Key: ${apiKey}" -H 'Merchant-Id: ${ids.merchantId}' \\`,
    `    -H 'Content-Type: application/json' \\`,
    `    -d '{"amount":{"unit":"iso4217/USD","value":"1050"},"referenceId":"order-1"}'`,
    ``,
    ...(euroToken === undefined ? [] : [
      `A EUR payment is payable too, in ${euroToken} at 1:1: the same request with`,
      `    -d '{"amount":{"unit":"iso4217/EUR","value":"1050"},"referenceId":"order-2"}'`,
      ``
    ]),
    `Pay it in a browser: open the gatewayUrl of the answer (docs/accepting-payments.md, "The hosted checkout").`,
    ``,
    `Or pay it as a wallet would, with anvil's well-known test account #1 (docs/getting-started.md, "Pay a sandbox payment"):`,
    `  npm run pay -- <paymentId> --app-id ${ids.appId} --url ${baseUrl}`,
    ``
  )
  console.log(lines.join("\n"))
}
