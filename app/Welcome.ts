import type { SandboxCredentials } from "./Bootstrap.ts"

/** What `npm start` prints once it listens: where, what it accepts, and on a first start the sandbox credentials. */
export const welcome = (
  baseUrl: string,
  created: SandboxCredentials | undefined,
  tokens: ReadonlyArray<string>,
  localChains: ReadonlyArray<string>
) => {
  const lines = [``, `paygate is listening on ${baseUrl}  (API docs: ${baseUrl}/docs, OpenAPI: ${baseUrl}/openapi.json)`]
  lines.push(tokens.length === 0 ? `No chain configured (PAYGATE_CHAINS): payments have no options.` : `Accepting ${tokens.join(", ")}`)
  for (const chain of localChains) lines.push(`Local chain ${chain}: add it to a browser wallet to pay on the checkout page (gatewayUrl)`)
  if (created === undefined) {
    lines.push(`Using the existing database. New keys: npm run admin -- key create --partner <ptn_…> --sandbox`, ``)
  } else {
    lines.push(
      ``,
      `First start: created sandbox credentials. Keep them; secrets are stored hashed and shown only now.`,
      `  partner       ${created.partnerId}`,
      `  Api-Key       ${created.apiKey}`,
      `  Merchant-Id   ${created.merchantId}`,
      `  App-Id        ${created.appId}   (wallet Api-Key ${created.walletApiKey})`,
      ``,
      `Create a payment:`,
      `  curl -s ${baseUrl}/v1/merchant/payment \\`,
      `    -H 'Api-Key: ${created.apiKey}' -H 'Merchant-Id: ${created.merchantId}' \\`,
      `    -H 'Content-Type: application/json' \\`,
      `    -d '{"amount":{"unit":"iso4217/USD","value":"1050"},"referenceId":"order-1"}'`,
      ``,
      `Pay it in a browser: open the gatewayUrl of the answer (README: "Pay in the browser: the hosted checkout").`,
      ``,
      `Or pay it as a wallet would, with anvil's well-known test account #1 (README: "Pay a sandbox payment"):`,
      `  npm run pay -- <paymentId> --app-id ${created.appId} --url ${baseUrl}`,
      ``
    )
  }
  console.log(lines.join("\n"))
}
